/// The 5-bit `nal_unit_type` of an H.264 NAL unit header: ITU-T H.264 Table 7-1, plus
/// the types that only exist inside RTP payloads (RFC 6184 §5.2 Table 1).
///
/// A struct rather than an enum so every 5-bit value is representable: reserved and
/// unspecified types arrive from the network and must be carried, not rejected.
public struct H264NALUnitType: Hashable, Sendable, CustomStringConvertible {
    /// 0...31.
    public let rawValue: UInt8

    /// Keeps the low 5 bits of `value`.
    public init(_ value: UInt8) { rawValue = value & 0x1F }

    // ITU-T H.264 Table 7-1.
    public static let unspecified = Self(0)
    /// Coded slice of a non-IDR picture.
    public static let nonIDRSlice = Self(1)
    public static let sliceDataPartitionA = Self(2)
    public static let sliceDataPartitionB = Self(3)
    public static let sliceDataPartitionC = Self(4)
    /// Coded slice of an IDR picture: decoding can start here.
    public static let idrSlice = Self(5)
    /// Supplemental enhancement information.
    public static let sei = Self(6)
    /// Sequence parameter set.
    public static let sps = Self(7)
    /// Picture parameter set.
    public static let pps = Self(8)
    public static let accessUnitDelimiter = Self(9)
    public static let endOfSequence = Self(10)
    public static let endOfStream = Self(11)
    public static let fillerData = Self(12)
    public static let spsExtension = Self(13)
    public static let prefixNALUnit = Self(14)
    public static let subsetSPS = Self(15)
    public static let auxiliarySlice = Self(19)
    public static let sliceExtension = Self(20)

    // RFC 6184 §5.2 Table 1: payload structures, never in a byte stream.
    /// RFC 6184 §5.7.1 single-time aggregation packet, type A.
    public static let stapA = Self(24)
    /// RFC 6184 §5.7.1 STAP-B (interleaved mode only).
    public static let stapB = Self(25)
    /// RFC 6184 §5.7.2 multi-time aggregation packets (interleaved mode only).
    public static let mtap16 = Self(26)
    public static let mtap24 = Self(27)
    /// RFC 6184 §5.8 fragmentation unit, type A.
    public static let fuA = Self(28)
    /// RFC 6184 §5.8 FU-B (interleaved mode only).
    public static let fuB = Self(29)

    /// Types 1...5 carry coded slice data (H.264 §7.4.1.2.3 VCL NAL units).
    public var isVCL: Bool { (1...5).contains(rawValue) }

    /// Types 1...23 may travel as they are in a single NAL unit packet (RFC 6184 §5.6).
    public var isSingleNALUnit: Bool { (1...23).contains(rawValue) }

    public var description: String {
        switch rawValue {
        case 1: return "non-IDR slice"
        case 2, 3, 4: return "slice data partition \(["A", "B", "C"][Int(rawValue) - 2])"
        case 5: return "IDR slice"
        case 6: return "SEI"
        case 7: return "SPS"
        case 8: return "PPS"
        case 9: return "AUD"
        case 10: return "end of sequence"
        case 11: return "end of stream"
        case 12: return "filler"
        case 24: return "STAP-A"
        case 25: return "STAP-B"
        case 26: return "MTAP16"
        case 27: return "MTAP24"
        case 28: return "FU-A"
        case 29: return "FU-B"
        default: return "NAL type \(rawValue)"
        }
    }
}
