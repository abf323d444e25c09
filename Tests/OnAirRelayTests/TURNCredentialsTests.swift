import Foundation
import Testing
@testable import OnAirRelay

/// TURN REST API credentials (draft-uberti-behave-turn-rest-00 §2.2) and the `Link:
/// rel="ice-server"` values that carry them (RFC 9725 §4.6). coturn itself checks them in
/// Tests/Interop/test_turn.py.
@Suite("TURN credentials")
struct TURNCredentialsTests {
    /// Computed independently with Python's hmac:
    ///   base64.b64encode(hmac.new(b"onair-test-secret", b"1700000000:42", hashlib.sha1).digest())
    ///   -> "wzT2/iD+udqgaM+yZ9UzCakz4no="
    ///   base64.b64encode(hmac.new(b"north", b"1700003600:room-1.a", hashlib.sha1).digest())
    ///   -> "WjriGp7D9qoBV0UIkYrMYVBEFFg="
    @Test("username <expiry>:<room>, password base64(HMAC-SHA1(secret, username)): known vectors",
          arguments: [("onair-test-secret", "42", 1_700_000_000, "wzT2/iD+udqgaM+yZ9UzCakz4no="),
                      ("north", "room-1.a", 1_700_003_600, "WjriGp7D9qoBV0UIkYrMYVBEFFg=")])
    func knownVectors(secret: String, room: String, expiry: Int, password: String) {
        let credentials = TURNCredentials(secret: secret, user: room, expiry: expiry)
        #expect(credentials.username == "\(expiry):\(room)")
        #expect(credentials.password == password)
        #expect(credentials.expiry == expiry)
    }

    @Test("expiry = now (whole seconds, rounded down) + ttl")
    func expiryFromTTL() {
        let now = Date(timeIntervalSince1970: 1_699_996_400.9)
        let credentials = TURNCredentials(secret: "onair-test-secret", user: "42", ttlSeconds: 3600, now: now)
        #expect(credentials == TURNCredentials(secret: "onair-test-secret", user: "42", expiry: 1_700_000_000))
        #expect(credentials.password == "wzT2/iD+udqgaM+yZ9UzCakz4no=")
    }

    @Test("another secret, room or expiry: another password")
    func passwordsDiffer() {
        let base = TURNCredentials(secret: "s", user: "42", expiry: 1_700_000_000)
        #expect(base.password != TURNCredentials(secret: "t", user: "42", expiry: 1_700_000_000).password)
        #expect(base.password != TURNCredentials(secret: "s", user: "43", expiry: 1_700_000_000).password)
        #expect(base.password != TURNCredentials(secret: "s", user: "42", expiry: 1_700_000_001).password)
    }

    @Test("links: the static ice_servers as written, then one TURN link per URL with the room's credential")
    func links() {
        var config = RelayConfig()
        config.iceServers = [RelayConfig.ICEServer(url: "stun:stun.example.org:3478")]
        config.turn.urls = ["turn:turn.example.org:3478?transport=udp", "turns:turn.example.org:443?transport=tcp"]
        config.turn.secret = "onair-test-secret"
        config.turn.ttlSeconds = 3600
        let links = ICEServerLinks(config: config).links(room: "42", now: Date(timeIntervalSince1970: 1_699_996_400))
        let credential = "username=\"1700000000:42\"; credential=\"wzT2/iD+udqgaM+yZ9UzCakz4no=\"; credential-type=\"password\""
        #expect(links == [
            "<stun:stun.example.org:3478>; rel=\"ice-server\"",
            "<turn:turn.example.org:3478?transport=udp>; rel=\"ice-server\"; \(credential)",
            "<turns:turn.example.org:443?transport=tcp>; rel=\"ice-server\"; \(credential)",
        ])
        // No room (a path that names none): no credential is minted.
        #expect(ICEServerLinks(config: config).links(room: nil) == ["<stun:stun.example.org:3478>; rel=\"ice-server\""])
        // Without a turn section, the static links only.
        config.turn = TURNSettings()
        #expect(ICEServerLinks(config: config).links(room: "42") == ["<stun:stun.example.org:3478>; rel=\"ice-server\""])
    }

    @Test("static credentials are quoted-strings: a quote or backslash in them is escaped (RFC 9110 §5.6.4)")
    func quoting() {
        #expect(ICEServerLinks.link(url: "turn:t.example", username: "a\"b", credential: "c\\d")
            == "<turn:t.example>; rel=\"ice-server\"; username=\"a\\\"b\"; credential=\"c\\\\d\"; credential-type=\"password\"")
    }
}
