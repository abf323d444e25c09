import Logging
import Foundation
import NIOCore
import PostgresNIO

/// The delivery side on PostgreSQL: lane claims, each lane's head, attempts, the log.
extension PostgresWebhookStore {
    /// Claims (or renews) the delivery of `subscription`'s lane for this relay: an atomic
    /// compare-and-set on its `relay_lane` row, which succeeds when the lane is free, already
    /// this relay's, or its holder let the lease run out (it died). Nothing stays locked while
    /// the lane posts: the lease is the claim.
    public func claimLane(_ subscription: String) async throws -> Bool {
        let relayID = self.relayID
        let seconds = Self.leaseSeconds
        let logger = self.logger
        return try await database.withConnection { connection in
            let rows = try await connection.query("""
                INSERT INTO relay_lane (subscription_id, relay_id, lease_until)
                SELECT id, \(relayID), now() + make_interval(secs => \(seconds)) FROM relay_subscription WHERE id = \(subscription)
                ON CONFLICT (subscription_id) DO UPDATE SET relay_id = EXCLUDED.relay_id, lease_until = EXCLUDED.lease_until
                WHERE relay_lane.relay_id = EXCLUDED.relay_id OR relay_lane.lease_until < now()
                RETURNING relay_id
                """, logger: logger)
            for try await _ in rows { return true }
            return false
        }
    }

    /// Gives up this relay's lanes (graceful stop): another relay takes them at once.
    public func releaseLanes() async throws {
        let relayID = self.relayID
        let logger = self.logger
        try await database.withConnection { connection in
            try await connection.query("DELETE FROM relay_lane WHERE relay_id = \(relayID)", logger: logger)
        }
    }

    public func pendingDeliveries(subscription: String, limit: Int) async throws -> [PendingDelivery] {
        let logger = self.logger
        return try await database.withConnection { connection in
            let rows = try await connection.query("""
                SELECT d.id, d.subscription_id, d.event_seq, e.id, d.attempts, d.next_attempt_at, e.body
                FROM relay_delivery d JOIN relay_event e ON e.seq = d.event_seq
                WHERE d.subscription_id = \(subscription) AND d.state = 'pending'
                ORDER BY d.event_seq, d.id LIMIT \(limit)
                """, logger: logger)
            var pending: [PendingDelivery] = []
            for try await row in rows.decode((Int64, String, Int64, String, Int64, Double?, ByteBuffer).self) {
                pending.append(PendingDelivery(id: row.0, subscriptionID: row.1, eventSeq: row.2, eventID: row.3, attempts: Int(row.4),
                                               nextAttemptAt: row.5 ?? 0, body: Array(row.6.readableBytesView)))
            }
            return pending
        }
    }

    /// One transaction: the attempt log and the delivered ones (nearly all of a batch) in one
    /// statement each; the rarer retries and failures one by one.
    public func recordAttempts(_ outcomes: [AttemptOutcome]) async throws {
        let logger = self.logger
        try await database.transaction { connection in
            let delivered = outcomes.filter { $0.decision == .delivered }
            if !delivered.isEmpty { try await Self.applyDelivered(delivered, connection, logger) }
            for outcome in outcomes where outcome.decision != .delivered { try await Self.apply(outcome, connection, logger) }
        }
    }

    /// Logs and closes delivered attempts with two statements (arrays unnested; a missing
    /// status or error travels as an empty string).
    static func applyDelivered(_ outcomes: [AttemptOutcome], _ connection: PostgresConnection, _ logger: Logger) async throws {
        let ids = outcomes.map(\.delivery.id)
        let times = outcomes.map(\.at)
        let durations = outcomes.map(\.durationMs)
        let statuses = outcomes.map { $0.result.status.map(String.init) ?? "" }
        try await connection.query("""
            INSERT INTO relay_delivery_attempt (delivery_id, attempted_at, status, error, duration_ms)
            SELECT id, at, NULLIF(status, '')::bigint, NULL, duration
            FROM unnest(\(ids)::bigint[], \(times)::float8[], \(statuses)::text[], \(durations)::float8[]) AS t(id, at, status, duration)
            """, logger: logger)
        try await connection.query("""
            UPDATE relay_delivery d SET state = 'delivered', attempts = d.attempts + 1, last_attempt_at = t.at,
                last_status = NULLIF(t.status, '')::bigint, last_error = NULL, next_attempt_at = NULL, finished_at = t.at
            FROM unnest(\(ids)::bigint[], \(times)::float8[], \(statuses)::text[]) AS t(id, at, status)
            WHERE d.id = t.id
            """, logger: logger)
    }

    static func apply(_ outcome: AttemptOutcome, _ connection: PostgresConnection, _ logger: Logger) async throws {
        let delivery = outcome.delivery
        let at = outcome.at
        let status = outcome.result.status
        let error = outcome.result.failure
        try await connection.query("""
            INSERT INTO relay_delivery_attempt (delivery_id, attempted_at, status, error, duration_ms)
            VALUES (\(delivery.id), \(at), \(status), \(error), \(outcome.durationMs))
            """, logger: logger)
        switch outcome.decision {
        case .delivered:
            try await connection.query("""
                UPDATE relay_delivery SET state = 'delivered', attempts = attempts + 1, last_attempt_at = \(at), last_status = \(status),
                    last_error = NULL, next_attempt_at = NULL, finished_at = \(at) WHERE id = \(delivery.id)
                """, logger: logger)
        case .retry(let next, let reason):
            try await connection.query("""
                UPDATE relay_delivery SET attempts = attempts + 1, last_attempt_at = \(at), last_status = \(status),
                    last_error = \(reason), next_attempt_at = \(next) WHERE id = \(delivery.id)
                """, logger: logger)
        case .giveUp(let reason), .disable(let reason):
            try await connection.query("""
                UPDATE relay_delivery SET state = 'failed', attempts = attempts + 1, last_attempt_at = \(at), last_status = \(status),
                    last_error = \(reason), next_attempt_at = NULL, finished_at = \(at) WHERE id = \(delivery.id)
                """, logger: logger)
            if case .disable = outcome.decision {
                try await disable(connection, logger, subscription: delivery.subscriptionID, reason: reason, now: at)
            }
        }
    }

    public func redeliver(subscription: String, delivery: Int64, now: Double) async throws -> DeliveryRecord? {
        let logger = self.logger
        let newID: Int64? = try await database.withConnection { connection in
            let rows = try await connection.query("""
                INSERT INTO relay_delivery (subscription_id, event_seq, state, attempts, next_attempt_at, created_at, redelivery_of)
                SELECT subscription_id, event_seq, 'pending', 0, \(now), \(now), id FROM relay_delivery
                WHERE id = \(delivery) AND subscription_id = \(subscription)
                RETURNING id
                """, logger: logger)
            for try await id in rows.decode(Int64.self) { return id }
            return nil
        }
        guard let newID else { return nil }
        return try await deliveries(subscription: subscription, limit: 1, before: newID + 1, state: nil).first
    }

    public func deliveries(subscription: String, limit: Int, before: Int64?, state: String?) async throws -> [DeliveryRecord] {
        let logger = self.logger
        return try await database.withConnection { connection in
            let rows = try await connection.query("""
                SELECT d.id, d.subscription_id, d.event_seq, e.id, e.type, e.room, d.state, d.attempts, d.next_attempt_at,
                       d.last_status, d.last_error, d.created_at, d.finished_at, d.redelivery_of
                FROM relay_delivery d JOIN relay_event e ON e.seq = d.event_seq
                WHERE d.subscription_id = \(subscription) AND d.id < \(before ?? Int64.max) AND (\(state)::text IS NULL OR d.state = \(state))
                ORDER BY d.id DESC LIMIT \(limit)
                """, logger: logger)
            var records: [DeliveryRecord] = []
            for try await row in rows.decode((Int64, String, Int64, String, String, String, String, Int64, Double?, Int64?, String?,
                                              Double, Double?, Int64?).self) {
                records.append(DeliveryRecord(id: row.0, subscriptionID: row.1, eventSeq: row.2, eventID: row.3, eventType: row.4,
                                              room: row.5, state: row.6, attempts: Int(row.7), nextAttemptAt: row.8,
                                              lastStatus: row.9.map(Int.init), lastError: row.10, createdAt: row.11,
                                              finishedAt: row.12, redeliveryOf: row.13, attemptLog: []))
            }
            guard !records.isEmpty else { return records }
            let attempts = try await connection.query("""
                SELECT delivery_id, attempted_at, status, error, duration_ms FROM relay_delivery_attempt
                WHERE delivery_id = ANY(\(records.map(\.id))) ORDER BY id
                """, logger: logger)
            var log: [Int64: [DeliveryRecord.Attempt]] = [:]
            for try await row in attempts.decode((Int64, Double, Int64?, String?, Double).self) {
                log[row.0, default: []].append(.init(at: row.1, status: row.2.map(Int.init), error: row.3, durationMs: row.4))
            }
            return records.map { record in
                var record = record
                record.attemptLog = log[record.id] ?? []
                return record
            }
        }
    }

    public func deliveryCounts() async throws -> [String: Int] {
        let logger = self.logger
        return try await database.withConnection { connection in
            let rows = try await connection.query("SELECT state, count(*) FROM relay_delivery GROUP BY state", logger: logger)
            var counts: [String: Int] = [:]
            for try await (state, count) in rows.decode((String, Int64).self) { counts[state] = Int(count) }
            return counts
        }
    }
}

extension PendingDelivery {
    init(id: Int64, subscriptionID: String, eventSeq: Int64, eventID: String, attempts: Int, nextAttemptAt: Double, body: [UInt8]) {
        self.id = id
        self.subscriptionID = subscriptionID
        self.eventSeq = eventSeq
        self.eventID = eventID
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.body = body
    }
}

extension DeliveryRecord {
    init(id: Int64, subscriptionID: String, eventSeq: Int64, eventID: String, eventType: String, room: String, state: String,
         attempts: Int, nextAttemptAt: Double?, lastStatus: Int?, lastError: String?, createdAt: Double, finishedAt: Double?,
         redeliveryOf: Int64?, attemptLog: [Attempt]) {
        self.id = id
        self.subscriptionID = subscriptionID
        self.eventSeq = eventSeq
        self.eventID = eventID
        self.eventType = eventType
        self.room = room
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.createdAt = createdAt
        self.finishedAt = finishedAt
        self.redeliveryOf = redeliveryOf
        self.attemptLog = attemptLog
    }
}
