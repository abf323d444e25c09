/// Nearest-rank percentiles of a set of samples (any unit).
public struct Percentiles: Sendable {
    public let sorted: [Double]

    public init(_ samples: [Double]) { sorted = samples.sorted() }

    /// The smallest sample with at least `percent` % of the samples at or below it.
    public func at(_ percent: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((percent / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[Swift.min(Swift.max(rank, 0), sorted.count - 1)]
    }

    public var mean: Double { sorted.isEmpty ? .nan : sorted.reduce(0, +) / Double(sorted.count) }
    public var max: Double { sorted.last ?? .nan }
}
