import OnAirWire

/// When a viewer's video may be paused: only once its link has shown, without a break, for
/// ``Settings/sustain``, that it does not carry the smallest layer the viewer could get.
///
/// A pause is the one choice that can be worse than no adaptation at all (mediasoup's
/// SimpleConsumer never pauses on bandwidth; a relay that forwards everything shows a dip as
/// loss and the next keyframe brings the picture back). So a transient signal (one burst of
/// delay or loss, a join burst, a receiver whose own CPU is busy) never pauses: the estimate
/// alone is not evidence; the link must also be losing what is sent (receiver reports,
/// RFC 3550 §6.4.1) or not delivering it (transport-cc acknowledgements,
/// draft-ietf-rmcat-gcc-02 §5.5), and keep doing so.
public struct PauseGate: Sendable {
    public struct Settings: Sendable {
        /// How long the evidence must hold before video pauses (audio goes on alone). Longer
        /// than a 3 s dip seen through reports up to a second late: such a dip costs a relay
        /// without an estimator the dip and a keyframe, and a pause would cost more.
        public var sustain: Duration = .seconds(5)
        /// A break in the evidence shorter than this does not restart the count (receiver
        /// reports come about once a second).
        public var tolerance: Duration = .milliseconds(1500)
        /// The same for deep evidence from NACKs, judged every quarter second.
        public var toleranceByNACKs: Duration = .milliseconds(400)
        /// Loss above this share of what is sent is evidence.
        public var lossLimit = 0.10
        /// Acknowledged below this share of what is sent is evidence.
        public var deliveredShare = 0.7
        /// A link whose receiver reports more than 90 % of what is sent lost is in a deep dip:
        /// no picture gets through anyway, and the flood starves the audio, so it pauses after
        /// ``deepSustain`` (reports come about once a second: two of them). A dip to a third
        /// of the layer is not deep (a relay without an estimator shows it as a freeze of the
        /// dip), though its tail-drop queue loses 85-87 % of packets in bursts: Chromium's
        /// reports read 87 % in a dip to 800 kbit/s of 2.6 Mbit/s, and 88 % in one to 300.
        /// Only loss tells a deep dip (reports, NACKs): an acknowledged rate that lags behind
        /// a receiver busy with 200 peers is no reason to pause within a second.
        public var deepLoss = 0.9
        public var deepSustain: Duration = .milliseconds(1500)
        /// The same told by NACKs, which measure the layer sent now within a round trip (the
        /// flood starves the audio meanwhile): the three spans of
        /// ``NACKLossMeter/sustainedLoss(now:)`` (at least 0.75 s) are the sustain. A link that
        /// carries a third of the layer loses over 80 % of a span with a keyframe in it, never
        /// of three together.
        public var deepSustainByNACKs: Duration = .zero
        /// NACKs name the first transmissions lost, and the repairs answering them share the
        /// link: a link that carries 30 % of the layer (800 kbit/s of 2.7 Mbit/s) loses 82 % of
        /// first transmissions over three spans, one that carries 11 % (300 kbit/s) 89-95 %.
        public var deepLossByNACKs = 0.88
        public init() {}
    }

    /// Why a viewer's video is paused (the `reason` label of the paused-seconds metric).
    public enum Reason: String, Sendable, CaseIterable {
        /// The viewer reported loss above ``Settings/lossLimit`` while the smallest layer was sent.
        case loss
        /// Its transport-cc feedback acknowledged far less than was sent.
        case undelivered
        /// It cannot be probed and a trial of the smallest layer failed: the same evidence, sooner.
        case trial
    }

    public let settings: Settings
    /// When the current run of evidence started, and when it was last seen; the same for deep
    /// evidence.
    private var since: MonoTime?
    private var lastSeen: MonoTime?
    private var deepSince: MonoTime?
    private var deepLastSeen: MonoTime?
    private var deepByNACKs = false

    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// What the viewer's feedback shows against the layer sent.
    public struct Evidence: Sendable, Equatable {
        public var reason: Reason
        /// The link carries under a fifth of what is sent (``Settings/deepLoss``).
        public var deep = false
        /// Measured within a round trip (NACKs), not from a report up to a second old.
        public var prompt = false
    }

    /// The evidence the viewer's feedback gives now that the link does not carry `needs`
    /// bits/s while `sending` bits/s go out, or nil.
    ///
    /// - Parameters:
    ///   - nackLoss: the loss the viewer's NACKs show on the layer sent now (``NACKLossMeter``):
    ///     the last span's, and the last three spans' together.
    ///   - thin: the estimate is below ``LayerSelector/Settings/pauseBelow`` × `needs` and
    ///     the feedback is about this layer: only then do reports and loss under a deep dip count.
    ///   - trial: the layer is on trial after a pause: any loss NACKs show counts.
    public func evidence(estimator: ViewerBandwidthEstimator, nackLoss: (last: Double?, sustained: Double?), needs: Double,
                         sending: Int, thin: Bool, trial: Bool) -> Evidence? {
        if let sustained = nackLoss.sustained, sustained > settings.deepLossByNACKs {
            return Evidence(reason: .loss, deep: true, prompt: true)
        }
        let nackLoss = nackLoss.last
        if trial, let nackLoss, nackLoss > settings.lossLimit { return Evidence(reason: .loss, prompt: true) }
        guard thin else { return nil }
        let loss = max(estimator.lossFraction, nackLoss ?? 0)
        // A deep dip from NACKs is told by three spans together (above); one span's figure is
        // loss like any other.
        if loss > settings.lossLimit { return Evidence(reason: .loss, deep: estimator.lossFraction > settings.deepLoss) }
        if let delivered = estimator.acknowledgedBitrate, sending > 0 {
            let sent = min(Double(sending), needs)
            if Double(delivered) < settings.deliveredShare * sent { return Evidence(reason: .undelivered) }
        }
        return nil
    }

    /// Takes this update's evidence; true once it has held for `sustain` (default
    /// ``Settings/sustain``), or deep evidence for ``Settings/deepSustain``, with no break
    /// longer than the tolerance.
    public mutating func observe(_ evidence: Evidence?, now: MonoTime, sustain: Duration? = nil) -> Bool {
        if let evidence, evidence.deep {
            if deepSince == nil { deepSince = now }
            deepLastSeen = now
            deepByNACKs = evidence.prompt
        } else if let deepLastSeen, now - deepLastSeen > (deepByNACKs ? settings.toleranceByNACKs : settings.tolerance) {
            deepSince = nil
            self.deepLastSeen = nil
        }
        guard let evidence else {
            if let lastSeen, now - lastSeen > settings.tolerance { reset() }
            return false
        }
        if since == nil { since = now }
        lastSeen = now
        let deepSustain = evidence.prompt ? settings.deepSustainByNACKs : settings.deepSustain
        // Only while the evidence is still deep: a deep report followed by a shallower one
        // is a keyframe that overflowed a link carrying a third of the layer.
        if evidence.deep, let deepSince, now - deepSince >= deepSustain { return true }
        return now - (since ?? now) >= (sustain ?? settings.sustain)
    }

    /// How long the current run of evidence has lasted (zero without one).
    public func held(now: MonoTime) -> Duration { since.map { now - $0 } ?? .zero }

    public mutating func reset() {
        since = nil
        lastSeen = nil
        deepSince = nil
        deepLastSeen = nil
    }
}
