import OnAirPostgres
import PostgresNIO

/// Bans, mutes, slow mode and tombstones in the shared database (tables `chat_ban`,
/// `chat_mute`, the `chat_room.slow_mode_seconds` and `chat_message.deleted_*` columns of
/// migration 4): every node reads the same, so a ban holds on the node a user reconnects to.
extension PostgresChatStore {
    public func moderation(room: String, now: Int64) async throws -> RoomModeration {
        let logger = database.logger
        return try await database.withConnection { connection in
            var moderation = RoomModeration()
            let bans = try await connection.query("SELECT user_id FROM chat_ban WHERE room = \(room)", logger: logger)
            for try await user in bans.decode(String.self) { moderation.bans.insert(user) }
            let mutes = try await connection.query("""
                SELECT user_id, until_at FROM chat_mute WHERE room = \(room) AND until_at > \(now)
                """, logger: logger)
            for try await (user, until) in mutes.decode((String, Int64).self) { moderation.mutes[user] = until }
            return moderation
        }
    }

    public func isBanned(room: String, user: String) async throws -> Bool {
        let logger = database.logger
        return try await database.withConnection { connection in
            let rows = try await connection.query("SELECT 1 FROM chat_ban WHERE room = \(room) AND user_id = \(user)", logger: logger)
            for try await _ in rows { return true }
            return false
        }
    }

    public func setBan(room: String, user: String, banned: Bool, by: String, at: Int64) async throws {
        let logger = database.logger
        try await database.withConnection { connection in
            if banned {
                try await connection.query("""
                    INSERT INTO chat_ban (room, user_id, by_user, at) VALUES (\(room), \(user), \(by), \(at)) ON CONFLICT DO NOTHING
                    """, logger: logger)
            } else {
                try await connection.query("DELETE FROM chat_ban WHERE room = \(room) AND user_id = \(user)", logger: logger)
            }
        }
    }

    public func setMute(room: String, user: String, until: Int64?, by: String, at: Int64) async throws {
        let logger = database.logger
        try await database.withConnection { connection in
            if let until {
                try await connection.query("""
                    INSERT INTO chat_mute (room, user_id, until_at, by_user, at) VALUES (\(room), \(user), \(until), \(by), \(at))
                    ON CONFLICT (room, user_id) DO UPDATE SET until_at = EXCLUDED.until_at, by_user = EXCLUDED.by_user, at = EXCLUDED.at
                    """, logger: logger)
            } else {
                try await connection.query("DELETE FROM chat_mute WHERE room = \(room) AND user_id = \(user)", logger: logger)
            }
        }
    }

    public func setSlowMode(room: String, seconds: Int, at: Int64) async throws -> RoomRecord {
        let logger = database.logger
        return try await database.withConnection { connection in
            var record = try await Self.ensureRoom(connection, room, now: at, logger: logger)
            try await connection.query("UPDATE chat_room SET slow_mode_seconds = \(Int32(seconds)) WHERE id = \(room)", logger: logger)
            record.slowModeSeconds = seconds
            return record
        }
    }

    public func deleteMessage(room: String, id: Int64, by: String, at: Int64) async throws -> ChatMessage? {
        let logger = database.logger
        return try await database.withConnection { connection in
            try await connection.query("""
                UPDATE chat_message SET text = '', deleted_by = \(by), deleted_at = \(at)
                WHERE room = \(room) AND id = \(id) AND deleted_at IS NULL
                """, logger: logger)
            let rows = try await connection.query("""
                SELECT \(unescaped: Self.messageColumns) FROM chat_message WHERE room = \(room) AND id = \(id)
                """, logger: logger)
            return try await Self.messages(rows).first
        }
    }
}
