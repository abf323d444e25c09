import Foundation
import HTTPTypes
import HummingbirdTesting
import OnAirAuth
import Testing
@testable import OnAirRelay
import OnAirTokenFormat

/// Access tokens (issue 28) on WHIP, WHEP, session resources and the admin API, through
/// ``RelayAccess``: 401 `invalid_token` naming why, 403 `insufficient_scope` (RFC 6750 §3.1).
@Suite("JWT access")
struct JWTAccessTests {
    static let secret = "relay-tests-secret-of-32-bytes-at-least"

    static func token(room: String? = "42", grants: [Grant], ttl: Double = 600, now: Double = Date().timeIntervalSince1970,
                      secret: String = secret) async throws -> String {
        let minter = try await TokenMinter(secret: secret)
        return try await minter.mint(TokenMinter.claims(identity: "ada", name: "Ada", room: room, grants: grants, ttl: ttl, now: now))
    }

    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }

    static func jwt(required: Bool = false, publish: String? = nil) -> (inout RelayConfig) -> Void {
        { config in
            config.auth.jwt.secret = secret
            config.auth.jwt.required = required
            config.auth.publishToken = publish
        }
    }

    /// The challenge's error code and description.
    static func challenge(_ response: TestResponse) -> String { response.headers[.wwwAuthenticate] ?? "" }

    @Test("WHIP and WHEP with a JWT; PATCH/DELETE with the session's rights")
    func publishAndView() async throws {
        try await withRelay(Self.jwt(required: true)) { _, client in
            let publisher = try await client.publish(headers: Self.bearer(try await Self.token(grants: [.publish])))
            let viewer = try await client.watch(headers: Self.bearer(try await Self.token(grants: [.view, .chat])))
            let viewToken = try await Self.token(grants: [.view])
            // A viewer's token does not end the publisher's session.
            let refused = try await client.delete(publisher.location, headers: Self.bearer(viewToken))
            #expect(refused.status == .forbidden)
            #expect(Self.challenge(refused).contains(#"error="insufficient_scope""#))
            #expect(try await client.delete(viewer.location, headers: Self.bearer(viewToken)).status == .ok)
            #expect(try await client.delete(publisher.location, headers: Self.bearer(try await Self.token(grants: [.publish]))).status == .ok)
        }
    }

    @Test("refusals: 401 invalid_token naming why, 403 for the grant or the room")
    func refusals() async throws {
        try await withRelay(Self.jwt(required: true)) { _, client in
            let now = Date().timeIntervalSince1970
            let cases: [(String, HTTPResponse.Status, String)] = [
                (try await Self.token(room: "4", grants: [.publish, .view]), .forbidden, "not room 42"),
                (try await Self.token(grants: [.chat]), .forbidden, "does not grant"),
                (try await Self.token(grants: [.publish, .view], ttl: 60, now: now - 3600), .unauthorized, "token expired"),
                (try await Self.token(grants: [.publish, .view], secret: "another-secret-that-is-32-bytes-long"), .unauthorized, "bad signature"),
                ("eyJhbGciOiJub25lIn0." + Base64URL.encode(Array(#"{"sub":"x","room":"42","grants":["publish","view"],"exp":9999999999}"#.utf8)) + ".",
                 .unauthorized, "alg not allowed"),
                ("s3cret", .unauthorized, "static tokens are off"),
            ]
            for (token, status, reason) in cases {
                for path in ["/whip/42", "/whep/42"] {
                    // A malformed offer: the token is judged first.
                    let response = try await client.post(path, "not sdp", headers: Self.bearer(token))
                    #expect(response.status == status, "\(path) \(reason)")
                    let challenge = Self.challenge(response)
                    #expect(challenge.contains(status == .forbidden ? #"error="insufficient_scope""# : #"error="invalid_token""#), "\(challenge)")
                    #expect(challenge.contains("error_description=") && challenge.contains(reason), "\(path): \(challenge)")
                    #expect(String(buffer: response.body).contains(reason))
                }
            }
            let missing = try await client.post("/whip/42", "not sdp")
            #expect(missing.status == .unauthorized)
            #expect(Self.challenge(missing) == #"Bearer realm="onair""#)
        }
    }

    @Test("static tokens keep working beside JWTs unless required")
    func staticTokensBeside() async throws {
        try await withRelay(Self.jwt(publish: "s3cret")) { _, client in
            _ = try await client.publish(headers: Self.bearer("s3cret"))
            let wrong = try await client.post("/whip/42", TestOffers.publisher(), headers: Self.bearer("nope"))
            #expect(wrong.status == .unauthorized)
            #expect(try await client.post("/whip/42", TestOffers.publisher()).status == .unauthorized)
            // Viewing is open (no viewer token, JWT not required), but a bad JWT is still refused.
            _ = try await client.watch()
            let expired = try await Self.token(grants: [.view], ttl: 1, now: 1_000)
            #expect(try await client.post("/whep/42", TestOffers.viewer(), headers: Self.bearer(expired)).status == .unauthorized)
            _ = try await client.watch(headers: Self.bearer(try await Self.token(grants: [.view])))
        }
    }

    @Test("the admin API takes a JWT with the admin grant")
    func admin() async throws {
        try await withRelay(Self.jwt()) { _, client in
            let admin = try await Self.token(room: nil, grants: [.admin])
            #expect(try await client.post("/api/streams/42/kick", "", contentType: nil, headers: Self.bearer(admin)).status == .notFound)
            let viewer = try await Self.token(grants: [.view])
            let refused = try await client.post("/api/streams/42/kick", "", contentType: nil, headers: Self.bearer(viewer))
            #expect(refused.status == .forbidden)
            #expect(try await client.post("/api/streams/42/kick", "", contentType: nil).status == .unauthorized)
        }
        // Neither an admin token nor JWTs: the admin API is off.
        try await withRelay({ _ in }) { _, client in
            let off = try await client.post("/api/streams/42/kick", "", contentType: nil)
            #expect(off.status == .forbidden)
        }
    }

    @Test("room patterns: team-* and *")
    func roomPatterns() async throws {
        try await withRelay(Self.jwt(required: true)) { _, client in
            _ = try await client.publish(room: "team-a", headers: Self.bearer(try await Self.token(room: "team-*", grants: [.publish])))
            let other = try await client.post("/whip/42", TestOffers.publisher(), headers: Self.bearer(try await Self.token(room: "team-*", grants: [.publish])))
            #expect(other.status == .forbidden)
            _ = try await client.publish(room: "42", headers: Self.bearer(try await Self.token(room: "*", grants: [.publish])))
        }
    }

    @Test("config: auth.jwt and its environment overrides")
    func config() throws {
        let config = try RelayConfigLoader.load(path: nil, environment: [
            "ONAIR_JWT_SECRET": Self.secret, "ONAIR_JWT_REQUIRED": "true", "ONAIR_JWT_JWKS_FILE": "/tmp/x.json",
            "ONAIR_JWT_JWKS_URL": "http://127.0.0.1:9/jwks.json",
        ])
        #expect(config.auth.jwt.secret == Self.secret && config.auth.jwt.required)
        #expect(config.auth.jwt.jwksFile == "/tmp/x.json" && config.auth.jwt.jwksURL == "http://127.0.0.1:9/jwks.json")
        #expect(throws: RelayConfigLoader.Problem.self) { try RelayConfigLoader.load(path: nil, environment: ["ONAIR_JWT_SECRET": "short"]) }
        #expect(throws: RelayConfigLoader.Problem.self) { try RelayConfigLoader.load(path: nil, environment: ["ONAIR_JWT_REQUIRED": "true"]) }
    }
}
