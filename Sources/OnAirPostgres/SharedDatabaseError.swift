import NIOCore
import PostgresNIO

/// Why the shared database did not answer, in one line that names what to fix.
public struct SharedDatabaseError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// The server could not be reached or dropped the connection.
        case unreachable
        /// The server refused the login (password, user, pg_hba.conf).
        case refused
        /// The named database does not exist.
        case noDatabase
        /// No answer within the operation's deadline.
        case timedOut
        /// The server answered with an error to a statement.
        case statement
    }

    public let kind: Kind
    public let description: String
    /// The server's SQLSTATE, when the server said it.
    public let sqlState: String?

    public init(_ kind: Kind, _ description: String, sqlState: String? = nil) {
        self.kind = kind
        self.description = description
        self.sqlState = sqlState
    }

    /// `error` (from postgres-nio, the pool or NIO) said in terms of `url`.
    public static func describing(_ error: any Error, url: PostgresURL) -> SharedDatabaseError {
        if let known = error as? SharedDatabaseError { return known }
        let place = url.socketPath ?? "\(url.host):\(url.port)"
        if let psql = error as? PSQLError {
            if let info = psql.serverInfo {
                let state = info[.sqlState] ?? "?"
                let message = info[.message] ?? "no message"
                switch state {
                case "28P01":
                    return .init(.refused, "PostgreSQL at \(place) refused the password of user \(url.user): fix the password in the URL",
                                 sqlState: state)
                case "28000":
                    return .init(.refused, "PostgreSQL at \(place) refused user \(url.user) (\(message)): check the user and pg_hba.conf",
                                 sqlState: state)
                case "3D000":
                    return .init(.noDatabase, "PostgreSQL at \(place) has no database \(url.database): create it (createdb \(url.database))",
                                 sqlState: state)
                case "57P01", "57P02", "57P03", "08000", "08003", "08006":
                    return .init(.unreachable, "PostgreSQL at \(place) is shutting down or not accepting connections (\(message))",
                                 sqlState: state)
                default:
                    return .init(.statement, "PostgreSQL error \(state): \(message)", sqlState: state)
                }
            }
            switch psql.code {
            case .sslUnsupported:
                return .init(.refused, "PostgreSQL at \(place) does not offer TLS but sslmode=\(url.sslMode.rawValue) needs it: "
                                 + "use sslmode=prefer or disable, or turn ssl on in the server")
            case .authMechanismRequiresPassword:
                return .init(.refused, "PostgreSQL at \(place) wants a password for user \(url.user): put it in the URL (user:password@)")
            case .connectionError, .serverClosedConnection, .uncleanShutdown, .clientClosedConnection, .poolClosed:
                let cause = psql.underlying.map { " (\($0))" } ?? ""
                return .init(.unreachable, "cannot reach PostgreSQL at \(place)\(cause): is the server running and listening there?")
            default:
                return .init(.statement, "PostgreSQL: \(String(reflecting: psql))")
            }
        }
        if error is ChannelError || error is IOError || "\(type(of: error))" == "ConnectionPoolError" {
            return .init(.unreachable, "cannot reach PostgreSQL at \(place) (\(error)): is the server running and listening there?")
        }
        return .init(.unreachable, "PostgreSQL at \(place): \(error)")
    }
}
