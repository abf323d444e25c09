/// ISO/IEC 14496-12 §4.3 `FileTypeBox` ('ftyp'), and §8.16.2 `SegmentTypeBox` ('styp'),
/// which has the same layout: major_brand(32) minor_version(32) compatible_brands(32)[].
public struct FileTypeBox: BoxWritable, Equatable {
    public var type: FourCC
    public var majorBrand: FourCC
    public var minorVersion: UInt32
    public var compatibleBrands: [FourCC]

    public init(type: FourCC = "ftyp", majorBrand: FourCC, minorVersion: UInt32 = 0, compatibleBrands: [FourCC]) {
        self.type = type
        self.majorBrand = majorBrand
        self.minorVersion = minorVersion
        self.compatibleBrands = compatibleBrands
    }

    /// The brands of our fragmented files: 'iso6' (ISO/IEC 14496-12 6th edition: `tfdt`),
    /// 'iso5' (`default-base-is-moof`, §8.8.7.1) and 'mp41'. Not 'cmfc': a CMAF track file
    /// holds exactly one track (ISO/IEC 23000-19 §7.3.2), and ours mux audio with video.
    public static let fragmentedMP4 = FileTypeBox(majorBrand: "iso6", compatibleBrands: ["iso6", "iso5", "mp41"])

    public func write(to writer: inout BoxWriter) {
        writer.box(type) { body in
            body.write(majorBrand)
            body.write(minorVersion)
            for brand in compatibleBrands { body.write(brand) }
        }
    }
}
