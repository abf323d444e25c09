import Foundation

/// The JOSE header fields a verifier acts on (RFC 7515 §4.1): `alg`, `kid`, `crit`.
/// One decoder for every token (JSONDecoder is Sendable; decoding only reads its options, and
/// making one per call costs a few µs).
let sharedDecoder = JSONDecoder()

public struct JOSEHeader: Decodable, Sendable, Equatable {
    /// RFC 7515 §4.1.1: required.
    public let alg: String
    /// RFC 7515 §4.1.4: which key; optional.
    public let kid: String?
    /// RFC 7515 §4.1.11: extensions that MUST be understood; we understand none.
    public let crit: [String]?

    public init(alg: String, kid: String? = nil, crit: [String]? = nil) {
        self.alg = alg
        self.kid = kid
        self.crit = crit
    }

    public static func decode(_ bytes: [UInt8]) throws(TokenError) -> JOSEHeader {
        do {
            return try sharedDecoder.decode(JOSEHeader.self, from: Data(bytes))
        } catch {
            throw .malformed("the header is not a JSON object with a string alg (RFC 7515 §4.1.1)")
        }
    }
}
