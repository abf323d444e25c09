import Foundation
import JWTKit
import OnAirTokenFormat

/// The keys tokens are verified with, an immutable snapshot: the HS256 secret and the public
/// keys of a JWKS (RFC 7517 §5) by `kid`. Built off the request path (at start, or by the
/// JWKS refresher); verification reads it without awaiting anything.
public struct TokenKeys: Sendable {
    /// The HS256 key of `auth.jwt.secret`, if any.
    public var secret: VerificationKey?
    /// Public keys by `kid` (RFC 7517 §4.5).
    public var byKeyID: [String: VerificationKey]

    public init(secret: VerificationKey? = nil, byKeyID: [String: VerificationKey] = [:]) {
        self.secret = secret
        self.byKeyID = byKeyID
    }

    public var isEmpty: Bool { secret == nil && byKeyID.isEmpty }

    /// The key for a token's header, its algorithm checked against the key's (RFC 8725 §2.1, §3.1).
    func key(for header: JOSEHeader) throws(TokenError) -> VerificationKey {
        guard header.alg.lowercased() != "none" else {
            throw .algorithmNotAllowed("'none' (unsigned tokens are never taken, RFC 8725 §3.1)")
        }
        guard VerificationKey.allowedAlgorithms.contains(header.alg) else {
            throw .algorithmNotAllowed("'\(header.alg)' (this server takes \(VerificationKey.allowedAlgorithms.sorted().joined(separator: ", ")))")
        }
        let key: VerificationKey
        if let kid = header.kid, let found = byKeyID[kid] {
            key = found
        } else if header.alg == "HS256", let secret {
            key = secret  // a kid on an HS256 token names nothing here: the one secret verifies it
        } else if header.kid == nil, byKeyID.count == 1, let only = byKeyID.values.first {
            key = only
        } else if isEmpty {
            throw .noKeys
        } else {
            throw .unknownKeyID(header.kid ?? "(none; the JWKS has \(byKeyID.count) keys)")
        }
        guard key.algorithm == header.alg else {
            throw .algorithmNotAllowed("the token says \(header.alg) but its key '\(header.kid ?? "secret")' is \(key.algorithm)")
        }
        return key
    }

    /// The HS256 key for a shared secret.
    public static func hs256(secret: String) async -> VerificationKey {
        let collection = JWTKeyCollection()
        await collection.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256, kid: "hs256")
        // The collection holds exactly this signer: the lookup cannot fail.
        let verifier = try! await collection.getKey(for: "hs256")
        return VerificationKey(algorithm: "HS256", verifier: verifier)
    }

    /// The keys of a JWKS document; keys that are not public signing keys we take are skipped,
    /// named in `skipped`. Throws when the document is not a JWKS.
    public static func keys(fromJWKS json: [UInt8]) async throws -> (keys: [String: VerificationKey], skipped: [String]) {
        let jwks = try JSONDecoder().decode(JWKS.self, from: Data(json))
        var keys: [String: VerificationKey] = [:]
        var skipped: [String] = []
        for jwk in jwks.keys {
            guard let kid = jwk.keyIdentifier?.string else { skipped.append("a key without kid"); continue }
            guard jwk.privateExponent == nil else { skipped.append("\(kid): a private key (publish only the public part)"); continue }
            guard let algorithm = algorithm(of: jwk) else { skipped.append("\(kid): not ES256, RS256 or EdDSA"); continue }
            do {
                let collection = JWTKeyCollection()
                try await collection.add(jwk: jwk)
                let verifier = try await collection.getKey(for: jwk.keyIdentifier, alg: algorithm)
                keys[kid] = VerificationKey(algorithm: algorithm, verifier: verifier)
            } catch {
                skipped.append("\(kid): \(error)")
            }
        }
        return (keys, skipped)
    }

    /// A JWK's algorithm: its `alg` (RFC 7517 §4.4), else what its `kty`/`crv` implies.
    static func algorithm(of jwk: JWK) -> String? {
        let named: String?
        if let alg = jwk.algorithm {
            named = alg.rawValue
        } else if jwk.keyType == .ecdsa, jwk.curve?.rawValue == "P-256" {
            named = "ES256"
        } else if jwk.keyType == .rsa {
            named = "RS256"
        } else if jwk.keyType == .octetKeyPair, jwk.curve?.rawValue == "Ed25519" {
            named = "EdDSA"
        } else {
            named = nil
        }
        guard let named, named != "HS256", VerificationKey.allowedAlgorithms.contains(named) else { return nil }
        return named
    }
}
