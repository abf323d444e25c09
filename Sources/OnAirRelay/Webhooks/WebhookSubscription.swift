import GRDB
import OnAirWebhooks

/// Someone who gets stream lifecycle events: from the config file (`source == "config"`) or
/// created through `POST /api/webhooks` (`"api"`).
public struct WebhookSubscription: Sendable, Equatable {
    public var id: String
    public var url: String
    /// `whsec_...`: signs every delivery.
    public var secret: String
    /// The secret being rotated out: deliveries carry a signature with it too until
    /// `previousSecretExpiresAt` (Standard Webhooks: several signatures during rotation).
    public var previousSecret: String?
    public var previousSecretExpiresAt: Double?
    public var eventTypes: [String]
    public var source: String
    public var description: String?
    public var enabled: Bool
    public var disabledReason: String?
    public var createdAt: Double

    /// The secrets to sign with at `now`, current first.
    public func signingSecrets(now: Double) -> [WebhookSecret] {
        var secrets: [WebhookSecret] = []
        if let current = try? WebhookSecret(secret) { secrets.append(current) }
        if let previousSecret, (previousSecretExpiresAt ?? .infinity) > now, let previous = try? WebhookSecret(previousSecret) {
            secrets.append(previous)
        }
        return secrets
    }

    public func wants(_ type: String) -> Bool { eventTypes.contains(type) }

    init(row: Row) {
        id = row["id"]
        url = row["url"]
        secret = row["secret"]
        previousSecret = row["previous_secret"]
        previousSecretExpiresAt = row["previous_secret_expires_at"]
        eventTypes = StreamEventType.types(ofFilter: row["event_types"])
        source = row["source"]
        description = row["description"]
        enabled = row["enabled"]
        disabledReason = row["disabled_reason"]
        createdAt = row["created_at"]
    }

    init(id: String, url: String, secret: String, previousSecret: String? = nil, previousSecretExpiresAt: Double? = nil,
         eventTypes: [String], source: String, description: String? = nil, createdAt: Double) {
        self.id = id
        self.url = url
        self.secret = secret
        self.previousSecret = previousSecret
        self.previousSecretExpiresAt = previousSecretExpiresAt
        self.eventTypes = eventTypes.isEmpty ? StreamEventType.all : eventTypes
        self.source = source
        self.description = description
        self.enabled = true
        self.disabledReason = nil
        self.createdAt = createdAt
    }
}
