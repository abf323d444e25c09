import OnAirRTP
import OnAirWire
import Testing
@testable import OnAirForwarding

/// The per-viewer estimate on each kind of feedback (draft-ietf-rmcat-gcc-02).
@Suite("ViewerBandwidthEstimator")
struct ViewerBandwidthEstimatorTests {
    let t0 = MonoTime.seconds(10)

    @Test("transport-cc: a growing queue (arrivals falling behind the sends) steps the estimate down")
    func delayRampStepsDown() throws {
        var estimator = ViewerBandwidthEstimator(feedback: .transportCC, start: 3_000_000)
        var sequence: UInt16 = 0
        var arrival: Int64 = 0
        var now = t0
        var overuseAt: MonoTime?
        // 1200-byte packets every 5 ms (1.9 Mbit/s) into a link that carries 1.2 Mbit/s: each
        // arrives 3 ms later than the one before would at the send pace.
        for _ in 0..<40 {
            var arrivals: [Int64?] = []
            let base = sequence
            for _ in 0..<20 {
                estimator.sent(transportSequence: sequence, size: 1200, now: now)
                arrival += 8000
                arrivals.append(arrival)
                sequence &+= 1
                now = now + .milliseconds(5)
            }
            let feedback = try TransportWideFeedback(senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: base,
                                                     feedbackPacketCount: UInt8(truncatingIfNeeded: base / 20),
                                                     arrivalTimesMicroseconds: arrivals)
            estimator.handle(feedback, now: now)
            if overuseAt == nil, estimator.lastCongestion != nil { overuseAt = now }
        }
        #expect(overuseAt != nil)
        #expect(estimator.estimate < 1_500_000, "estimate \(estimator.estimate)")
        #expect(estimator.lastChangeReason.rawValue == "delay-overuse")
    }

    @Test("receiver reports: 1-2 % loss holds, more than 10 % cuts")
    func lossBands() {
        var estimator = ViewerBandwidthEstimator(feedback: .receiverReports, start: 2_000_000)
        var now = t0
        for _ in 0..<5 {
            now = now + .seconds(1)
            estimator.handle(fractionLost: 0.015, now: now)
        }
        #expect(estimator.estimate == 2_000_000)
        #expect(estimator.lastCongestion == nil)
        estimator.handle(fractionLost: 0.20, now: now + .seconds(1))
        #expect(estimator.estimate == 1_800_000)
        #expect(estimator.lastCongestion == now + .seconds(1))
    }

    @Test("a burst of receiver reports (Chromium sends one with every NACK) cuts once per 400 ms, not per report")
    func lossReportBurst() {
        var estimator = ViewerBandwidthEstimator(feedback: .transportCC, start: 1_500_000)
        var now = t0
        for _ in 0..<42 {   // one second of reports, each about a handful of packets
            now = now + .milliseconds(24)
            estimator.handle(fractionLost: 0.5, now: now)
        }
        // Three cuts (at 0, 400 and 800 ms) of x0.75 each, not 42: 1.5M x 0.75^3 ~ 633k.
        #expect(estimator.estimate > 600_000 && estimator.estimate < 650_000, "\(estimator.estimate)")
    }

    @Test("REMB: a falling REMB is taken, a rising one (a receiver's slow AIMD) is not")
    func rembFallingOnly() {
        var estimator = ViewerBandwidthEstimator(feedback: .remb, start: 5_000_000)
        // aiortc's first REMB is what it received: about what we sent.
        estimator.handle(rembBitrate: 2_450_000, sentPayloadRate: 2_500_000, now: t0)
        #expect(estimator.estimate == 5_000_000)
        estimator.handle(rembBitrate: 2_600_000, sentPayloadRate: 2_500_000, now: t0 + .seconds(1))
        #expect(estimator.estimate == 5_000_000)
        // Overuse: 0.85 × what arrived.
        estimator.handle(rembBitrate: 850_000, sentPayloadRate: 2_500_000, now: t0 + .seconds(2))
        #expect(estimator.estimate == 850_000)
        #expect(estimator.lastCongestion == t0 + .seconds(2))
        // A first REMB far below what was sent is overuse too.
        var fresh = ViewerBandwidthEstimator(feedback: .remb, start: 5_000_000)
        fresh.handle(rembBitrate: 500_000, sentPayloadRate: 2_500_000, now: t0)
        #expect(fresh.estimate == 500_000)
    }

    @Test("a probe that got through raises the estimate at once")
    func probeRaises() {
        var estimator = ViewerBandwidthEstimator(feedback: .remb, start: 5_000_000)
        estimator.handle(rembBitrate: 800_000, sentPayloadRate: 2_500_000, now: t0)
        estimator.probeSucceeded(rate: 3_000_000, now: t0 + .seconds(5))
        #expect(estimator.estimate == 3_000_000)
        #expect(estimator.lastChangeReason.rawValue == "probe")
    }

    @Test("a probe's queue refutes the REMB falls since it started and their echo in its grace; later ones count")
    func congestionRefuted() {
        var estimator = ViewerBandwidthEstimator(feedback: .remb, start: 1_000_000)
        estimator.handle(rembBitrate: 900_000, sentPayloadRate: 600_000, now: t0)
        let before = estimator.lastCongestion
        estimator.handle(rembBitrate: 700_000, sentPayloadRate: 600_000, now: t0 + .seconds(2))
        #expect(estimator.lastCongestion == t0 + .seconds(2))
        estimator.congestionRefuted(since: t0 + .seconds(1), restoring: before, echoesUntil: t0 + .milliseconds(3_400))
        #expect(estimator.lastCongestion == before)
        estimator.handle(rembBitrate: 600_000, sentPayloadRate: 600_000, now: t0 + .milliseconds(3_300))
        #expect(estimator.lastCongestion == before && estimator.estimate == 700_000, "an echo: neither a signal nor a cut")
        estimator.handle(rembBitrate: 500_000, sentPayloadRate: 600_000, now: t0 + .milliseconds(3_500))
        #expect(estimator.lastCongestion == t0 + .milliseconds(3_500) && estimator.estimate == 500_000)
    }
}
