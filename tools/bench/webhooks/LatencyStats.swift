import BenchSupport

/// Percentiles of a set of latencies (milliseconds), nearest-rank, as one summary line.
struct LatencyStats {
    let percentiles: Percentiles

    init(_ samples: [Double]) { percentiles = Percentiles(samples) }

    var summary: String {
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        return "n=\(percentiles.sorted.count) p50=\(f(percentiles.at(50))) ms p90=\(f(percentiles.at(90))) ms "
            + "p99=\(f(percentiles.at(99))) ms max=\(f(percentiles.max)) ms"
    }
}
