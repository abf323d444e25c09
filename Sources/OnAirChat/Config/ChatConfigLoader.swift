import Foundation
import OnAirDecoding
import OnAirPostgres
import OnAirWebhooks
import Yams

/// Loads ``ChatConfig``: defaults, then the YAML file (if any), then environment variables,
/// then checks the result.
public enum ChatConfigLoader {
    /// A config problem worded for the person who has to fix it.
    public struct Problem: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    public static func load(path: String?, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(Problem) -> ChatConfig
    {
        var config = ChatConfig()
        if let path {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw Problem(description: "cannot read config file \(path)")
            }
            config = try decode(String(decoding: data, as: UTF8.self), origin: path)
        }
        try apply(environment: environment, to: &config)
        try validate(config)
        return config
    }

    /// Decodes YAML text (an empty document is all defaults).
    public static func decode(_ text: String, origin: String = "config") throws(Problem) -> ChatConfig {
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return ChatConfig() }
        do {
            return try YAMLDecoder().decode(ChatConfig.self, from: text)
        } catch let error as UnknownKey {
            throw Problem(description: "\(origin): \(error)")
        } catch let error as DecodingError {
            if let unknown = UnknownKey.find(in: error) { throw Problem(description: "\(origin): \(unknown)") }
            throw Problem(description: "\(origin): \(error.readable)")
        } catch {
            throw Problem(description: "\(origin): \(error)")
        }
    }

    /// The environment overrides, one per commonly changed setting (listed in config/chat.yaml).
    /// `CHAT_HTTP_PORT` is accepted as an alias of `ONAIR_CHAT_PORT`.
    static func apply(environment env: [String: String], to config: inout ChatConfig) throws(Problem) {
        func int(_ name: String) throws(Problem) -> Int? {
            guard let raw = env[name] else { return nil }
            guard let value = Int(raw.trimmingCharacters(in: .whitespaces)) else {
                throw Problem(description: "\(name)=\(raw) is not a whole number")
            }
            return value
        }
        func double(_ name: String) throws(Problem) -> Double? {
            guard let raw = env[name] else { return nil }
            guard let value = Double(raw.trimmingCharacters(in: .whitespaces)) else {
                throw Problem(description: "\(name)=\(raw) is not a number")
            }
            return value
        }
        func list(_ name: String) -> [String]? {
            env[name].map { $0.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init) }
        }
        if let v = env["ONAIR_CHAT_HOST"] { config.http.host = v }
        if let v = try int("CHAT_HTTP_PORT") { config.http.port = v }
        if let v = try int("ONAIR_CHAT_PORT") { config.http.port = v }
        if let v = list("ONAIR_CHAT_CORS_ORIGINS") { config.http.corsOrigins = v }
        if let v = env["ONAIR_CHAT_DATABASE"] { config.database.path = v }
        if let v = list("ONAIR_CHAT_WEBHOOK_SECRET") { config.webhooks.secrets = v }
        if let v = env["ONAIR_CHAT_JOIN_TOKEN"] { config.auth.joinToken = v.isEmpty ? nil : v }
        if let v = env["ONAIR_CHAT_BOT_TOKEN"] { config.auth.botToken = v.isEmpty ? nil : v }
        // ONAIR_CHAT_JWT_SECRET, _REQUIRED, _JWKS_FILE, _JWKS_URL, _AUDIENCE, _ISSUER.
        do { try config.auth.jwt.apply(environment: env, prefix: "ONAIR_CHAT_JWT_") } catch { throw Problem(description: error.description) }
        if let v = try double("ONAIR_CHAT_MESSAGES_PER_SECOND") { config.limits.messagesPerSecond = v }
        if let v = try double("ONAIR_CHAT_MESSAGE_BURST") { config.limits.messageBurst = v }
        if let v = try double("ONAIR_CHAT_FRAMES_PER_SECOND") { config.limits.framesPerSecond = v }
        if let v = try double("ONAIR_CHAT_FRAME_BURST") { config.limits.frameBurst = v }
        if let v = try double("ONAIR_CHAT_USER_MESSAGES_PER_SECOND") { config.limits.userMessagesPerSecond = v }
        if let v = try double("ONAIR_CHAT_USER_MESSAGE_BURST") { config.limits.userMessageBurst = v }
    }

    static func validate(_ config: ChatConfig) throws(Problem) {
        if let problem = config.auth.jwt.problems(prefix: "auth.jwt").first { throw Problem(description: problem) }
        guard (0...65535).contains(config.http.port) else {
            throw Problem(description: "http.port \(config.http.port) is not a port (0-65535)")
        }
        do { _ = try DatabaseLocation(parsing: config.database.path) } catch {
            throw Problem(description: "database: \(error)")
        }
        let ping = Double(ChatServer.webSocketPingSeconds)
        guard config.http.idleTimeoutSeconds <= 0 || config.http.idleTimeoutSeconds > ping else {
            throw Problem(description: "http.idle_timeout_seconds must exceed the \(Int(ping)) s WebSocket ping interval, or be 0 (no limit)")
        }
        for (index, secret) in config.webhooks.secrets.enumerated() {
            do { _ = try WebhookSecret(secret) } catch {
                throw Problem(description: "webhooks.secrets[\(index)]: \(error)")
            }
        }
        let limits = config.limits
        guard limits.maxMessageChars >= 1, limits.maxNameChars >= 1 else {
            throw Problem(description: "limits.max_message_chars and limits.max_name_chars must be at least 1")
        }
        guard limits.maxFrameBytes >= 1024 else { throw Problem(description: "limits.max_frame_bytes must be at least 1024") }
        guard limits.messagesPerSecond > 0, limits.messageBurst >= 1, limits.framesPerSecond > 0, limits.frameBurst >= 1,
              limits.userMessagesPerSecond > 0, limits.userMessageBurst >= 1 else {
            throw Problem(description: "limits: rates must be > 0 and bursts at least 1")
        }
        guard limits.clientBufferBytes >= 16 * 1024 else {
            throw Problem(description: "limits.client_buffer_bytes must be at least 16384")
        }
        let rooms = config.rooms
        guard rooms.historyOnJoin >= 0, rooms.resumeLimit >= 1, rooms.maxPage >= 1, rooms.memberListLimit >= 0,
              rooms.presenceIntervalMS >= 0 else {
            throw Problem(description: "rooms: history_on_join, member_list_limit and presence_interval_ms must be >= 0, resume_limit and max_page >= 1")
        }
        guard config.webhooks.maxBodyBytes >= 1024 else { throw Problem(description: "webhooks.max_body_bytes must be at least 1024") }
    }

    /// Parsed webhook secrets (validated by ``load(path:environment:)``).
    public static func secrets(of config: ChatConfig) -> [WebhookSecret] {
        config.webhooks.secrets.compactMap { try? WebhookSecret($0) }
    }
}
