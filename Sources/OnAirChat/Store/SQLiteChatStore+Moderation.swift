import GRDB

/// Bans, mutes, slow mode and tombstones in the SQLite file (tables `ban`, `mute`, the
/// `room.slow_mode_seconds` and `message.deleted_*` columns of migration v3).
extension SQLiteChatStore {
    public func moderation(room: String, now: Int64) async throws -> RoomModeration {
        try await writer.read { db in
            let bans = try String.fetchAll(db, sql: "SELECT user_id FROM ban WHERE room = ?", arguments: [room])
            var mutes: [String: Int64] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT user_id, until_at FROM mute WHERE room = ? AND until_at > ?",
                                        arguments: [room, now]) {
                let user: String = row["user_id"]
                let until: Int64 = row["until_at"]
                mutes[user] = until
            }
            return RoomModeration(bans: Set(bans), mutes: mutes)
        }
    }

    public func isBanned(room: String, user: String) async throws -> Bool {
        try await writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM ban WHERE room = ? AND user_id = ?", arguments: [room, user]) ?? false
        }
    }

    public func setBan(room: String, user: String, banned: Bool, by: String, at: Int64) async throws {
        try await writer.write { db in
            if banned {
                try db.execute(sql: "INSERT OR IGNORE INTO ban (room, user_id, by_user, at) VALUES (?, ?, ?, ?)",
                               arguments: [room, user, by, at])
            } else {
                try db.execute(sql: "DELETE FROM ban WHERE room = ? AND user_id = ?", arguments: [room, user])
            }
        }
    }

    public func setMute(room: String, user: String, until: Int64?, by: String, at: Int64) async throws {
        try await writer.write { db in
            if let until {
                try db.execute(sql: """
                    INSERT INTO mute (room, user_id, until_at, by_user, at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (room, user_id) DO UPDATE SET until_at = excluded.until_at, by_user = excluded.by_user, at = excluded.at
                    """, arguments: [room, user, until, by, at])
            } else {
                try db.execute(sql: "DELETE FROM mute WHERE room = ? AND user_id = ?", arguments: [room, user])
            }
        }
    }

    public func setSlowMode(room: String, seconds: Int, at: Int64) async throws -> RoomRecord {
        try await writer.write { db in
            var record = try Self.ensureRoom(db, room, now: at)
            try db.execute(sql: "UPDATE room SET slow_mode_seconds = ? WHERE id = ?", arguments: [seconds, room])
            record.slowModeSeconds = seconds
            return record
        }
    }

    public func deleteMessage(room: String, id: Int64, by: String, at: Int64) async throws -> ChatMessage? {
        try await writer.write { db in
            try db.execute(sql: """
                UPDATE message SET text = '', deleted_by = ?, deleted_at = ? WHERE room = ? AND id = ? AND deleted_at IS NULL
                """, arguments: [by, at, room, id])
            return try Row.fetchOne(db, sql: """
                SELECT room, id, kind, name, text, at, event, reason, user_id, deleted_by, deleted_at FROM message
                WHERE room = ? AND id = ?
                """, arguments: [room, id]).map(ChatMessage.init(row:))
        }
    }
}
