import Foundation

/// Time for the chat: wall-clock milliseconds (message timestamps) and monotonic seconds
/// (rate limits, presence batching). A value so tests can shift it.
public struct WallClock: Sendable {
    private let offsetMilliseconds: Int64

    public init(offsetMilliseconds: Int64 = 0) { self.offsetMilliseconds = offsetMilliseconds }

    public static let system = WallClock()

    /// Milliseconds since 1970 (UTC).
    public func milliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded()) + offsetMilliseconds
    }

    public func date() -> Date { Date(timeIntervalSince1970: Double(milliseconds()) / 1000) }

    /// Seconds on a clock that never jumps (CLOCK_MONOTONIC).
    public func monotonicSeconds() -> Double {
        let elapsed = ContinuousClock.Instant.referencePoint.duration(to: .now)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}

extension ContinuousClock.Instant {
    /// A fixed instant to measure from (the first use in this process).
    fileprivate static let referencePoint = ContinuousClock.now
}
