import Foundation
import JWTKit

/// One key a token may be verified with, bound to ONE algorithm (RFC 8725 §3.1: the key,
/// not the token's header, decides the algorithm; a header naming another is refused).
public struct VerificationKey: Sendable {
    /// The JWS `alg` this key verifies: HS256, ES256, RS256 or EdDSA.
    public let algorithm: String
    /// jwt-kit's verifier for the key (HMAC, ECDSA, RSA or EdDSA).
    let verifier: any JWTAlgorithm

    /// The algorithms a token may name (RFC 8725 §3.1: an allow list; never `none`).
    public static let allowedAlgorithms: Set<String> = ["HS256", "ES256", "RS256", "EdDSA"]

    init(algorithm: String, verifier: any JWTAlgorithm) {
        self.algorithm = algorithm
        self.verifier = verifier
    }

    /// Whether `signature` signs `input` (RFC 7515 §5.2 step 8); a signature of the wrong
    /// length or encoding is a bad signature, not an error.
    func verifies(_ signature: [UInt8], signs input: ArraySlice<UInt8>) -> Bool {
        (try? verifier.verify(signature, signs: input)) ?? false
    }
}
