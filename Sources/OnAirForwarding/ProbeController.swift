import OnAirWire

/// Probing up before switching up: the relay sends a viewer padding on top of its media so
/// that the total reaches the next layer's bitrate with headroom, for a short burst, and
/// switches only if that got through clean (libwebrtc's probe clusters; mediasoup and LiveKit
/// probe before an upgrade the same way). A probe fails on any congestion signal from its
/// start until a grace period after it (feedback takes a round trip), or on NACKed loss, or
/// when the viewer's feedback shows that the link did not deliver the probe's rate
/// (transport-cc acknowledgements, a REMB after overuse): a queue a few hundred milliseconds
/// deep swallows a short probe above the link's rate without a loss or, at first, a delay
/// the viewer acts on. Where the viewer reports neither (REMB, receiver reports alone), the
/// relay sends it a sender report as the padding stops and reads the queue the probe built
/// from the round trip of that report (RFC 3550 §6.4.1: arrival − LSR − DLSR, less the least
/// round trip seen): a queue means the probe's rate did not get through, and no queue
/// outweighs a congestion signal the viewer sent meanwhile. Each failure doubles
/// the wait before the next one, up to a ceiling, so a thin link is not hit every second; a
/// success below the rate that failed does not reset that wait.
public struct ProbeController: Sendable {
    public struct Settings: Sendable {
        /// How long padding is sent.
        public var duration: Duration = .milliseconds(700)
        /// How long after that congestion still counts against the probe.
        public var grace: Duration = .milliseconds(400)
        /// The same for a probe of a paused viewer's layer (``start(rate:brief:...)``), whose
        /// verdict is what the viewer's video waits for once its link has recovered; the
        /// padding still outlasts the acknowledged-rate window (500 ms) that measures it.
        public var briefDuration: Duration = .milliseconds(500)
        public var briefGrace: Duration = .milliseconds(250)
        /// The wait after a failure's verdict: doubled by each failure.
        public var initialBackoff: Duration = .seconds(2)
        public var maximumBackoff: Duration = .seconds(8)
        /// The wait after a probe that got through: short, so that a climb in steps goes on.
        public var afterSuccess: Duration = .milliseconds(200)
        /// NACKed packets during a probe beyond this fraction of those sent fail it.
        public var lossLimit = 0.08
        /// Where delivery is measured: the probe fails unless the rate that arrived reached
        /// this share of the probe's rate (what arrived counts packet headers too).
        public var deliveredShare = 0.85
        /// Where the queue is measured: the probe fails when its sender report's round trip
        /// exceeds the least one by more than this (plus a quarter of the least: jitter grows
        /// with distance). A probe at 1.1 × the link's rate for 700 ms queues 70 ms.
        public var queueLimit: Duration = .milliseconds(40)
        /// How long a verdict waits for the report that measures the queue (aiortc reports
        /// every 0.5-1.5 s); without one, the probe is judged on the other signals.
        public var queueWait: Duration = .seconds(2)
        /// A probe whose padding a congestion signal cut short while its queue stayed empty
        /// proved nothing either way: tried again this soon, this many times in a row, then
        /// failed.
        public var retryAfterInconclusive: Duration = .milliseconds(500)
        public var maximumInconclusive = 1
        public init() {}
    }

    public enum Outcome: Sendable, Equatable { case succeeded(rate: Int), failed, inconclusive }
    /// Why the last probe failed (for the relay's log).
    public enum Failure: String, Sendable { case congestion, loss, undelivered, queue }

    public let settings: Settings
    public private(set) var active: (rate: Int, start: MonoTime)?
    /// Whether the running probe is brief, and so its padding time and grace.
    private var brief = false
    private var duration: Duration { brief ? settings.briefDuration : settings.duration }
    private var grace: Duration { brief ? settings.briefGrace : settings.grace }
    private var nextAttempt = MonoTime.zero
    private var backoff: Duration
    private var sentDuringProbe = 0
    private var nackedDuringProbe = 0
    /// The highest rate seen arriving during the probe; nil when the viewer cannot tell.
    private var deliveredDuringProbe: Int?
    /// The viewer measured less than the probe's rate arriving (``observeMeasured(_:at:)``).
    private var undelivered = false
    /// Whether this probe's queue is measured, when its sender report went out, and the
    /// queueing delay measured from it.
    private var measuresQueue = false
    private var queueMarker: MonoTime?
    private var queueDelay: Duration?
    /// When a congestion signal stopped the padding of a probe whose queue is measured.
    private var paddingStoppedAt: MonoTime?
    /// The least round trip seen: the path with no queue.
    public private(set) var leastRoundTrip: Duration?
    /// The rate of the last probe that failed, until one at that rate or above succeeds.
    public private(set) var failedRate: Int?
    public private(set) var lastFailure: Failure?
    /// The queueing delay the last probe whose queue was measured showed.
    public private(set) var lastQueueDelay: Duration?
    /// Whether the last probe judged had its queue measured.
    public private(set) var queueMeasured = false
    public private(set) var succeeded: UInt64 = 0
    public private(set) var failed: UInt64 = 0
    public private(set) var inconclusive: UInt64 = 0
    private var inconclusiveInRow = 0
    /// Probes judged so far.
    public var verdicts: UInt64 { succeeded &+ failed &+ inconclusive }

    public init(settings: Settings = Settings()) {
        self.settings = settings
        backoff = settings.initialBackoff
    }

    public func mayStart(now: MonoTime) -> Bool { active == nil && now >= nextAttempt }

    /// Starts a probe towards `rate` bits/s in total (media and padding).
    ///
    /// - Parameters:
    ///   - measuresDelivery: the viewer's feedback shows the rate that arrives (transport-cc),
    ///     reported with ``observeDelivered(_:)``.
    ///   - measuresQueue: the queue is read from a sender report's round trip
    ///     (``wantsQueueMarker(now:)``, ``observeRoundTrip(_:reportSentAt:)``).
    ///   - brief: ``Settings/briefDuration`` and ``Settings/briefGrace`` instead of the defaults.
    public mutating func start(rate: Int, measuresDelivery: Bool = false, measuresQueue: Bool = false, brief: Bool = false,
                               now: MonoTime) {
        finish(now: now)
        active = (rate, now)
        self.brief = brief
        deliveredDuringProbe = measuresDelivery ? 0 : nil
        self.measuresQueue = measuresQueue
    }

    /// Whether the sender report that measures this probe's queue is due: the padding has
    /// just stopped, so the queue is at its deepest.
    public func wantsQueueMarker(now: MonoTime) -> Bool {
        guard let paddingEnd, measuresQueue, queueMarker == nil else { return false }
        return now >= paddingEnd
    }

    /// When the running probe's padding ends (or ended).
    private var paddingEnd: MonoTime? {
        active.map { paddingStoppedAt ?? $0.start + duration }
    }

    public mutating func queueMarkerSent(at time: MonoTime) {
        if active != nil { queueMarker = time }
    }

    /// A round trip measured from a receiver report about our sender report sent at `sentAt`.
    public mutating func observeRoundTrip(_ roundTrip: Duration, reportSentAt sentAt: MonoTime) {
        let before = leastRoundTrip
        leastRoundTrip = min(before ?? roundTrip, roundTrip)
        // The first round trip seen cannot tell a queue from the path.
        guard let before, active != nil, let queueMarker, sentAt >= queueMarker else { return }
        queueDelay = max(queueDelay ?? .zero, roundTrip - min(before, roundTrip))
    }

    /// The queueing delay beyond which a probe did not get through.
    private var queueLimit: Duration { settings.queueLimit + (leastRoundTrip ?? .zero) / 4 }

    /// A rate the viewer measured arriving at `time` (its REMB after overuse): below the
    /// probe's rate, during the probe or its grace, the probe fails.
    public mutating func observeMeasured(_ rate: Int, at time: MonoTime) {
        guard let active, time >= active.start, fallsShort(rate, of: active.rate) else { return }
        undelivered = true
    }

    /// The rate the viewer's feedback says arrived lately (draft-ietf-rmcat-gcc-02 §5.5's
    /// acknowledged bitrate), bits/s.
    public mutating func observeDelivered(_ rate: Int) {
        if active != nil, let delivered = deliveredDuringProbe { deliveredDuringProbe = max(delivered, rate) }
    }

    /// Whether `delivered` bits/s arriving is too little to call a probe at `rate` carried.
    private func fallsShort(_ delivered: Int, of rate: Int) -> Bool {
        Double(delivered) < settings.deliveredShare * Double(rate)
    }

    /// The total rate to reach now with padding, or nil when no padding is due.
    @inline(__always)
    public func paddingTarget(now: MonoTime) -> Int? {
        guard let active, let paddingEnd, now < paddingEnd else { return nil }
        return active.rate
    }

    /// Media packets sent and NACKed while a probe runs (a NACK is the quickest loss signal).
    public mutating func countSent(_ packets: Int) { if active != nil { sentDuringProbe += packets } }
    public mutating func countNACKed(_ packets: Int) { if active != nil { nackedDuringProbe += packets } }

    /// Judges the running probe: failed on congestion since its start or too many NACKs,
    /// succeeded once its grace period has passed clean.
    public mutating func poll(now: MonoTime, lastCongestion: MonoTime?) -> Outcome? {
        guard let active else { return nil }
        let lossy = Double(nackedDuringProbe) > max(2, settings.lossLimit * Double(sentDuringProbe))
        let queued = queueDelay.map { $0 > queueLimit } ?? false
        if lossy { return fail(.loss, now: now) }
        if undelivered { return fail(.undelivered, now: now) }
        if queued { return fail(.queue, now: now) }
        // Where the queue is measured, it outweighs a receiver's congestion signal: aiortc on a
        // busy host reads its own scheduling jitter under a burst of small padding packets as
        // overuse, on a link with no queue at all. The signal stops the padding at once (a real
        // queue grows no deeper) and the queue it left decides. Without that measurement the
        // signal stands; with an empty queue, a full burst passed and one cut short is retried.
        let congested = lastCongestion.map { $0 >= active.start } ?? false
        if congested && !measuresQueue { return fail(.congestion, now: now) }
        if congested, paddingStoppedAt == nil, now < active.start + duration { paddingStoppedAt = now }
        // A brief probe whose rate the viewer has acknowledged arriving, clean, has shown what
        // it was for: the paused viewer's video need not wait out the padding and the grace.
        if brief, !congested, let delivered = deliveredDuringProbe, !fallsShort(delivered, of: active.rate) {
            return succeed(active, now: now)
        }
        guard let paddingEnd, now >= paddingEnd + grace else { return nil }
        if let delivered = deliveredDuringProbe, fallsShort(delivered, of: active.rate) { return fail(.undelivered, now: now) }
        if queueDelay == nil, let queueMarker, now - queueMarker < settings.queueWait { return nil }
        if congested && queueDelay == nil { return fail(.congestion, now: now) }
        if paddingStoppedAt != nil {
            guard inconclusiveInRow < settings.maximumInconclusive else { return fail(.congestion, now: now) }
            finish(now: now)
            inconclusive += 1
            inconclusiveInRow += 1
            nextAttempt = now + settings.retryAfterInconclusive
            return .inconclusive
        }
        return succeed(active, now: now)
    }

    private mutating func succeed(_ active: (rate: Int, start: MonoTime), now: MonoTime) -> Outcome {
        finish(now: now)
        succeeded += 1
        inconclusiveInRow = 0
        // Below the rate that failed, this only confirms what was known: the climb goes on,
        // but the next failure waits longer still.
        if failedRate.map({ active.rate >= $0 }) ?? true {
            failedRate = nil
            backoff = settings.initialBackoff
        }
        nextAttempt = now + settings.afterSuccess
        return .succeeded(rate: active.rate)
    }

    private mutating func fail(_ cause: Failure, now: MonoTime) -> Outcome {
        failedRate = active?.rate
        lastFailure = cause
        // The wait counts from the verdict: until then the rate sent still holds what the
        // failed probe cost (the viewer's NACKs of what it lost, resent), and a climb restarted
        // from it at once overshoots again (seen: 1.47 Mbit/s failed on a 1 Mbit/s link, then
        // 2.04 Mbit/s one second later, a 2.8 s freeze).
        finish(now: now)
        failed += 1
        inconclusiveInRow = 0
        nextAttempt = now + backoff
        backoff = min(backoff * 2, settings.maximumBackoff)
        return .failed
    }

    /// The next probe may start `wait` after `now`, and failures start backing off afresh: a
    /// paused viewer's link is probed until it recovers, however long its dip.
    public mutating func retry(after wait: Duration, now: MonoTime) {
        guard active == nil else { return }
        nextAttempt = now + wait
        backoff = settings.initialBackoff
    }

    /// Drops a running probe without a verdict (the viewer switched down, or left).
    public mutating func cancel(now: MonoTime) {
        if active != nil { finish(now: now) }
    }

    private mutating func finish(now: MonoTime) {
        if measuresQueue { lastQueueDelay = queueDelay }
        queueMeasured = measuresQueue && queueDelay != nil
        active = nil
        sentDuringProbe = 0
        nackedDuringProbe = 0
        deliveredDuringProbe = nil
        undelivered = false
        measuresQueue = false
        queueMarker = nil
        queueDelay = nil
        paddingStoppedAt = nil
    }
}
