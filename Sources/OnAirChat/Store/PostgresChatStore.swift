import Logging
import OnAirChatProtocol
import OnAirPostgres
import PostgresNIO

/// ``ChatStore`` on a PostgreSQL database shared by several chat nodes. Message ids stay
/// 1, 2, 3, ... per room under concurrent writers on any node: each write takes the next id
/// from the room's counter row (`chat_room.last_message_id`) in its own transaction, so the
/// row lock orders writers and a rolled-back write gives its id back (a sequence would skip).
/// A writer's id N+1 commits only after N did, so a reader of `id > last` never sees a hole.
public final class PostgresChatStore: ChatStore {
    let database: SharedDatabase

    /// Uses `database` (whose pool must be running) after applying the chat's migrations.
    public init(database: SharedDatabase) async throws {
        self.database = database
        try await PostgresChatSchema.migrator.migrate(database)
    }

    static let roomColumns = "id, state, last_message_id, generation, sequence, closed_reason, viewers, created_at, updated_at, slow_mode_seconds"
    static let messageColumns = "room, id, kind, name, text, at, event, reason, user_id, deleted_by, deleted_at"

    public func room(_ id: String) async throws -> RoomRecord? {
        try await database.withConnection { try await Self.fetchRoom($0, id, logger: self.database.logger) }
    }

    public func ensureRoom(_ id: String, now: Int64) async throws -> RoomRecord {
        try await database.withConnection { try await Self.ensureRoom($0, id, now: now, logger: self.database.logger) }
    }

    /// One statement: take the next id from an open room's counter and write the message.
    /// No row back means the room is closed or missing; the slow path tells which.
    public func append(_ draft: MessageDraft) async throws -> ChatMessage {
        let logger = database.logger
        return try await database.withConnection { connection in
            if let id = try await Self.takeNextID(connection, draft, logger: logger) { return draft.stored(id: id) }
            let room = try await Self.ensureRoom(connection, draft.room, now: draft.at, logger: logger)
            if room.state == .closed { throw ChatStoreError.roomClosed(room) }
            guard let id = try await Self.takeNextID(connection, draft, logger: logger) else {
                throw ChatStoreError.roomClosed(try await Self.fetchRoom(connection, draft.room, logger: logger) ?? room)
            }
            return draft.stored(id: id)
        }
    }

    /// The message written under the open room's next id, or nil (room closed or missing).
    static func takeNextID(_ connection: PostgresConnection, _ draft: MessageDraft, logger: Logger) async throws -> Int64? {
        let rows = try await connection.query("""
            WITH next AS (
                UPDATE chat_room SET last_message_id = last_message_id + 1, updated_at = GREATEST(updated_at, \(draft.at))
                WHERE id = \(draft.room) AND state = 'open' RETURNING last_message_id)
            INSERT INTO chat_message (room, id, kind, name, text, at, event, reason, user_id)
            SELECT \(draft.room), last_message_id, \(draft.kind.rawValue), \(draft.name), \(draft.text), \(draft.at),
                   \(draft.event), \(draft.reason), \(draft.userID) FROM next
            RETURNING id
            """, logger: logger)
        for try await id in rows.decode(Int64.self) { return id }
        return nil
    }

    public func page(room: String, _ page: HistoryPage) async throws -> MessagePage {
        let limit = max(0, page.limit)
        let logger = database.logger
        return try await database.withConnection { connection in
            let query: PostgresQuery
            switch page {
            case .latest:
                query = "SELECT \(unescaped: Self.messageColumns) FROM chat_message WHERE room = \(room) ORDER BY id DESC LIMIT \(limit + 1)"
            case .before(let id, _):
                query = """
                    SELECT \(unescaped: Self.messageColumns) FROM chat_message WHERE room = \(room) AND id < \(id)
                    ORDER BY id DESC LIMIT \(limit + 1)
                    """
            case .after(let id, _):
                query = """
                    SELECT \(unescaped: Self.messageColumns) FROM chat_message WHERE room = \(room) AND id > \(id)
                    ORDER BY id ASC LIMIT \(limit + 1)
                    """
            }
            var messages = try await Self.messages(connection.query(query, logger: logger))
            let more = messages.count > limit
            messages = Array(messages.prefix(limit))
            if case .after = page {} else { messages.reverse() }
            return MessagePage(messages: messages, more: more)
        }
    }

    public func deliver(_ delivery: WebhookDelivery, decide: @escaping @Sendable (RoomRecord) -> RoomTransition) async throws
        -> DeliveryOutcome
    {
        let logger = database.logger
        return try await database.transaction { connection in
            // A second node delivering the same id waits here for the first to commit, then sees it.
            let fresh = try await connection.query("""
                INSERT INTO chat_webhook_delivery (id, room, type, received_at)
                VALUES (\(delivery.id), \(delivery.room), \(delivery.type), \(delivery.receivedAt))
                ON CONFLICT (id) DO NOTHING RETURNING id
                """, logger: logger)
            var inserted = false
            for try await _ in fresh.decode(String.self) { inserted = true }
            guard inserted else { return .duplicate }
            _ = try await Self.ensureRoom(connection, delivery.room, now: delivery.receivedAt, logger: logger)
            var room = try await Self.fetchRoom(connection, delivery.room, lock: true, logger: logger)!
            switch decide(room) {
            case .ignore(let reason):
                return .ignored(reason: reason, room: room)
            case .apply(let updated, let draft):
                room.takeLifecycle(of: updated)
                var message: ChatMessage?
                if let draft {
                    message = draft.stored(id: room.lastMessageID + 1)
                    room.lastMessageID += 1
                    room.updatedAt = max(room.updatedAt, draft.at)
                }
                try await connection.query("""
                    UPDATE chat_room SET state = \(room.state.rawValue), generation = \(room.generation), sequence = \(room.sequence),
                        closed_reason = \(room.closedReason), viewers = \(room.viewers), updated_at = \(room.updatedAt),
                        last_message_id = \(room.lastMessageID)
                    WHERE id = \(room.id)
                    """, logger: logger)
                if let message {
                    try await connection.query("""
                        INSERT INTO chat_message (room, id, kind, name, text, at, event, reason, user_id)
                        VALUES (\(message.room), \(message.id), \(message.kind.rawValue), \(message.name), \(message.text),
                                \(message.at), \(message.event), \(message.reason), \(message.userID))
                        """, logger: logger)
                }
                return .applied(room: room, message: message)
            }
        }
    }

    public func forgetDeliveries(receivedBefore cutoff: Int64) async throws -> Int {
        let logger = database.logger
        return try await database.withConnection { connection in
            let rows = try await connection.query("DELETE FROM chat_webhook_delivery WHERE received_at < \(cutoff) RETURNING 1",
                                                  logger: logger)
            var count = 0
            for try await _ in rows { count += 1 }
            return count
        }
    }

    // MARK: - on one connection

    static func fetchRoom(_ connection: PostgresConnection, _ id: String, lock: Bool = false, logger: Logger) async throws
        -> RoomRecord?
    {
        let rows = try await connection.query("""
            SELECT \(unescaped: roomColumns) FROM chat_room WHERE id = \(id) \(unescaped: lock ? "FOR UPDATE" : "")
            """, logger: logger)
        for try await row in rows.decode((String, String, Int64, Int64?, Int64?, String?, Int64?, Int64, Int64, Int32).self) {
            return RoomRecord(id: row.0, state: RoomRecord.State(rawValue: row.1) ?? .open, lastMessageID: row.2,
                              generation: row.3, sequence: row.4, closedReason: row.5, viewers: row.6.map(Int.init),
                              slowModeSeconds: Int(row.9), createdAt: row.7, updatedAt: row.8)
        }
        return nil
    }

    static func ensureRoom(_ connection: PostgresConnection, _ id: String, now: Int64, logger: Logger) async throws -> RoomRecord {
        if let room = try await fetchRoom(connection, id, logger: logger) { return room }
        try await connection.query("""
            INSERT INTO chat_room (id, state, last_message_id, created_at, updated_at) VALUES (\(id), 'open', 0, \(now), \(now))
            ON CONFLICT (id) DO NOTHING
            """, logger: logger)
        return try await fetchRoom(connection, id, logger: logger)!
    }

    static func messages(_ rows: PostgresRowSequence) async throws -> [ChatMessage] {
        var messages: [ChatMessage] = []
        for try await row in rows.decode((String, Int64, String, String, String, Int64, String?, String?, String?, String?, Int64?).self) {
            messages.append(ChatMessage(room: row.0, id: row.1, kind: ChatMessage.Kind(rawValue: row.2) ?? .user, name: row.3,
                                        text: row.4, at: row.5, event: row.6, reason: row.7, userID: row.8,
                                        deletedBy: row.9, deletedAt: row.10))
        }
        return messages
    }
}
