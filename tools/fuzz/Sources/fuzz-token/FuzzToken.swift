import Foundation
import FuzzSupport
import OnAirTokenFormat

// fuzz-token: one input is one access token as a server reads it from `Authorization: Bearer`
// or a chat join frame: CompactToken (RFC 7515 §7.1: three base64url parts), the JOSE header,
// the claims (RFC 7519), and the room pattern the claims carry. The signature is not checked
// here (that is jwt-kit's and the key's): everything before it is ours.
//
// Invariants: base64url is canonical (a decoded part encodes back to the same text); a parse
// gives a token or a TokenError with a description; claims that decode encode and decode
// again to the same claims; a room pattern prints back to a pattern that parses the same.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    // Each part on its own, as base64url.
    for part in text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false) {
        if let decoded = Base64URL.decode(ArraySlice(part)) {
            fuzzCheck(Base64URL.encode(decoded) == String(decoding: part, as: UTF8.self), "base64url is not canonical")
        }
    }
    let token: CompactToken
    do {
        token = try CompactToken(text)
    } catch {
        fuzzCheck(!error.description.isEmpty, "a refusal without a reason")
        return 0
    }
    fuzzCheck(CompactToken.looksLikeJWT(text), "a token that does not look like one")
    _ = try? JOSEHeader.decode(token.header)
    // The payload as claims; then the raw input as claims too (reaches the JSON paths directly).
    for json in [token.payload, bytes] {
        guard let claims = try? AccessClaims.decode(json: json) else { continue }
        let encoded = try? JSONEncoder().encode(claims)
        fuzzCheck(encoded != nil, "decoded claims do not encode")
        let again = try? AccessClaims.decode(json: Array(encoded ?? Data()))
        // Times are written as whole seconds: compare with the fractions cut.
        var whole = claims
        whole.expiresAt = whole.expiresAt.rounded(.down)
        whole.notBefore = whole.notBefore.map { $0.rounded(.down) }
        whole.issuedAt = whole.issuedAt.map { $0.rounded(.down) }
        if whole.expiresAt.magnitude < 9e15 && (whole.notBefore?.magnitude ?? 0) < 9e15 && (whole.issuedAt?.magnitude ?? 0) < 9e15 {
            fuzzCheck(again == whole, "claims do not survive encode -> decode")
        }
        if let room = claims.room {
            fuzzCheck(RoomPattern(room.description) == room, "a room pattern does not print back")
            fuzzCheck(room.matches("") == (room == .any), "a pattern other than * matches the empty room id")
        }
    }
    return 0
}
