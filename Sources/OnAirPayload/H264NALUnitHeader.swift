/// The one-byte H.264 NAL unit header (H.264 §7.3.1; RFC 6184 §5.3):
///
/// ```
/// +---------------+
/// |0|1|2|3|4|5|6|7|
/// +-+-+-+-+-+-+-+-+
/// |F|NRI|  Type   |
/// +---------------+
/// ```
///
/// RFC 6184 reuses the same octet as the header of every RTP payload, where it also
/// names the payload structure (STAP-A, FU-A, ...).
public struct H264NALUnitHeader: Hashable, Sendable {
    public let byte: UInt8

    public init(_ byte: UInt8) { self.byte = byte }

    public init(forbiddenZeroBit: Bool = false, nalRefIdc: UInt8, type: H264NALUnitType) {
        byte = (forbiddenZeroBit ? 0x80 : 0) | (nalRefIdc & 0x03) << 5 | type.rawValue
    }

    /// F: must be 0 in H.264; RFC 6184 §5.3 lets a network element set it to 1 to mark a
    /// NAL unit that may contain bit errors or syntax violations.
    public var forbiddenZeroBit: Bool { byte & 0x80 != 0 }

    /// NRI (`nal_ref_idc`), 0...3: 0 means the NAL unit is not used for reference
    /// (H.264 §7.4.1); RFC 6184 §5.3 also reads it as a relative priority.
    public var nalRefIdc: UInt8 { (byte >> 5) & 0x03 }

    public var type: H264NALUnitType { H264NALUnitType(byte) }
}
