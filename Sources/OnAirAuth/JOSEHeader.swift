import Foundation

/// The JOSE header fields a verifier acts on (RFC 7515 §4.1): `alg`, `kid`, `crit`.
struct JOSEHeader: Decodable {
    /// RFC 7515 §4.1.1: required.
    let alg: String
    /// RFC 7515 §4.1.4: which key; optional.
    let kid: String?
    /// RFC 7515 §4.1.11: extensions that MUST be understood; we understand none.
    let crit: [String]?

    static func decode(_ bytes: [UInt8]) throws(TokenError) -> JOSEHeader {
        do {
            return try JSONDecoder().decode(JOSEHeader.self, from: Data(bytes))
        } catch {
            throw .malformed("the header is not a JSON object with a string alg (RFC 7515 §4.1.1)")
        }
    }
}
