import OnAirWire

/// When a sender may try again to resume a paused simulcast layer (probing by resuming, see
/// ``BitrateController/probeCeiling``): a while after the layer was paused, and twice as long
/// each time a resume is undone within `failureWindow` (the path could not carry it: each try
/// costs a congested moment and a keyframe), up to `maximumWait`. A resume that holds for
/// `failureWindow` resets the wait.
public struct ResumeBackoff: Sendable {
    public let initialWait: Duration
    public let maximumWait: Duration
    public let failureWindow: Duration
    public private(set) var wait: Duration
    private var notBefore = MonoTime.zero
    private var lastResume: MonoTime?
    private var activeCount: Int?

    public init(initialWait: Duration = .seconds(4), maximumWait: Duration = .seconds(64),
                failureWindow: Duration = .seconds(10)) {
        self.initialWait = initialWait
        self.maximumWait = maximumWait
        self.failureWindow = failureWindow
        wait = initialWait
    }

    /// Tells how many layers send now (after each allocation).
    public mutating func layersActive(_ count: Int, now: MonoTime) {
        defer { activeCount = count }
        guard let previous = activeCount, count != previous else {
            if let resumed = lastResume, now - resumed >= failureWindow {
                wait = initialWait
                lastResume = nil
            }
            return
        }
        if count > previous {
            lastResume = now
            return
        }
        if let resumed = lastResume, now - resumed < failureWindow { wait = min(wait * 2, maximumWait) }
        lastResume = nil
        notBefore = now + wait
    }

    public func mayTry(now: MonoTime) -> Bool { now >= notBefore }
}
