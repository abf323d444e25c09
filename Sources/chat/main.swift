import ArgumentParser
import Foundation
import Logging
import OnAirAuth
import OnAirChat
import OnAirTokenCommand

@main
struct ChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "OnAir chat sidecar: chat rooms over WebSocket, closed by the relay's stream.ended webhook.",
        subcommands: [Serve.self, CheckConfig.self, TokenCommand<ChatJWTSettings>.self],
        defaultSubcommand: Serve.self)
}

struct ChatOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: "YAML config file (default: none, loopback defaults; see config/chat.yaml).")
    var config: String?

    @Option(help: "HTTP port, 0 for any free port (overrides the config file and ONAIR_CHAT_PORT).")
    var port: Int?

    @Option(help: "SQLite file (overrides the config file and ONAIR_CHAT_DATABASE).")
    var database: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel: String = "info"

    func load() throws -> ChatConfig {
        do {
            var config = try ChatConfigLoader.load(path: config)
            if let port { config.http.port = port }
            if let database { config.database.path = database }
            return config
        } catch {
            throw ValidationError("\(error)")
        }
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the chat sidecar (the default).")

    @OptionGroup var options: ChatOptions

    func run() async throws {
        let config = try options.load()
        guard let level = Logger.Level(rawValue: options.logLevel) else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error")
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "onair.chat")
        try await ChatServer(config: config, logger: logger).run { port in
            let base = "http://\(config.http.host):\(port)"
            let banner = """
                chat: HTTP \(base)  database \(config.database.path)
                chat: WebSocket ws://\(config.http.host):\(port)/rooms/<room>/ws   webhooks \(base)/hooks/relay

                """
            // Straight to fd 1 so that it shows at once even when stdout is a pipe.
            try? FileHandle.standardOutput.write(contentsOf: Data(banner.utf8))  // no trap on a closed pipe
        }
    }
}

struct CheckConfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "check-config", abstract: "Validate a config file and print the result.")

    @OptionGroup var options: ChatOptions

    func run() async throws {
        var config = try options.load()
        if config.auth.joinToken != nil { config.auth.joinToken = "(set)" }
        if config.auth.botToken != nil { config.auth.botToken = "(set)" }
        if config.auth.jwt.secret != nil { config.auth.jwt.secret = "(set)" }
        config.webhooks.secrets = config.webhooks.secrets.map { _ in "(set)" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(config), as: UTF8.self))
    }
}

/// `chat token create`: the secret, audience and issuer of the chat's `auth.jwt` (config, then ONAIR_CHAT_JWT_*).
enum ChatJWTSettings: JWTSettingsLoading {
    static let serverName = "chat"
    static let secretVariable = "ONAIR_CHAT_JWT_SECRET"
    static func jwtSettings(configPath: String?) throws -> JWTSettings {
        do { return try ChatConfigLoader.load(path: configPath).auth.jwt } catch { throw ValidationError("\(error)") }
    }
}
