import Foundation
import GRDB

/// The delivery side: each subscriber's lane reads its head here and writes back what each
/// attempt gave; the admin API reads the log and queues manual redeliveries.
extension WebhookStore {
    /// The next deliveries of a subscriber's lane in the order they must go out: by outbox
    /// sequence, then by delivery id (a manual redelivery of an old event goes first).
    public func pendingDeliveries(subscription: String, limit: Int) async throws -> [PendingDelivery] {
        try await writer.read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT d.id, d.subscription_id, d.event_seq, d.attempts, d.next_attempt_at, e.id AS event_id, e.body
                FROM deliveries d JOIN events e ON e.seq = d.event_seq
                WHERE d.subscription_id = ? AND d.state = 'pending'
                ORDER BY d.event_seq, d.id LIMIT ?
                """), arguments: [subscription, limit]).map(PendingDelivery.init(row:))
        }
    }

    /// Logs attempts and applies their decisions, in order, in one transaction.
    public func recordAttempts(_ outcomes: [AttemptOutcome]) async throws {
        try await writer.write { db in
            for outcome in outcomes { try Self.apply(outcome, db) }
        }
    }

    /// One outcome: its row in the attempt log, and the delivery's new state.
    static func apply(_ outcome: AttemptOutcome, _ db: Database) throws {
        let delivery = outcome.delivery
        let at = outcome.at
        let status = outcome.result.status
        let error = outcome.result.failure
        try db.cachedStatement(sql: """
            INSERT INTO delivery_attempts (delivery_id, attempted_at, status, error, duration_ms) VALUES (?, ?, ?, ?, ?)
            """).execute(arguments: [delivery.id, at, status, error, outcome.durationMs])
        let common = "attempts = attempts + 1, last_attempt_at = ?, last_status = ?"
        switch outcome.decision {
        case .delivered:
            try db.cachedStatement(sql: """
                UPDATE deliveries SET state = 'delivered', \(common), last_error = NULL, next_attempt_at = NULL,
                    finished_at = ? WHERE id = ?
                """).execute(arguments: [at, status, at, delivery.id])
        case .retry(let next, let reason):
            try db.execute(sql: "UPDATE deliveries SET \(common), last_error = ?, next_attempt_at = ? WHERE id = ?",
                           arguments: [at, status, reason, next, delivery.id])
        case .giveUp(let reason), .disable(let reason):
            try db.execute(sql: """
                UPDATE deliveries SET state = 'failed', \(common), last_error = ?, next_attempt_at = NULL,
                    finished_at = ? WHERE id = ?
                """, arguments: [at, status, reason, at, delivery.id])
            if case .disable = outcome.decision {
                try disable(db, subscription: delivery.subscriptionID, reason: reason, now: at)
            }
        }
    }

    /// Queues the event of `delivery` again for its subscription, as a new delivery due now.
    /// nil when the subscription has no such delivery.
    public func redeliver(subscription: String, delivery: Int64, now: Double) async throws -> DeliveryRecord? {
        let newID: Int64? = try await writer.write { db in
            guard let eventSeq = try Int64.fetchOne(db, sql: "SELECT event_seq FROM deliveries WHERE id = ? AND subscription_id = ?",
                                                    arguments: [delivery, subscription]) else { return nil }
            try db.execute(sql: """
                INSERT INTO deliveries (subscription_id, event_seq, state, attempts, next_attempt_at, created_at, redelivery_of)
                VALUES (?, ?, 'pending', 0, ?, ?, ?)
                """, arguments: [subscription, eventSeq, now, now, delivery])
            return db.lastInsertedRowID
        }
        guard let newID else { return nil }
        return try await deliveries(subscription: subscription, limit: 1, before: newID + 1).first
    }

    /// The delivery log of a subscription, newest first, each with its attempts.
    public func deliveries(subscription: String, limit: Int, before: Int64? = nil,
                           state: String? = nil) async throws -> [DeliveryRecord] {
        try await writer.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT d.*, e.id AS event_id, e.type, e.room FROM deliveries d JOIN events e ON e.seq = d.event_seq
                WHERE d.subscription_id = ? AND d.id < ? AND (? IS NULL OR d.state = ?)
                ORDER BY d.id DESC LIMIT ?
                """, arguments: [subscription, before ?? Int64.max, state, state, limit])
            return try rows.map { row in
                let attempts = try Row.fetchAll(db, sql: """
                    SELECT attempted_at, status, error, duration_ms FROM delivery_attempts WHERE delivery_id = ? ORDER BY id
                    """, arguments: [row["id"] as Int64]).map {
                    DeliveryRecord.Attempt(at: $0["attempted_at"], status: $0["status"], error: $0["error"],
                                           durationMs: $0["duration_ms"])
                }
                return DeliveryRecord(row: row, attempts: attempts)
            }
        }
    }

    /// How many deliveries are in each state (metrics, tests, the benchmark).
    public func deliveryCounts() async throws -> [String: Int] {
        try await writer.read { db in
            var counts: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT state, count(*) AS n FROM deliveries GROUP BY state") {
                counts[row["state"]] = row["n"]
            }
            return counts
        }
    }
}
