import ArgumentParser
import Foundation
import OnAirAuth
import OnAirTokenFormat

/// `<server> token create --room 42 --identity ada --name Ada --grants view,chat --ttl 1h`:
/// prints an HS256 token signed with `--secret`, else with the server's `auth.jwt.secret`
/// (config file, then its environment variable), with the config's `aud`/`iss`.
public struct TokenCreateCommand<Loader: JWTSettingsLoading>: AsyncParsableCommand {
    public static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "create", abstract: "Print a signed access token (HS256).")
    }

    @Option(help: "The room id, '*' for every room, or a prefix pattern like 'team-*'.")
    var room: String?

    @Option(help: "The user id (the sub claim).")
    var identity: String

    @Option(help: "The display name (the name claim; default: none, the identity is shown).")
    var name: String?

    @Option(help: "Comma list of grants: publish, view, chat, moderate, admin.")
    var grants: String

    @Option(help: "How long the token is valid: 90s, 30m, 1h, 2d or seconds.")
    var ttl: String = "1h"

    @Option(help: "HS256 secret (default: auth.jwt.secret of the config, or its environment variable).")
    var secret: String?

    @Option(name: .shortAndLong, help: "The server's YAML config file, for the secret, audience and issuer.")
    var config: String?

    public init() {}

    public func run() async throws {
        let settings = try Loader.jwtSettings(configPath: config)
        guard let key = secret ?? settings.secret else {
            throw ValidationError("no HS256 secret: pass --secret, or set auth.jwt.secret in the \(Loader.serverName)'s config or \(Loader.secretVariable)")
        }
        let grantList: [Grant]
        do { grantList = try Grant.parseList(grants) } catch { throw ValidationError("--grants: \(error)") }
        guard !grantList.isEmpty else { throw ValidationError("--grants: name at least one grant") }
        guard let seconds = Self.seconds(ttl), seconds > 0 else {
            throw ValidationError("--ttl \(ttl) is not a duration (90s, 30m, 1h, 2d or seconds)")
        }
        if let room, RoomPattern(room) == nil {
            throw ValidationError("--room \(room) is not a room id, '*' or a prefix ending in '*'")
        }
        let minter: TokenMinter
        do { minter = try await TokenMinter(secret: key) } catch { throw ValidationError("\(error)") }
        let claims = TokenMinter.claims(identity: identity, name: name, room: room, grants: grantList, ttl: seconds,
                                        audience: settings.audience, issuer: settings.issuer)
        print(try await minter.mint(claims))
    }

    /// `90s`, `30m`, `1h`, `2d`, or a plain number of seconds.
    static func seconds(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        if let last = text.last, let unit = units[last] { return Double(text.dropLast()).map { $0 * unit } }
        return Double(text)
    }
}
