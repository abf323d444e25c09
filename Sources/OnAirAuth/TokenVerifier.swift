import Foundation
import OnAirTokenFormat

/// Verifies access tokens (RFC 7519 §7.2, with RFC 8725's advice): the signature with the
/// key the header names and whose algorithm it must match, then `exp` (required), `nbf`,
/// `iat` with a leeway, then `aud`/`iss` when configured. Synchronous and lock-light:
/// callable from any request handler without awaiting.
public final class TokenVerifier: Sendable {
    public let settings: JWTSettings
    public let keys: TokenKeyStore
    let cache: VerifiedTokenCache
    let clock: @Sendable () -> Double

    /// `clock`: seconds since 1970 (tests pass their own); `cacheCapacity` 0 turns the cache off.
    public init(settings: JWTSettings, keys: TokenKeyStore, cacheCapacity: Int = 4096,
                clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 })
    {
        self.settings = settings
        self.keys = keys
        self.cache = VerifiedTokenCache(capacity: cacheCapacity)
        self.clock = clock
    }

    /// The settings' fixed keys (secret, JWKS file), loaded now; the JWKS URL's keys come
    /// later from a ``JWKSRefresher`` over ``keys``.
    public static func loading(_ settings: JWTSettings, cacheCapacity: Int = 4096) async throws -> TokenVerifier {
        var fixed = TokenKeys()
        if let secret = settings.secret { fixed.secret = await TokenKeys.hs256(secret: secret) }
        if let path = settings.jwksFile {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw KeyLoadingError(description: "cannot read jwks_file \(path)")
            }
            do {
                fixed.byKeyID = try await TokenKeys.keys(fromJWKS: Array(data)).keys
            } catch {
                throw KeyLoadingError(description: "jwks_file \(path) is not a JWKS (RFC 7517 §5): \(error)")
            }
        }
        return TokenVerifier(settings: settings, keys: TokenKeyStore(fixed: fixed), cacheCapacity: cacheCapacity)
    }

    /// A key source that could not be read.
    public struct KeyLoadingError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The token's claims, or why it is refused.
    public func verify(_ token: String) throws(TokenError) -> AccessClaims {
        let now = clock()
        let (keySet, generation) = keys.current
        if let claims = cache.claims(for: token, generation: generation) {
            guard now < claims.expiresAt + settings.leewaySeconds else {
                cache.remove(token)
                throw .expired
            }
            return claims
        }
        let parts = try CompactToken(token)
        let header = try JOSEHeader.decode(parts.header)
        if let crit = header.crit, !crit.isEmpty {
            throw .malformed("crit names extensions this server does not implement (RFC 7515 §4.1.11): \(crit.joined(separator: ", "))")
        }
        let key: VerificationKey
        do {
            key = try keySet.key(for: header)
        } catch {
            if case .unknownKeyID = error { keys.noteUnknownKeyID() }
            throw error
        }
        guard key.verifies(parts.signature, signs: parts.signingInput) else { throw .badSignature }
        let claims = try AccessClaims.decode(json: parts.payload)
        try check(claims, now: now)
        cache.insert(token, claims: claims, generation: generation, now: now)
        return claims
    }

    /// RFC 7519 §4.1.1-§4.1.6 with `leeway_seconds` of clock skew.
    func check(_ claims: AccessClaims, now: Double) throws(TokenError) {
        let leeway = settings.leewaySeconds
        guard now < claims.expiresAt + leeway else { throw .expired }
        if let nbf = claims.notBefore, now + leeway < nbf { throw .notYetValid }
        if let iat = claims.issuedAt, now + leeway < iat { throw .notYetValid }
        if let audience = settings.audience, !claims.audience.contains(audience) { throw .wrongAudience }
        if let issuer = settings.issuer, claims.issuer != issuer { throw .wrongIssuer }
    }

    /// Whether `text` has a JWT's shape (to tell it from a static token before verifying).
    public static func looksLikeJWT(_ text: String) -> Bool { CompactToken.looksLikeJWT(text) }
}
