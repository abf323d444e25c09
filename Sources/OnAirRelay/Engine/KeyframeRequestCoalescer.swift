import OnAirWire

/// Turns any number of keyframe requests (viewers' PLI/FIR, new viewers, layer switches) into
/// few PLIs to the publisher: while a requested keyframe is on its way, further requests wait
/// for it (it serves them too), and are sent again only if it has not come within `interval`;
/// once it has come, the next request goes out at once, but never within `minimumGap` of the
/// last. An encoder asked for an IDR every few milliseconds by a thousand viewers would send
/// nothing but keyframes (the NACK/PLI storm PEERS.md warns of), while a viewer joining just
/// after a keyframe arrived should not wait out a fixed half second.
struct KeyframeRequestCoalescer: Sendable {
    let interval: Duration
    let minimumGap: Duration
    private var lastSent: MonoTime?
    /// A PLI went out and its keyframe has not arrived yet.
    private var outstanding = false
    private var pending = false
    private(set) var sent: UInt64 = 0
    private(set) var suppressed: UInt64 = 0

    init(interval: Duration = .milliseconds(500), minimumGap: Duration = .milliseconds(100)) {
        self.interval = interval
        self.minimumGap = minimumGap
    }

    /// Records a request; true when a PLI should go out now.
    mutating func request(now: MonoTime) -> Bool {
        if let lastSent, now - lastSent < (outstanding ? interval : minimumGap) {
            if pending { suppressed += 1 }
            pending = true
            return false
        }
        send(now: now)
        return true
    }

    /// True when a request held back earlier may go out now (call from the timer).
    mutating func poll(now: MonoTime) -> Bool {
        guard pending, let lastSent, now - lastSent >= (outstanding ? interval : minimumGap) else { return false }
        send(now: now)
        return true
    }

    /// A keyframe arrived (asked for or not): requests held back are satisfied, and the next
    /// one need not wait for it.
    mutating func keyframeArrived() {
        pending = false
        outstanding = false
    }

    private mutating func send(now: MonoTime) {
        lastSent = now
        pending = false
        outstanding = true
        sent += 1
    }
}
