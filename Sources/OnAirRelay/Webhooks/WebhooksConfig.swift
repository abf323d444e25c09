import OnAirWebhooks
import OnAirDecoding

extension RelayConfig {
    /// The `webhooks:` section: where the durable outbox lives, who gets stream lifecycle
    /// events, and how failed deliveries are retried (config/relay.yaml documents each key).
    public struct Webhooks: Codable, Sendable, Equatable {
        /// The SQLite file holding the outbox, the delivery log, the subscriptions and the
        /// `streams` table (relative paths are relative to the working directory; `:memory:`
        /// is for tests only: nothing would survive a restart), or a `postgres://` URL: a
        /// database several relays share (outbox, subscriptions, room directory).
        public var database = "onair-relay.sqlite"
        /// Subscribers defined here are synced into the database at start (admin-API ones live
        /// only in the database).
        public var subscribers: [Subscriber] = []
        /// Delay before each attempt, attempt 1 first: the Svix schedule (immediately, 5 s,
        /// 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). After the last one fails the delivery is given up.
        public var retryScheduleSeconds: [Double] = RetrySchedule.svixDelays
        /// Each delay is scaled by a random factor in [1 - jitter, 1 + jitter] so that many
        /// failed deliveries do not come back at the same instant.
        public var retryJitter = 0.2
        /// An attempt that has no response after this long has failed.
        public var timeoutSeconds = 15.0
        /// `stream.viewers` goes out at most this often per room, and only when the count changed.
        public var viewersIntervalSeconds = 5.0
        /// Delivered deliveries, their attempts and events older than this are pruned.
        public var retentionDays = 7.0
        /// At graceful shutdown, how long due deliveries may still go out before the relay exits
        /// (the rest goes out after the next start).
        public var shutdownGraceSeconds = 3.0

        public init() {}

        /// A subscriber: `url` gets every event whose type is in `events` (all types when empty),
        /// signed with `secret` (and `previous_secret` while it is being rotated out).
        public struct Subscriber: Codable, Sendable, Equatable, CustomStringConvertible {
            public var url: String
            public var secret: String
            public var previousSecret: String? = nil
            public var events: [String] = []

            public init(url: String, secret: String, previousSecret: String? = nil, events: [String] = []) {
                self.url = url
                self.secret = secret
                self.previousSecret = previousSecret
                self.events = events
            }

            public init(from decoder: any Decoder) throws {
                let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
                url = try c.decode(String.self, forKey: .url)
                secret = try c.decode(String.self, forKey: .secret)
                previousSecret = try c.value(.previousSecret, default: nil)
                events = try c.value(.events, default: [])
            }

            enum CodingKeys: String, CodingKey, CaseIterable {
                case url, secret, previousSecret = "previous_secret", events
            }

            /// Secrets never end up in logs or config dumps.
            public var description: String {
                "Subscriber(url: \(url), events: \(events.isEmpty ? "all" : events.joined(separator: ",")), secret: whsec_…"
                    + (previousSecret == nil ? ")" : ", previous_secret: whsec_…)")
            }
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.strictContainer(keyedBy: CodingKeys.self)
            database = try c.value(.database, default: database)
            subscribers = try c.value(.subscribers, default: subscribers)
            retryScheduleSeconds = try c.value(.retryScheduleSeconds, default: retryScheduleSeconds)
            retryJitter = try c.value(.retryJitter, default: retryJitter)
            timeoutSeconds = try c.value(.timeoutSeconds, default: timeoutSeconds)
            viewersIntervalSeconds = try c.value(.viewersIntervalSeconds, default: viewersIntervalSeconds)
            retentionDays = try c.value(.retentionDays, default: retentionDays)
            shutdownGraceSeconds = try c.value(.shutdownGraceSeconds, default: shutdownGraceSeconds)
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case database, subscribers, retryScheduleSeconds = "retry_schedule_seconds", retryJitter = "retry_jitter"
            case timeoutSeconds = "timeout_seconds", viewersIntervalSeconds = "viewers_interval_seconds"
            case retentionDays = "retention_days", shutdownGraceSeconds = "shutdown_grace_seconds"
        }

        /// The problems with this section, worded for the person editing relay.yaml.
        public func problems() -> [String] {
            var problems: [String] = []
            if database.isEmpty { problems.append("webhooks.database must name a file (or :memory: for tests)") }
            if retryScheduleSeconds.isEmpty { problems.append("webhooks.retry_schedule_seconds needs at least one attempt") }
            if retryScheduleSeconds.contains(where: { !($0 >= 0) }) {
                problems.append("webhooks.retry_schedule_seconds must be >= 0 each")
            }
            if !(0...1).contains(retryJitter) { problems.append("webhooks.retry_jitter must be between 0 and 1") }
            if !(timeoutSeconds > 0) { problems.append("webhooks.timeout_seconds must be > 0") }
            if !(viewersIntervalSeconds >= 1) { problems.append("webhooks.viewers_interval_seconds must be >= 1") }
            if !(retentionDays > 0) { problems.append("webhooks.retention_days must be > 0") }
            var seen = Set<String>()
            for (index, subscriber) in subscribers.enumerated() {
                let at = "webhooks.subscribers[\(index)]"
                if !WebhookURL.isAcceptable(subscriber.url) {
                    problems.append("\(at).url '\(subscriber.url)' must be an http:// or https:// URL")
                }
                if !seen.insert(subscriber.url).inserted { problems.append("\(at).url \(subscriber.url) is listed twice") }
                for secret in [subscriber.secret] + (subscriber.previousSecret.map { [$0] } ?? []) {
                    do { _ = try WebhookSecret(secret) } catch { problems.append("\(at): \(error)") }
                }
                for type in subscriber.events where !StreamEventType.all.contains(type) {
                    problems.append("\(at).events: unknown event type '\(type)' (known: \(StreamEventType.all.joined(separator: ", ")))")
                }
            }
            return problems
        }
    }
}
