import OnAirWire

/// Turns any number of keyframe requests (viewers' PLI/FIR, new viewers) into at most one
/// PLI to the publisher per interval: an encoder asked for an IDR every few milliseconds by a
/// thousand viewers would send nothing but keyframes (the NACK/PLI storm PEERS.md warns of).
struct KeyframeRequestCoalescer: Sendable {
    let interval: Duration
    private var lastSent: MonoTime?
    private var pending = false
    private(set) var sent: UInt64 = 0
    private(set) var suppressed: UInt64 = 0

    init(interval: Duration = .milliseconds(500)) { self.interval = interval }

    /// Records a request; true when a PLI should go out now.
    mutating func request(now: MonoTime) -> Bool {
        if let lastSent, now - lastSent < interval {
            if pending { suppressed += 1 }
            pending = true
            return false
        }
        lastSent = now
        pending = false
        sent += 1
        return true
    }

    /// True when a request held back earlier may go out now (call from the timer).
    mutating func poll(now: MonoTime) -> Bool {
        guard pending, let lastSent, now - lastSent >= interval else { return false }
        self.lastSent = now
        pending = false
        sent += 1
        return true
    }

    /// A keyframe arrived on its own: requests still pending are satisfied.
    mutating func keyframeArrived() { pending = false }
}
