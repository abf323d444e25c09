/// A STUN attribute type (RFC 8489 §14, §18.3; ICE additions RFC 8445 §16.1).
public struct STUNAttributeType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// RFC 8489 §14: types 0x0000-0x7FFF are comprehension-required (a receiver that does not
    /// understand one must not process the message), 0x8000-0xFFFF comprehension-optional.
    public var isComprehensionRequired: Bool { rawValue < 0x8000 }

    /// RFC 8489 §14.1
    public static let mappedAddress = STUNAttributeType(rawValue: 0x0001)
    /// RFC 8489 §14.3
    public static let username = STUNAttributeType(rawValue: 0x0006)
    /// RFC 8489 §14.5
    public static let messageIntegrity = STUNAttributeType(rawValue: 0x0008)
    /// RFC 8489 §14.8
    public static let errorCode = STUNAttributeType(rawValue: 0x0009)
    /// RFC 8489 §14.13
    public static let unknownAttributes = STUNAttributeType(rawValue: 0x000A)
    /// RFC 8489 §14.9
    public static let realm = STUNAttributeType(rawValue: 0x0014)
    /// RFC 8489 §14.10
    public static let nonce = STUNAttributeType(rawValue: 0x0015)
    /// RFC 8489 §14.6
    public static let messageIntegritySHA256 = STUNAttributeType(rawValue: 0x001C)
    /// RFC 8489 §14.4
    public static let userhash = STUNAttributeType(rawValue: 0x001E)
    /// RFC 8489 §14.2
    public static let xorMappedAddress = STUNAttributeType(rawValue: 0x0020)
    /// RFC 8445 §16.1 PRIORITY
    public static let priority = STUNAttributeType(rawValue: 0x0024)
    /// RFC 8445 §16.1 USE-CANDIDATE
    public static let useCandidate = STUNAttributeType(rawValue: 0x0025)
    /// RFC 8489 §14.14
    public static let software = STUNAttributeType(rawValue: 0x8022)
    /// RFC 8489 §14.15
    public static let alternateServer = STUNAttributeType(rawValue: 0x8023)
    /// RFC 8489 §14.7
    public static let fingerprint = STUNAttributeType(rawValue: 0x8028)
    /// RFC 8445 §16.1 ICE-CONTROLLED
    public static let iceControlled = STUNAttributeType(rawValue: 0x8029)
    /// RFC 8445 §16.1 ICE-CONTROLLING
    public static let iceControlling = STUNAttributeType(rawValue: 0x802A)

    /// The comprehension-required attributes this module processes. Anything else in the
    /// 0x0000-0x7FFF range in a request earns a 420 (RFC 8489 §6.3.1). Long-term credential
    /// attributes (REALM, NONCE, USERHASH) and MESSAGE-INTEGRITY-SHA256 are deliberately absent:
    /// we do not implement them, and answering 420 is what §6.3.1 asks for.
    public static let understood: Set<STUNAttributeType> = [
        .mappedAddress, .username, .messageIntegrity, .errorCode, .unknownAttributes,
        .xorMappedAddress, .priority, .useCandidate,
    ]

    public var description: String {
        switch self {
        case .mappedAddress: return "MAPPED-ADDRESS"
        case .username: return "USERNAME"
        case .messageIntegrity: return "MESSAGE-INTEGRITY"
        case .errorCode: return "ERROR-CODE"
        case .unknownAttributes: return "UNKNOWN-ATTRIBUTES"
        case .realm: return "REALM"
        case .nonce: return "NONCE"
        case .messageIntegritySHA256: return "MESSAGE-INTEGRITY-SHA256"
        case .userhash: return "USERHASH"
        case .xorMappedAddress: return "XOR-MAPPED-ADDRESS"
        case .priority: return "PRIORITY"
        case .useCandidate: return "USE-CANDIDATE"
        case .software: return "SOFTWARE"
        case .alternateServer: return "ALTERNATE-SERVER"
        case .fingerprint: return "FINGERPRINT"
        case .iceControlled: return "ICE-CONTROLLED"
        case .iceControlling: return "ICE-CONTROLLING"
        default:
            let hex = String(rawValue, radix: 16)
            return "0x" + String(repeating: "0", count: 4 - hex.count) + hex
        }
    }
}
