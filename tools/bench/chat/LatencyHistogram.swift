/// Delivery latencies in 10 µs buckets up to 2 s (plus one overflow bucket): fixed memory
/// however many deliveries, percentiles exact to 10 µs.
struct LatencyHistogram: Sendable {
    static let bucketNanos: UInt64 = 10_000
    static let bucketCount = 200_000

    private(set) var buckets = [UInt64](repeating: 0, count: bucketCount + 1)
    private(set) var count: UInt64 = 0
    private(set) var maxNanos: UInt64 = 0

    mutating func record(nanos: UInt64) {
        let index = min(Int(nanos / Self.bucketNanos), Self.bucketCount)
        buckets[index] &+= 1
        count &+= 1
        maxNanos = max(maxNanos, nanos)
    }

    mutating func merge(_ other: LatencyHistogram) {
        for i in buckets.indices { buckets[i] &+= other.buckets[i] }
        count &+= other.count
        maxNanos = max(maxNanos, other.maxNanos)
    }

    /// The latency (upper edge of its bucket) below which `fraction` of samples lie, in ms.
    func percentileMS(_ fraction: Double) -> Double {
        guard count > 0 else { return .nan }
        let target = UInt64((Double(count) * fraction).rounded(.up))
        var seen: UInt64 = 0
        for (i, n) in buckets.enumerated() {
            seen += n
            if seen >= target {
                return i == Self.bucketCount ? Double(maxNanos) / 1e6 : Double(UInt64(i + 1) * Self.bucketNanos) / 1e6
            }
        }
        return Double(maxNanos) / 1e6
    }
}
