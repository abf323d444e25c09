import Logging
import NIOCore
import PostgresNIO

/// The PostgreSQL database several nodes share: a connection pool that reconnects by itself
/// (``run()`` must run for as long as the database is used), a start-up check that fails in
/// one line, and transactions with a deadline, so that while the server is away an operation
/// fails with ``SharedDatabaseError`` instead of waiting for it.
public final class SharedDatabase: Sendable {
    public let url: PostgresURL
    let client: PostgresClient
    public let logger: Logger
    /// The longest an operation waits (for a connection and for its statements).
    public let deadline: Duration

    public init(url: PostgresURL, logger: Logger, maxConnections: Int = 16, deadline: Duration = .seconds(5)) throws {
        var configuration = try url.clientConfiguration()
        configuration.options.maximumConnections = maxConnections
        configuration.options.keepAliveBehavior = .init(frequency: .seconds(15))
        self.url = url
        self.logger = logger
        self.deadline = deadline
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    }

    /// Runs the pool until the task is cancelled.
    public func run() async {
        await client.run()
    }

    /// Opens one connection and runs `SELECT 1`: the start-up check that a wrong URL, a
    /// refused password or an unreachable server fail with a line that says what to fix.
    public func checkReachable(logger: Logger? = nil) async throws(SharedDatabaseError) {
        let configuration: PostgresConnection.Configuration
        do {
            configuration = try url.connectionConfiguration()
        } catch {
            throw SharedDatabaseError(.refused, "TLS settings of \(url): \(error)")
        }
        do {
            try await withDeadline(deadline) {
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 0,
                                                                      logger: logger ?? self.logger)
                defer { Task { try? await connection.close() } }
                try await connection.query("SELECT 1", logger: self.logger)
            }
        } catch {
            throw SharedDatabaseError.describing(error, url: url)
        }
    }

    /// Runs `body` in one transaction (committed when it returns, rolled back when it throws).
    @discardableResult
    public func transaction<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await withConnection { connection in
            try await connection.withTransaction(logger: self.logger) { try await body($0) }
        }
    }

    /// Runs `body` on a pooled connection, outside a transaction, within `deadline` (default:
    /// the database's).
    @discardableResult
    public func withConnection<Result: Sendable>(
        deadline: Duration? = nil,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        do {
            return try await withDeadline(deadline ?? self.deadline) { try await self.client.withConnection { try await body($0) } }
        } catch {
            var cause: any Error = error
            if let failed = error as? PostgresTransactionError {
                cause = failed.closureError ?? failed.commitError ?? failed.beginError ?? error
            }
            // The caller's own errors (a refusal decided inside the transaction) pass unchanged.
            guard Self.isDatabaseError(cause) else { throw cause }
            throw SharedDatabaseError.describing(cause, url: url)
        }
    }

    static func isDatabaseError(_ error: any Error) -> Bool {
        error is PSQLError || error is SharedDatabaseError || error is IOError || error is ChannelError
            || error is PostgresTransactionError || error is CancellationError || "\(type(of: error))" == "ConnectionPoolError"
    }

    /// `body`, or ``SharedDatabaseError/Kind/timedOut`` once `deadline` has passed (whether or
    /// not `body` honours its cancellation: ``Deadline``).
    func withDeadline<Result: Sendable>(_ deadline: Duration, _ body: @escaping @Sendable () async throws -> Result) async throws
        -> Result
    {
        let place = url.socketPath ?? "\(url.host):\(url.port)"
        return try await Deadline.run(deadline, timeout: {
            SharedDatabaseError(.timedOut, "PostgreSQL at \(place) did not answer within \(deadline): is it running and reachable?")
        }, body)
    }
}
