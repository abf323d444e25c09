/// ISO/IEC 14496-12 §8.4.2 `MediaHeaderBox` ('mdhd'), version 0: the track's timescale.
///
/// The language is ISO 639-2/T "und" packed as three 5-bit letters (each minus 0x60)
/// after a pad bit: 'u'=21, 'n'=14, 'd'=4 → 0x55C4.
public struct MediaHeaderBox: BoxWritable, Equatable {
    public var timescale: UInt32

    public init(timescale: UInt32) { self.timescale = timescale }

    static let undeterminedLanguage: UInt16 = 0x55C4

    public func write(to writer: inout BoxWriter) {
        writer.fullBox("mdhd", version: 0, flags: 0) { body in
            body.write(UInt32(0))   // creation_time
            body.write(UInt32(0))   // modification_time
            body.write(timescale)
            body.write(UInt32(0))   // duration
            body.write(Self.undeterminedLanguage)
            body.write(UInt16(0))   // pre_defined
        }
    }
}
