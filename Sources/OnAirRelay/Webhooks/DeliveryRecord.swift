import GRDB

/// A delivery as the delivery log shows it (`GET /api/webhooks/{id}/deliveries`).
public struct DeliveryRecord: Sendable, Equatable, Codable {
    public var id: Int64
    public var subscriptionID: String
    public var eventSeq: Int64
    public var eventID: String
    public var eventType: String
    public var room: String
    /// pending, delivered, failed (schedule used up), cancelled (subscription disabled).
    public var state: String
    public var attempts: Int
    public var nextAttemptAt: Double?
    public var lastStatus: Int?
    public var lastError: String?
    public var createdAt: Double
    public var finishedAt: Double?
    /// Set on a manual redelivery: the delivery it repeats.
    public var redeliveryOf: Int64?
    public var attemptLog: [Attempt]

    /// One HTTP attempt.
    public struct Attempt: Sendable, Equatable, Codable {
        public var at: Double
        public var status: Int?
        public var error: String?
        public var durationMs: Double

        enum CodingKeys: String, CodingKey { case at, status, error, durationMs = "duration_ms" }
    }

    init(row: Row, attempts log: [Attempt]) {
        id = row["id"]
        subscriptionID = row["subscription_id"]
        eventSeq = row["event_seq"]
        eventID = row["event_id"]
        eventType = row["type"]
        room = row["room"]
        state = row["state"]
        attempts = row["attempts"]
        nextAttemptAt = row["next_attempt_at"]
        lastStatus = row["last_status"]
        lastError = row["last_error"]
        createdAt = row["created_at"]
        finishedAt = row["finished_at"]
        redeliveryOf = row["redelivery_of"]
        attemptLog = log
    }

    enum CodingKeys: String, CodingKey {
        case id, subscriptionID = "subscription_id", eventSeq = "event_seq", eventID = "event_id", eventType = "event_type"
        case room, state, attempts, nextAttemptAt = "next_attempt_at", lastStatus = "last_status", lastError = "last_error"
        case createdAt = "created_at", finishedAt = "finished_at", redeliveryOf = "redelivery_of", attemptLog = "attempt_log"
    }
}
