/// When a sender may try again to resume a paused simulcast layer (probing by resuming, see
/// ``BitrateController/probeCeiling``): a while after the layer was paused, and twice as long
/// each time a resume is undone within `failureWindow` (the path could not carry it: each try
/// costs a congested moment and a keyframe), up to `maximumWait`. A resume that holds for
/// `failureWindow` resets the wait.
public struct ResumeBackoff: Sendable {
    public let initialWait: UInt64
    public let maximumWait: UInt64
    public let failureWindow: UInt64
    public private(set) var wait: UInt64
    private var notBefore: UInt64 = 0
    private var lastResume: UInt64?
    private var activeCount: Int?

    /// Times in monotonic nanoseconds.
    public init(initialWait: UInt64 = 4_000_000_000, maximumWait: UInt64 = 64_000_000_000,
                failureWindow: UInt64 = 10_000_000_000) {
        self.initialWait = initialWait
        self.maximumWait = maximumWait
        self.failureWindow = failureWindow
        wait = initialWait
    }

    /// Tells how many layers send now (after each allocation).
    public mutating func layersActive(_ count: Int, now: UInt64) {
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

    public func mayTry(now: UInt64) -> Bool { now >= notBefore }
}
