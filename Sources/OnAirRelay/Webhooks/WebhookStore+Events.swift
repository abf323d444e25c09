import Foundation
import GRDB
import OnAirForwarding
import OnAirWebhooks

/// A lifecycle change to record (the recorder has already rate-limited viewer updates).
public enum LifecycleChange: Sendable, Equatable {
    case started(StreamStarted)
    case ended(StreamEnded)
    case viewers(room: String, sessionID: String, viewers: Int, at: Double)
}

/// Recording lifecycle changes. Each change updates the room's `streams` row, appends its
/// event to the outbox and queues one delivery per subscription that wants its type, all in
/// the transaction of ``record(_:)``: the state and the outbox never disagree.
extension WebhookStore {
    /// Records `changes` in order in ONE transaction (a burst costs one commit, not one per
    /// change). The result has one entry per change: nil when it was not recorded (an end or
    /// viewer update of a session that is not the live one).
    public func record(_ changes: [LifecycleChange]) async throws -> [RecordedEvent?] {
        let delays = changes.map { _ in schedule.delay(beforeAttempt: 1, random: .random(in: 0..<1)) ?? 0 }
        return try await writer.write { db in
            try zip(changes, delays).map { change, firstDelay in
                switch change {
                case .started(let started): return try Self.started(started, db, firstDelay: firstDelay)
                case .ended(let ended): return try Self.ended(ended, db, firstDelay: firstDelay)
                case .viewers(let room, let sessionID, let viewers, let at):
                    return try Self.viewers(room: room, sessionID: sessionID, viewers: viewers, at: at, db, firstDelay: firstDelay)
                }
            }
        }
    }

    static func started(_ started: StreamStarted, _ db: Database, firstDelay: Double) throws -> RecordedEvent {
        let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT generation, sequence FROM streams WHERE room = ?"),
                                   arguments: [started.room])
        let generation = (row?["generation"] as Int64? ?? 0) + 1
        let sequence = (row?["sequence"] as Int64? ?? 0) + 1
        try db.cachedStatement(sql: """
            INSERT INTO streams (room, generation, sequence, live, session_id, started_at, peak_viewers, updated_at)
            VALUES (?, ?, ?, 1, ?, ?, 0, ?)
            ON CONFLICT(room) DO UPDATE SET generation = excluded.generation, sequence = excluded.sequence, live = 1,
                session_id = excluded.session_id, started_at = excluded.started_at, peak_viewers = 0,
                updated_at = excluded.updated_at
            """).execute(arguments: [started.room, generation, sequence, started.sessionID, started.at, started.at])
        let data = StreamEventData(eventID: newEventID(), room: started.room, generation: generation,
                                   sequence: sequence, sessionID: started.sessionID, codecs: started.codecs)
        return try insertEvent(db, type: StreamEvent.started, data: data, at: started.at, firstDelay: firstDelay)
    }

    static func ended(_ ended: StreamEnded, _ db: Database, firstDelay: Double) throws -> RecordedEvent? {
        guard let row = try liveRow(room: ended.room, sessionID: ended.sessionID, db) else { return nil }
        let sequence = (row["sequence"] as Int64) + 1
        let peak = max(ended.peakViewers, row["peak_viewers"] as Int)
        try db.cachedStatement(sql: "UPDATE streams SET live = 0, sequence = ?, peak_viewers = ?, updated_at = ? WHERE room = ?")
            .execute(arguments: [sequence, peak, ended.at, ended.room])
        let data = StreamEventData(eventID: newEventID(), room: ended.room, generation: row["generation"],
                                   sequence: sequence, sessionID: ended.sessionID, reason: ended.reason.rawValue,
                                   durationSeconds: ended.durationSeconds, bytesIn: ended.bytesIn,
                                   bytesOut: ended.bytesOut, peakViewers: peak)
        return try insertEvent(db, type: StreamEvent.ended, data: data, at: ended.at, firstDelay: firstDelay)
    }

    static func viewers(room: String, sessionID: String, viewers: Int, at: Double, _ db: Database,
                        firstDelay: Double) throws -> RecordedEvent? {
        guard let row = try liveRow(room: room, sessionID: sessionID, db) else { return nil }
        let sequence = (row["sequence"] as Int64) + 1
        try db.cachedStatement(sql: "UPDATE streams SET sequence = ?, peak_viewers = max(peak_viewers, ?), updated_at = ? WHERE room = ?")
            .execute(arguments: [sequence, viewers, at, room])
        let data = StreamEventData(eventID: newEventID(), room: room, generation: row["generation"],
                                   sequence: sequence, sessionID: sessionID, viewers: viewers)
        return try insertEvent(db, type: StreamEvent.viewers, data: data, at: at, firstDelay: firstDelay)
    }

    /// The room's row when `sessionID` is its live session.
    private static func liveRow(room: String, sessionID: String, _ db: Database) throws -> Row? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM streams WHERE room = ?"), arguments: [room]),
              row["live"] as Bool, row["session_id"] as String? == sessionID else { return nil }
        return row
    }

    /// At start-up: streams still marked live were cut off by a crash (or kill -9) of the
    /// previous run. Each gets its `stream.ended` with reason `relay_shutdown`; the duration
    /// runs to `now` (the crash time is unknown), bytes are unknown.
    public func endStreamsLeftLive(now: Double) async throws -> [RecordedEvent] {
        let firstDelay = schedule.delay(beforeAttempt: 1, random: .random(in: 0..<1)) ?? 0
        return try await writer.write { db in
            var recorded: [RecordedEvent] = []
            for row in try Row.fetchAll(db, sql: "SELECT * FROM streams WHERE live = 1 ORDER BY room") {
                let room: String = row["room"]
                let sequence = (row["sequence"] as Int64) + 1
                try db.execute(sql: "UPDATE streams SET live = 0, sequence = ?, updated_at = ? WHERE room = ?",
                               arguments: [sequence, now, room])
                let startedAt = row["started_at"] as Double? ?? now
                let data = StreamEventData(eventID: Self.newEventID(), room: room, generation: row["generation"],
                                           sequence: sequence, sessionID: row["session_id"] ?? "",
                                           reason: StreamEndReason.relayShutdown.rawValue,
                                           durationSeconds: max(0, now - startedAt), peakViewers: row["peak_viewers"])
                recorded.append(try Self.insertEvent(db, type: StreamEvent.ended, data: data, at: now, firstDelay: firstDelay))
            }
            return recorded
        }
    }

    /// Appends the event to the outbox and queues it for every enabled subscription that wants
    /// its type. Runs inside the caller's transaction.
    static func insertEvent(_ db: Database, type: String, data: StreamEventData, at: Double,
                            firstDelay: Double) throws -> RecordedEvent {
        let body = try StreamEvent(type: type, timestamp: rfc3339(at), data: data).encoded()
        try db.cachedStatement(sql: """
            INSERT INTO events (id, type, room, generation, sequence, created_at, body) VALUES (?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [data.eventID, type, data.room, data.generation, data.sequence, at, Data(body)])
        let seq = db.lastInsertedRowID
        let subscriptions = try String.fetchAll(db.cachedStatement(sql: """
            SELECT id FROM subscriptions WHERE enabled = 1 AND (event_types = '*' OR instr(event_types, ?) > 0) ORDER BY id
            """), arguments: ["," + type + ","])
        let queue = try db.cachedStatement(sql: """
            INSERT INTO deliveries (subscription_id, event_seq, state, attempts, next_attempt_at, created_at)
            VALUES (?, ?, 'pending', 0, ?, ?)
            """)
        for subscription in subscriptions {
            try queue.execute(arguments: [subscription, seq, at + firstDelay, at])
        }
        let event = OutboxEvent(seq: seq, id: data.eventID, type: type, room: data.room, generation: data.generation,
                                sequence: data.sequence, createdAt: at, body: body)
        return RecordedEvent(event: event, subscriptionIDs: subscriptions)
    }

    /// Outbox events after `seq` (catch-up after a subscriber's downtime), oldest first.
    public func events(after seq: Int64, limit: Int) async throws -> [OutboxEvent] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?", arguments: [seq, limit])
                .map(OutboxEvent.init(row:))
        }
    }

    /// The `streams` row of `room`, for tests and diagnostics: (generation, sequence, live).
    public func streamState(room: String) async throws -> (generation: Int64, sequence: Int64, live: Bool)? {
        try await writer.read { db in
            try Row.fetchOne(db, sql: "SELECT generation, sequence, live FROM streams WHERE room = ?", arguments: [room])
                .map { ($0["generation"], $0["sequence"], $0["live"]) }
        }
    }
}
