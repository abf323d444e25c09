/// The 14-bit STUN message type: a method and a class interleaved (RFC 8489 §5).
///
/// ```
///  0                 1
///  2  3  4 5 6 7 8 9 0 1 2 3 4 5
/// +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
/// |M |M |M|M|M|C|M|M|M|C|M|M|M|M|
/// |11|10|9|8|7|1|6|5|4|0|3|2|1|0|
/// +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct STUNMessageType: Hashable, Sendable, CustomStringConvertible {
    public var method: STUNMethod
    public var messageClass: STUNClass

    public init(method: STUNMethod, messageClass: STUNClass) {
        self.method = method
        self.messageClass = messageClass
    }

    /// Decodes the first two bytes of a message; nil when either of the two most significant
    /// bits is set, since RFC 8489 §6 requires them to be zero (that is how STUN is told apart
    /// from other protocols on the same port).
    public init?(rawValue: UInt16) {
        guard rawValue & 0xC000 == 0 else { return nil }
        let method = (rawValue & 0x000F) | ((rawValue & 0x00E0) >> 1) | ((rawValue & 0x3E00) >> 2)
        let classBits = ((rawValue >> 4) & 0x1) | ((rawValue >> 7) & 0x2)
        // Both always succeed: the masks leave at most 12 method bits and 2 class bits.
        guard let m = STUNMethod(rawValue: method), let c = STUNClass(rawValue: UInt8(classBits)) else {
            return nil
        }
        self.method = m
        self.messageClass = c
    }

    public var rawValue: UInt16 {
        let m = method.rawValue
        let c = UInt16(messageClass.rawValue)
        return (m & 0x000F) | ((m & 0x0070) << 1) | ((m & 0x0F80) << 2) | ((c & 0x1) << 4) | ((c & 0x2) << 7)
    }

    public static let bindingRequest = STUNMessageType(method: .binding, messageClass: .request)
    public static let bindingIndication = STUNMessageType(method: .binding, messageClass: .indication)
    public static let bindingSuccessResponse = STUNMessageType(method: .binding, messageClass: .successResponse)
    public static let bindingErrorResponse = STUNMessageType(method: .binding, messageClass: .errorResponse)

    public var description: String { "\(method) \(messageClass)" }
}
