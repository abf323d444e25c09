import OnAirForwarding
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import OnAirRelay

/// Bearer tokens (RFC 6750, RFC 9725 §4.5) and session limits.
@Suite("Auth and limits")
struct AuthAndLimitsTests {
    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }

    @Test("publish token: none 401 + WWW-Authenticate: Bearer, wrong 401, right 201")
    func publishToken() async throws {
        try await withRelay({ $0.auth.publishToken = "s3cret" }) { _, client in
            let missing = try await client.post("/whip/42", TestOffers.publisher())
            #expect(missing.status == .unauthorized)
            let challenge = try #require(missing.headers[.wwwAuthenticate])
            #expect(challenge.hasPrefix("Bearer"), "\(challenge)")
            for header in ["Bearer wrong", "Bearer s3cre", "Bearer s3cret2", "Basic czNjcmV0", "s3cret", "Bearer", "Bearer  s3cret"] {
                let response = try await client.post("/whip/42", TestOffers.publisher(), headers: [.authorization: header])
                #expect(response.status == .unauthorized, "Authorization: \(header)")
                #expect(response.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true, "Authorization: \(header)")
            }
            #expect(try await client.get("/api/streams/42").status == .notFound)
            // RFC 6750 §2.1 / RFC 9110 §11.1: the scheme name is case-insensitive.
            let created = try await client.publish(headers: [.authorization: "bearer s3cret"])
            // The session's resources want the token too.
            #expect(try await client.delete(created.location).status == .unauthorized)
            #expect(try await client.patch(created.location, SessionResourceTests.trickle()).status == .unauthorized)
            #expect(try await client.patch(created.location, SessionResourceTests.trickle(), headers: Self.bearer("s3cret")).status == .noContent)
            #expect(try await client.delete(created.location, headers: Self.bearer("s3cret")).status == .ok)
        }
    }

    @Test("the publish token does not guard viewing")
    func publishTokenLeavesViewingOpen() async throws {
        try await withRelay({ $0.auth.publishToken = "s3cret" }) { _, client in
            _ = try await client.publish(headers: Self.bearer("s3cret"))
            _ = try await client.watch()
        }
    }

    @Test("viewer token: none 401, wrong 401, right 201; publishing stays open")
    func viewerToken() async throws {
        try await withRelay({ $0.auth.viewerToken = "v1ew" }) { _, client in
            _ = try await client.publish()
            let missing = try await client.post("/whep/42", TestOffers.viewer())
            #expect(missing.status == .unauthorized)
            #expect(missing.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            let wrong = try await client.post("/whep/42", TestOffers.viewer(), headers: Self.bearer("nope"))
            #expect(wrong.status == .unauthorized)
            let viewer = try await client.watch(headers: Self.bearer("v1ew"))
            #expect(try await client.delete(viewer.location).status == .unauthorized)
            #expect(try await client.delete(viewer.location, headers: Self.bearer("v1ew")).status == .ok)
        }
    }

    @Test("a room's own tokens replace the global ones for that room only")
    func roomTokens() async throws {
        try await withRelay({ config in
            config.auth.publishToken = "global"
            var room = RelayConfig.Room()
            room.publishToken = "room42"
            config.rooms["42"] = room
        }) { _, client in
            #expect(try await client.post("/whip/42", TestOffers.publisher(), headers: Self.bearer("global")).status == .unauthorized)
            _ = try await client.publish(headers: Self.bearer("room42"))
            #expect(try await client.post("/whip/43", TestOffers.publisher(), headers: Self.bearer("room42")).status == .unauthorized)
            _ = try await client.publish(room: "43", headers: Self.bearer("global"))
        }
    }

    @Test("authentication comes before anything else is looked at")
    func authFirst() async throws {
        try await withRelay({ $0.auth.publishToken = "s3cret"; $0.limits.maxBodyBytes = 1024 }) { _, client in
            let response = try await client.post("/whip/42", String(repeating: "x", count: 5000), contentType: "text/plain")
            #expect(response.status == .unauthorized)
        }
    }

    @Test("limits.max_sessions: 503 with Retry-After once reached; a freed slot is usable again")
    func sessionLimit() async throws {
        try await withRelay({ $0.limits.maxSessions = 2 }) { _, client in
            let publisher = try await client.publish()
            let viewer = try await client.watch()
            let refusedViewer = try await client.post("/whep/42", TestOffers.viewer(ufrag: "vwr3"))
            #expect(refusedViewer.status == .serviceUnavailable)
            #expect(refusedViewer.headers[.retryAfter] != nil)
            let refusedPublisher = try await client.post("/whip/43", TestOffers.publisher())
            #expect(refusedPublisher.status == .serviceUnavailable)
            #expect(!refusedPublisher.text.isEmpty)
            #expect(try await client.delete(viewer.location).status == .ok)
            _ = try await client.publish(room: "43")
            _ = publisher
        }
    }

    @Test("limits.max_viewers_per_room: 503 for that room only")
    func viewerLimit() async throws {
        try await withRelay({ $0.limits.maxViewersPerRoom = 1 }) { _, client in
            _ = try await client.publish()
            _ = try await client.publish(room: "43")
            _ = try await client.watch()
            let refused = try await client.post("/whep/42", TestOffers.viewer(ufrag: "vwr2"))
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.headers[.retryAfter] != nil)
            _ = try await client.watch(room: "43")
        }
    }

    @Test("limits.max_media_load: a busy media loop turns new viewers away with 503; publishers still get in")
    func mediaLoadLimit() async throws {
        try await withRelay({ $0.limits.maxMediaLoad = 0.5 }) { relay, client in
            _ = try await client.publish()
            _ = try await client.watch()
            // 900 ms of loop CPU in one second of wall time: 90 % busy. Stamped far in the
            // future, so the engine's own samples (at real times, earlier) cannot close a period.
            try await relay.engine.perform { engine in
                engine.plane.mediaLoad = MediaLoadMeter()
                engine.plane.mediaLoad.sample(cpuNanoseconds: 0, viewers: 1, at: .seconds(1_000_000))
                engine.plane.mediaLoad.sample(cpuNanoseconds: 900_000_000, viewers: 1, at: .seconds(1_000_001))
            }
            let refused = try await client.post("/whep/42", TestOffers.viewer(ufrag: "vwr2"))
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.headers[.retryAfter] != nil)
            #expect(refused.text.contains("90 % busy"))
            _ = try await client.publish(room: "43")
        }
    }
}
