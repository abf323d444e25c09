/// ISO/IEC 14496-12 §8.2.2 `MovieHeaderBox` ('mvhd'), version 0.
///
/// A live fragmented file has no known duration: creation/modification times and the
/// duration are zero (§8.8.1: the duration of a fragmented movie comes from its fragments).
public struct MovieHeaderBox: BoxWritable, Equatable {
    public var timescale: UInt32
    public var nextTrackID: UInt32

    public init(timescale: UInt32 = 1000, nextTrackID: UInt32) {
        self.timescale = timescale
        self.nextTrackID = nextTrackID
    }

    public func write(to writer: inout BoxWriter) {
        writer.fullBox("mvhd", version: 0, flags: 0) { body in
            body.write(UInt32(0))              // creation_time
            body.write(UInt32(0))              // modification_time
            body.write(timescale)
            body.write(UInt32(0))              // duration
            body.write(UInt32(0x0001_0000))    // rate 1.0 (16.16)
            body.write(UInt16(0x0100))         // volume 1.0 (8.8)
            body.writeZeros(2 + 8)             // reserved(16), reserved(32)[2]
            body.writeUnityMatrix()
            body.writeZeros(24)                // pre_defined(32)[6]
            body.write(nextTrackID)
        }
    }
}
