import ArgumentParser
import Dispatch
import Foundation
import OnAirBroadcast

@main
struct BroadcastCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "broadcast",
        abstract: "OnAir broadcaster: go live over WHIP from a test pattern, a media file or a camera.",
        discussion: """
            Exit codes: 0 ok, 2 bad option or unreadable input, 3 relay unreachable, 4 token refused (401),
            5 room busy (409), 6 other HTTP error from the WHIP endpoint, 7 media connection lost after all retries.
            """,
        subcommands: [Start.self, Stop.self, Doctor.self])
}

/// Options shared by every subcommand: where the relay is and how to authenticate.
struct EndpointOptions: ParsableArguments {
    @Option(help: "Room to publish to.")
    var room: String

    @Option(help: "Relay base URL (http://host:port -> /whip/<room>) or a full WHIP URL. Default: config, else http://127.0.0.1:8080.")
    var relay: String?

    @Option(help: "Bearer token for the room (default: $ONAIR_BROADCAST_TOKEN, then the config file). Never printed.")
    var token: String?

    @Option(name: .customLong("config"), help: "YAML defaults (default: $ONAIR_BROADCAST_CONFIG, else ./config/broadcast.yaml if present).")
    var configPath: String?

    func configFile() throws -> BroadcastConfigFile {
        let explicit = configPath ?? ProcessInfo.processInfo.environment["ONAIR_BROADCAST_CONFIG"]
        return try Failure.run { () throws(BroadcastError) in
            try BroadcastConfigFile.load(path: explicit ?? "config/broadcast.yaml", required: explicit != nil)
        }
    }

    func whipURL(_ file: BroadcastConfigFile) -> String {
        BroadcastSettings.whipURL(relay: relay ?? file.relay ?? "http://127.0.0.1:8080", room: room)
    }

    func resolvedToken(_ file: BroadcastConfigFile) -> String? {
        token ?? ProcessInfo.processInfo.environment["ONAIR_BROADCAST_TOKEN"].flatMap { $0.isEmpty ? nil : $0 } ?? file.token
    }
}

/// Turns a BroadcastError into the documented exit code with its message.
enum Failure {
    static func run<T>(_ body: () throws(BroadcastError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            Console.error("broadcast: \(error.description)")
            throw ExitCode(error.code.rawValue)
        }
    }

    static func usage(_ message: String) -> ExitCode {
        Console.error("broadcast: \(message)")
        return ExitCode(BroadcastError.Code.usage.rawValue)
    }
}
