import GRDB

/// The tables of the webhook store. `streams` is the state that events describe; `events` is
/// the outbox (one row per lifecycle change, written in the same transaction as the `streams`
/// row it changes); `deliveries` fans an event out to each subscription; `delivery_attempts`
/// is the delivery log.
enum WebhookSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE streams (
                    room TEXT PRIMARY KEY NOT NULL,
                    generation INTEGER NOT NULL DEFAULT 0,   -- +1 per publisher session
                    sequence INTEGER NOT NULL DEFAULT 0,     -- last per-room event sequence
                    live INTEGER NOT NULL DEFAULT 0,
                    session_id TEXT,
                    started_at REAL,
                    peak_viewers INTEGER NOT NULL DEFAULT 0,
                    updated_at REAL NOT NULL
                );
                CREATE TABLE events (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,   -- the global outbox sequence (?after=)
                    id TEXT NOT NULL UNIQUE,                 -- webhook-id
                    type TEXT NOT NULL,
                    room TEXT NOT NULL,
                    generation INTEGER NOT NULL,
                    sequence INTEGER NOT NULL,
                    created_at REAL NOT NULL,
                    body BLOB NOT NULL                       -- the exact bytes that are signed and sent
                );
                CREATE INDEX events_created ON events(created_at);
                CREATE TABLE subscriptions (
                    id TEXT PRIMARY KEY NOT NULL,
                    url TEXT NOT NULL,
                    secret TEXT NOT NULL,
                    previous_secret TEXT,
                    previous_secret_expires_at REAL,
                    event_types TEXT NOT NULL,               -- '*' or ',type,type,'
                    source TEXT NOT NULL,                    -- 'config' or 'api'
                    description TEXT,
                    enabled INTEGER NOT NULL DEFAULT 1,
                    disabled_reason TEXT,
                    created_at REAL NOT NULL
                );
                CREATE TABLE deliveries (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    subscription_id TEXT NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
                    event_seq INTEGER NOT NULL REFERENCES events(seq) ON DELETE CASCADE,
                    state TEXT NOT NULL,                     -- pending, delivered, failed, cancelled
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at REAL,
                    last_attempt_at REAL,
                    last_status INTEGER,
                    last_error TEXT,
                    created_at REAL NOT NULL,
                    finished_at REAL,
                    redelivery_of INTEGER
                );
                CREATE INDEX deliveries_pending ON deliveries(subscription_id, event_seq, id) WHERE state = 'pending';
                CREATE INDEX deliveries_log ON deliveries(subscription_id, id);
                CREATE INDEX deliveries_event ON deliveries(event_seq);
                CREATE TABLE delivery_attempts (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    delivery_id INTEGER NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
                    attempted_at REAL NOT NULL,
                    status INTEGER,
                    error TEXT,
                    duration_ms REAL NOT NULL
                );
                CREATE INDEX attempts_delivery ON delivery_attempts(delivery_id);
                """)
        }
        return migrator
    }
}
