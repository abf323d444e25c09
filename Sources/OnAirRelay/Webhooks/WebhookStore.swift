import Foundation
import GRDB
import OnAirCrypto

/// The durable side of webhooks, in one SQLite file: stream state, the outbox, subscriptions
/// and the delivery log. Every lifecycle change updates its `streams` row and inserts its event
/// and deliveries in ONE transaction, so the state and the outbox never disagree, even after
/// kill -9 (SQLite WAL: a committed transaction survives a crash of the process).
public final class WebhookStore: Sendable {
    let writer: any DatabaseWriter
    public let schedule: RetrySchedule
    /// A second connection that only checkpoints the WAL (file databases): see ``checkpoint()``.
    let checkpointer: DatabaseQueue?
    /// Pages of WAL after which a commit checkpoints in line: a safety net only, the service
    /// checkpoints every second from ``checkpointer``.
    static let inlineCheckpointPages = 10_000

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Opens (creating if needed) the store at `path`; `:memory:` gives a private in-memory
    /// database for tests.
    public init(path: String, schedule: RetrySchedule = RetrySchedule()) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        // Another connection (a second relay on the same file by mistake) waits instead of failing.
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            // WAL + NORMAL: commits survive a process crash (kill -9); only a power loss can
            // lose the last transactions, which at-least-once delivery already tolerates.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(Self.inlineCheckpointPages)")
        }
        if path == ":memory:" {
            writer = try DatabaseQueue(configuration: configuration)
            checkpointer = nil
        } else {
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            if !FileManager.default.fileExists(atPath: directory) {
                throw Failure(description: "webhooks.database: directory \(directory) does not exist")
            }
            writer = try DatabasePool(path: path, configuration: configuration)
            checkpointer = try DatabaseQueue(path: path, configuration: configuration)
        }
        self.schedule = schedule
        try WebhookSchema.migrator.migrate(writer)
    }

    /// Copies committed WAL frames into the database file (SQLite "PASSIVE" checkpoint) from
    /// a connection of its own. A checkpoint fsyncs; done in line by the writer (SQLite's
    /// default every 1000 pages) it stalled every write behind it for tens of milliseconds,
    /// which showed as a p99 of 200+ ms in webhooks-bench at 500 events/s. PASSIVE never
    /// takes the write lock, so writes go on while it runs.
    public func checkpoint() async throws {
        guard let checkpointer else { return }
        _ = try await checkpointer.writeWithoutTransaction { try $0.checkpoint(.passive) }
    }

    // MARK: ids

    /// `evt_` + 96 random bits: unique without coordination, and nothing to guess from.
    static func newEventID() -> String { "evt_" + hex(SecureRandom.bytes(12)) }

    /// `wh_` + 96 random bits for subscriptions made through the API.
    static func newSubscriptionID() -> String { "wh_" + hex(SecureRandom.bytes(12)) }

    /// Config subscribers keep their id across restarts (their deliveries point at it): it is
    /// derived from the URL.
    static func configSubscriptionID(url: String) -> String {
        "wh_cfg_" + hex(Array(Digest.sha256(Array(url.utf8)).prefix(8)))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 3339 with milliseconds, UTC (the payload's `timestamp`).
    static func rfc3339(_ seconds: Double) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date(timeIntervalSince1970: seconds))
    }

    // MARK: config subscribers

    /// Makes the `config` subscriptions match `subscribers`: new ones are added, changed ones
    /// updated (and re-enabled), ones no longer configured are disabled (their pending
    /// deliveries cancelled; their log stays).
    public func syncConfigSubscribers(_ subscribers: [RelayConfig.Webhooks.Subscriber], now: Double) async throws {
        try await writer.write { db in
            var configured = Set<String>()
            for subscriber in subscribers {
                let id = Self.configSubscriptionID(url: subscriber.url)
                configured.insert(id)
                try db.execute(sql: """
                    INSERT INTO subscriptions (id, url, secret, previous_secret, previous_secret_expires_at, event_types,
                                               source, enabled, created_at)
                    VALUES (?, ?, ?, ?, NULL, ?, 'config', 1, ?)
                    ON CONFLICT(id) DO UPDATE SET url = excluded.url, secret = excluded.secret,
                        previous_secret = excluded.previous_secret, previous_secret_expires_at = NULL,
                        event_types = excluded.event_types, source = 'config', enabled = 1, disabled_reason = NULL
                    """, arguments: [id, subscriber.url, subscriber.secret, subscriber.previousSecret,
                                     StreamEventType.filter(subscriber.events), now])
            }
            let stale = try String.fetchAll(db, sql: "SELECT id FROM subscriptions WHERE source = 'config' AND enabled = 1")
                .filter { !configured.contains($0) }
            for id in stale {
                try Self.disable(db, subscription: id, reason: "removed from the config file", now: now)
            }
        }
    }

    /// Disables a subscription and cancels what it still had to receive.
    static func disable(_ db: Database, subscription id: String, reason: String, now: Double) throws {
        try db.execute(sql: "UPDATE subscriptions SET enabled = 0, disabled_reason = ? WHERE id = ?", arguments: [reason, id])
        try db.execute(sql: """
            UPDATE deliveries SET state = 'cancelled', finished_at = ?, last_error = ?
            WHERE subscription_id = ? AND state = 'pending'
            """, arguments: [now, "subscription disabled: \(reason)", id])
    }

    // MARK: retention

    /// Deletes finished deliveries (with their attempts) and events older than `cutoff` that
    /// no pending delivery still needs.
    public func prune(before cutoff: Double) async throws {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM deliveries WHERE state != 'pending' AND finished_at < ?", arguments: [cutoff])
            try db.execute(sql: """
                DELETE FROM events WHERE created_at < ?
                AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.event_seq = events.seq AND d.state = 'pending')
                """, arguments: [cutoff])
        }
    }
}
