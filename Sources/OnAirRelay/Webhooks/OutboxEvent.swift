import Foundation
import GRDB

/// One row of the outbox: a lifecycle change, with the exact body that is signed and sent.
public struct OutboxEvent: Sendable, Equatable {
    /// The global outbox sequence (`GET /api/events?after=`).
    public var seq: Int64
    /// `webhook-id`, the same on every attempt and redelivery so that receivers can dedupe.
    public var id: String
    public var type: String
    public var room: String
    public var generation: Int64
    /// The per-room sequence.
    public var sequence: Int64
    public var createdAt: Double
    public var body: [UInt8]

    init(seq: Int64, id: String, type: String, room: String, generation: Int64, sequence: Int64,
         createdAt: Double, body: [UInt8]) {
        self.seq = seq
        self.id = id
        self.type = type
        self.room = room
        self.generation = generation
        self.sequence = sequence
        self.createdAt = createdAt
        self.body = body
    }

    init(row: Row) {
        seq = row["seq"]
        id = row["id"]
        type = row["type"]
        room = row["room"]
        generation = row["generation"]
        sequence = row["sequence"]
        createdAt = row["created_at"]
        body = Array(row["body"] as Data)
    }
}

/// An event just written, and the subscriptions it was queued for (their lanes get woken).
public struct RecordedEvent: Sendable, Equatable {
    public var event: OutboxEvent
    public var subscriptionIDs: [String]
}
