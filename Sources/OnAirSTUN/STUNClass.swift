/// The class of a STUN message, two bits spread over the message type (RFC 8489 §5).
public enum STUNClass: UInt8, Sendable, Hashable, CaseIterable {
    case request = 0b00
    case indication = 0b01
    case successResponse = 0b10
    case errorResponse = 0b11
}
