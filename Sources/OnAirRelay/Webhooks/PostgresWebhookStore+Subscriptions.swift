import Foundation
import OnAirWebhooks
import PostgresNIO

/// Subscriptions on PostgreSQL: shared by every relay (the admin API on any relay sees and
/// changes the same ones).
extension PostgresWebhookStore {
    static let subscriptionColumns = """
        id, url, secret, previous_secret, previous_secret_expires_at, event_types, source, description, enabled, disabled_reason, created_at
        """

    public func syncConfigSubscribers(_ subscribers: [RelayConfig.Webhooks.Subscriber], now: Double) async throws {
        let logger = self.logger
        try await database.transaction { connection in
            var configured: [String] = []
            for subscriber in subscribers {
                let id = WebhookStore.configSubscriptionID(url: subscriber.url)
                configured.append(id)
                try await connection.query("""
                    INSERT INTO relay_subscription (id, url, secret, previous_secret, previous_secret_expires_at, event_types, source,
                                                    enabled, created_at)
                    VALUES (\(id), \(subscriber.url), \(subscriber.secret), \(subscriber.previousSecret), NULL,
                            \(StreamEventType.filter(subscriber.events)), 'config', true, \(now))
                    ON CONFLICT (id) DO UPDATE SET url = EXCLUDED.url, secret = EXCLUDED.secret, previous_secret = EXCLUDED.previous_secret,
                        previous_secret_expires_at = NULL, event_types = EXCLUDED.event_types, source = 'config', enabled = true,
                        disabled_reason = NULL
                    """, logger: logger)
            }
            let stale = try await connection.query("""
                SELECT id FROM relay_subscription WHERE source = 'config' AND enabled AND NOT (id = ANY(\(configured)))
                """, logger: logger)
            var ids: [String] = []
            for try await id in stale.decode(String.self) { ids.append(id) }
            for id in ids {
                try await Self.disable(connection, logger, subscription: id, reason: "removed from the config file", now: now)
            }
        }
    }

    /// Disables a subscription and cancels what it still had to receive.
    static func disable(_ connection: PostgresConnection, _ logger: Logger, subscription id: String, reason: String,
                        now: Double) async throws {
        try await connection.query("UPDATE relay_subscription SET enabled = false, disabled_reason = \(reason) WHERE id = \(id)",
                                   logger: logger)
        try await connection.query("""
            UPDATE relay_delivery SET state = 'cancelled', finished_at = \(now), last_error = \("subscription disabled: \(reason)")
            WHERE subscription_id = \(id) AND state = 'pending'
            """, logger: logger)
    }

    public func createSubscription(url: String, eventTypes: [String], description: String?, secret: WebhookSecret?,
                                   now: Double) async throws -> WebhookSubscription {
        let secret = secret ?? WebhookSecret.generate()
        let subscription = WebhookSubscription(id: WebhookStore.newSubscriptionID(), url: url, secret: secret.encoded,
                                               eventTypes: eventTypes, source: "api", description: description, createdAt: now)
        let logger = self.logger
        try await database.withConnection { connection in
            try await connection.query("""
                INSERT INTO relay_subscription (id, url, secret, event_types, source, description, enabled, created_at)
                VALUES (\(subscription.id), \(url), \(subscription.secret), \(StreamEventType.filter(eventTypes)), 'api',
                        \(description), true, \(now))
                """, logger: logger)
        }
        return subscription
    }

    public func subscriptions() async throws -> [WebhookSubscription] {
        try await fetchSubscriptions("ORDER BY created_at, id", id: nil)
    }

    public func subscription(id: String) async throws -> WebhookSubscription? {
        try await fetchSubscriptions("", id: id).first
    }

    private func fetchSubscriptions(_ order: String, id: String?) async throws -> [WebhookSubscription] {
        let logger = self.logger
        return try await database.withConnection { connection in
            let rows = try await connection.query("""
                SELECT \(unescaped: Self.subscriptionColumns) FROM relay_subscription
                WHERE \(id)::text IS NULL OR id = \(id) \(unescaped: order)
                """, logger: logger)
            var subscriptions: [WebhookSubscription] = []
            for try await row in rows.decode((String, String, String, String?, Double?, String, String, String?, Bool, String?,
                                              Double).self) {
                var subscription = WebhookSubscription(id: row.0, url: row.1, secret: row.2, previousSecret: row.3,
                                                       previousSecretExpiresAt: row.4,
                                                       eventTypes: StreamEventType.types(ofFilter: row.5), source: row.6,
                                                       description: row.7, createdAt: row.10)
                subscription.enabled = row.8
                subscription.disabledReason = row.9
                subscriptions.append(subscription)
            }
            return subscriptions
        }
    }

    public func deleteSubscription(id: String) async throws -> Bool {
        try await changed("DELETE FROM relay_subscription WHERE id = \(id) RETURNING id")
    }

    public func rotateSecret(id: String, now: Double) async throws -> WebhookSubscription? {
        let secret = WebhookSecret.generate().encoded
        let expires = now + WebhookStore.rotationOverlap
        guard try await changed("""
            UPDATE relay_subscription SET previous_secret = secret, previous_secret_expires_at = \(expires), secret = \(secret)
            WHERE id = \(id) RETURNING id
            """) else { return nil }
        return try await subscription(id: id)
    }

    public func enableSubscription(id: String) async throws -> WebhookSubscription? {
        guard try await changed("UPDATE relay_subscription SET enabled = true, disabled_reason = NULL WHERE id = \(id) RETURNING id")
        else { return nil }
        return try await subscription(id: id)
    }

    /// Runs a statement ending in `RETURNING`; true when it touched a row.
    private func changed(_ query: PostgresQuery) async throws -> Bool {
        let logger = self.logger
        return try await database.withConnection { connection in
            for try await _ in try await connection.query(query, logger: logger) { return true }
            return false
        }
    }
}
