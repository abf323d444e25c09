import OnAirWire

/// A token bucket bounding how many packets one viewer may have retransmitted per second, so
/// that heavy loss (or a lying receiver) can never turn NACKs into a storm.
struct RetransmitBudget: Sendable {
    let ratePerSecond: Double
    let burst: Double
    private var tokens: Double
    private var last: MonoTime?

    init(ratePerSecond: Double = 300, burst: Double = 100) {
        self.ratePerSecond = ratePerSecond
        self.burst = burst
        self.tokens = burst
    }

    mutating func take(now: MonoTime) -> Bool {
        if let last {
            tokens = min(burst, tokens + (now - last).seconds * ratePerSecond)
        }
        last = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}

extension Duration {
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}
