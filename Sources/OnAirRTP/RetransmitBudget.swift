import OnAirWire

/// A token bucket bounding retransmissions, so that heavy loss (or a lying receiver) can never
/// turn NACKs into a storm: the relay counts packets per viewer, the broadcaster bytes against
/// a share of its bitrate (resending everything a congested link lost would only deepen it).
public struct RetransmitBudget: Sendable {
    /// Tokens (packets, or bytes) added per second, and the most the bucket holds.
    public var ratePerSecond: Double
    public var burst: Double
    private var tokens: Double
    private var last: MonoTime?

    public init(ratePerSecond: Double = 300, burst: Double = 100) {
        self.ratePerSecond = ratePerSecond
        self.burst = burst
        self.tokens = burst
    }

    /// Takes `cost` tokens if there are that many; false (nothing taken) otherwise.
    public mutating func take(_ cost: Double = 1, now: MonoTime) -> Bool {
        if let last {
            tokens = min(burst, tokens + (now - last).seconds * ratePerSecond)
        }
        last = now
        guard tokens >= cost else { return false }
        tokens -= cost
        return true
    }
}
