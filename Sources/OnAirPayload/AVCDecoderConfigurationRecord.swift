import OnAirWire

/// ISO/IEC 14496-15 §5.3.3.1 `AVCDecoderConfigurationRecord`: the payload of the `avcC`
/// box in an MP4/fMP4 sample entry. It carries the parameter sets out of band and the
/// size of the NAL unit length fields in the samples.
///
/// ```
/// configurationVersion = 1         u8
/// AVCProfileIndication             u8   (profile_idc)
/// profile_compatibility            u8   (the SPS constraint flags byte)
/// AVCLevelIndication               u8   (level_idc)
/// '111111'b lengthSizeMinusOne     u8
/// '111'b numOfSequenceParameterSets u8, then per SPS: u16 length + NAL unit
/// numOfPictureParameterSets        u8,  then per PPS: u16 length + NAL unit
/// if profile is 100, 110, 122 or 144:
///   '111111'b chroma_format, '11111'b bit_depth_luma_minus8,
///   '11111'b bit_depth_chroma_minus8, numOfSequenceParameterSetExt u8 + SPS extensions
/// ```
public struct AVCDecoderConfigurationRecord: Hashable, Sendable {
    /// The profiles after which the record carries chroma format and bit depths.
    public static let profilesWithExtension: Set<UInt8> = [100, 110, 122, 144]

    /// ISO/IEC 14496-15 §5.3.3.1.2 fields that only high profiles carry.
    public struct HighProfileFields: Hashable, Sendable {
        public var chromaFormat: UInt8
        public var bitDepthLumaMinus8: UInt8
        public var bitDepthChromaMinus8: UInt8
        public var sequenceParameterSetExtensions: [[UInt8]]

        public init(chromaFormat: UInt8, bitDepthLumaMinus8: UInt8, bitDepthChromaMinus8: UInt8,
                    sequenceParameterSetExtensions: [[UInt8]] = []) {
            self.chromaFormat = chromaFormat
            self.bitDepthLumaMinus8 = bitDepthLumaMinus8
            self.bitDepthChromaMinus8 = bitDepthChromaMinus8
            self.sequenceParameterSetExtensions = sequenceParameterSetExtensions
        }
    }

    public var profileIndication: UInt8
    public var profileCompatibility: UInt8
    public var levelIndication: UInt8
    /// Bytes per NAL unit length in the samples: 1, 2 or 4.
    public var lengthSize: Int
    /// Whole SPS NAL units (header byte included, emulation prevention in place).
    public var sequenceParameterSets: [[UInt8]]
    public var pictureParameterSets: [[UInt8]]
    /// Present for the profiles in ``profilesWithExtension``; nil when absent (older
    /// writers leave it out, and readers must cope).
    public var highProfileFields: HighProfileFields?

    public init(profileIndication: UInt8, profileCompatibility: UInt8, levelIndication: UInt8,
                lengthSize: Int = AVCC.defaultLengthSize, sequenceParameterSets: [[UInt8]],
                pictureParameterSets: [[UInt8]], highProfileFields: HighProfileFields? = nil) {
        self.profileIndication = profileIndication
        self.profileCompatibility = profileCompatibility
        self.levelIndication = levelIndication
        self.lengthSize = lengthSize
        self.sequenceParameterSets = sequenceParameterSets
        self.pictureParameterSets = pictureParameterSets
        self.highProfileFields = highProfileFields
    }

    /// The record for one SPS and one PPS: profile, compatibility and level come from the
    /// SPS (§5.3.3.1.2 says they must match it), and so do the high profile fields.
    public init(sps: [UInt8], pps: [UInt8], lengthSize: Int = AVCC.defaultLengthSize) throws(WireError) {
        let parsed = try H264SPS(nalUnit: sps)
        guard let ppsHeader = pps.first, H264NALUnitHeader(ppsHeader).type == .pps else {
            throw .invalid("the PPS NAL unit is empty or not of type 8")
        }
        self.init(profileIndication: parsed.profileIdc, profileCompatibility: parsed.constraintFlags,
                  levelIndication: parsed.levelIdc, lengthSize: lengthSize,
                  sequenceParameterSets: [sps], pictureParameterSets: [pps])
        if Self.profilesWithExtension.contains(parsed.profileIdc) {
            highProfileFields = HighProfileFields(
                chromaFormat: UInt8(parsed.chromaFormatIdc), bitDepthLumaMinus8: UInt8(parsed.bitDepthLuma - 8),
                bitDepthChromaMinus8: UInt8(parsed.bitDepthChroma - 8))
        }
    }

    /// Parses an `avcC` box payload.
    public init(parsing bytes: [UInt8]) throws(WireError) {
        var r = ByteReader(bytes)
        let version = try r.readUInt8()
        guard version == 1 else { throw .invalid("AVCDecoderConfigurationRecord version \(version), expected 1") }
        profileIndication = try r.readUInt8()
        profileCompatibility = try r.readUInt8()
        levelIndication = try r.readUInt8()
        let lengthSizeMinusOne = try r.readUInt8() & 0x03
        guard lengthSizeMinusOne != 2 else { throw .invalid("avcC lengthSizeMinusOne 2 (3-byte lengths) is not allowed") }
        lengthSize = Int(lengthSizeMinusOne) + 1
        sequenceParameterSets = try Self.readParameterSets(&r, count: Int(try r.readUInt8() & 0x1F))
        pictureParameterSets = try Self.readParameterSets(&r, count: Int(try r.readUInt8()))
        if Self.profilesWithExtension.contains(profileIndication) && r.remaining >= 4 {
            let chroma = try r.readUInt8() & 0x03
            let luma = try r.readUInt8() & 0x07
            let chromaDepth = try r.readUInt8() & 0x07
            let extensions = try Self.readParameterSets(&r, count: Int(try r.readUInt8()))
            highProfileFields = HighProfileFields(chromaFormat: chroma, bitDepthLumaMinus8: luma,
                                                  bitDepthChromaMinus8: chromaDepth,
                                                  sequenceParameterSetExtensions: extensions)
        } else {
            highProfileFields = nil
        }
    }

    /// The `avcC` box payload. Reserved bits are written as ones, as §5.3.3.1.1 requires.
    /// Counts and lengths beyond their field widths (31 SPS, 255 PPS, 65535 bytes) are
    /// not representable; callers pass real parameter sets, which are far smaller.
    public func serialize() -> [UInt8] {
        var w = ByteWriter(capacity: 16 + (sequenceParameterSets + pictureParameterSets).reduce(0) { $0 + 2 + $1.count })
        w.write(UInt8(1))
        w.write(profileIndication)
        w.write(profileCompatibility)
        w.write(levelIndication)
        w.write(UInt8(0xFC) | UInt8(truncatingIfNeeded: max(1, min(lengthSize, 4)) - 1))
        w.write(UInt8(0xE0) | UInt8(min(sequenceParameterSets.count, 31)))
        Self.writeParameterSets(sequenceParameterSets.prefix(31), to: &w)
        w.write(UInt8(min(pictureParameterSets.count, 255)))
        Self.writeParameterSets(pictureParameterSets.prefix(255), to: &w)
        if let high = highProfileFields, Self.profilesWithExtension.contains(profileIndication) {
            w.write(UInt8(0xFC) | high.chromaFormat & 0x03)
            w.write(UInt8(0xF8) | high.bitDepthLumaMinus8 & 0x07)
            w.write(UInt8(0xF8) | high.bitDepthChromaMinus8 & 0x07)
            w.write(UInt8(min(high.sequenceParameterSetExtensions.count, 255)))
            Self.writeParameterSets(high.sequenceParameterSetExtensions.prefix(255), to: &w)
        }
        return w.bytes
    }

    /// RFC 6381 §3.3 codecs parameter for AVC: `avc1.` then profile_idc, the constraint
    /// byte and level_idc as two hex digits each (for example `avc1.42E01E`).
    public var codecString: String {
        "avc1." + Hex.encode([profileIndication, profileCompatibility, levelIndication], uppercase: true)
    }

    private static func readParameterSets(_ r: inout ByteReader, count: Int) throws(WireError) -> [[UInt8]] {
        var sets: [[UInt8]] = []
        for _ in 0..<count {
            let length = Int(try r.readUInt16())
            sets.append(try r.readBytes(length))
        }
        return sets
    }

    private static func writeParameterSets(_ sets: ArraySlice<[UInt8]>, to w: inout ByteWriter) {
        for set in sets {
            let length = min(set.count, 65535)
            w.write(UInt16(length))
            w.write(contentsOf: set.prefix(length))
        }
    }
}
