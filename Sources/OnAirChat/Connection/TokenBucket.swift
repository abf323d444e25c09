/// A token bucket (rate limiter): `capacity` tokens, refilled at `rate` per second; each
/// action takes one. Sans-I/O: the caller passes monotonic time in seconds.
public struct TokenBucket: Sendable, Equatable {
    public let capacity: Double
    public let rate: Double
    public private(set) var tokens: Double
    private var last: Double?

    public init(capacity: Double, rate: Double) {
        self.capacity = max(1, capacity)
        self.rate = max(rate, .leastNonzeroMagnitude)
        self.tokens = self.capacity
    }

    /// Takes a token at `now`. Returns nil when allowed, otherwise the seconds until one is available
    /// (the bucket is left unchanged, so a refused attempt costs nothing).
    public mutating func take(now: Double) -> Double? {
        if let last, now > last { tokens = min(capacity, tokens + (now - last) * rate) }
        last = max(last ?? now, now)
        guard tokens >= 1 else { return (1 - tokens) / rate }
        tokens -= 1
        return nil
    }
}
