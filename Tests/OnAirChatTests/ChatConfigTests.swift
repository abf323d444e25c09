import Foundation
import Testing
@testable import OnAirChat

@Suite("Chat config")
struct ChatConfigTests {
    static let repoConfig = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("config/chat.yaml").path

    @Test("no file: loopback defaults")
    func defaults() throws {
        let config = try ChatConfigLoader.load(path: nil, environment: [:])
        #expect(config.http.host == "127.0.0.1")
        #expect(config.http.port == 8081)
        #expect(config.database.path == "chat.sqlite")
        #expect(config.webhooks.secrets.isEmpty)
        #expect(config.auth.botToken == nil)
    }

    @Test("config/chat.yaml documents the defaults")
    func shippedFile() throws {
        #expect(try ChatConfigLoader.load(path: Self.repoConfig, environment: [:]) == ChatConfig())
    }

    @Test("unknown keys are errors naming the key")
    func unknownKey() {
        #expect(throws: ChatConfigLoader.Problem.self) { try ChatConfigLoader.decode("limits:\n  max_mesage_chars: 3\n") }
        do {
            _ = try ChatConfigLoader.decode("limits:\n  max_mesage_chars: 3\n")
        } catch {
            #expect(error.description.contains("limits.max_mesage_chars"))
        }
    }

    @Test("YAML values land in their fields")
    func yaml() throws {
        let config = try ChatConfigLoader.decode("""
            http: {port: 9000, cors_origins: ["http://a.example"]}
            auth: {bot_token: b}
            limits: {messages_per_second: 0.5, message_burst: 2}
            rooms: {history_on_join: 10}
            """)
        #expect(config.http.port == 9000)
        #expect(config.http.corsOrigins == ["http://a.example"])
        #expect(config.auth.botToken == "b")
        #expect(config.limits.messagesPerSecond == 0.5)
        #expect(config.rooms.historyOnJoin == 10)
    }

    @Test("environment overrides, ONAIR_CHAT_PORT over CHAT_HTTP_PORT")
    func environment() throws {
        let secret = ChatFixtures.secret.encoded
        let config = try ChatConfigLoader.load(path: nil, environment: [
            "CHAT_HTTP_PORT": "7001", "ONAIR_CHAT_DATABASE": "/tmp/x.sqlite",
            "ONAIR_CHAT_WEBHOOK_SECRET": "\(secret), \(ChatFixtures.otherSecret.encoded)",
            "ONAIR_CHAT_BOT_TOKEN": "bot", "ONAIR_CHAT_MESSAGES_PER_SECOND": "10",
        ])
        #expect(config.http.port == 7001)
        #expect(config.database.path == "/tmp/x.sqlite")
        #expect(config.webhooks.secrets == [secret, ChatFixtures.otherSecret.encoded])
        #expect(config.auth.botToken == "bot")
        #expect(config.limits.messagesPerSecond == 10)
        let both = try ChatConfigLoader.load(path: nil, environment: ["CHAT_HTTP_PORT": "7001", "ONAIR_CHAT_PORT": "7002"])
        #expect(both.http.port == 7002)
    }

    @Test("bad values are refused with the reason")
    func invalid() {
        #expect(throws: ChatConfigLoader.Problem.self) { try ChatConfigLoader.load(path: nil, environment: ["ONAIR_CHAT_PORT": "80a"]) }
        #expect(throws: ChatConfigLoader.Problem.self) { try ChatConfigLoader.load(path: nil, environment: ["ONAIR_CHAT_PORT": "70000"]) }
        #expect(throws: ChatConfigLoader.Problem.self) {
            try ChatConfigLoader.load(path: nil, environment: ["ONAIR_CHAT_WEBHOOK_SECRET": "not-a-secret"])
        }
        #expect(throws: ChatConfigLoader.Problem.self) { try ChatConfigLoader.load(path: "/nonexistent/chat.yaml", environment: [:]) }
    }
}
