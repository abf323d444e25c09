import OnAirWire

/// The ERROR-CODE attribute's value: a code 300-699 and a UTF-8 reason phrase (RFC 8489 §14.8).
///
/// On the wire: 21 reserved zero bits, the hundreds digit in 3 bits ("class"), the rest
/// (0-99) in 8 bits ("number"), then the reason.
public struct STUNErrorCode: Hashable, Sendable, CustomStringConvertible {
    /// 300...699.
    public var code: Int
    public var reason: String

    /// `code` must be in 300...699 (RFC 8489 §14.8); values outside are clamped to 500 rather
    /// than producing an attribute the peer must reject.
    public init(code: Int, reason: String) {
        self.code = (300...699).contains(code) ? code : 500
        self.reason = reason
    }

    /// RFC 8489 §14.8 300 Try Alternate
    public static let tryAlternate = STUNErrorCode(code: 300, reason: "Try Alternate")
    /// RFC 8489 §14.8 400 Bad Request: malformed, or missing a required attribute.
    public static let badRequest = STUNErrorCode(code: 400, reason: "Bad Request")
    /// RFC 8489 §14.8 401 Unauthenticated: wrong USERNAME or MESSAGE-INTEGRITY.
    public static let unauthenticated = STUNErrorCode(code: 401, reason: "Unauthenticated")
    /// RFC 8489 §14.8 420 Unknown Attribute, with an UNKNOWN-ATTRIBUTES list.
    public static let unknownAttribute = STUNErrorCode(code: 420, reason: "Unknown Attribute")
    /// RFC 8489 §14.8 438 Stale Nonce
    public static let staleNonce = STUNErrorCode(code: 438, reason: "Stale Nonce")
    /// RFC 8445 §7.3.1.1 487 Role Conflict
    public static let roleConflict = STUNErrorCode(code: 487, reason: "Role Conflict")
    /// RFC 8489 §14.8 500 Server Error
    public static let serverError = STUNErrorCode(code: 500, reason: "Server Error")

    /// The value bytes of an ERROR-CODE attribute.
    var encoded: [UInt8] {
        [0, 0, UInt8(code / 100), UInt8(code % 100)] + Array(reason.utf8)
    }

    /// Parses an ERROR-CODE value. The reason is informational, so invalid UTF-8 in it is
    /// repaired rather than rejected.
    static func decode(_ value: [UInt8]) throws(WireError) -> STUNErrorCode {
        guard value.count >= 4 else { throw .invalid("ERROR-CODE shorter than 4 bytes") }
        let hundreds = Int(value[2] & 0x07)
        let number = Int(value[3])
        guard (3...6).contains(hundreds), number < 100 else {
            throw .invalid("ERROR-CODE class \(hundreds) number \(number) out of range")
        }
        return STUNErrorCode(code: hundreds * 100 + number, reason: String(decoding: value[4...], as: UTF8.self))
    }

    /// Codes compare by number; the reason phrase is free text.
    public static func == (a: STUNErrorCode, b: STUNErrorCode) -> Bool { a.code == b.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String { "\(code) \(reason)" }
}
