import Crypto
import Foundation
import JWTKit
@testable import OnAirAuth
import OnAirTokenFormat

/// Keys, settings and hand-made tokens for the verifier's tests. The clock is fixed.
enum TokenFixtures {
    static let now: Double = 1_800_000_000
    static let secret = "a-test-secret-that-is-32-bytes-long!"
    static let ecKey = ES256PrivateKey()
    static let ecKid = "ec-1"

    static func claims(room: String? = "42", grants: Set<Grant> = [.publish, .view], exp: Double? = now + 600,
                       nbf: Double? = nil, iat: Double? = now, aud: [String] = [], iss: String? = nil) -> [String: Any]
    {
        var json: [String: Any] = ["sub": "ada", "name": "Ada", "grants": grants.map(\.rawValue).sorted()]
        if let room { json["room"] = room }
        if let exp { json["exp"] = exp }
        if let nbf { json["nbf"] = nbf }
        if let iat { json["iat"] = iat }
        if aud.count == 1 { json["aud"] = aud[0] } else if !aud.isEmpty { json["aud"] = aud }
        if let iss { json["iss"] = iss }
        return json
    }

    static func part(_ object: [String: Any]) -> String {
        Base64URL.encode(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    /// `header.payload.signature` signed with HMAC-SHA256 under `key`.
    static func hs256(_ payload: [String: Any], key: String = secret, header: [String: Any] = ["alg": "HS256", "typ": "JWT"]) -> String {
        let input = part(header) + "." + part(payload)
        let mac = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: SymmetricKey(data: Array(key.utf8)))
        return input + "." + Base64URL.encode(Array(mac))
    }

    /// Signed with the fixture's P-256 key (RFC 7518 §3.4: R || S).
    static func es256(_ payload: [String: Any], kid: String? = ecKid, alg: String = "ES256") -> String {
        var header: [String: Any] = ["alg": alg, "typ": "JWT"]
        if let kid { header["kid"] = kid }
        let input = part(header) + "." + part(payload)
        let p256 = try! P256.Signing.PrivateKey(pemRepresentation: ecKey.pemRepresentation)
        let signature = try! p256.signature(for: Array(input.utf8))
        return input + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }

    /// The JWKS of the fixture's public key (RFC 7517 §5, RFC 7518 §6.2.1).
    static var jwks: [UInt8] {
        let p256 = try! P256.Signing.PrivateKey(pemRepresentation: ecKey.pemRepresentation)
        let raw = Array(p256.publicKey.rawRepresentation)
        let key: [String: Any] = ["kty": "EC", "crv": "P-256", "kid": ecKid, "use": "sig", "alg": "ES256",
                                  "x": Base64URL.encode(raw[0..<32]), "y": Base64URL.encode(raw[32..<64])]
        return Array(try! JSONSerialization.data(withJSONObject: ["keys": [key]]))
    }

    static var publicKeyPEM: String {
        try! P256.Signing.PrivateKey(pemRepresentation: ecKey.pemRepresentation).publicKey.pemRepresentation
    }

    static func verifier(_ configure: (inout JWTSettings) -> Void = { _ in }, withSecret: Bool = true, withJWKS: Bool = true,
                         cacheCapacity: Int = 0, clock: @escaping @Sendable () -> Double = { now }) async throws -> TokenVerifier
    {
        var settings = JWTSettings()
        if withSecret { settings.secret = secret }
        configure(&settings)
        var keys = TokenKeys()
        if withSecret { keys.secret = await TokenKeys.hs256(secret: secret) }
        if withJWKS { keys.byKeyID = try await TokenKeys.keys(fromJWKS: jwks).keys }
        return TokenVerifier(settings: settings, keys: TokenKeyStore(fixed: keys), cacheCapacity: cacheCapacity, clock: clock)
    }
}
