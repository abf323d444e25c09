import Foundation
import Testing
@testable import OnAirRelay

/// The `turn:` section of relay.yaml (TURN REST API credentials), its ONAIR_TURN_* overrides
/// and its validation.
@Suite("TURN config")
struct TURNConfigTests: RelayConfigTesting {
    @Test("defaults: no TURN server, a 1 h TTL")
    func defaults() throws {
        let turn = try load(nil).turn
        #expect(turn == TURNSettings())
        #expect(turn.urls.isEmpty && turn.secret == nil && turn.ttlSeconds == 3600 && !turn.enabled)
    }

    @Test("every key of the section is read")
    func fullSection() throws {
        let turn = try load("""
            turn:
              urls: ["turn:turn.example.org:3478?transport=udp", "turns:turn.example.org:443?transport=tcp"]
              secret: north
              ttl_seconds: 86400
            """).turn
        #expect(turn.urls == ["turn:turn.example.org:3478?transport=udp", "turns:turn.example.org:443?transport=tcp"])
        #expect(turn.secret == "north" && turn.ttlSeconds == 86400 && turn.enabled)
    }

    @Test("ONAIR_TURN_URLS (comma list), ONAIR_TURN_SECRET and ONAIR_TURN_TTL override the file")
    func environment() throws {
        let turn = try load("turn:\n  urls: [\"turn:a.example\"]\n  secret: file\n", environment: [
            "ONAIR_TURN_URLS": " turn:b.example:3478 , turns:b.example:443?transport=tcp,,",
            "ONAIR_TURN_SECRET": "env",
            "ONAIR_TURN_TTL": " 600 ",
        ]).turn
        #expect(turn.urls == ["turn:b.example:3478", "turns:b.example:443?transport=tcp"])
        #expect(turn.secret == "env" && turn.ttlSeconds == 600)
        // Environment only; empty ONAIR_TURN_URLS and ONAIR_TURN_SECRET turn the file's server off.
        #expect(try load(nil, environment: ["ONAIR_TURN_URLS": "turn:c.example", "ONAIR_TURN_SECRET": "s"]).turn.enabled)
        let off = try load("turn:\n  urls: [\"turn:a.example\"]\n  secret: s\n",
                           environment: ["ONAIR_TURN_URLS": "", "ONAIR_TURN_SECRET": ""]).turn
        #expect(off.urls.isEmpty && off.secret == nil && !off.enabled)
    }

    @Test("clear problems: what is wrong and how to fix it", arguments: [
        ("turn:\n  urls: [\"turn:t.example\"]\n", [:], "turn.secret (ONAIR_TURN_SECRET) is required"),
        ("turn:\n  secret: s\n", [:], "turn.urls (ONAIR_TURN_URLS) is empty"),
        ("turn:\n  urls: [\"turn:t.example\"]\n  secret: \"\"\n", [:], "turn.secret must not be empty"),
        ("turn:\n  urls: [\"stun:t.example\"]\n  secret: s\n", [:], "'stun:t.example' must be a turn: or turns: URI"),
        ("turn:\n  urls: [\"https://t.example\"]\n  secret: s\n", [:], "must be a turn: or turns: URI"),
        ("turn:\n  urls: [\"turn:\"]\n  secret: s\n", [:], "must be a turn: or turns: URI"),
        ("turn:\n  urls: [\"turn:t.example>; rel=x\"]\n  secret: s\n", [:], "must be a turn: or turns: URI"),
        ("turn:\n  urls: [\"turn:t.example\"]\n  secret: s\n  ttl_seconds: 0\n", [:], "turn.ttl_seconds 0 must be 60 to 604800"),
        ("turn:\n  urls: [\"turn:t.example\"]\n  secret: s\n  ttl_seconds: 700000\n", [:], "turn.ttl_seconds 700000"),
        ("turn:\n  url: turn:t.example\n", [:], "unknown config key 'turn.url'"),
        ("turn:\n  urls: turn:t.example\n", [:], "turn.urls"),
        (nil, ["ONAIR_TURN_TTL": "1h"], "ONAIR_TURN_TTL=1h is not a whole number of seconds"),
        (nil, ["ONAIR_TURN_URLS": "turn:t.example"], "turn.secret (ONAIR_TURN_SECRET) is required"),
        (nil, ["ONAIR_TURN_URLS": "turn:t.example", "ONAIR_TURN_SECRET": "s", "ONAIR_TURN_TTL": "5"], "turn.ttl_seconds 5"),
    ] as [(String?, [String: String], String)])
    func problems(yaml: String?, environment: [String: String], expected: String) throws {
        let message = try #require(problem(yaml, environment: environment), "accepted: \(yaml ?? "") \(environment)")
        #expect(message.contains(expected), "\(message)")
    }

    @Test("the shipped config/relay.yaml documents every turn key and ONAIR_TURN_* variable, TURN off")
    func shippedExample() throws {
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let path = repo.appendingPathComponent("config/relay.yaml").path
        let config = try RelayConfigLoader.load(path: path, environment: [:])
        #expect(config.turn == TURNSettings())
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("\nturn:"))
        for key in TURNSettings.CodingKeys.allCases { #expect(text.contains(key.stringValue + ":"), "\(key.stringValue)") }
        for variable in ["ONAIR_TURN_URLS", "ONAIR_TURN_SECRET", "ONAIR_TURN_TTL"] { #expect(text.contains(variable), "\(variable)") }
    }
}
