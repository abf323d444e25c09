import Foundation
import OnAirPostgres
import PostgresNIO
import Logging
import OnAirForwarding
import OnAirRelay
import OnAirWebhooks
import ServiceLifecycle

/// One scenario: a WebhookService on a fresh database file with `subscribers` subscriptions
/// to the receiver, running in its own ServiceGroup, shut down (and the file removed) after.
enum BenchRun {
    /// Where the outbox lives: a temporary SQLite file (one relay), or a PostgreSQL database
    /// (`--database URL`) shared by `relays` relays, emptied before each section.
    nonisolated(unsafe) static var database: String?
    nonisolated(unsafe) static var relays = 1

    /// Runs `body` with live webhook services (one per relay); `body` reports each room's
    /// changes to the observer of the relay that serves the room (rooms are spread over relays).
    static func with(url: String, secret: WebhookSecret, subscribers: Int, logger: Logger,
                     _ body: (Observers) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("webhooks-bench-\(UUID().uuidString).sqlite").path
        if let database { try await empty(database, logger: logger) }
        var services: [WebhookService] = []
        for relay in 0..<(database == nil ? 1 : relays) {
            var config = RelayConfig.Webhooks()
            config.database = database ?? path
            config.subscribers = (0..<subscribers).map { .init(url: url + "?subscriber=\($0)", secret: secret.encoded) }
            services.append(try await WebhookService.open(config: config, relayID: "http://bench-relay-\(relay)", logger: logger))
        }
        let group = ServiceGroup(configuration: .init(services: services, logger: logger))
        let running = Task { try await group.run() }
        try await body(Observers(all: services.map(\.observer)))
        await group.triggerGracefulShutdown()
        try await running.value
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// The observers of the relays; a room belongs to one of them (by a stable hash).
    struct Observers {
        let all: [WebhookLifecycleObserver]

        func forRoom(_ room: String) -> WebhookLifecycleObserver {
            all[Int(room.utf8.reduce(UInt32(0)) { $0 &* 31 &+ UInt32($1) } % UInt32(all.count))]
        }
    }

    /// Deletes what an earlier section left in the shared database.
    static func empty(_ url: String, logger: Logger) async throws {
        let database = try SharedDatabase(url: try PostgresURL(parsing: url), logger: logger)
        let pool = Task { await database.run() }
        defer { pool.cancel() }
        try await database.withConnection { connection in
            try await connection.query("""
                DO $$ BEGIN
                  IF to_regclass('relay_event') IS NOT NULL THEN
                    TRUNCATE relay_delivery_attempt, relay_delivery, relay_event, relay_stream, relay_lane, relay_room, relay_subscription;
                  END IF;
                END $$
                """, logger: logger)
        }
    }

    static func waitUntil(_ condition: @Sendable () -> Bool, timeout: Double) async -> Bool {
        let deadline = Monotonic.seconds() + timeout
        while !condition() {
            if Monotonic.seconds() > deadline { return false }
            try? await Task.sleep(for: .microseconds(200))
        }
        return true
    }

    static func started(_ room: String) -> StreamStarted {
        StreamStarted(room: room, session: "s-" + room, codecs: ["video/H264/90000", "audio/opus/48000/2"],
                      at: Date().timeIntervalSince1970)
    }

    static func ended(_ room: String) -> StreamEnded {
        StreamEnded(room: room, session: "s-" + room, reason: .publisherDeleted, durationSeconds: 61.5,
                    bytesIn: 45_000_000, bytesOut: 900_000_000, peakViewers: 20, at: Date().timeIntervalSince1970)
    }
}
