/// Nearest-rank percentiles of a set of samples (any unit).
struct Percentiles {
    let sorted: [Double]

    init(_ samples: [Double]) { sorted = samples.sorted() }

    /// The smallest sample with at least `percent` % of the samples at or below it.
    func at(_ percent: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((percent / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[Swift.min(Swift.max(rank, 0), sorted.count - 1)]
    }

    var mean: Double { sorted.isEmpty ? .nan : sorted.reduce(0, +) / Double(sorted.count) }
    var max: Double { sorted.last ?? .nan }
}
