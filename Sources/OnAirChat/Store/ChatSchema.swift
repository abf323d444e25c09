import GRDB

/// The SQLite schema of the chat store, as GRDB migrations (append new ones; never edit a
/// shipped one).
enum ChatSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: rooms, messages, webhook deliveries") { db in
            try db.execute(sql: """
                CREATE TABLE room (
                    id TEXT PRIMARY KEY NOT NULL,
                    state TEXT NOT NULL,
                    last_message_id INTEGER NOT NULL DEFAULT 0,
                    generation INTEGER,
                    sequence INTEGER,
                    closed_reason TEXT,
                    viewers INTEGER,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL
                );
                CREATE TABLE message (
                    room TEXT NOT NULL,
                    id INTEGER NOT NULL,
                    kind TEXT NOT NULL,
                    name TEXT NOT NULL,
                    text TEXT NOT NULL,
                    at INTEGER NOT NULL,
                    event TEXT,
                    reason TEXT,
                    PRIMARY KEY (room, id)
                ) WITHOUT ROWID;
                CREATE TABLE webhook_delivery (
                    id TEXT PRIMARY KEY NOT NULL,
                    room TEXT NOT NULL,
                    type TEXT NOT NULL,
                    received_at INTEGER NOT NULL
                );
                CREATE INDEX webhook_delivery_received_at ON webhook_delivery(received_at);
                """)
        }
        migrator.registerMigration("v2: the sender's user id (access tokens, issue 28)") { db in
            try db.execute(sql: "ALTER TABLE message ADD COLUMN user_id TEXT")
        }
        migrator.registerMigration("v3: moderation: tombstones, bans, mutes, slow mode (issue 28)") { db in
            try db.execute(sql: """
                ALTER TABLE message ADD COLUMN deleted_by TEXT;
                ALTER TABLE message ADD COLUMN deleted_at INTEGER;
                ALTER TABLE room ADD COLUMN slow_mode_seconds INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE ban (
                    room TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    by_user TEXT NOT NULL,
                    at INTEGER NOT NULL,
                    PRIMARY KEY (room, user_id)
                ) WITHOUT ROWID;
                CREATE TABLE mute (
                    room TEXT NOT NULL,
                    user_id TEXT NOT NULL,
                    until_at INTEGER NOT NULL,
                    by_user TEXT NOT NULL,
                    at INTEGER NOT NULL,
                    PRIMARY KEY (room, user_id)
                ) WITHOUT ROWID;
                """)
        }
        return migrator
    }
}

extension RoomRecord {
    init(row: Row) {
        self.init(id: row["id"],
                  state: State(rawValue: row["state"]) ?? .open,
                  lastMessageID: row["last_message_id"],
                  generation: row["generation"],
                  sequence: row["sequence"],
                  closedReason: row["closed_reason"],
                  viewers: row["viewers"],
                  slowModeSeconds: row["slow_mode_seconds"],
                  createdAt: row["created_at"],
                  updatedAt: row["updated_at"])
    }
}

extension ChatMessage {
    init(row: Row) {
        self.init(room: row["room"], id: row["id"], kind: Kind(rawValue: row["kind"]) ?? .user,
                  name: row["name"], text: row["text"], at: row["at"], event: row["event"], reason: row["reason"],
                  userID: row["user_id"], deletedBy: row["deleted_by"], deletedAt: row["deleted_at"])
    }
}
