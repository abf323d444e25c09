import OnAirWire

/// Chooses the layer one viewer gets from its bandwidth estimate (what mediasoup's
/// SimulcastConsumer and LiveKit's forwarder do per subscriber):
///
/// - down at once when the current layer no longer fits an estimate the viewer's feedback
///   has limited (`keep` × its bitrate plus audio is
///   above the estimate), to the best layer that fits; and then no switch up for
///   `holdAfterDown` (a link that just choked is not tried again at once);
/// - pause video only when the link has shown for seconds that it does not carry even the
///   smallest layer (``PauseGate``): audio goes on alone. A single-layer stream, or a cap that
///   leaves one layer, has nothing to switch to, so until then it is forwarded as a relay
///   without an estimator would (NACKs answered, keyframes on request); a paused viewer probes
///   the smallest layer again at once, at the rate its link carried before the congestion, and
///   every ``Settings/retryWhilePaused`` after a failure, with no hold: video is back within
///   about two seconds of the link's recovery, whatever the dip's depth or length;
/// - in a viewer's first seconds (``Settings/joinWindow``: DTLS handshakes, keyframe bursts to
///   many new viewers, its own busy CPU) a congestion signal switches down only once it has
///   held for ``Settings/confirmInJoinWindow``, and such a switch holds only briefly;
/// - up one layer at a time and only after a probe at that layer's rate got through
///   (``ProbeController``), or, for a viewer that cannot be probed (no RTX), when the
///   estimate exceeds it by `upWithoutProbe`. Probes climb in steps of at most `probeStep` ×
///   what is known to get through (the rate sent, or the last probe that passed since the
///   last one failed), and only once the viewer has sent feedback: a 600 kbit/s link hit
///   with a 3.6 Mbit/s probe drops hundreds of packets, and the retransmissions that follow
///   choke it further;
/// - only live layers, and none above the viewer's cap (`maximumHeight`).
public struct LayerSelector: Sendable {
    public struct Settings: Sendable {
        /// A layer is kept while the estimate is at least this share of what it needs: a REMB
        /// after overuse is 0.85 × what arrived, of video payload alone.
        public var keep = 0.7
        public var pauseBelow = 0.5
        public var probeHeadroom = 1.15
        /// A probe's rate is at most this × the rate known to get through (2 before any
        /// limit was seen, 1.5 after).
        public var probeStep = 2.0
        public var probeStepWhenLimited = 1.5
        public var upWithoutProbe = 1.3
        public var holdAfterDown: Duration = .seconds(10)
        /// How long a successful probe justifies a switch up.
        public var probeValidity: Duration = .seconds(2)
        /// No probe this soon after a switch up: the new layer's keyframe and its first
        /// seconds at full rate are a probe of their own, and padding on top of them overran a
        /// 600 kbit/s link that the layer alone just fitted.
        public var settleAfterUp: Duration = .seconds(3)
        public var joinWindow: Duration = .seconds(5)
        public var confirmInJoinWindow: Duration = .seconds(1)
        public var holdAfterJoinDown: Duration = .seconds(2)
        /// While paused: the wait after a failed probe of the smallest layer (instead of the
        /// growing backoff), and, for a viewer that cannot be probed, between trials of it.
        public var retryWhilePaused: Duration = .milliseconds(100)
        public var trialWhilePaused: Duration = .milliseconds(1250)
        /// Within this of a trial, evidence pauses again once it has lasted ``trialSustain``:
        /// the first span of ``NACKLossMeter`` that shows the layer losing (the keyframe of a
        /// trial on a recovered link arrives whole), so a link still in its dip is flooded by
        /// the trial no longer than its queue takes to show the loss.
        public var trialWindow: Duration = .seconds(3)
        public var trialSustain: Duration = .zero
        /// After a switch, feedback this young is about the layer before (a receiver report
        /// younger than a third of it too).
        public var evidenceAfterSwitch: Duration = .seconds(1)
        /// The rate sent counts as carried once no congestion was signalled for this long.
        public var cleanAfter: Duration = .seconds(2)
        public var probe = ProbeController.Settings()
        public var pause = PauseGate.Settings()
        public init() {}
    }

    public let settings: Settings
    /// The layer wanted (nil: video paused, or nothing chosen yet), and since when.
    public private(set) var target: Int? {
        didSet { if target != oldValue { targetSince = pendingNow } }
    }
    private var targetSince = MonoTime.zero
    /// The time of the update in progress (for ``targetSince``).
    private var pendingNow = MonoTime.zero
    private var chosen = false
    private var holdUntil = MonoTime.zero
    /// No probe before this (``Settings/settleAfterUp``).
    private var settledAt = MonoTime.zero
    /// The last probe that got through, and when.
    private var probed: (rate: Int, at: MonoTime)?
    /// The highest rate a probe showed the link carries, since the last switch down.
    private var provenRate = 0
    /// The viewer's last congestion signal when the running probe started.
    private var congestionBeforeProbe: MonoTime?
    public var probe: ProbeController
    public private(set) var pauseGate: PauseGate
    /// Why video is paused now (nil: not paused).
    public private(set) var pauseReason: PauseGate.Reason?
    public private(set) var pauses: UInt64 = 0
    /// The evidence of the last pause (for the relay's log).
    public private(set) var pauseEvidence: PauseGate.Evidence?
    private var pausedAt = MonoTime.zero
    /// The first update: the viewer's join.
    private var joinedAt: MonoTime?
    /// When the down condition was first seen in the join window (it must hold to count).
    private var downSince: MonoTime?
    /// Until when a trial of the smallest layer is judged on shorter evidence.
    private var trialUntil: MonoTime?
    /// What the viewer got while its link gave no congestion signal: where the climb back
    /// from a pause starts.
    public private(set) var carriedRate = 0
    /// The viewer's cap: no layer taller than this (nil: any). A new cap is the viewer's
    /// explicit choice: the next update picks afresh, without hold or probe.
    public var maximumHeight: Int? {
        didSet { if maximumHeight != oldValue { chosen = false } }
    }
    public private(set) var upSwitches: UInt64 = 0
    public private(set) var downSwitches: UInt64 = 0

    public init(settings: Settings = Settings(), maximumHeight: Int? = nil) {
        self.settings = settings
        self.maximumHeight = maximumHeight
        probe = ProbeController(settings: settings.probe)
        pauseGate = PauseGate(settings: settings.pause)
    }

    /// Re-decides the target from the layers and the estimate; returns the new target.
    ///
    /// - Parameters:
    ///   - layers: every layer the publisher sends, live or not.
    ///   - audioBitrate: what the viewer's audio takes, bits/s (it is never given up).
    ///   - canProbe: whether padding can be sent to this viewer (RTX negotiated).
    ///   - sendingRate: what the viewer gets now, bits/s (media and audio).
    @discardableResult
    public mutating func update(layers: [LayerCandidate], audioBitrate: Int, estimator: inout ViewerBandwidthEstimator,
                                canProbe: Bool, sendingRate: Int = 0, now: MonoTime) -> Int? {
        let ladder = Self.ladder(layers, maximumHeight: maximumHeight)
        guard !ladder.isEmpty else { return target }
        func needs(_ layer: LayerCandidate) -> Double { Double(layer.bitrate + audioBitrate) }
        pendingNow = now
        let joined = joinedAt ?? now
        joinedAt = joined
        let joining = now - joined < settings.joinWindow

        // Judged on every layer: the relay's repairs and keyframe requests follow it too.
        let lastNACKLoss = estimator.nackLoss.loss(now: now)
        if let delivered = estimator.acknowledgedBitrate { probe.observeDelivered(delivered) }
        if let measured = estimator.rembThroughput { probe.observeMeasured(measured.rate, at: measured.at) }
        let probeStart = probe.active?.start
        switch probe.poll(now: now, lastCongestion: estimator.lastCongestion) {
        case .succeeded(let rate):
            refuteCongestion(since: probeStart, estimator: &estimator, now: now)
            estimator.probeSucceeded(rate: rate, now: now)
            probed = (rate, now)
            provenRate = max(provenRate, rate)
        case .inconclusive:
            refuteCongestion(since: probeStart, estimator: &estimator, now: now)
        case .failed:
            // What passed before may no longer: the next climb starts from what is sent.
            provenRate = 0
            // Paused, the link's recovery is what is waited for: tried again soon, every time.
            if chosen && target == nil { probe.retry(after: settings.retryWhilePaused, now: now) }
        case nil:
            break
        }
        if target != nil, sendingRate > 0, estimator.lastCongestion.map({ now - $0 >= settings.cleanAfter }) ?? true {
            carriedRate = sendingRate
        }
        let estimateNow = Double(estimator.estimate)
        // Until the viewer's feedback has shown a limit, the estimate is only the start value:
        // a layer whose bitrate grows past it is no reason to leave it.
        let limited = estimator.lastCongestion != nil
        let position = target.flatMap { current in ladder.firstIndex { $0.index == current } }
        guard chosen, target == nil || position != nil else {
            // The first choice, or the target is gone (paused by the publisher, above a new
            // cap): the best layer that fits. Before any limit is known, the biggest within
            // the start estimate (a probe takes the viewer higher within a second or two),
            // else the smallest; never paused.
            chosen = true
            target = (limited ? ladder.first { needs($0) * settings.keep <= estimateNow }
                : ladder.first { needs($0) <= estimateNow })?.index ?? ladder[ladder.count - 1].index
            resumed()
            return target
        }
        // While paused, `current` is past the smallest layer: the one to come back to.
        let current = position ?? ladder.count
        let smallest = ladder.count - 1
        if current == smallest {
            let floor = needs(ladder[smallest])
            // Only feedback about this layer: a report that came within its first moments
            // still counts what the layer before it lost.
            let aboutThisLayer = now - targetSince >= settings.evidenceAfterSwitch
                && (estimator.lossReportedAt.map { $0 - targetSince >= settings.evidenceAfterSwitch / 3 } ?? true)
            let trial = trialUntil.map { now < $0 } ?? false
            let nackLoss = (last: lastNACKLoss, sustained: estimator.nackLoss.sustainedLoss(now: now))
            let evidence = pauseGate.evidence(estimator: estimator, nackLoss: nackLoss, needs: floor,
                                              sending: sendingRate, thin: estimateNow < floor * settings.pauseBelow && aboutThisLayer,
                                              trial: trial)
            if pauseGate.observe(evidence, now: now, sustain: trial ? settings.trialSustain : nil), let evidence {
                pauseEvidence = evidence
                pause(trial ? .trial : evidence.reason, now: now)
                return target
            }
            if limited && estimateNow < floor * settings.keep { return target }
        } else {
            pauseGate.reset()
        }
        if limited && current < smallest && estimateNow < needs(ladder[current]) * settings.keep {
            // A viewer's first seconds are full of transient signals: one must hold to count.
            if joining {
                let since = downSince ?? now
                downSince = since
                guard now - since >= settings.confirmInJoinWindow else { return target }
            }
            downSince = nil
            // Never straight to a pause: the smallest layer first, then ``PauseGate`` decides.
            let next = ladder[(current + 1)...].first { needs($0) * settings.keep <= estimateNow } ?? ladder[smallest]
            target = next.index
            downSwitches += 1
            holdUntil = now + (joining ? settings.holdAfterJoinDown : settings.holdAfterDown)
            probe.cancel(now: now)
            probed = nil
            provenRate = 0
            return target
        }
        downSince = nil
        let paused = current == ladder.count
        // The hold after a switch down keeps a viewer from trying a bigger layer; it never
        // delays the way back from a pause.
        guard current > 0, paused || now >= holdUntil else { return target }
        let up = ladder[current - 1]
        let probedEnough = probed.map { Double($0.rate) >= needs(up) && now - $0.at < settings.probeValidity } ?? false
        // A paused viewer without transport-cc is tried, not probed: aiortc reads a padding burst
        // after seconds of audio alone as overuse, and reports no round trip for a video SSRC
        // that sent nothing, so its probes fail on a link that has long recovered.
        let probesWhilePaused = canProbe && estimator.feedback == .transportCC
        let trialDue = paused && !probesWhilePaused && now - pausedAt >= settings.trialWhilePaused
        if probedEnough || !canProbe && estimateNow >= needs(up) * settings.upWithoutProbe || trialDue {
            target = up.index
            upSwitches += 1
            probed = nil
            settledAt = now + settings.settleAfterUp
            if paused {
                resumed()
                if trialDue && !probedEnough { trialUntil = now + settings.trialWindow }
            }
            return target
        }
        if canProbe, !paused || probesWhilePaused, estimator.lastFeedback != nil, now >= settledAt, probe.mayStart(now: now) {
            let step = limited ? settings.probeStepWhenLimited : settings.probeStep
            // What is sent is measured about once a second: just after a switch, the current
            // layer's bitrate says it better. Paused, the climb starts from what the link
            // carried before the congestion, not from the audio that goes on alone.
            let currentNeeds = current < ladder.count ? needs(ladder[current]) : 0
            let known = max(Double(sendingRate), Double(provenRate), 100_000, currentNeeds,
                            paused ? Double(carriedRate) : 0)
            congestionBeforeProbe = estimator.lastCongestion
            probe.start(rate: Int(min(needs(up) * settings.probeHeadroom, known * step)),
                        measuresDelivery: estimator.feedback == .transportCC,
                        measuresQueue: estimator.feedback != .transportCC, brief: paused, now: now)
        }
        return target
    }

    /// Video stops; audio goes on alone (``PauseGate`` decided).
    private mutating func pause(_ reason: PauseGate.Reason, now: MonoTime) {
        target = nil
        downSwitches += 1
        pauses += 1
        pauseReason = reason
        pausedAt = now
        trialUntil = nil
        pauseGate.reset()
        probe.cancel(now: now)
        probed = nil
        provenRate = 0
    }

    private mutating func resumed() {
        pauseReason = nil
        pauseGate.reset()
    }

    /// A probe whose queue was measured left none (it passed, or was cut short by a signal that
    /// queue refuted): the viewer's congestion signals since it started, and for its grace
    /// after, were noise.
    private func refuteCongestion(since start: MonoTime?, estimator: inout ViewerBandwidthEstimator, now: MonoTime) {
        guard let start, probe.queueMeasured else { return }
        estimator.congestionRefuted(since: start, restoring: congestionBeforeProbe, echoesUntil: now + settings.probe.grace)
    }

    /// Live layers within the cap, biggest picture first (then highest bitrate); when the cap
    /// leaves none, the smallest live layer.
    static func ladder(_ layers: [LayerCandidate], maximumHeight: Int?) -> [LayerCandidate] {
        let live = layers.filter(\.live).sorted { ($0.pixels, $0.bitrate) > ($1.pixels, $1.bitrate) }
        guard let maximumHeight else { return live }
        let capped = live.filter { ($0.height ?? 0) <= maximumHeight }
        return capped.isEmpty ? Array(live.suffix(1)) : capped
    }
}
