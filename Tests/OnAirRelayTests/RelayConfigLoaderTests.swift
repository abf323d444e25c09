import Foundation
import Testing
@testable import OnAirRelay

/// `relay.yaml` + ONAIR_* environment → ``RelayConfig``: defaults, strict keys, clear messages.
@Suite("RelayConfigLoader")
struct RelayConfigLoaderTests: RelayConfigTesting {
    @Test("no file and no environment: loopback defaults")
    func defaultsWithoutFile() throws {
        let config = try load(nil)
        #expect(config == RelayConfig())
        #expect(config.http.host == "127.0.0.1" && config.http.port == 8080 && config.http.corsOrigins == ["*"])
        #expect(config.http.publicURL == nil)
        #expect(config.media.bind == "127.0.0.1" && config.media.udpPort == 10_000 && config.media.advertisedAddresses.isEmpty)
        #expect(config.media.consentTimeoutSeconds > 0 && config.media.retransmitCacheSize == 1024)
        #expect(config.auth.publishToken == nil && config.auth.viewerToken == nil && config.auth.adminToken == nil)
        #expect(config.limits.maxBodyBytes == 65_536 && config.limits.maxSessions == 2_000)
        #expect(config.limits.maxViewersPerRoom == 1_500 && config.limits.maxMediaLoad == 0.85)
        #expect(config.iceServers.isEmpty && config.rooms.isEmpty)
        #expect(config.candidateAddresses == ["127.0.0.1"])
        #expect(config.publishToken(for: "42") == nil && config.viewerToken(for: "42") == nil)
    }

    @Test("an empty file and a file of comments are the defaults")
    func emptyFile() throws {
        #expect(try load("") == RelayConfig())
        #expect(try load("# nothing here\n\n") == RelayConfig())
    }

    @Test("a missing file is a problem naming the path")
    func missingFile() {
        let error = #expect(throws: RelayConfigLoader.Problem.self) {
            try RelayConfigLoader.load(path: "/nonexistent/relay.yaml", environment: [:])
        }
        #expect(error?.description.contains("/nonexistent/relay.yaml") == true, "\(String(describing: error))")
    }

    @Test("every key of a full file is read")
    func fullFile() throws {
        let config = try load("""
            http:
              host: 0.0.0.0
              port: 9090
              cors_origins: ["https://a.example", "https://b.example"]
              public_url: https://live.example.org
            media:
              bind: 0.0.0.0
              udp_port: 0
              workers: 3
              advertised_addresses: [192.0.2.10, "2001:db8::1"]
              consent_timeout_seconds: 7.5
              retransmit_cache_size: 2048
              max_publish_bitrate: 4000000
            auth:
              publish_token: pub
              viewer_token: view
              admin_token: admin
            limits:
              max_body_bytes: 32768
              max_sessions: 10
              max_viewers_per_room: 5
              connect_timeout_seconds: 9
              max_media_load: 0.7
            ice_servers:
              - url: stun:stun.example.org:3478
              - url: turn:turn.example.org:3478?transport=udp
                username: u
                credential: p
            rooms:
              "42":
                publish_token: secret-42
              lobby:
                viewer_token: lobby-view
            """)
        #expect(config.http.host == "0.0.0.0" && config.http.port == 9090)
        #expect(config.http.corsOrigins == ["https://a.example", "https://b.example"])
        #expect(config.http.publicURL == "https://live.example.org")
        #expect(config.media.bind == "0.0.0.0" && config.media.udpPort == 0 && config.media.workers == 3)
        #expect(config.media.advertisedAddresses == ["192.0.2.10", "2001:db8::1"])
        #expect(config.candidateAddresses == ["192.0.2.10", "2001:db8::1"])
        #expect(config.media.consentTimeoutSeconds == 7.5 && config.media.retransmitCacheSize == 2048)
        #expect(config.media.maxPublishBitrate == 4_000_000)
        #expect(config.auth.publishToken == "pub" && config.auth.viewerToken == "view" && config.auth.adminToken == "admin")
        #expect(config.limits.maxBodyBytes == 32_768 && config.limits.maxSessions == 10)
        #expect(config.limits.maxViewersPerRoom == 5 && config.limits.connectTimeoutSeconds == 9)
        #expect(config.limits.maxMediaLoad == 0.7)
        #expect(config.iceServers == [
            RelayConfig.ICEServer(url: "stun:stun.example.org:3478"),
            RelayConfig.ICEServer(url: "turn:turn.example.org:3478?transport=udp", username: "u", credential: "p"),
        ])
        // Room tokens win over the global ones; other rooms fall back.
        #expect(config.publishToken(for: "42") == "secret-42" && config.viewerToken(for: "42") == "view")
        #expect(config.publishToken(for: "lobby") == "pub" && config.viewerToken(for: "lobby") == "lobby-view")
        #expect(config.publishToken(for: "7") == "pub" && config.viewerToken(for: "7") == "view")
    }

    @Test("a partial section keeps the defaults of the keys it leaves out")
    func partialSection() throws {
        let config = try load("http:\n  port: 8081\n")
        var expected = RelayConfig()
        expected.http.port = 8081
        #expect(config == expected)
    }

    @Test("the shipped config/relay.yaml loads")
    func shippedExample() throws {
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let path = repo.appendingPathComponent("config/relay.yaml").path
        let config = try RelayConfigLoader.load(path: path, environment: [:])
        #expect(config.http.port == 8080 && config.media.udpPort == 10_000)
    }

    @Test("an unknown key is an error naming its full path and the known keys", arguments: [
        ("http:\n  prot: 8080\n", "http.prot", "port"),
        ("htpp:\n  port: 8080\n", "htpp", "http"),
        ("media:\n  udpport: 1\n", "media.udpport", "udp_port"),
        ("limits:\n  max_body: 1\n", "limits.max_body", "max_body_bytes"),
        ("rooms:\n  \"42\":\n    publish_tokn: x\n", "rooms.42.publish_tokn", "publish_token"),
        ("ice_servers:\n  - uri: stun:x\n", "ice_servers.", "url"),
    ])
    func unknownKey(yaml: String, path: String, known: String) throws {
        let message = try #require(problem(yaml))
        #expect(message.contains("unknown config key '\(path)"), "\(message)")
        #expect(message.contains(known), "\(message)")
    }

    @Test("a value of the wrong type names the key and the type")
    func wrongType() throws {
        let port = try #require(problem("http:\n  port: eighty\n"))
        #expect(port.contains("http.port") && port.contains("Int"), "\(port)")
        let origins = try #require(problem("http:\n  cors_origins: 5\n"))
        #expect(origins.contains("http.cors_origins"), "\(origins)")
        let timeout = try #require(problem("media:\n  consent_timeout_seconds: soon\n"))
        #expect(timeout.contains("media.consent_timeout_seconds") && timeout.contains("Double"), "\(timeout)")
        let section = try #require(problem("http: 8080\n"))
        #expect(section.contains("http"), "\(section)")
    }

    @Test("YAML that does not parse is a problem, not a crash")
    func brokenYAML() throws {
        let message = try #require(problem("http:\n  port: [8080\n"))
        #expect(!message.isEmpty)
        #expect(problem("\t- : :\n  ]]") != nil)
    }

    @Test("ONAIR_* variables override the file")
    func environmentOverrides() throws {
        let config = try load("http:\n  port: 8081\nmedia:\n  udp_port: 10001\n", environment: [
            "ONAIR_HTTP_HOST": "0.0.0.0",
            "ONAIR_HTTP_PORT": "9000",
            "ONAIR_PUBLIC_URL": "https://x.example",
            "ONAIR_MEDIA_BIND": "0.0.0.0",
            "ONAIR_UDP_PORT": "0",
            "ONAIR_MEDIA_WORKERS": "3",
            "ONAIR_ADVERTISED_ADDRESSES": " 192.0.2.1, 192.0.2.2 ,,",
            "ONAIR_CONSENT_TIMEOUT": "2.5",
            "ONAIR_VIEWER_CONSENT_TIMEOUT": "20",
            "ONAIR_TCP_PORT": "11000",
            "ONAIR_PUBLISH_TOKEN": "p",
            "ONAIR_VIEWER_TOKEN": "v",
            "ONAIR_ADMIN_TOKEN": "a",
            "ONAIR_ICE_SERVERS": "stun:s.example:3478,turn:t.example",
            "ONAIR_MAX_SESSIONS": "12",
            "ONAIR_MAX_MEDIA_LOAD": "1",
        ])
        #expect(config.http.host == "0.0.0.0" && config.http.port == 9000 && config.http.publicURL == "https://x.example")
        #expect(config.media.bind == "0.0.0.0" && config.media.udpPort == 0 && config.media.workers == 3)
        #expect(config.media.advertisedAddresses == ["192.0.2.1", "192.0.2.2"])
        #expect(config.media.consentTimeoutSeconds == 2.5 && config.media.viewerConsentTimeoutSeconds == 20)
        #expect(config.media.tcpPort == 11000 && config.media.tcpPort(worker: 2) == 11002)
        #expect(config.auth.publishToken == "p" && config.auth.viewerToken == "v" && config.auth.adminToken == "a")
        #expect(config.iceServers.map(\.url) == ["stun:s.example:3478", "turn:t.example"])
        #expect(config.limits.maxSessions == 12 && config.limits.maxMediaLoad == 1)
    }

    @Test("environment only, without a file")
    func environmentWithoutFile() throws {
        let config = try load(nil, environment: ["ONAIR_HTTP_PORT": "8181", "ONAIR_UDP_PORT": "0", "UNRELATED": "x"])
        #expect(config.http.port == 8181 && config.media.udpPort == 0)
    }

    @Test("a malformed number in the environment names the variable", arguments: [
        ("ONAIR_HTTP_PORT", "80a"), ("ONAIR_UDP_PORT", ""), ("ONAIR_CONSENT_TIMEOUT", "soon"), ("ONAIR_MAX_SESSIONS", "1e3"),
    ])
    func badEnvironmentNumber(name: String, value: String) throws {
        let message = try #require(problem(nil, environment: [name: value]))
        #expect(message.contains(name), "\(message)")
    }

    @Test("validation: ports, timeouts and body limits out of range", arguments: [
        ("http:\n  port: 0\n", "http.port"),
        ("http:\n  port: 65536\n", "http.port"),
        ("http:\n  port: -1\n", "http.port"),
        ("media:\n  udp_port: 70000\n", "media.udp_port"),
        ("media:\n  udp_port: -5\n", "media.udp_port"),
        ("media:\n  consent_timeout_seconds: 0\n", "consent_timeout_seconds"),
        ("media:\n  viewer_consent_timeout_seconds: 0\n", "viewer_consent_timeout_seconds"),
        ("media:\n  tcp_port: 70000\n", "media.tcp_port"),
        ("media:\n  tcp_max_connections: 0\n", "tcp_max_connections"),
        ("limits:\n  max_body_bytes: 10\n", "max_body_bytes"),
        ("limits:\n  max_media_load: 0\n", "max_media_load"),
        ("limits:\n  max_media_load: 1.5\n", "max_media_load"),
    ])
    func outOfRange(yaml: String, key: String) throws {
        let message = try #require(problem(yaml))
        #expect(message.contains(key), "\(message)")
    }

    @Test("validation also applies to environment overrides")
    func environmentValidated() throws {
        let message = try #require(problem(nil, environment: ["ONAIR_HTTP_PORT": "99999"]))
        #expect(message.contains("http.port"), "\(message)")
        let ice = try #require(problem(nil, environment: ["ONAIR_ICE_SERVERS": "https://stun.example"]))
        #expect(ice.contains("https://stun.example"), "\(ice)")
    }

    @Test("ICE server URLs must be stun:, stuns:, turn: or turns: URIs (RFC 7064, RFC 7065)", arguments: [
        "http://stun.example.org", "stun.example.org:3478", "", "STUNX:host", "stun", "turn", "stun:",
    ])
    func badICEServerURL(url: String) throws {
        let message = try #require(problem("ice_servers:\n  - url: \"\(url)\"\n"), "'\(url)' was accepted")
        #expect(message.contains("ice_servers"), "\(message)")
    }

    @Test("good ICE server URLs pass", arguments: [
        "stun:stun.example.org", "stun:192.0.2.1:3478", "stuns:stun.example.org:5349", "turn:turn.example.org?transport=tcp",
        "turns:turn.example.org:443",
    ])
    func goodICEServerURL(url: String) throws {
        #expect(try load("ice_servers:\n  - url: \"\(url)\"\n").iceServers.map(\.url) == [url])
    }

    @Test("an ICE server entry without url names the missing key")
    func iceServerWithoutURL() throws {
        let message = try #require(problem("ice_servers:\n  - username: u\n"))
        #expect(message.contains("url"), "\(message)")
    }
}
