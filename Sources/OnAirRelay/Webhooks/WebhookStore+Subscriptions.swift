import Foundation
import GRDB
import OnAirWebhooks

/// Subscriptions made and managed through the admin API.
extension WebhookStore {
    /// How long the old secret still signs after a rotation (Svix keeps it 24 hours), so that
    /// receivers can switch over without losing a delivery.
    static let rotationOverlap: Double = 86_400

    /// Creates an API subscription signed with `secret`, or a fresh one (returned once, in the
    /// result).
    public func createSubscription(url: String, eventTypes: [String], description: String?, secret: WebhookSecret? = nil,
                                   now: Double) async throws -> WebhookSubscription {
        let secret = secret ?? WebhookSecret.generate()
        let subscription = WebhookSubscription(id: Self.newSubscriptionID(), url: url, secret: secret.encoded,
                                               eventTypes: eventTypes, source: "api", description: description, createdAt: now)
        try await writer.write { db in
            try db.execute(sql: """
                INSERT INTO subscriptions (id, url, secret, event_types, source, description, enabled, created_at)
                VALUES (?, ?, ?, ?, 'api', ?, 1, ?)
                """, arguments: [subscription.id, url, subscription.secret, StreamEventType.filter(eventTypes),
                                 description, now])
        }
        return subscription
    }

    public func subscriptions() async throws -> [WebhookSubscription] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM subscriptions ORDER BY created_at, id").map(WebhookSubscription.init(row:))
        }
    }

    public func subscription(id: String) async throws -> WebhookSubscription? {
        try await writer.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM subscriptions WHERE id = ?"), arguments: [id])
                .map(WebhookSubscription.init(row:))
        }
    }

    /// Deletes a subscription with its deliveries and their log. False when there is none.
    public func deleteSubscription(id: String) async throws -> Bool {
        try await writer.write { db in
            try db.execute(sql: "DELETE FROM subscriptions WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    /// A new current secret; the old one keeps signing for ``rotationOverlap``. Returns the
    /// updated subscription (with the new secret), nil when there is none.
    public func rotateSecret(id: String, now: Double) async throws -> WebhookSubscription? {
        let secret = WebhookSecret.generate().encoded
        let changed = try await writer.write { db in
            try db.execute(sql: """
                UPDATE subscriptions SET previous_secret = secret, previous_secret_expires_at = ?, secret = ? WHERE id = ?
                """, arguments: [now + Self.rotationOverlap, secret, id])
            return db.changesCount > 0
        }
        return changed ? try await subscription(id: id) : nil
    }

    /// Turns a disabled subscription (410, or removed from config) back on. New events reach it
    /// again; what it missed meanwhile is in `GET /api/events?after=`.
    public func enableSubscription(id: String) async throws -> WebhookSubscription? {
        let changed = try await writer.write { db in
            try db.execute(sql: "UPDATE subscriptions SET enabled = 1, disabled_reason = NULL WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
        return changed ? try await subscription(id: id) : nil
    }
}
