/// When a delivery is attempted: a fixed list of delays (the Svix schedule by default), each
/// scaled by a random jitter factor. Sans-I/O: the random number comes in as a parameter.
public struct RetrySchedule: Sendable, Equatable {
    /// Svix's documented schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h.
    public static let svixDelays: [Double] = [0, 5, 300, 1_800, 7_200, 18_000, 36_000, 36_000]

    /// `delays[n]` is the wait before attempt n + 1 (after the event, or after attempt n failed).
    public var delays: [Double]
    /// Delays are multiplied by a factor in [1 - jitter, 1 + jitter].
    public var jitter: Double

    public init(delays: [Double] = RetrySchedule.svixDelays, jitter: Double = 0.2) {
        self.delays = delays.isEmpty ? [0] : delays
        self.jitter = min(max(jitter, 0), 1)
    }

    /// How many attempts a delivery gets before it is given up.
    public var maxAttempts: Int { delays.count }

    /// The wait before attempt `attempt` (1-based), or nil when the schedule has no such
    /// attempt. `random` is uniform in [0, 1).
    public func delay(beforeAttempt attempt: Int, random: Double) -> Double? {
        guard attempt >= 1, attempt <= delays.count else { return nil }
        let factor = 1 + jitter * (2 * min(max(random, 0), 1) - 1)
        return delays[attempt - 1] * factor
    }

    /// The bounds the jittered delay before `attempt` falls in.
    public func bounds(beforeAttempt attempt: Int) -> ClosedRange<Double>? {
        guard let low = delay(beforeAttempt: attempt, random: 0), let high = delay(beforeAttempt: attempt, random: 1) else {
            return nil
        }
        return low...high
    }
}
