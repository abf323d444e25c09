/// A fixed histogram of latencies in 0.1 ms buckets up to 1 s (and one overflow bucket):
/// recording a sample is an increment, no allocation on the per-frame path.
struct LatencyHistogram {
    private var buckets = [UInt32](repeating: 0, count: 10_001)
    private(set) var count: UInt64 = 0

    mutating func record(nanoseconds: UInt64) {
        let bucket = min(Int(nanoseconds / 100_000), buckets.count - 1)
        buckets[bucket] &+= 1
        count += 1
    }

    /// The latency at quantile `q` (0...1) in milliseconds, nil without samples.
    func quantile(_ q: Double) -> Double? {
        guard count > 0 else { return nil }
        let rank = UInt64((Double(count) * q).rounded(.up))
        var seen: UInt64 = 0
        for (index, value) in buckets.enumerated() {
            seen += UInt64(value)
            if seen >= max(rank, 1) { return Double(index + 1) / 10 }
        }
        return Double(buckets.count) / 10
    }
}
