import Foundation

/// The JOSE header fields a verifier acts on (RFC 7515 §4.1): `alg`, `kid`, `crit`.
/// One decoder for every token (JSONDecoder is Sendable; decoding only reads its options, and
/// making one per call costs a few µs).
let sharedDecoder = JSONDecoder()

struct JOSEHeader: Decodable {
    /// RFC 7515 §4.1.1: required.
    let alg: String
    /// RFC 7515 §4.1.4: which key; optional.
    let kid: String?
    /// RFC 7515 §4.1.11: extensions that MUST be understood; we understand none.
    let crit: [String]?

    static func decode(_ bytes: [UInt8]) throws(TokenError) -> JOSEHeader {
        do {
            return try sharedDecoder.decode(JOSEHeader.self, from: Data(bytes))
        } catch {
            throw .malformed("the header is not a JSON object with a string alg (RFC 7515 §4.1.1)")
        }
    }
}
