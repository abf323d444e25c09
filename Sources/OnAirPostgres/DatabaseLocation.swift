/// Where a process keeps its durable state: a SQLite file (one machine, zero config, the
/// default) or a PostgreSQL database shared by several nodes, told apart by the URL scheme.
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(PostgresURL)

    /// `postgres://...` or `postgresql://...` is a PostgreSQL URL; anything else a file path.
    public init(parsing text: String) throws(PostgresURLError) {
        if PostgresURL.looksLikeURL(text) {
            self = .postgres(try PostgresURL(parsing: text))
        } else {
            guard !text.isEmpty else { throw PostgresURLError("the database is empty: give a SQLite file path or a postgres:// URL") }
            self = .sqlite(path: text)
        }
    }

    /// For logs: the path, or the URL without its password.
    public var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let url): url.description
        }
    }
}
