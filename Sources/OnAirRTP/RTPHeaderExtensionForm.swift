/// The two general mechanisms of RFC 8285 §4, told apart by the 16-bit "defined by
/// profile" field of the RFC 3550 §5.3.1 header extension.
public enum RTPHeaderExtensionForm: Sendable, Hashable {
    /// RFC 8285 §4.2: profile 0xBEDE; IDs 1-14, 1-16 data bytes per element.
    case oneByte
    /// RFC 8285 §4.3: profile 0x100 in the top 12 bits plus 4 application bits;
    /// IDs 1-255, 0-255 data bytes per element.
    case twoByte(appBits: UInt8)

    public static let oneByteProfile: UInt16 = 0xBEDE
    public static let twoByteProfileBase: UInt16 = 0x1000

    /// The form named by `profile`, or nil for a profile RFC 8285 does not define.
    public init?(profile: UInt16) {
        if profile == Self.oneByteProfile {
            self = .oneByte
        } else if profile & 0xFFF0 == Self.twoByteProfileBase {
            self = .twoByte(appBits: UInt8(profile & 0x000F))
        } else {
            return nil
        }
    }

    /// The "defined by profile" value to write for this form.
    public var profile: UInt16 {
        switch self {
        case .oneByte: return Self.oneByteProfile
        case .twoByte(let appBits): return Self.twoByteProfileBase | UInt16(appBits & 0x0F)
        }
    }

    /// Bytes before each element's data: ID/length nibbles, or ID and length octets.
    public var elementHeaderSize: Int {
        if case .oneByte = self { return 1 }
        return 2
    }

    /// Whether an element with this ID and data length can be written in this form.
    public func canEncode(id: UInt8, dataCount: Int) -> Bool {
        switch self {
        case .oneByte: return (1...14).contains(id) && (1...16).contains(dataCount)
        case .twoByte: return id >= 1 && (0...255).contains(dataCount)
        }
    }
}
