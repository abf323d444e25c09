import OnAirRTP
import OnAirRateControl
import OnAirWire

/// What one viewer's link carries, estimated by the relay from whatever feedback that viewer
/// gives (draft-ietf-rmcat-gcc-02, with ``BitrateController`` as the controller):
///
/// - transport-cc (§5): the relay numbers what it sends (``ViewerHeaderExtensions``) and runs
///   the delay-based estimator on the viewer's feedback; overuse cuts to 0.85 × acknowledged.
/// - REMB (draft-alvestrand-rmcat-remb-03): a receiver's AIMD control lowers its figure only
///   on overuse and raises it by at most 8 % per second whatever the path carries, so a
///   falling REMB is a congestion signal and the estimate takes it; a rising one says nothing
///   the relay did not already send (after a successful probe it lags for many seconds).
/// - receiver reports (§6): above 10 % loss the estimate is cut, below 1 % it may grow (§6
///   says 2 %; a viewer holds on 1-2 %), in between it holds.
/// - probes (``ProbeController``): a burst above the estimate that arrived clean raises it to
///   the probed rate at once.
public struct ViewerBandwidthEstimator: Sendable {
    /// The feedback the viewer negotiated, best first.
    public enum Feedback: String, Sendable { case transportCC = "transport-cc", remb, receiverReports = "rr" }

    public let feedback: Feedback
    private var controller: BitrateController
    private var transport: TransportFeedbackAdapter?
    private var lastREMB: Int?
    /// The latest loss fraction reported (0...1), and when.
    public private(set) var lossFraction: Double = 0
    public private(set) var lossReportedAt: MonoTime?
    /// The last congestion signal (overuse, a falling REMB, loss over 10 %).
    public private(set) var lastCongestion: MonoTime?
    /// The last feedback of any kind: before the first, nothing is known of the link.
    public private(set) var lastFeedback: MonoTime?
    /// What the viewer measured arriving, from a REMB that could only come from its overuse
    /// reaction: bits/s, and when.
    public private(set) var rembThroughput: (rate: Int, at: MonoTime)?
    /// The video loss the viewer's NACKs show, within a round trip.
    public var nackLoss = NACKLossMeter()

    public init(feedback: Feedback, start: Int, minimum: Int = 30_000, maximum: Int = 50_000_000) {
        self.feedback = feedback
        var configuration = BitrateController.Configuration(minimum: minimum, maximum: maximum, start: start)
        // Grow only on loss below 1 %: 1-2 % is everyday Wi-Fi loss that NACK repairs, and a
        // viewer's estimate that creeps up on it only earns a failed upswitch.
        configuration.lowLoss = 0.01
        controller = BitrateController(configuration: configuration)
        transport = feedback == .transportCC ? TransportFeedbackAdapter() : nil
    }

    /// Bits per second the viewer's link is believed to carry now.
    public var estimate: Int { controller.target }
    public var lastChangeReason: BitrateChangeReason { controller.lastChangeReason }
    /// What arrived lately by the viewer's transport-cc feedback, bits/s (§5.5).
    public var acknowledgedBitrate: Int? { transport?.acknowledgedBitrate }

    /// A packet went out with transport-wide sequence number `sequence`, `size` octets on the wire.
    @inline(__always)
    public mutating func sent(transportSequence sequence: UInt16, size: Int, now: MonoTime) {
        transport?.recordSent(sequence: sequence, size: size, now: now)
    }

    public mutating func handle(_ feedback: some TransportFeedbackPackets, now: MonoTime) {
        // Mutated in place: a copy would copy its send history on write, per feedback.
        guard transport != nil, let summary = transport?.feedback(feedback, now: now) else { return }
        lastFeedback = now
        controller.handle(transportFeedback: summary, now: now)
        if summary.usage == .overuse { lastCongestion = now }
    }

    /// - Parameter sentPayloadRate: payload bits/s sent to the viewer lately (REMB counts payload).
    public mutating func handle(rembBitrate bitrate: Int, sentPayloadRate: Int, now: MonoTime) {
        // A receiver's rate control grows at most 8 % per update; on overuse it jumps to 0.85 ×
        // the rate it measures arriving (draft-ietf-rmcat-gcc-02 §5.5, aiortc, libwebrtc). A
        // REMB more than 10 % above the last one is that measurement, even though it rose.
        if let last = lastREMB, bitrate > last * 110 / 100 { rembThroughput = (bitrate * 100 / 85, now) }
        let falling = lastREMB.map { bitrate < $0 * 97 / 100 } ?? (bitrate < sentPayloadRate * 9 / 10)
        lastREMB = bitrate
        lastFeedback = now
        guard falling, !(echoesUntil.map { now <= $0 } ?? false) else { return }
        lastCongestion = now
        if bitrate < estimate { controller.handle(rembBitrate: bitrate, now: now) }
    }

    /// A receiver report's fraction lost about our video (RFC 3550 §6.4.1), 0...1. It
    /// steers the estimate at most once per ``lossInterval``: Chromium sends a report with
    /// every NACK (42 in a second during a burst), and each one over 10 % would cut the
    /// estimate again, down to its floor within half a second (libwebrtc itself acts on
    /// loss at most once per 300 ms plus a round trip).
    public mutating func handle(fractionLost: Double, now: MonoTime) {
        lossFraction = fractionLost
        lossReportedAt = now
        lastFeedback = now
        if let last = lastLossUpdate, now - last < Self.lossInterval { return }
        lastLossUpdate = now
        controller.handle(fractionLost: fractionLost, now: now)
        if fractionLost > 0.10 { lastCongestion = now }
    }

    public static let lossInterval: Duration = .milliseconds(400)
    private var lastLossUpdate: MonoTime?

    public mutating func probeSucceeded(rate: Int, now: MonoTime) {
        controller.handle(probedBitrate: rate, now: now)
    }

    /// A probe that started at `start` left no queue (``ProbeController``): a congestion signal
    /// since then was the viewer's own noise, not a limit of the link, and the one before the
    /// probe (`before`) stands again. A REMB that falls until `echoesUntil` is the late echo of
    /// that noise (aiortc sends it when its detector fires, up to a few hundred milliseconds
    /// after the burst) and is ignored.
    public mutating func congestionRefuted(since start: MonoTime, restoring before: MonoTime?, echoesUntil: MonoTime) {
        if let last = lastCongestion, last >= start { lastCongestion = before }
        self.echoesUntil = echoesUntil
    }

    private var echoesUntil: MonoTime?
}
