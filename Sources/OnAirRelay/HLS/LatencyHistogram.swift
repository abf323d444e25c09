/// Counts of durations in fixed buckets, cumulative as Prometheus histograms are: cheap
/// enough for a loop (no allocation, a short scan) and exact at the bucket bounds.
struct LatencyHistogram: Sendable, Equatable {
    /// Upper bounds in seconds; the last bucket (+Inf) is implied.
    let bounds: [Double]
    /// Observations per bucket (not cumulative), `bounds.count + 1` of them.
    private(set) var counts: [UInt64]
    private(set) var sum: Double = 0
    private(set) var count: UInt64 = 0

    init(bounds: [Double]) {
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count + 1)
    }

    /// Fine buckets around the 10 ms that a part may take to become downloadable.
    static func partReady() -> LatencyHistogram {
        LatencyHistogram(bounds: [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02,
                                  0.035, 0.05, 0.1, 0.25, 1])
    }

    mutating func record(_ duration: Duration) {
        let seconds = max(0, duration.seconds)
        var index = 0
        while index < bounds.count, seconds > bounds[index] { index += 1 }
        counts[index] += 1
        sum += seconds
        count += 1
    }

    /// The Prometheus text exposition (format 0.0.4) of this histogram.
    func exposition(name: String, help: String) -> String {
        var text = "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        var cumulative: UInt64 = 0
        for (index, bound) in bounds.enumerated() {
            cumulative += counts[index]
            text += "\(name)_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        text += "\(name)_bucket{le=\"+Inf\"} \(count)\n\(name)_sum \(sum)\n\(name)_count \(count)\n"
        return text
    }
}
