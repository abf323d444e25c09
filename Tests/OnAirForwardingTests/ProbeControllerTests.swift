import OnAirWire
import Testing
@testable import OnAirForwarding

/// Probes before a switch up: judged by congestion, NACKs and, where the feedback shows it,
/// the rate that arrived; failures back off.
@Suite("ProbeController")
struct ProbeControllerTests {
    let t0 = MonoTime.seconds(100)

    /// Runs `probe` from `start` to its verdict, reporting `delivered` bits/s each 100 ms.
    func verdict(_ probe: inout ProbeController, from start: MonoTime, delivered: Int?) -> (ProbeController.Outcome?, MonoTime) {
        var now = start
        while now - start < .seconds(3) {
            now = now + .milliseconds(100)
            if let delivered { probe.observeDelivered(delivered) }
            if let outcome = probe.poll(now: now, lastCongestion: nil) { return (outcome, now) }
        }
        return (nil, now)
    }

    @Test("a probe whose delivery is measured fails when the link delivered less than its rate, without loss or congestion")
    func deliveryJudged() {
        // A 1 Mbit/s link with a 300 ms queue: a 1.34 Mbit/s probe arrives at 1 Mbit/s.
        var buffered = ProbeController()
        buffered.start(rate: 1_340_000, measuresDelivery: true, now: t0)
        #expect(verdict(&buffered, from: t0, delivered: 1_000_000).0 == .failed)
        #expect(buffered.failedRate == 1_340_000)
        // What arrived counts headers too: a little above the probe's rate is usual.
        var open = ProbeController()
        open.start(rate: 1_340_000, measuresDelivery: true, now: t0)
        #expect(verdict(&open, from: t0, delivered: 1_390_000).0 == .succeeded(rate: 1_340_000))
        // No feedback at all confirms nothing.
        var silent = ProbeController()
        silent.start(rate: 1_340_000, measuresDelivery: true, now: t0)
        #expect(verdict(&silent, from: t0, delivered: nil).0 == .failed)
        // A viewer whose feedback cannot show delivery (REMB, receiver reports) is judged as before.
        var unmeasured = ProbeController()
        unmeasured.start(rate: 1_340_000, now: t0)
        #expect(verdict(&unmeasured, from: t0, delivered: 1_000_000).0 == .succeeded(rate: 1_340_000))
    }

    @Test("a success below the rate that failed does not reset the wait; one at that rate does")
    func backoffAfterFailure() {
        var probe = ProbeController()
        probe.start(rate: 1_500_000, measuresDelivery: true, now: t0)
        var (outcome, now) = verdict(&probe, from: t0, delivered: 1_000_000)
        #expect(outcome == .failed)
        #expect(!probe.mayStart(now: now + .milliseconds(1_900)) && probe.mayStart(now: now + .seconds(2)))
        // A lower probe passes: the climb goes on, and the next failure waits twice as long.
        now = now + .seconds(2)
        probe.start(rate: 1_000_000, measuresDelivery: true, now: now)
        (outcome, now) = verdict(&probe, from: now, delivered: 1_050_000)
        #expect(outcome == .succeeded(rate: 1_000_000))
        #expect(probe.failedRate == 1_500_000 && probe.mayStart(now: now + .milliseconds(200)))
        now = now + .milliseconds(200)
        probe.start(rate: 1_500_000, measuresDelivery: true, now: now)
        (outcome, now) = verdict(&probe, from: now, delivered: 1_000_000)
        #expect(outcome == .failed)
        #expect(!probe.mayStart(now: now + .milliseconds(3_900)) && probe.mayStart(now: now + .seconds(4)))
        // A probe at the rate that failed passes: climbing goes on at once again.
        now = now + .seconds(4)
        probe.start(rate: 1_500_000, measuresDelivery: true, now: now)
        (outcome, now) = verdict(&probe, from: now, delivered: 1_600_000)
        #expect(outcome == .succeeded(rate: 1_500_000))
        #expect(probe.failedRate == nil && probe.mayStart(now: now + .milliseconds(200)))
    }

    @Test("a probe whose queue is measured fails on the round trip of the report sent as its padding stopped")
    func queueJudged() {
        func probing() -> ProbeController {
            var probe = ProbeController()
            probe.observeRoundTrip(.milliseconds(2), reportSentAt: .seconds(95))   // the empty path
            probe.start(rate: 1_500_000, measuresQueue: true, now: t0)
            #expect(!probe.wantsQueueMarker(now: t0 + .milliseconds(690)))
            #expect(probe.wantsQueueMarker(now: t0 + .milliseconds(700)))
            probe.queueMarkerSent(at: t0 + .milliseconds(700))
            #expect(!probe.wantsQueueMarker(now: t0 + .milliseconds(720)))
            return probe
        }
        // A 1.5 Mbit/s probe into a 1 Mbit/s link with a 300 ms queue: no loss, but the
        // report sent as the padding stopped comes back 300 ms late.
        var buffered = probing()
        #expect(buffered.poll(now: t0 + .milliseconds(1_100), lastCongestion: nil) == nil)
        buffered.observeRoundTrip(.milliseconds(302), reportSentAt: t0 + .milliseconds(700))
        #expect(buffered.poll(now: t0 + .milliseconds(1_600), lastCongestion: nil) == .failed)
        // The link carried it: the verdict waits for the report, then passes.
        var open = probing()
        #expect(open.poll(now: t0 + .milliseconds(1_100), lastCongestion: nil) == nil)
        // A report about an earlier SR says nothing about this probe.
        open.observeRoundTrip(.milliseconds(302), reportSentAt: t0 + .milliseconds(100))
        #expect(open.poll(now: t0 + .milliseconds(1_500), lastCongestion: nil) == nil)
        open.observeRoundTrip(.milliseconds(20), reportSentAt: t0 + .milliseconds(700))
        #expect(open.poll(now: t0 + .milliseconds(1_600), lastCongestion: nil) == .succeeded(rate: 1_500_000))
        // No report comes: judged on the other signals once the wait is over.
        var silent = probing()
        #expect(silent.poll(now: t0 + .milliseconds(2_600), lastCongestion: nil) == nil)
        #expect(silent.poll(now: t0 + .milliseconds(2_700), lastCongestion: nil) == .succeeded(rate: 1_500_000))
        // A congestion signal (a falling REMB) during a probe whose queue is measured stops its
        // padding and waits for that measurement: no queue, and the probe passed; a queue, or
        // no report, and it failed.
        let congestion = t0 + .milliseconds(400)
        var refuted = ProbeController()
        refuted.observeRoundTrip(.milliseconds(2), reportSentAt: .seconds(95))
        refuted.start(rate: 1_500_000, measuresQueue: true, now: t0)
        #expect(refuted.poll(now: congestion, lastCongestion: congestion) == nil)
        #expect(refuted.paddingTarget(now: t0 + .milliseconds(420)) == nil)
        #expect(refuted.wantsQueueMarker(now: t0 + .milliseconds(420)))
        refuted.queueMarkerSent(at: t0 + .milliseconds(420))
        refuted.observeRoundTrip(.milliseconds(3), reportSentAt: t0 + .milliseconds(420))
        #expect(refuted.poll(now: t0 + .milliseconds(700), lastCongestion: congestion) == nil, "the grace after the padding")
        // The burst was cut short: it proved nothing either way, and is tried again soon, once.
        #expect(refuted.poll(now: t0 + .milliseconds(820), lastCongestion: congestion) == .inconclusive)
        #expect(!refuted.mayStart(now: t0 + .milliseconds(1_300)) && refuted.mayStart(now: t0 + .milliseconds(1_320)))
        let retry = t0 + .seconds(2)
        refuted.start(rate: 1_500_000, measuresQueue: true, now: retry)
        #expect(refuted.poll(now: retry + .milliseconds(400), lastCongestion: retry + .milliseconds(400)) == nil)
        refuted.queueMarkerSent(at: retry + .milliseconds(420))
        refuted.observeRoundTrip(.milliseconds(3), reportSentAt: retry + .milliseconds(420))
        #expect(refuted.poll(now: retry + .milliseconds(820), lastCongestion: retry + .milliseconds(400)) == .failed)
        #expect(refuted.lastFailure == .congestion && refuted.inconclusive == 1)
        // A signal in the grace after a full burst that left no queue: the probe passed.
        var late = probing()
        late.observeRoundTrip(.milliseconds(3), reportSentAt: t0 + .milliseconds(700))
        #expect(late.poll(now: t0 + .milliseconds(1_100), lastCongestion: t0 + .milliseconds(900)) == .succeeded(rate: 1_500_000))
        var confirmed = probing()
        confirmed.observeRoundTrip(.milliseconds(120), reportSentAt: t0 + .milliseconds(700))
        #expect(confirmed.poll(now: t0 + .milliseconds(900), lastCongestion: congestion) == .failed)
        #expect(confirmed.lastFailure == .queue)
        var unanswered = probing()
        #expect(unanswered.poll(now: t0 + .milliseconds(2_600), lastCongestion: congestion) == nil)
        #expect(unanswered.poll(now: t0 + .milliseconds(2_700), lastCongestion: congestion) == .failed)
        #expect(unanswered.lastFailure == .congestion)
        // A probe whose queue is not measured wants no report.
        var unmeasured = ProbeController()
        unmeasured.start(rate: 1_500_000, now: t0)
        #expect(!unmeasured.wantsQueueMarker(now: t0 + .milliseconds(700)))
    }

    @Test("a brief probe (a paused viewer's) succeeds as soon as its rate is acknowledged arriving, clean")
    func briefProbeSucceedsEarly() {
        var probe = ProbeController()
        let t0 = MonoTime.seconds(10)
        probe.start(rate: 2_000_000, measuresDelivery: true, brief: true, now: t0)
        probe.observeDelivered(1_000_000)
        #expect(probe.poll(now: t0 + .milliseconds(200), lastCongestion: nil) == nil)
        probe.observeDelivered(1_900_000)
        #expect(probe.poll(now: t0 + .milliseconds(400), lastCongestion: nil) == .succeeded(rate: 2_000_000))
        // A congestion signal since its start outweighs what arrived.
        probe.start(rate: 2_000_000, measuresDelivery: true, brief: true, now: t0 + .seconds(1))
        probe.observeDelivered(1_900_000)
        #expect(probe.poll(now: t0 + .milliseconds(1_300), lastCongestion: t0 + .milliseconds(1_100)) == .failed)
        // Not brief: it waits for the padding and the grace.
        probe.start(rate: 2_000_000, measuresDelivery: true, now: t0 + .seconds(10))
        probe.observeDelivered(1_900_000)
        #expect(probe.poll(now: t0 + .milliseconds(10_400), lastCongestion: nil) == nil)
    }
}
