import Foundation
import Logging
import OnAirPostgres
@testable import OnAirRelay
import OnAirTestSupport
import PostgresNIO
import Synchronization
import Testing

/// The two stores every store-touching webhook test runs against.
enum OutboxKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { rawValue }
}

/// Opens webhook stores of one kind on one location (a temporary SQLite file, or a fresh
/// database on the process's throwaway PostgreSQL server). Each ``open(_:relay:)`` is a
/// restart, or with PostgreSQL another relay. Everything opened is closed by ``with(_:_:)``.
final class OutboxStoreFactory: Sendable {
    let kind: OutboxKind
    let location: String
    private let pools = Mutex<[Task<Void, Never>]>([])
    private let databases = Mutex<[SharedDatabase]>([])

    private init(kind: OutboxKind, location: String) {
        self.kind = kind
        self.location = location
    }

    static var logger: Logger {
        var logger = Logger(label: "outbox-test")
        logger.logLevel = .critical
        return logger
    }

    static func with<T: Sendable>(_ kind: OutboxKind, _ body: (OutboxStoreFactory) async throws -> T) async throws -> T {
        let factory: OutboxStoreFactory
        switch kind {
        case .sqlite: factory = OutboxStoreFactory(kind: kind, location: WebhookFixtures.temporaryDatabase())
        case .postgres: factory = OutboxStoreFactory(kind: kind, location: try await ThrowawayPostgres.database())
        }
        defer {
            for pool in factory.pools.withLock({ $0 }) { pool.cancel() }
            if kind == .sqlite { WebhookFixtures.removeDatabase(factory.location) }
        }
        return try await body(factory)
    }

    func open(_ schedule: RetrySchedule, relay: String = "http://relay-a.test") async throws -> any WebhookOutboxStore {
        switch kind {
        case .sqlite:
            return try WebhookStore(path: location, schedule: schedule)
        case .postgres:
            return try await openPostgres(schedule, relay: relay)
        }
    }

    func openPostgres(_ schedule: RetrySchedule, relay: String) async throws -> PostgresWebhookStore {
        let database = try SharedDatabase(url: try PostgresURL(parsing: location), logger: Self.logger,
                                          deadline: ThrowawayPostgres.operationDeadline)
        let pool = Task { await database.run() }
        pools.withLock { $0.append(pool) }
        databases.withLock { $0.append(database) }
        return try await PostgresWebhookStore(database: database, relayID: relay, schedule: schedule)
    }

    /// `events(after:limit:)` once it holds at least `count` events (PostgreSQL shows an event
    /// only when every older transaction of the cluster has ended: other tests' run meanwhile).
    static func events(_ store: any WebhookOutboxStore, after seq: Int64, limit: Int, atLeast count: Int) async throws
        -> [OutboxEvent]
    {
        let end = ContinuousClock.now + .seconds(10)
        while true {
            let events = try await store.events(after: seq, limit: limit)
            if events.count >= count || ContinuousClock.now > end { return events }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Makes every event insert fail from now on (a full disk, a broken connection).
    func refuseEventInserts(_ store: any WebhookOutboxStore) async throws {
        if let sqlite = store as? WebhookStore {
            try await sqlite.writer.write { db in
                try db.execute(sql: "CREATE TRIGGER refuse BEFORE INSERT ON events BEGIN SELECT RAISE(ABORT, 'disk full'); END")
            }
        } else if let postgres = store as? PostgresWebhookStore {
            try await postgres.database.withConnection { connection in
                try await connection.query("""
                    CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$
                    """, logger: Self.logger)
                try await connection.query("CREATE TRIGGER refuse BEFORE INSERT ON relay_event FOR EACH ROW EXECUTE FUNCTION refuse()",
                                           logger: Self.logger)
            }
        }
    }
}
