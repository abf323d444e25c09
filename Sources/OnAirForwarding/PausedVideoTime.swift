import OnAirWire

/// Video time paused, by why (``PauseGate/Reason``): what the paused-seconds metric's
/// `reason` label shows, so that an operator can tell a thin link from a failed trial.
/// Three stored durations, no collection: added to once a second per paused viewer.
public struct PausedVideoTime: Sendable, Equatable {
    public private(set) var loss: Duration = .zero
    public private(set) var undelivered: Duration = .zero
    public private(set) var trial: Duration = .zero

    public init() {}

    public var total: Duration { loss + undelivered + trial }

    public subscript(reason: PauseGate.Reason) -> Duration {
        switch reason {
        case .loss: loss
        case .undelivered: undelivered
        case .trial: trial
        }
    }

    public mutating func add(_ elapsed: Duration, reason: PauseGate.Reason) {
        switch reason {
        case .loss: loss += elapsed
        case .undelivered: undelivered += elapsed
        case .trial: trial += elapsed
        }
    }

    public static func + (lhs: Self, rhs: Self) -> Self {
        var sum = lhs
        sum.loss += rhs.loss
        sum.undelivered += rhs.undelivered
        sum.trial += rhs.trial
        return sum
    }
}
