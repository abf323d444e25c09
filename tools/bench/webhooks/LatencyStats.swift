/// Percentiles of a set of latencies (milliseconds), nearest-rank.
struct LatencyStats {
    let sorted: [Double]

    init(_ samples: [Double]) { sorted = samples.sorted() }

    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    var summary: String {
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        return "n=\(sorted.count) p50=\(f(percentile(50))) ms p90=\(f(percentile(90))) ms p99=\(f(percentile(99))) ms max=\(f(sorted.last ?? .nan)) ms"
    }
}
