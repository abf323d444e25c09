/// A JWS in compact serialization (RFC 7515 §7.1): `BASE64URL(header).BASE64URL(payload).BASE64URL(signature)`,
/// split and decoded once. The signing input is the first two parts as sent (RFC 7515 §5.2 step 8).
public struct CompactToken: Sendable {
    public let header: [UInt8]
    public let payload: [UInt8]
    public let signature: [UInt8]
    public let signingInput: ArraySlice<UInt8>

    public init(_ token: String) throws(TokenError) {
        let bytes = Array(token.utf8)
        guard let firstDot = bytes.firstIndex(of: UInt8(ascii: ".")),
              let secondDot = bytes[(firstDot + 1)...].firstIndex(of: UInt8(ascii: ".")),
              bytes[(secondDot + 1)...].firstIndex(of: UInt8(ascii: ".")) == nil
        else {
            throw .malformed("not a JWT (three base64url parts separated by dots, RFC 7515 §7.1)")
        }
        guard let header = Base64URL.decode(bytes[..<firstDot]),
              let payload = Base64URL.decode(bytes[(firstDot + 1)..<secondDot]),
              let signature = Base64URL.decode(bytes[(secondDot + 1)...])
        else {
            throw .malformed("a part is not base64url without padding (RFC 7515 §2)")
        }
        self.header = header
        self.payload = payload
        self.signature = signature
        signingInput = bytes[..<secondDot]
    }

    /// Whether `text` has the shape of a compact JWS (two dots), to tell a JWT from a static token.
    public static func looksLikeJWT(_ text: String) -> Bool {
        var dots = 0
        for c in text.utf8 where c == UInt8(ascii: ".") { dots += 1 }
        return dots == 2
    }
}
