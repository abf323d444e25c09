import OnAirPostgres

/// The chat's tables in a shared PostgreSQL database (prefixed `chat_`: the relay's may live
/// in the same database). Append migrations; never edit a shipped one.
enum PostgresChatSchema {
    static let migrator = SchemaMigrator(scope: "chat", migrations: [
        SchemaMigration(version: 1, name: "rooms, messages, webhook deliveries", statements: [
            """
            CREATE TABLE chat_room (
                id text PRIMARY KEY,
                state text NOT NULL,
                last_message_id bigint NOT NULL DEFAULT 0,
                generation bigint,
                sequence bigint,
                closed_reason text,
                viewers bigint,
                created_at bigint NOT NULL,
                updated_at bigint NOT NULL)
            """,
            """
            CREATE TABLE chat_message (
                room text NOT NULL,
                id bigint NOT NULL,
                kind text NOT NULL,
                name text NOT NULL,
                text text NOT NULL,
                at bigint NOT NULL,
                event text,
                reason text,
                PRIMARY KEY (room, id))
            """,
            """
            CREATE TABLE chat_webhook_delivery (
                id text PRIMARY KEY,
                room text NOT NULL,
                type text NOT NULL,
                received_at bigint NOT NULL)
            """,
            "CREATE INDEX chat_webhook_delivery_received_at ON chat_webhook_delivery (received_at)",
        ]),
        SchemaMigration(version: 2, name: "node leases and presence", statements: [
            "CREATE TABLE chat_node (id text PRIMARY KEY, expires_at timestamptz NOT NULL)",
            """
            CREATE TABLE chat_presence (
                node text NOT NULL,
                room text NOT NULL,
                member text NOT NULL,
                name text NOT NULL,
                PRIMARY KEY (room, node, member))
            """,
        ]),
        SchemaMigration(version: 3, name: "user ids of token holders (issue 28)", statements: [
            "ALTER TABLE chat_message ADD COLUMN user_id text",
            "ALTER TABLE chat_presence ADD COLUMN user_id text",
        ]),
        SchemaMigration(version: 4, name: "moderation: tombstones, bans, mutes, slow mode (issue 28)", statements: [
            "ALTER TABLE chat_message ADD COLUMN deleted_by text",
            "ALTER TABLE chat_message ADD COLUMN deleted_at bigint",
            "ALTER TABLE chat_room ADD COLUMN slow_mode_seconds integer NOT NULL DEFAULT 0",
            """
            CREATE TABLE chat_ban (
                room text NOT NULL,
                user_id text NOT NULL,
                by_user text NOT NULL,
                at bigint NOT NULL,
                PRIMARY KEY (room, user_id))
            """,
            """
            CREATE TABLE chat_mute (
                room text NOT NULL,
                user_id text NOT NULL,
                until_at bigint NOT NULL,
                by_user text NOT NULL,
                at bigint NOT NULL,
                PRIMARY KEY (room, user_id))
            """,
        ]),
    ])
}
