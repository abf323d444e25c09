import Foundation
import GRDB
import OnAirChatProtocol

/// ``ChatStore`` on one SQLite file through GRDB: WAL mode (readers never wait for the
/// writer), `synchronous=NORMAL` (a crash of the process loses nothing; a power cut may lose
/// the last commits, acceptable for chat). `:memory:` gives a private in-memory database.
public final class SQLiteChatStore: ChatStore {
    let writer: any DatabaseWriter

    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        if path == ":memory:" {
            writer = try DatabaseQueue(configuration: configuration)
        } else {
            writer = try DatabasePool(path: path, configuration: configuration)
        }
        try ChatSchema.migrator.migrate(writer)
    }

    public func room(_ id: String) async throws -> RoomRecord? {
        try await writer.read { db in try Self.fetchRoom(db, id) }
    }

    public func ensureRoom(_ id: String, now: Int64) async throws -> RoomRecord {
        try await writer.write { db in try Self.ensureRoom(db, id, now: now) }
    }

    public func append(_ draft: MessageDraft) async throws -> ChatMessage {
        try await writer.write { db in
            var room = try Self.ensureRoom(db, draft.room, now: draft.at)
            guard room.state == .open else { throw ChatStoreError.roomClosed(room) }
            return try Self.insert(db, draft, into: &room)
        }
    }

    public func page(room: String, _ page: HistoryPage) async throws -> MessagePage {
        let limit = max(0, page.limit)
        return try await writer.read { db in
            let columns = "room, id, kind, name, text, at, event, reason, user_id, deleted_by, deleted_at"
            let rows: [Row]
            switch page {
            case .latest:
                rows = try Row.fetchAll(db, sql: "SELECT \(columns) FROM message WHERE room = ? ORDER BY id DESC LIMIT ?",
                                        arguments: [room, limit + 1])
            case .before(let id, _):
                rows = try Row.fetchAll(db, sql: "SELECT \(columns) FROM message WHERE room = ? AND id < ? ORDER BY id DESC LIMIT ?",
                                        arguments: [room, id, limit + 1])
            case .after(let id, _):
                rows = try Row.fetchAll(db, sql: "SELECT \(columns) FROM message WHERE room = ? AND id > ? ORDER BY id ASC LIMIT ?",
                                        arguments: [room, id, limit + 1])
            }
            var messages = rows.prefix(limit).map(ChatMessage.init(row:))
            if case .after = page {} else { messages.reverse() }
            return MessagePage(messages: messages, more: rows.count > limit)
        }
    }

    public func deliver(_ delivery: WebhookDelivery, decide: @escaping @Sendable (RoomRecord) -> RoomTransition) async throws
        -> DeliveryOutcome
    {
        try await writer.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO webhook_delivery (id, room, type, received_at) VALUES (?, ?, ?, ?)",
                           arguments: [delivery.id, delivery.room, delivery.type, delivery.receivedAt])
            guard db.changesCount == 1 else { return .duplicate }
            var room = try Self.ensureRoom(db, delivery.room, now: delivery.receivedAt)
            switch decide(room) {
            case .ignore(let reason):
                return .ignored(reason: reason, room: room)
            case .apply(let updated, let draft):
                room.takeLifecycle(of: updated)
                try db.execute(sql: """
                    UPDATE room SET state = ?, generation = ?, sequence = ?, closed_reason = ?, viewers = ?, updated_at = ?
                    WHERE id = ?
                    """, arguments: [room.state.rawValue, room.generation, room.sequence, room.closedReason, room.viewers,
                                     room.updatedAt, room.id])
                let message = try draft.map { try Self.insert(db, $0, into: &room) }
                return .applied(room: room, message: message)
            }
        }
    }

    public func forgetDeliveries(receivedBefore cutoff: Int64) async throws -> Int {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM webhook_delivery WHERE received_at < ?", arguments: [cutoff])
            return db.changesCount
        }
    }

    // MARK: - inside a transaction

    static func fetchRoom(_ db: Database, _ id: String) throws -> RoomRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM room WHERE id = ?", arguments: [id]).map(RoomRecord.init(row:))
    }

    static func ensureRoom(_ db: Database, _ id: String, now: Int64) throws -> RoomRecord {
        if let room = try fetchRoom(db, id) { return room }
        let room = RoomRecord(id: id, createdAt: now, updatedAt: now)
        try db.execute(sql: "INSERT INTO room (id, state, last_message_id, created_at, updated_at) VALUES (?, ?, 0, ?, ?)",
                       arguments: [id, room.state.rawValue, now, now])
        return room
    }

    /// Takes the room's next id, writes the message, and advances `room.lastMessageID`.
    private static func insert(_ db: Database, _ draft: MessageDraft, into room: inout RoomRecord) throws -> ChatMessage {
        let message = draft.stored(id: room.lastMessageID + 1)
        try db.execute(sql: """
            INSERT INTO message (room, id, kind, name, text, at, event, reason, user_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [message.room, message.id, message.kind.rawValue, message.name, message.text, message.at,
                             message.event, message.reason, message.userID])
        try db.execute(sql: "UPDATE room SET last_message_id = ?, updated_at = ? WHERE id = ?",
                       arguments: [message.id, max(room.updatedAt, message.at), room.id])
        room.lastMessageID = message.id
        room.updatedAt = max(room.updatedAt, message.at)
        return message
    }
}
