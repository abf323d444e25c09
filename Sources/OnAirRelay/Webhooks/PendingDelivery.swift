import Foundation
import GRDB

/// The head of a subscriber's lane: a delivery still to be made, with the event body.
public struct PendingDelivery: Sendable, Equatable {
    public var id: Int64
    public var subscriptionID: String
    public var eventSeq: Int64
    public var eventID: String
    public var attempts: Int
    public var nextAttemptAt: Double
    public var body: [UInt8]

    init(row: Row) {
        id = row["id"]
        subscriptionID = row["subscription_id"]
        eventSeq = row["event_seq"]
        eventID = row["event_id"]
        attempts = row["attempts"]
        nextAttemptAt = row["next_attempt_at"] ?? 0
        body = Array(row["body"] as Data)
    }
}
