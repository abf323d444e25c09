/// The bounds on one room's posts that hold per user rather than per connection (issue 28):
/// slow mode (one message per user per interval) and the per-user token bucket
/// (`limits.user_messages_per_second` / `user_message_burst`), so that a user with ten
/// connections does not get ten times the rate. Owned by the room's worker (no lock); sans-I/O:
/// the caller passes monotonic seconds. Open-chat members have no user id: slow mode keys
/// them by connection, and only their connection's own bucket limits them.
struct PosterLimits {
    /// Who a post counts against.
    enum Poster: Hashable {
        case user(String)
        case connection(UInt64)
    }

    enum Refusal: Equatable {
        /// Slow mode: the poster may post again in `wait` seconds.
        case slowMode(wait: Double)
        /// The user's bucket is empty: a token comes in `wait` seconds.
        case rateLimited(wait: Double)
    }

    let rate: Double
    let burst: Double
    private var buckets: [String: TokenBucket] = [:]
    private var lastPost: [Poster: Double] = [:]
    /// Connections in the room per user: a user's state goes when their last connection does.
    private var connections: [String: Int] = [:]
    /// Buckets of users with no connection (REST posters) are dropped beyond this many.
    static let idleBucketLimit = 10_000

    init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = burst
    }

    mutating func joined(user: String) {
        connections[user, default: 0] += 1
    }

    mutating func left(user: String?, connection: UInt64) {
        lastPost.removeValue(forKey: .connection(connection))
        guard let user, let count = connections[user] else { return }
        if count > 1 {
            connections[user] = count - 1
        } else {
            connections.removeValue(forKey: user)
            buckets.removeValue(forKey: user)
            lastPost.removeValue(forKey: .user(user))
        }
    }

    /// Admits one post at `now` (and counts it), or says why not. `slowModeSeconds` 0 is off;
    /// `exempt` (moderators) skips slow mode, not the bucket.
    mutating func admit(_ poster: Poster, slowModeSeconds: Int, exempt: Bool, now: Double) -> Refusal? {
        if slowModeSeconds > 0 && !exempt, let last = lastPost[poster] {
            let due = last + Double(slowModeSeconds)
            if now < due { return .slowMode(wait: due - now) }
        }
        if case .user(let user) = poster {
            if buckets[user] == nil && buckets.count >= Self.idleBucketLimit { dropIdleBuckets() }
            if let wait = buckets[user, default: TokenBucket(capacity: burst, rate: rate)].take(now: now) {
                return .rateLimited(wait: wait)
            }
        }
        if slowModeSeconds > 0 && !exempt { lastPost[poster] = now }
        return nil
    }

    /// Slow mode changed: earlier posts no longer count.
    mutating func slowModeChanged() {
        lastPost.removeAll()
    }

    private mutating func dropIdleBuckets() {
        buckets = buckets.filter { connections[$0.key] != nil }
    }
}
