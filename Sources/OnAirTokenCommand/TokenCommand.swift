import ArgumentParser
import OnAirAuth

/// How a server's executable finds its `auth.jwt` settings (config file, then environment),
/// so that `relay token create` and `chat token create` are this one command.
public protocol JWTSettingsLoading {
    /// `relay` or `chat`, for help texts.
    static var serverName: String { get }
    /// The environment variable of the secret (`ONAIR_JWT_SECRET`, `ONAIR_CHAT_JWT_SECRET`).
    static var secretVariable: String { get }
    static func jwtSettings(configPath: String?) throws -> JWTSettings
}

/// `<server> token ...`: access tokens for testing and scripts (like `lk token create`).
public struct TokenCommand<Loader: JWTSettingsLoading>: AsyncParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "token", abstract: "Access tokens (JWT) for testing and scripts.",
                             subcommands: [TokenCreateCommand<Loader>.self])
    }

    public init() {}
}
