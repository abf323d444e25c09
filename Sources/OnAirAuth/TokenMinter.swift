import Foundation
import JWTKit
import OnAirTokenFormat

/// Mints access tokens (for `relay token create`, `chat token create` and tests) with
/// jwt-kit's signers: HS256 with a shared secret, or ES256 with a private key and its `kid`.
public struct TokenMinter: Sendable {
    private let collection: JWTKeyCollection
    private let kid: String?

    /// HS256 (RFC 7518 §3.2): the secret must be at least 32 bytes.
    public init(secret: String) async throws(TooShortSecret) {
        guard secret.utf8.count >= 32 else { throw TooShortSecret(length: secret.utf8.count) }
        collection = JWTKeyCollection()
        kid = nil
        await collection.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
    }

    /// ES256 (RFC 7518 §3.4) with `kid` in the header (RFC 7515 §4.1.4).
    public init(es256 key: ES256PrivateKey, kid: String) async {
        collection = JWTKeyCollection()
        self.kid = kid
        await collection.add(ecdsa: key, kid: JWKIdentifier(string: kid))
    }

    /// A secret shorter than HS256 needs.
    public struct TooShortSecret: Error, CustomStringConvertible {
        public let length: Int
        public var description: String { "the HS256 secret must be at least 32 bytes (RFC 7518 §3.2); this one has \(length)" }
    }

    /// The signed compact JWS (RFC 7515 §7.1) of `claims`.
    public func mint(_ claims: AccessClaims) async throws -> String {
        try await collection.sign(Payload(claims: claims), kid: kid.map { JWKIdentifier(string: $0) })
    }

    /// Claims for `identity` in `room` with `grants`, valid from now for `ttl` seconds.
    public static func claims(identity: String, name: String?, room: String?, grants: [Grant], ttl: Double,
                              audience: String? = nil, issuer: String? = nil, now: Double = Date().timeIntervalSince1970) -> AccessClaims
    {
        AccessClaims(subject: identity, name: name, room: room.flatMap(RoomPattern.init), grants: Set(grants),
                     expiresAt: now + ttl, notBefore: nil, issuedAt: now, audience: audience.map { [$0] } ?? [], issuer: issuer)
    }

    /// jwt-kit's payload protocol around our claims (checked by ``TokenVerifier``, not here).
    struct Payload: JWTPayload {
        let claims: AccessClaims
        init(claims: AccessClaims) { self.claims = claims }
        init(from decoder: any Decoder) throws { claims = try AccessClaims(from: decoder) }
        func encode(to encoder: any Encoder) throws { try claims.encode(to: encoder) }
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }
}
