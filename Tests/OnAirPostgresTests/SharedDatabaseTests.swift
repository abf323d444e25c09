import Logging
import OnAirPostgres
import OnAirTestSupport
import PostgresNIO
import Synchronization
import Testing

/// Against a real PostgreSQL server (tools/pg/throwaway.sh).
@Suite("Shared PostgreSQL database", .serialized)
struct SharedDatabaseTests {
    static let logger: Logger = {
        var logger = Logger(label: "pg-test")
        logger.logLevel = .critical
        return logger
    }()

    /// Runs `body` with a database whose pool runs meanwhile.
    func withDatabase<T: Sendable>(_ urlText: String, deadline: Duration = .seconds(5),
                                   _ body: (SharedDatabase) async throws -> T) async throws -> T {
        let database = try SharedDatabase(url: try PostgresURL(parsing: urlText), logger: Self.logger, deadline: deadline)
        let pool = Task { await database.run() }
        defer { pool.cancel() }
        return try await body(database)
    }

    func startupError(_ urlText: String) async throws -> SharedDatabaseError {
        try await withDatabase(urlText, deadline: .seconds(8)) { database in
            do {
                try await database.checkReachable()
            } catch let error as SharedDatabaseError {
                return error
            }
            Issue.record("\(urlText) was reachable")
            return SharedDatabaseError(.statement, "")
        }
    }

    @Test("start-up check: one line that names what to fix")
    func startupErrors() async throws {
        let good = try await ThrowawayPostgres.database()
        try await withDatabase(good) { try await $0.checkReachable() }

        let password = try await startupError(good.replacingOccurrences(of: "onair:onair@", with: "onair:wrong@"))
        #expect(password.kind == .refused && password.description.contains("refused the password of user onair"), "\(password)")

        let database = try await startupError(good.replacingOccurrences(of: #"/t_\d+$"#, with: "/nosuchdb", options: .regularExpression))
        #expect(database.kind == .noDatabase && database.description.contains("no database nosuchdb"), "\(database)")

        let closed = try await startupError("postgres://onair:onair@127.0.0.1:1/onair?sslmode=disable")
        #expect(closed.kind == .unreachable && closed.description.contains("cannot reach PostgreSQL at 127.0.0.1:1"), "\(closed)")
        for error in [password, database, closed] { #expect(!error.description.contains("\n")) }
    }

    @Test("migrations: four nodes starting at once apply each version exactly once")
    func migrationsOnce() async throws {
        let url = try await ThrowawayPostgres.database()
        let migrator = SchemaMigrator(scope: "test", migrations: [
            SchemaMigration(version: 1, name: "t", statements: ["CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1)"]),
            SchemaMigration(version: 2, name: "u", statements: ["ALTER TABLE t ADD COLUMN u text"]),
        ])
        let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<4 {
                group.addTask { try await withDatabase(url) { try await migrator.migrate($0) } }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(applied.sorted() == [1, 2])
        let again = try await withDatabase(url) { try await migrator.migrate($0) }
        #expect(again.isEmpty)
    }

    @Test("doorbell: rings coalesce per key, a listener hears them, and hears `listening` again after an outage")
    func doorbellAndListener() async throws {
        let server = try await ThrowawayPostgres.start()
        defer { try? server.stop() }
        let url = try PostgresURL(parsing: server.url)
        try await withDatabase(server.url) { database in
            let listener = NotificationListener(url: url, channel: "test_bell", logger: Self.logger)
            let heard = Heard()
            let listening = Task { await listener.run() }
            let consuming = Task { for await event in listener.events { heard.append(event) } }
            defer { listening.cancel(); consuming.cancel() }
            try await heard.wait { $0.contains(.listening) }

            let bell = NotifyDoorbell(database: database, channel: "test_bell")
            for i in 1...500 { bell.ring("room\(i % 5)", "room\(i % 5) \(i)") }
            try await heard.wait { $0.contains(.notification("room0 500")) && $0.contains(.notification("room4 499")) }
            var newest: [String: Int] = [:]
            let payloads = heard.events.compactMap { event -> String? in
                if case .notification(let payload) = event { return payload }
                return nil
            }
            for payload in payloads {
                let parts = payload.split(separator: " ")
                let id = Int(parts[1])!
                #expect(id > newest[String(parts[0])] ?? 0, "per key, newer only")
                newest[String(parts[0])] = id
            }
            #expect(newest == ["room0": 500, "room1": 496, "room2": 497, "room3": 498, "room4": 499])
            #expect(payloads.count < 500, "coalesced: \(payloads.count) notifications for 500 rings")

            try server.pause()
            let listenedBefore = heard.events.filter { $0 == .listening }.count
            try server.resume()
            try await heard.wait(seconds: 15) { $0.filter { $0 == .listening }.count > listenedBefore }
            // The pool reconnects by itself too: a ring after the outage is heard (rings lost to the
            // outage itself are why listeners re-read on `listening`).
            for attempt in 1...10 {
                bell.ring("after", "after \(attempt)")
                if (try? await heard.wait(seconds: 1, { $0.contains(.notification("after \(attempt)")) })) != nil { return }
            }
            Issue.record("no ring heard after the outage: \(heard.events.suffix(5))")
        }
    }
}

/// What a listener heard, for polling with a deadline.
final class Heard: Sendable {
    private let store = Mutex<[NotificationListener.Event]>([])

    var events: [NotificationListener.Event] { store.withLock { $0 } }

    func append(_ event: NotificationListener.Event) { store.withLock { $0.append(event) } }

    struct TimedOut: Error {}

    func wait(seconds: Double = 10, _ condition: ([NotificationListener.Event]) -> Bool) async throws {
        let end = ContinuousClock.now + .seconds(seconds)
        while !condition(events) {
            guard ContinuousClock.now < end else { throw TimedOut() }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
