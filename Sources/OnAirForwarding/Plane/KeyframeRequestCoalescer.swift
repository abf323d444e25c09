import OnAirWire

/// Turns any number of keyframe requests (viewers' PLI/FIR, new viewers, layer switches) into
/// few PLIs to the publisher: at most one per `interval`, and while a requested keyframe is on
/// its way further requests wait for it (it serves them too). A prompt request (a viewer
/// joining, or switching to this layer) need only wait `minimumGap` once the last keyframe has
/// come. An encoder asked for an IDR every few milliseconds by a thousand viewers would send
/// nothing but keyframes (the NACK/PLI storm PEERS.md warns of), and repeated PLIs after loss
/// must not become one IDR per round trip on a thin link; but a viewer joining just after a
/// keyframe should not wait out half a second.
package struct KeyframeRequestCoalescer: Sendable {
    package let interval: Duration
    package let minimumGap: Duration
    private var lastSent: MonoTime?
    /// A PLI went out and its keyframe has not arrived yet.
    private var outstanding = false
    private var pending = false
    private var pendingPrompt = false
    package private(set) var sent: UInt64 = 0
    package private(set) var suppressed: UInt64 = 0

    package init(interval: Duration = .milliseconds(500), minimumGap: Duration = .milliseconds(100)) {
        self.interval = interval
        self.minimumGap = minimumGap
    }

    /// Records a request; true when a PLI should go out now.
    package mutating func request(now: MonoTime, prompt: Bool = false) -> Bool {
        if let lastSent, now - lastSent < wait(prompt: prompt) {
            if pending { suppressed += 1 }
            pending = true
            pendingPrompt = pendingPrompt || prompt
            return false
        }
        send(now: now)
        return true
    }

    /// True when a request held back earlier may go out now (call from the timer).
    package mutating func poll(now: MonoTime) -> Bool {
        guard pending, let lastSent, now - lastSent >= wait(prompt: pendingPrompt) else { return false }
        send(now: now)
        return true
    }

    private func wait(prompt: Bool) -> Duration { prompt && !outstanding ? minimumGap : interval }

    /// A keyframe arrived (asked for or not): requests held back are satisfied, and the next
    /// one need not wait for it.
    package mutating func keyframeArrived() {
        pending = false
        pendingPrompt = false
        outstanding = false
    }

    private mutating func send(now: MonoTime) {
        lastSent = now
        pending = false
        pendingPrompt = false
        outstanding = true
        sent += 1
    }
}
