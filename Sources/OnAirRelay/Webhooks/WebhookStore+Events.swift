import Foundation
import GRDB
import OnAirWebhooks

/// Recording lifecycle changes: each function is one transaction that updates the room's
/// `streams` row, appends the event to the outbox and queues one delivery per subscription
/// that wants its type.
extension WebhookStore {
    /// `stream.started`: a new publisher session, so a new generation of the room.
    public func recordStarted(_ started: StreamStarted) async throws -> RecordedEvent {
        let firstDelay = schedule.delay(beforeAttempt: 1, random: .random(in: 0..<1)) ?? 0
        return try await writer.write { db in
            let row = try Row.fetchOne(db, sql: "SELECT generation, sequence FROM streams WHERE room = ?",
                                       arguments: [started.room])
            let generation = (row?["generation"] as Int64? ?? 0) + 1
            let sequence = (row?["sequence"] as Int64? ?? 0) + 1
            try db.execute(sql: """
                INSERT INTO streams (room, generation, sequence, live, session_id, started_at, peak_viewers, updated_at)
                VALUES (?, ?, ?, 1, ?, ?, 0, ?)
                ON CONFLICT(room) DO UPDATE SET generation = excluded.generation, sequence = excluded.sequence, live = 1,
                    session_id = excluded.session_id, started_at = excluded.started_at, peak_viewers = 0,
                    updated_at = excluded.updated_at
                """, arguments: [started.room, generation, sequence, started.sessionID, started.at, started.at])
            let data = StreamEventData(eventID: Self.newEventID(), room: started.room, generation: generation,
                                       sequence: sequence, sessionID: started.sessionID, codecs: started.codecs)
            return try Self.insertEvent(db, type: StreamEvent.started, data: data, at: started.at, firstDelay: firstDelay)
        }
    }

    /// `stream.ended` of the live session of the room; nil (nothing recorded) when that session
    /// is not the live one, so a duplicate or stale end never produces a second event.
    public func recordEnded(_ ended: StreamEnded) async throws -> RecordedEvent? {
        let firstDelay = schedule.delay(beforeAttempt: 1, random: .random(in: 0..<1)) ?? 0
        return try await writer.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM streams WHERE room = ?", arguments: [ended.room]),
                  row["live"] as Bool, row["session_id"] as String? == ended.sessionID else { return nil }
            let sequence = (row["sequence"] as Int64) + 1
            let peak = max(ended.peakViewers, row["peak_viewers"] as Int)
            try db.execute(sql: "UPDATE streams SET live = 0, sequence = ?, peak_viewers = ?, updated_at = ? WHERE room = ?",
                           arguments: [sequence, peak, ended.at, ended.room])
            let data = StreamEventData(eventID: Self.newEventID(), room: ended.room, generation: row["generation"],
                                       sequence: sequence, sessionID: ended.sessionID, reason: ended.reason.rawValue,
                                       durationSeconds: ended.durationSeconds, bytesIn: ended.bytesIn,
                                       bytesOut: ended.bytesOut, peakViewers: peak)
            return try Self.insertEvent(db, type: StreamEvent.ended, data: data, at: ended.at, firstDelay: firstDelay)
        }
    }

    /// `stream.viewers` for the live session of the room (the caller rate-limits); nil when
    /// that session is no longer live.
    public func recordViewers(room: String, sessionID: String, viewers: Int, at: Double) async throws -> RecordedEvent? {
        let firstDelay = schedule.delay(beforeAttempt: 1, random: .random(in: 0..<1)) ?? 0
        return try await writer.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM streams WHERE room = ?", arguments: [room]),
                  row["live"] as Bool, row["session_id"] as String? == sessionID else { return nil }
            let sequence = (row["sequence"] as Int64) + 1
            try db.execute(sql: """
                UPDATE streams SET sequence = ?, peak_viewers = max(peak_viewers, ?), updated_at = ? WHERE room = ?
                """, arguments: [sequence, viewers, at, room])
            let data = StreamEventData(eventID: Self.newEventID(), room: room, generation: row["generation"],
                                       sequence: sequence, sessionID: sessionID, viewers: viewers)
            return try Self.insertEvent(db, type: StreamEvent.viewers, data: data, at: at, firstDelay: firstDelay)
        }
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
        try db.execute(sql: """
            INSERT INTO events (id, type, room, generation, sequence, created_at, body) VALUES (?, ?, ?, ?, ?, ?, ?)
            """, arguments: [data.eventID, type, data.room, data.generation, data.sequence, at, Data(body)])
        let seq = db.lastInsertedRowID
        let subscriptions = try String.fetchAll(db, sql: """
            SELECT id FROM subscriptions WHERE enabled = 1 AND (event_types = '*' OR instr(event_types, ?) > 0) ORDER BY id
            """, arguments: ["," + type + ","])
        for subscription in subscriptions {
            try db.execute(sql: """
                INSERT INTO deliveries (subscription_id, event_seq, state, attempts, next_attempt_at, created_at)
                VALUES (?, ?, 'pending', 0, ?, ?)
                """, arguments: [subscription, seq, at + firstDelay, at])
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
