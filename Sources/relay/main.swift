import ArgumentParser
import Foundation
import Logging
import OnAirAuth
import OnAirRelay
import OnAirTokenCommand

@main
struct RelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "OnAir relay: WHIP ingest, WHEP fan-out, viewer page.",
        subcommands: [Serve.self, CheckConfig.self, TokenCommand<RelayJWTSettings>.self],
        defaultSubcommand: Serve.self)
}

struct ConfigOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: "YAML config file (default: none, loopback defaults; see config/relay.yaml).")
    var config: String?

    @Option(help: "HTTP port (overrides the config file and ONAIR_HTTP_PORT).")
    var httpPort: Int?

    @Option(help: "UDP media port, 0 for any free port (overrides config and ONAIR_UDP_PORT).")
    var udpPort: Int?

    @Option(help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel: String = "info"

    func load() throws -> RelayConfig {
        do {
            var config = try RelayConfigLoader.load(path: config)
            if let httpPort { config.http.port = httpPort }
            if let udpPort { config.media.udpPort = udpPort }
            return config
        } catch {
            throw ValidationError("\(error)")
        }
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the relay (the default).")

    @OptionGroup var options: ConfigOptions

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
        let logger = Logger(label: "onair.relay")
        let server = RelayServer(config: config, logger: logger)
        try await server.run { httpPort, udpPorts in
            let host = config.http.host.contains(":") ? "[\(config.http.host)]" : config.http.host
            let base = "http://\(host):\(httpPort)"
            let ports = udpPorts.map(String.init).joined(separator: ",")
            let workers = udpPorts.count == 1 ? "1 media worker" : "\(udpPorts.count) media workers"
            let banner = """
                relay: HTTP \(base)  UDP \(config.media.bind) port \(ports) (\(workers))
                relay: publish  WHIP \(base)/whip/<room>
                relay: watch    \(base)/rooms/<room>   (e.g. \(base)/rooms/42)

                """
            // Written straight to fd 1 so it is visible at once even when stdout is a pipe.
            try? FileHandle.standardOutput.write(contentsOf: Data(banner.utf8))  // no trap on a closed pipe
        }
    }
}

struct CheckConfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "check-config", abstract: "Validate a config file and print the result.")

    @OptionGroup var options: ConfigOptions

    func run() async throws {
        let config = try options.load()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        var redacted = config
        if redacted.auth.publishToken != nil { redacted.auth.publishToken = "(set)" }
        if redacted.auth.viewerToken != nil { redacted.auth.viewerToken = "(set)" }
        if redacted.auth.adminToken != nil { redacted.auth.adminToken = "(set)" }
        if redacted.turn.secret != nil { redacted.turn.secret = "(set)" }
        if redacted.auth.jwt.secret != nil { redacted.auth.jwt.secret = "(set)" }
        for key in redacted.rooms.keys {
            if redacted.rooms[key]?.publishToken != nil { redacted.rooms[key]?.publishToken = "(set)" }
            if redacted.rooms[key]?.viewerToken != nil { redacted.rooms[key]?.viewerToken = "(set)" }
        }
        print(String(decoding: try encoder.encode(redacted), as: UTF8.self))
    }
}

/// `relay token create`: the secret, audience and issuer of the relay's `auth.jwt` (config, then ONAIR_JWT_*).
enum RelayJWTSettings: JWTSettingsLoading {
    static let serverName = "relay"
    static let secretVariable = "ONAIR_JWT_SECRET"
    static func jwtSettings(configPath: String?) throws -> JWTSettings {
        do { return try RelayConfigLoader.load(path: configPath).auth.jwt } catch { throw ValidationError("\(error)") }
    }
}
