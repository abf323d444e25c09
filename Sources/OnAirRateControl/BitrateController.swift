#if canImport(Glibc)
import Glibc  // pow, for the per-second growth
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OnAirRTP
import OnAirWire

/// The publisher's video bitrate: draft-ietf-rmcat-gcc-02's sender-side control, fed by
/// RTCP from the receiver, kept within `minimum...maximum` bits/s.
///
/// - Loss (§6), from receiver report blocks: above 10% loss the target drops at once to
///   target × (1 - 0.5 × loss); below 2% it may rise, slowly (+8% per second of clean
///   reports, at most once per second); in between it holds. Down fast, up slowly: a
///   congested link must be relieved now, while probing upwards too eagerly would cause the
///   very loss it then has to back off from.
/// - REMB (draft-alvestrand-rmcat-remb-03 §2): the receiver's estimate is a ceiling. A
///   REMB older than ``Configuration/rembLifetime`` no longer counts (the receiver
///   stopped sending them, so its old figure says nothing about the path now).
/// - Transport-cc (§5), through ``TransportFeedbackAdapter``: on overuse the target drops
///   to 0.85 × the acknowledged bitrate (§5.5: what the path demonstrably carries, minus a
///   margin to drain the queue); on underuse it holds while the queue drains; increases
///   happen only while delay is normal, and never beyond 1.5 × the acknowledged bitrate
///   (§5.5), so the target cannot run away from what the encoder and path really deliver.
///
/// The encoder is reconfigured through ``pollChange(now:)``, which only hands out
/// changes worth an `x264_encoder_reconfig`.
///
/// Time: every `now` is a ``MonoTime`` from the caller, every interval a `Duration` (see the
/// module notes).
public struct BitrateController: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// Bits per second.
        public var minimum: Int
        public var maximum: Int
        public var start: Int
        /// Loss above this fraction cuts the target (§6: 0.10).
        public var highLoss = 0.10
        /// Loss below this fraction allows increases (§6: 0.02).
        public var lowLoss = 0.02
        /// Growth per second of clean reports.
        public var increasePerSecond = 1.08
        /// Shortest time between two increases, and between a decrease and the next
        /// increase.
        public var increaseInterval: Duration = .seconds(1)
        /// The largest time span one increase may make up for (a long gap between
        /// reports is not a long run of clean ones).
        public var maximumIncreaseSpan: Duration = .seconds(3)
        /// How long a REMB stays a ceiling.
        public var rembLifetime: Duration = .seconds(5)
        /// On overuse, the target becomes this × the acknowledged bitrate (§5.5: 0.85).
        public var overuseBackoff = 0.85
        /// Shortest time between two overuse decreases: the encoder needs a moment to
        /// follow, and until it does the acknowledged rate still shows the old bitrate.
        public var overuseDecreaseInterval: Duration = .milliseconds(300)
        /// Increases stop at this × the acknowledged bitrate (§5.5: 1.5).
        public var acknowledgedHeadroom = 1.5
        /// How long a transport-cc verdict or acknowledged bitrate counts; after that
        /// the controller runs on receiver reports alone (feedback stopped).
        public var feedbackLifetime: Duration = .seconds(2)
        /// ``pollChange(now:)`` hands out an increase only if it is at least this fraction.
        public var reconfigureThreshold = 0.05
        /// ... and no sooner than this after the previous change.
        public var reconfigureInterval: Duration = .milliseconds(500)

        /// `start` is clamped to `minimum...maximum`; `maximum` is raised to `minimum` if lower.
        public init(minimum: Int, maximum: Int, start: Int) {
            self.minimum = max(minimum, 0)
            self.maximum = max(maximum, self.minimum)
            self.start = min(max(start, self.minimum), self.maximum)
        }
    }

    public let configuration: Configuration
    /// The bitrate the sender should aim for now, bits/s, within minimum...maximum.
    public private(set) var target: Int
    /// Why ``target`` last changed.
    public private(set) var lastChangeReason = BitrateChangeReason.start
    /// The bitrate last handed out by ``pollChange(now:)`` (the start bitrate at first):
    /// what the encoder is running at.
    public private(set) var encoderBitrate: Int
    /// The latest loss fraction reported (0...1).
    public private(set) var lastLoss: Double?

    /// Increases may pass the acknowledged headroom up to this bitrate: set while a simulcast
    /// layer is paused and the sender, sending less than its target, cannot show the path
    /// carries more (libwebrtc probes with padding; we probe by resuming the layer).
    public var probeCeiling: Int?

    private var remb: (bitrate: Int, time: MonoTime)?
    private var delay: (usage: BandwidthUsage, time: MonoTime)?
    private var acknowledged: (bitrate: Int, time: MonoTime)?
    /// Increases are measured from here; nil until the first report.
    private var increaseBase: MonoTime?
    private var lastOveruseDecrease: MonoTime?
    private var lastReconfigure: MonoTime?

    public init(configuration: Configuration) {
        self.configuration = configuration
        target = configuration.start
        encoderBitrate = configuration.start
    }

    /// - Parameters: bits per second; see ``Configuration/init(minimum:maximum:start:)``.
    public init(minimum: Int, maximum: Int, start: Int) {
        self.init(configuration: Configuration(minimum: minimum, maximum: maximum, start: start))
    }

    // MARK: Inputs

    /// A reception report block about our video stream (RFC 3550 §6.4.1): loss-based
    /// control on its fraction lost.
    public mutating func handle(reportBlock: ReportBlock, now: MonoTime) {
        handle(fractionLost: Double(reportBlock.fractionLost) / 256, now: now)
    }

    /// Loss-based control (draft-ietf-rmcat-gcc-02 §6) on a loss fraction 0...1.
    public mutating func handle(fractionLost: Double, now: MonoTime) {
        let loss = fractionLost.isFinite ? min(max(fractionLost, 0), 1) : 1
        lastLoss = loss
        if loss > configuration.highLoss {
            decrease(to: Double(target) * (1 - 0.5 * loss), reason: .loss, now: now)
        } else if loss < configuration.lowLoss {
            increase(now: now)
        } else {
            // Hold; only clean time counts towards the next increase.
            increaseBase = now
        }
    }

    /// A REMB from the receiver (draft-alvestrand-rmcat-remb-03 §2.2): a ceiling.
    public mutating func handle(remb: REMB, now: MonoTime) {
        handle(rembBitrate: Int(clamping: remb.bitrate), now: now)
    }

    /// A receiver-estimated maximum bitrate, bits/s.
    public mutating func handle(rembBitrate: Int, now: MonoTime) {
        remb = (max(rembBitrate, 0), now)
        if target > rembBitrate { decrease(to: Double(rembBitrate), reason: .remb, now: now) }
    }

    /// The result of ``TransportFeedbackAdapter/feedback(_:now:)``: delay-based control
    /// (draft-ietf-rmcat-gcc-02 §5).
    public mutating func handle(transportFeedback summary: TransportFeedbackSummary, now: MonoTime) {
        delay = (summary.usage, now)
        if let bitrate = summary.acknowledgedBitrate { acknowledged = (bitrate, now) }
        guard summary.usage == .overuse else { return }
        if let last = lastOveruseDecrease,
           Self.elapsed(from: last, to: now) < configuration.overuseDecreaseInterval { return }
        let base = fresh(acknowledged, now: now).map(Double.init) ?? Double(target)
        if decrease(to: configuration.overuseBackoff * base, reason: .delayOveruse, now: now) {
            lastOveruseDecrease = now
        }
    }

    /// A probe at `bitrate` bits/s got through clean: the target rises to it at once (within
    /// the maximum), where clean reports alone would take many seconds at 8 % per second.
    public mutating func handle(probedBitrate bitrate: Int, now: MonoTime) {
        increaseBase = now
        let raised = min(configuration.maximum, bitrate)
        guard raised > target else { return }
        target = raised
        lastChangeReason = .probe
    }

    // MARK: Output

    /// The REMB ceiling in force at `now`, bits/s.
    public func rembCeiling(now: MonoTime) -> Int? {
        guard let remb, Self.elapsed(from: remb.time, to: now) < configuration.rembLifetime else { return nil }
        return remb.bitrate
    }

    /// The delay verdict in force at `now` (nil: no recent transport-cc feedback).
    public func delayUsage(now: MonoTime) -> BandwidthUsage? {
        fresh(delay.map { ($0.usage, $0.time) }, now: now)
    }

    /// The new encoder bitrate if the target moved enough to reconfigure the encoder:
    /// any decrease at once; an increase only when it is at least 5% (or reaches the
    /// maximum) and 500 ms have passed since the last change. Becomes
    /// ``encoderBitrate`` when returned.
    public mutating func pollChange(now: MonoTime) -> Int? {
        guard target != encoderBitrate else { return nil }
        if target > encoderBitrate {
            let enough = Double(target) >= Double(encoderBitrate) * (1 + configuration.reconfigureThreshold)
                || target == configuration.maximum || target == probeCeiling
            guard enough else { return nil }
            if let last = lastReconfigure,
               Self.elapsed(from: last, to: now) < configuration.reconfigureInterval { return nil }
        }
        encoderBitrate = target
        lastReconfigure = now
        return target
    }

    // MARK: Control

    /// Lowers the target to `bitrate` (never below the minimum). Returns whether it changed.
    @discardableResult
    private mutating func decrease(to bitrate: Double, reason: BitrateChangeReason, now: MonoTime) -> Bool {
        increaseBase = now
        let lowered = max(configuration.minimum, Int(bitrate.rounded(.down)))
        guard lowered < target else { return false }
        target = lowered
        lastChangeReason = reason
        return true
    }

    /// A clean report: raises the target by 8% per second since the last increase, at
    /// most once per ``Configuration/increaseInterval``, while delay is normal, under
    /// the REMB ceiling, the acknowledged headroom and the maximum.
    private mutating func increase(now: MonoTime) {
        guard let base = increaseBase else {
            increaseBase = now
            return
        }
        let elapsed = Self.elapsed(from: base, to: now)
        guard elapsed >= configuration.increaseInterval else { return }
        if let usage = delayUsage(now: now), usage != .normal {
            increaseBase = now
            return
        }
        increaseBase = now
        // Seconds from whole nanoseconds, rounded once (Duration.seconds rounds twice) for pow.
        let seconds = Double(min(elapsed, configuration.maximumIncreaseSpan).nanoseconds) / 1e9
        var raised = Double(target) * pow(configuration.increasePerSecond, seconds)
        if let ceiling = rembCeiling(now: now) { raised = min(raised, Double(ceiling)) }
        if let rate = fresh(acknowledged, now: now) {
            let headroom = configuration.acknowledgedHeadroom * Double(rate)
            raised = min(raised, max(headroom, probeCeiling.map(Double.init) ?? 0))
        }
        let next = min(configuration.maximum, Int(raised.rounded(.down)))
        guard next > target else { return }
        target = next
        lastChangeReason = .cleanIncrease
    }

    private func fresh<Value>(_ sample: (Value, MonoTime)?, now: MonoTime) -> Value? {
        guard let sample, Self.elapsed(from: sample.1, to: now) < configuration.feedbackLifetime else {
            return nil
        }
        return sample.0
    }

    /// `later - earlier`, or zero if the caller's clock went backwards: time that ran
    /// backwards counts as no time at all (also against an interval configured as zero).
    @inline(__always)
    private static func elapsed(from earlier: MonoTime, to later: MonoTime) -> Duration {
        later >= earlier ? later - earlier : .zero
    }
}
