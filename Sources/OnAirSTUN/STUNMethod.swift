/// A 12-bit STUN method (RFC 8489 §5, §18.2). ICE uses Binding, TURN its own (RFC 8656 §17); any method
/// parses so that unsupported ones can be answered instead of dropped.
public struct STUNMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16

    /// nil when the value does not fit in the 12 method bits.
    public init?(rawValue: UInt16) {
        guard rawValue <= 0x0FFF else { return nil }
        self.rawValue = rawValue
    }

    /// RFC 8489 §18.2 Binding, the only method of STUN itself and of ICE checks.
    public static let binding = STUNMethod(rawValue: 0x001)!

    public var description: String {
        switch rawValue {
        case 0x001: return "Binding"
        case 0x003: return "Allocate"
        case 0x004: return "Refresh"
        case 0x006: return "Send"
        case 0x007: return "Data"
        case 0x008: return "CreatePermission"
        case 0x009: return "ChannelBind"
        default: return "method 0x" + String(rawValue, radix: 16)
        }
    }
}
