import OnAirPostgres

/// The relay's tables in a shared PostgreSQL database (prefixed `relay_`; the chat's may live
/// in the same database). The same model as the SQLite schema (``WebhookSchema``), plus who
/// owns what: `relay_stream.relay_id` (the relay a live stream is on), `relay_lane` (which
/// relay delivers a subscriber's lane, under a lease) and `relay_room` (the room directory:
/// one publisher per room across relays, under a lease). Append migrations; never edit one.
enum PostgresWebhookSchema {
    static let migrator = SchemaMigrator(scope: "relay", migrations: [
        SchemaMigration(version: 1, name: "streams, outbox, subscriptions, deliveries, lanes, rooms", statements: [
            """
            CREATE TABLE relay_stream (
                room text PRIMARY KEY,
                generation bigint NOT NULL DEFAULT 0,
                sequence bigint NOT NULL DEFAULT 0,
                live boolean NOT NULL DEFAULT false,
                session_id text,
                started_at double precision,
                peak_viewers bigint NOT NULL DEFAULT 0,
                updated_at double precision NOT NULL,
                relay_id text)
            """,
            """
            CREATE TABLE relay_event (
                seq bigserial PRIMARY KEY,
                id text NOT NULL UNIQUE,
                type text NOT NULL,
                room text NOT NULL,
                generation bigint NOT NULL,
                sequence bigint NOT NULL,
                created_at double precision NOT NULL,
                body bytea NOT NULL,
                xid xid8 NOT NULL DEFAULT pg_current_xact_id())
            """,
            "CREATE INDEX relay_event_created ON relay_event (created_at)",
            """
            CREATE TABLE relay_subscription (
                id text PRIMARY KEY,
                url text NOT NULL,
                secret text NOT NULL,
                previous_secret text,
                previous_secret_expires_at double precision,
                event_types text NOT NULL,
                source text NOT NULL,
                description text,
                enabled boolean NOT NULL DEFAULT true,
                disabled_reason text,
                created_at double precision NOT NULL)
            """,
            """
            CREATE TABLE relay_delivery (
                id bigserial PRIMARY KEY,
                subscription_id text NOT NULL REFERENCES relay_subscription (id) ON DELETE CASCADE,
                event_seq bigint NOT NULL REFERENCES relay_event (seq) ON DELETE CASCADE,
                state text NOT NULL,
                attempts bigint NOT NULL DEFAULT 0,
                next_attempt_at double precision,
                last_attempt_at double precision,
                last_status bigint,
                last_error text,
                created_at double precision NOT NULL,
                finished_at double precision,
                redelivery_of bigint)
            """,
            "CREATE INDEX relay_delivery_pending ON relay_delivery (subscription_id, event_seq, id) WHERE state = 'pending'",
            "CREATE INDEX relay_delivery_log ON relay_delivery (subscription_id, id)",
            "CREATE INDEX relay_delivery_event ON relay_delivery (event_seq)",
            """
            CREATE TABLE relay_delivery_attempt (
                id bigserial PRIMARY KEY,
                delivery_id bigint NOT NULL REFERENCES relay_delivery (id) ON DELETE CASCADE,
                attempted_at double precision NOT NULL,
                status bigint,
                error text,
                duration_ms double precision NOT NULL)
            """,
            "CREATE INDEX relay_delivery_attempt_delivery ON relay_delivery_attempt (delivery_id)",
            """
            CREATE TABLE relay_lane (
                subscription_id text PRIMARY KEY REFERENCES relay_subscription (id) ON DELETE CASCADE,
                relay_id text NOT NULL,
                lease_until timestamptz NOT NULL)
            """,
            """
            CREATE TABLE relay_room (
                room text PRIMARY KEY,
                relay_id text NOT NULL,
                claimed_at timestamptz NOT NULL DEFAULT now(),
                lease_until timestamptz NOT NULL)
            """,
        ]),
    ])
}
