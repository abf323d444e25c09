import OnAirWire

/// Probing up before switching up: the relay sends a viewer padding on top of its media so
/// that the total reaches the next layer's bitrate with headroom, for a short burst, and
/// switches only if that got through clean (libwebrtc's probe clusters; mediasoup and LiveKit
/// probe before an upgrade the same way). A probe fails on any congestion signal from its
/// start until a grace period after it (feedback takes a round trip), or on NACKed loss, or
/// when the viewer's feedback shows that the link did not deliver the probe's rate
/// (transport-cc acknowledgements, a REMB after overuse): a queue a few hundred milliseconds
/// deep swallows a short probe above the link's rate without a loss or, at first, a delay
/// the viewer acts on. Each failure doubles
/// the wait before the next one, up to a ceiling, so a thin link is not hit every second; a
/// success below the rate that failed does not reset that wait.
public struct ProbeController: Sendable {
    public struct Settings: Sendable {
        /// How long padding is sent.
        public var duration: Duration = .milliseconds(700)
        /// How long after that congestion still counts against the probe.
        public var grace: Duration = .milliseconds(400)
        public var initialBackoff: Duration = .seconds(2)
        public var maximumBackoff: Duration = .seconds(8)
        /// The wait after a probe that got through: short, so that a climb in steps goes on.
        public var afterSuccess: Duration = .milliseconds(200)
        /// NACKed packets during a probe beyond this fraction of those sent fail it.
        public var lossLimit = 0.08
        /// Where delivery is measured: the probe fails unless the rate that arrived reached
        /// this share of the probe's rate (what arrived counts packet headers too).
        public var deliveredShare = 0.85
        public init() {}
    }

    public enum Outcome: Sendable, Equatable { case succeeded(rate: Int), failed }

    public let settings: Settings
    public private(set) var active: (rate: Int, start: MonoTime)?
    private var nextAttempt = MonoTime.zero
    private var backoff: Duration
    private var sentDuringProbe = 0
    private var nackedDuringProbe = 0
    /// The highest rate seen arriving during the probe; nil when the viewer cannot tell.
    private var deliveredDuringProbe: Int?
    /// The viewer measured less than the probe's rate arriving (``observeMeasured(_:at:)``).
    private var undelivered = false
    /// The rate of the last probe that failed, until one at that rate or above succeeds.
    public private(set) var failedRate: Int?
    public private(set) var succeeded: UInt64 = 0
    public private(set) var failed: UInt64 = 0

    public init(settings: Settings = Settings()) {
        self.settings = settings
        backoff = settings.initialBackoff
    }

    public func mayStart(now: MonoTime) -> Bool { active == nil && now >= nextAttempt }

    /// Starts a probe towards `rate` bits/s in total (media and padding).
    ///
    /// - Parameter measuresDelivery: the viewer's feedback shows the rate that arrives
    ///   (transport-cc), reported with ``observeDelivered(_:)``.
    public mutating func start(rate: Int, measuresDelivery: Bool = false, now: MonoTime) {
        active = (rate, now)
        sentDuringProbe = 0
        nackedDuringProbe = 0
        deliveredDuringProbe = measuresDelivery ? 0 : nil
        undelivered = false
    }

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
        guard let active, now - active.start < settings.duration else { return nil }
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
        if lossy || undelivered || (lastCongestion.map { $0 >= active.start } ?? false) { return fail(now: now) }
        guard now - active.start >= settings.duration + settings.grace else { return nil }
        if let delivered = deliveredDuringProbe, fallsShort(delivered, of: active.rate) { return fail(now: now) }
        finish(now: now)
        succeeded += 1
        // Below the rate that failed, this only confirms what was known: the climb goes on,
        // but the next failure waits longer still.
        if failedRate.map({ active.rate >= $0 }) ?? true {
            failedRate = nil
            backoff = settings.initialBackoff
        }
        nextAttempt = now + settings.afterSuccess
        return .succeeded(rate: active.rate)
    }

    private mutating func fail(now: MonoTime) -> Outcome {
        failedRate = active?.rate
        finish(now: now)
        failed += 1
        nextAttempt = now + backoff
        backoff = min(backoff * 2, settings.maximumBackoff)
        return .failed
    }

    /// Drops a running probe without a verdict (the viewer switched down, or left).
    public mutating func cancel(now: MonoTime) {
        if active != nil { finish(now: now) }
    }

    private mutating func finish(now: MonoTime) {
        active = nil
        sentDuringProbe = 0
        nackedDuringProbe = 0
        deliveredDuringProbe = nil
        undelivered = false
    }
}
