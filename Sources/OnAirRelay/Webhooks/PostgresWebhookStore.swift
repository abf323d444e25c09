import Foundation
import Logging
import NIOCore
import OnAirForwarding
import OnAirPostgres
import OnAirWebhooks
import PostgresNIO

/// ``WebhookOutboxStore`` on a PostgreSQL database shared by several relays. A lifecycle
/// change updates its `relay_stream` row with one statement (the row lock orders changes of
/// one room across relays, so per-room sequences commit in order), then inserts its event and
/// deliveries, in one transaction. Lanes are claimed per subscriber under a lease
/// (``claimLane(_:)``), so one relay at a time delivers a subscriber's events, in order.
public final class PostgresWebhookStore: WebhookOutboxStore {
    public let schedule: RetrySchedule
    let database: SharedDatabase
    /// This relay in `relay_stream.relay_id`, `relay_lane` and `relay_room` (its public URL).
    public let relayID: String
    /// How long a claimed lane or a room stays this relay's without renewal.
    public static let lease: Duration = .seconds(10)

    public init(database: SharedDatabase, relayID: String, schedule: RetrySchedule = RetrySchedule()) async throws {
        self.database = database
        self.relayID = relayID
        self.schedule = schedule
        try await PostgresWebhookSchema.migrator.migrate(database)
    }

    var logger: Logger { database.logger }
    static var leaseSeconds: Double { Double(lease.components.seconds) }

    // MARK: - lifecycle

    public func record(_ changes: [LifecycleChange]) async throws -> [RecordedEvent?] {
        let delays = changes.map { _ in schedule.delay(beforeAttempt: 1, random: .random(in: 0..<1)) ?? 0 }
        let relayID = self.relayID
        let logger = self.logger
        return try await database.transaction { connection in
            var recorded: [RecordedEvent?] = []
            for (change, firstDelay) in zip(changes, delays) {
                switch change {
                case .started(let started):
                    recorded.append(try await Self.started(started, relayID: relayID, connection, logger, firstDelay: firstDelay))
                case .ended(let ended):
                    recorded.append(try await Self.ended(ended, connection, logger, firstDelay: firstDelay))
                case .viewers(let room, let sessionID, let viewers, let at):
                    recorded.append(try await Self.viewers(room: room, sessionID: sessionID, viewers: viewers, at: at, connection,
                                                           logger, firstDelay: firstDelay))
                }
            }
            return recorded
        }
    }

    static func started(_ started: StreamStarted, relayID: String, _ connection: PostgresConnection, _ logger: Logger,
                        firstDelay: Double) async throws -> RecordedEvent {
        let rows = try await connection.query("""
            INSERT INTO relay_stream (room, generation, sequence, live, session_id, started_at, peak_viewers, updated_at, relay_id)
            VALUES (\(started.room), 1, 1, true, \(started.sessionID), \(started.at), 0, \(started.at), \(relayID))
            ON CONFLICT (room) DO UPDATE SET generation = relay_stream.generation + 1, sequence = relay_stream.sequence + 1,
                live = true, session_id = EXCLUDED.session_id, started_at = EXCLUDED.started_at, peak_viewers = 0,
                updated_at = EXCLUDED.updated_at, relay_id = EXCLUDED.relay_id
            RETURNING generation, sequence
            """, logger: logger)
        var position: (Int64, Int64) = (1, 1)
        for try await row in rows.decode((Int64, Int64).self) { position = row }
        let data = StreamEventData(eventID: WebhookStore.newEventID(), room: started.room, generation: position.0,
                                   sequence: position.1, sessionID: started.sessionID, codecs: started.codecs)
        return try await insertEvent(connection, logger, type: StreamEvent.started, data: data, at: started.at, firstDelay: firstDelay)
    }

    /// Nil when `ended.sessionID` is not the room's live session (a duplicate or stale end).
    static func ended(_ ended: StreamEnded, _ connection: PostgresConnection, _ logger: Logger, firstDelay: Double) async throws
        -> RecordedEvent?
    {
        let rows = try await connection.query("""
            UPDATE relay_stream SET live = false, sequence = sequence + 1, peak_viewers = GREATEST(peak_viewers, \(ended.peakViewers)),
                updated_at = \(ended.at)
            WHERE room = \(ended.room) AND live AND session_id = \(ended.sessionID)
            RETURNING generation, sequence, peak_viewers
            """, logger: logger)
        var found: (Int64, Int64, Int64)?
        for try await row in rows.decode((Int64, Int64, Int64).self) { found = row }
        guard let (generation, sequence, peak) = found else { return nil }
        let data = StreamEventData(eventID: WebhookStore.newEventID(), room: ended.room, generation: generation,
                                   sequence: sequence, sessionID: ended.sessionID, reason: ended.reason.rawValue,
                                   durationSeconds: ended.durationSeconds, bytesIn: ended.bytesIn,
                                   bytesOut: ended.bytesOut, peakViewers: Int(peak))
        return try await insertEvent(connection, logger, type: StreamEvent.ended, data: data, at: ended.at, firstDelay: firstDelay)
    }

    static func viewers(room: String, sessionID: String, viewers: Int, at: Double, _ connection: PostgresConnection,
                        _ logger: Logger, firstDelay: Double) async throws -> RecordedEvent? {
        let rows = try await connection.query("""
            UPDATE relay_stream SET sequence = sequence + 1, peak_viewers = GREATEST(peak_viewers, \(viewers)), updated_at = \(at)
            WHERE room = \(room) AND live AND session_id = \(sessionID)
            RETURNING generation, sequence
            """, logger: logger)
        var found: (Int64, Int64)?
        for try await row in rows.decode((Int64, Int64).self) { found = row }
        guard let (generation, sequence) = found else { return nil }
        let data = StreamEventData(eventID: WebhookStore.newEventID(), room: room, generation: generation,
                                   sequence: sequence, sessionID: sessionID, viewers: viewers)
        return try await insertEvent(connection, logger, type: StreamEvent.viewers, data: data, at: at, firstDelay: firstDelay)
    }

    /// At start-up: streams this relay left live (a crash) end with `relay_shutdown`, unless
    /// another relay already ended them (`relay_lost`); this relay's directory rows go too.
    public func endStreamsLeftLive(now: Double) async throws -> [RecordedEvent] {
        let firstDelay = schedule.delay(beforeAttempt: 1, random: .random(in: 0..<1)) ?? 0
        let relayID = self.relayID
        let logger = self.logger
        return try await database.transaction { connection in
            try await connection.query("DELETE FROM relay_room WHERE relay_id = \(relayID)", logger: logger)
            return try await Self.endLive(connection, logger, now: now, reason: .relayShutdown, firstDelay: firstDelay,
                                          of: .ownedBy(relayID))
        }
    }

    /// Which live streams ``endLive(_:_:now:reason:firstDelay:of:)`` ends.
    enum LiveStreams {
        /// Every live stream of this relay (its restart after a crash).
        case ownedBy(String)
        /// The streams whose room lease in the directory ran out (their relay is gone): the
        /// directory rows are deleted in the same statement, so one relay ends each of them,
        /// and so are the dead relay's lane claims, so that these ends go out at once.
        case leaseExpired
    }

    static func endLive(_ connection: PostgresConnection, _ logger: Logger, now: Double, reason: StreamEndReason,
                        firstDelay: Double, of streams: LiveStreams) async throws -> [RecordedEvent] {
        let rows: PostgresRowSequence
        switch streams {
        case .ownedBy(let relayID):
            rows = try await connection.query("""
                UPDATE relay_stream SET live = false, sequence = sequence + 1, updated_at = \(now)
                WHERE live AND relay_id = \(relayID)
                RETURNING room, generation, sequence, session_id, started_at, peak_viewers
                """, logger: logger)
        case .leaseExpired:
            rows = try await connection.query("""
                WITH lost AS (DELETE FROM relay_room WHERE lease_until < now() RETURNING room, relay_id),
                     lanes AS (DELETE FROM relay_lane WHERE relay_id IN (SELECT relay_id FROM lost))
                UPDATE relay_stream s SET live = false, sequence = s.sequence + 1, updated_at = \(now)
                FROM lost WHERE s.room = lost.room AND s.live AND s.relay_id = lost.relay_id
                RETURNING s.room, s.generation, s.sequence, s.session_id, s.started_at, s.peak_viewers
                """, logger: logger)
        }
        var ended: [(String, Int64, Int64, String?, Double?, Int64)] = []
        for try await row in rows.decode((String, Int64, Int64, String?, Double?, Int64).self) { ended.append(row) }
        var recorded: [RecordedEvent] = []
        for (room, generation, sequence, sessionID, startedAt, peak) in ended.sorted(by: { $0.0 < $1.0 }) {
            let data = StreamEventData(eventID: WebhookStore.newEventID(), room: room, generation: generation, sequence: sequence,
                                       sessionID: sessionID ?? "", reason: reason.rawValue,
                                       durationSeconds: max(0, now - (startedAt ?? now)), peakViewers: Int(peak))
            recorded.append(try await insertEvent(connection, logger, type: StreamEvent.ended, data: data, at: now,
                                                  firstDelay: firstDelay))
        }
        return recorded
    }

    /// Appends the event and queues it for every enabled subscription that wants its type.
    static func insertEvent(_ connection: PostgresConnection, _ logger: Logger, type: String, data: StreamEventData, at: Double,
                            firstDelay: Double) async throws -> RecordedEvent {
        let body = try StreamEvent(type: type, timestamp: WebhookStore.rfc3339(at), data: data).encoded()
        let inserted = try await connection.query("""
            INSERT INTO relay_event (id, type, room, generation, sequence, created_at, body)
            VALUES (\(data.eventID), \(type), \(data.room), \(data.generation), \(data.sequence), \(at), \(ByteBuffer(bytes: body)))
            RETURNING seq
            """, logger: logger)
        var seq: Int64 = 0
        for try await value in inserted.decode(Int64.self) { seq = value }
        let queued = try await connection.query("""
            INSERT INTO relay_delivery (subscription_id, event_seq, state, attempts, next_attempt_at, created_at)
            SELECT id, \(seq), 'pending', 0, \(at + firstDelay), \(at) FROM relay_subscription
            WHERE enabled AND (event_types = '*' OR strpos(event_types, \("," + type + ",")) > 0)
            RETURNING subscription_id
            """, logger: logger)
        var subscriptions: [String] = []
        for try await id in queued.decode(String.self) { subscriptions.append(id) }
        let event = OutboxEvent(seq: seq, id: data.eventID, type: type, room: data.room, generation: data.generation,
                                sequence: data.sequence, createdAt: at, body: body)
        return RecordedEvent(event: event, subscriptionIDs: subscriptions.sorted())
    }

    /// Events after `seq` whose transactions, and all earlier ones, have committed: a reader
    /// paging by `seq` never skips an event that commits late with a lower `seq`.
    public func events(after seq: Int64, limit: Int) async throws -> [OutboxEvent] {
        let logger = self.logger
        return try await database.withConnection { connection in
            let rows = try await connection.query("""
                SELECT seq, id, type, room, generation, sequence, created_at, body FROM relay_event
                WHERE seq > \(seq) AND xid < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY seq LIMIT \(limit)
                """, logger: logger)
            var events: [OutboxEvent] = []
            for try await row in rows.decode((Int64, String, String, String, Int64, Int64, Double, ByteBuffer).self) {
                events.append(OutboxEvent(seq: row.0, id: row.1, type: row.2, room: row.3, generation: row.4, sequence: row.5,
                                          createdAt: row.6, body: Array(row.7.readableBytesView)))
            }
            return events
        }
    }

    public func streamState(room: String) async throws -> (generation: Int64, sequence: Int64, live: Bool)? {
        let logger = self.logger
        return try await database.withConnection { connection in
            let rows = try await connection.query("SELECT generation, sequence, live FROM relay_stream WHERE room = \(room)",
                                                  logger: logger)
            for try await row in rows.decode((Int64, Int64, Bool).self) { return (row.0, row.1, row.2) }
            return nil
        }
    }

    public func checkpoint() async throws {}

    public func prune(before cutoff: Double) async throws {
        let logger = self.logger
        try await database.transaction { connection in
            try await connection.query("DELETE FROM relay_delivery WHERE state <> 'pending' AND finished_at < \(cutoff)", logger: logger)
            try await connection.query("""
                DELETE FROM relay_event e WHERE created_at < \(cutoff)
                AND NOT EXISTS (SELECT 1 FROM relay_delivery d WHERE d.event_seq = e.seq AND d.state = 'pending')
                """, logger: logger)
        }
    }
}
