import OnAirDecoding
import OnAirWebhooks

/// Bodies of the webhook admin API (snake_case JSON, like the event payloads).
enum WebhookAPI {
    /// `POST /api/webhooks`.
    struct CreateRequest: Decodable {
        var url: String
        var events: [String]?
        var description: String?
        /// The receiver's own `whsec_` secret (as Svix takes one); nil: a new one is made.
        var secret: String?

        enum CodingKeys: String, CodingKey, CaseIterable { case url, events, description, secret }

        init(from decoder: any Decoder) throws {
            let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
            url = try c.decode(String.self, forKey: .url)
            events = try c.decodeIfPresent([String].self, forKey: .events)
            description = try c.decodeIfPresent(String.self, forKey: .description)
            secret = try c.decodeIfPresent(String.self, forKey: .secret)
        }
    }

    /// A subscription as the API shows it. `secret` only in the answer that created or
    /// rotated it: it is shown once.
    struct Subscription: Encodable {
        var id: String
        var url: String
        var events: [String]
        var description: String?
        var source: String
        var enabled: Bool
        var disabledReason: String?
        var createdAt: Double
        var secret: String?
        var previousSecretExpiresAt: Double?

        init(_ subscription: WebhookSubscription, showingSecret: Bool = false) {
            id = subscription.id
            url = subscription.url
            events = subscription.eventTypes
            description = subscription.description
            source = subscription.source
            enabled = subscription.enabled
            disabledReason = subscription.disabledReason
            createdAt = subscription.createdAt
            secret = showingSecret ? subscription.secret : nil
            previousSecretExpiresAt = subscription.previousSecret == nil ? nil : subscription.previousSecretExpiresAt
        }

        enum CodingKeys: String, CodingKey {
            case id, url, events, description, source, enabled, disabledReason = "disabled_reason"
            case createdAt = "created_at", secret, previousSecretExpiresAt = "previous_secret_expires_at"
        }
    }

    struct SubscriptionList: Encodable {
        var webhooks: [Subscription]
    }

    struct DeliveryList: Encodable {
        var deliveries: [DeliveryRecord]
        /// Pass as `before` for the next (older) page; nil on the last page.
        var nextBefore: Int64?

        enum CodingKeys: String, CodingKey { case deliveries, nextBefore = "next_before" }
    }

    /// One outbox event for `GET /api/events`: the payload exactly as delivered, plus where
    /// it sits in the global sequence.
    struct Event: Encodable {
        var seq: Int64
        var id: String
        var type: String
        var room: String
        var generation: Int64
        var sequence: Int64
        var createdAt: Double
        var payload: StreamEvent

        enum CodingKeys: String, CodingKey {
            case seq, id, type, room, generation, sequence, createdAt = "created_at", payload
        }
    }

    struct EventList: Encodable {
        var events: [Event]
        /// Pass as `after` next time (the last seq seen, or the one given when nothing is new).
        var nextAfter: Int64

        enum CodingKeys: String, CodingKey { case events, nextAfter = "next_after" }
    }
}
