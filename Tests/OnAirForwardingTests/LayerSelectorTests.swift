import OnAirWire
import Testing
@testable import OnAirForwarding

/// Layer choice per viewer: down at once, up only after a probe, hysteresis, cap (pauses: PauseRulesTests).
@Suite("LayerSelector")
struct LayerSelectorTests {
    let t0 = MonoTime.seconds(100)
    /// f, h, q as a libwebrtc publisher lists them (smallest first), all live.
    func layers(live: [Bool] = [true, true, true]) -> [LayerCandidate] {
        [LayerCandidate(index: 0, bitrate: 150_000, width: 320, height: 180, live: live[0]),
         LayerCandidate(index: 1, bitrate: 600_000, width: 640, height: 360, live: live[1]),
         LayerCandidate(index: 2, bitrate: 2_500_000, width: 1280, height: 720, live: live[2])]
    }

    /// A REMB viewer that joined 6 s before t0 (its first seconds are over) on f and whose REMB
    /// of `remb` at t0 took it down to h (no way up before t0 + 10 s).
    func limitedByREMB(_ remb: Int) -> (LayerSelector, ViewerBandwidthEstimator) {
        var selector = LayerSelector()
        var estimator = ViewerBandwidthEstimator(feedback: .remb, start: 4_000_000)
        selector.update(layers: layers(), audioBitrate: 50_000, estimator: &estimator, canProbe: true, now: MonoTime.seconds(94))
        estimator.handle(rembBitrate: remb, sentPayloadRate: 2_500_000, now: t0)
        selector.update(layers: layers(), audioBitrate: 50_000, estimator: &estimator, canProbe: true, now: t0)
        return (selector, estimator)
    }

    @Test("a new viewer starts on the biggest layer within its start estimate and, once it has feedback, probes up in steps")
    func startsWithinStartEstimate() throws {
        var selector = LayerSelector()
        var estimator = ViewerBandwidthEstimator(feedback: .remb, start: 1_000_000)
        #expect(selector.update(layers: layers(), audioBitrate: 50_000, estimator: &estimator, canProbe: true, now: t0) == 1)
        selector.update(layers: layers(), audioBitrate: 50_000, estimator: &estimator, canProbe: true, sendingRate: 650_000,
                        now: t0 + .milliseconds(100))
        #expect(selector.probe.active == nil, "no probe before the viewer's first feedback")
        estimator.handle(rembBitrate: 2_000_000, sentPayloadRate: 600_000, now: t0 + .milliseconds(150))
        var now = t0 + .milliseconds(200)
        // What it gets is not measured yet (sampled once a second): its layer says it.
        selector.update(layers: layers(), audioBitrate: 50_000, estimator: &estimator, canProbe: true, sendingRate: 0, now: now)
        // Twice what it gets, not the 2.9 Mbit/s the top layer needs with headroom.
        #expect(try #require(selector.probe.active).rate == 1_300_000)
        var rates: [Int] = []
        while selector.target == 1 && now < t0 + .seconds(6) {
            now = now + .milliseconds(100)
            let before = selector.probe.active
            selector.update(layers: layers(), audioBitrate: 50_000, estimator: &estimator, canProbe: true, sendingRate: 650_000,
                            now: now)
            if before == nil, let active = selector.probe.active { rates.append(active.rate) }
        }
        #expect(selector.target == 2 && rates == [2_600_000], "\(rates)")
        #expect(now - t0 < .seconds(3), "up after two probes")
        // A single layer above the start estimate is still what the viewer gets.
        var single = LayerSelector()
        var start = ViewerBandwidthEstimator(feedback: .remb, start: 1_000_000)
        #expect(single.update(layers: [layers()[2]], audioBitrate: 50_000, estimator: &start, canProbe: true, now: t0) == 2)
        // One whose feedback showed a limit: the biggest that fits it.
        var thin = ViewerBandwidthEstimator(feedback: .remb, start: 5_000_000)
        thin.handle(rembBitrate: 1_000_000, sentPayloadRate: 2_500_000, now: t0)
        var other = LayerSelector()
        #expect(other.update(layers: layers(), audioBitrate: 50_000, estimator: &thin, canProbe: true, now: t0) == 1)
    }

    @Test("a falling REMB cuts a probe short whose queue then measured clean: tried again, and the climb goes on unlimited")
    func congestionRefutedByQueue() throws {
        var selector = LayerSelector()
        var estimator = ViewerBandwidthEstimator(feedback: .remb, start: 1_000_000)
        selector.update(layers: layers(), audioBitrate: 50_000, estimator: &estimator, canProbe: true, now: t0)
        selector.probe.observeRoundTrip(.milliseconds(2), reportSentAt: t0)   // the empty path
        estimator.handle(rembBitrate: 2_000_000, sentPayloadRate: 600_000, now: t0 + .milliseconds(150))
        var now = t0 + .milliseconds(200)
        selector.update(layers: layers(), audioBitrate: 50_000, estimator: &estimator, canProbe: true, sendingRate: 650_000, now: now)
        #expect(try #require(selector.probe.active).rate == 1_300_000)
        // aiortc on a busy host calls overuse on the padding: its REMB falls to 0.85 × what it
        // measured arriving. The sender report sent as the padding stops comes back at once.
        let overuse = now + .milliseconds(500)
        var rates: [Int] = []
        while selector.target == 1 && now < t0 + .seconds(6) {
            now = now + .milliseconds(100)
            if now == overuse {
                estimator.handle(rembBitrate: 900_000, sentPayloadRate: 650_000, now: now)
                #expect(estimator.lastCongestion != nil && estimator.estimate == 900_000)
            }
            if selector.probe.wantsQueueMarker(now: now) {
                selector.probe.queueMarkerSent(at: now)
                selector.probe.observeRoundTrip(.milliseconds(3), reportSentAt: now)
            }
            let before = selector.probe.active
            selector.update(layers: layers(), audioBitrate: 50_000, estimator: &estimator, canProbe: true, sendingRate: 650_000,
                            now: now)
            if before == nil, let active = selector.probe.active { rates.append(active.rate) }
        }
        // The burst cut short is tried again; then twice what passed (not 1.5 × as after a
        // limit), enough for the top layer.
        #expect(selector.target == 2 && rates == [1_300_000, 2_600_000] && selector.probe.failed == 0, "\(rates)")
        #expect(selector.probe.inconclusive == 1)
        #expect(estimator.lastCongestion == nil)
    }

    @Test("no probe within 3 s of a switch up: the new layer's first seconds are left alone")
    func settlesAfterUp() throws {
        var selector = LayerSelector()
        var estimator = ViewerBandwidthEstimator(feedback: .remb, start: 300_000)
        #expect(selector.update(layers: layers(), audioBitrate: 50_000, estimator: &estimator, canProbe: true, now: t0) == 0)
        estimator.handle(rembBitrate: 400_000, sentPayloadRate: 200_000, now: t0)
        var now = t0
        var switchedUp: MonoTime?
        var probeStarts: [MonoTime] = []
        while now < t0 + .seconds(10) {
            now = now + .milliseconds(100)
            let (before, target) = (selector.probe.active, selector.target)
            selector.update(layers: layers(), audioBitrate: 50_000, estimator: &estimator, canProbe: true, sendingRate: 200_000,
                            now: now)
            if target == 0 && selector.target == 1 { switchedUp = now }
            if before == nil, let active = selector.probe.active { probeStarts.append(active.start) }
        }
        let up = try #require(switchedUp, "never went up to h")
        let next = try #require(probeStarts.first { $0 > up }, "no probe towards f after the switch to h")
        #expect(next - up >= .seconds(3) && next - up < .seconds(3.2), "probed \(next - up) after the switch up")
    }

    @Test("down at once on a lower estimate; no probe and no way up for 10 s; then probe, then up")
    func downHoldProbeUp() throws {
        var selector = LayerSelector()
        var estimator = ViewerBandwidthEstimator(feedback: .remb, start: 4_000_000)
        // Joined 6 s before: past its first seconds (``PauseRulesTests/joinBurst``).
        selector.update(layers: layers(), audioBitrate: 50_000, estimator: &estimator, canProbe: true, now: MonoTime.seconds(94))
        estimator.handle(rembBitrate: 850_000, sentPayloadRate: 2_500_000, now: t0 + .seconds(1))
        #expect(selector.update(layers: layers(), audioBitrate: 50_000, estimator: &estimator, canProbe: true,
                                now: t0 + .seconds(1)) == 1)
        #expect(selector.downSwitches == 1)
        // The link is back, but the hold lasts 10 s: no probe either.
        for second in 2...10 {
            selector.update(layers: layers(), audioBitrate: 50_000, estimator: &estimator, canProbe: true, now: t0 + .seconds(second))
            #expect(selector.probe.active == nil && selector.target == 1)
        }
        // Then probes climb by 1.5 x what got through (the link just choked), and the last
        // one reaches the top layer's need with headroom.
        var now = t0 + .seconds(11.5)
        var rates: [Int] = []
        while selector.target == 1 && now < t0 + .seconds(20) {
            let before = selector.probe.active
            selector.update(layers: layers(), audioBitrate: 50_000, estimator: &estimator, canProbe: true, sendingRate: 650_000,
                            now: now)
            if before == nil, let active = selector.probe.active {
                rates.append(active.rate)
                #expect(selector.probe.paddingTarget(now: now + .milliseconds(100)) == active.rate)
            }
            now = now + .milliseconds(100)
        }
        #expect(rates == [975_000, 1_462_500, 2_193_750, Int(Double(2_550_000) * 1.15)], "\(rates)")
        #expect(selector.target == 2 && selector.upSwitches == 1 && estimator.estimate == rates.last)
        #expect(now - t0 < .seconds(17), "up within 6 s of the hold's end")
    }

    @Test("a probe that meets congestion fails, stays down and waits longer each time")
    func failedProbesBackOff() throws {
        var (selector, estimator) = limitedByREMB(850_000)
        var now = t0 + .seconds(10)
        var starts: [MonoTime] = []
        var remb = 850_000
        for tick in 0..<400 {
            now = now + .milliseconds(100)
            // Between probes the receiver's REMB creeps up (AIMD, capped by 1.5 × what it gets).
            if tick % 10 == 0 {
                remb = min(remb * 105 / 100, 980_000)
                estimator.handle(rembBitrate: remb, sentPayloadRate: 650_000, now: now)
            }
            let before = selector.probe.active
            selector.update(layers: layers(), audioBitrate: 50_000, estimator: &estimator, canProbe: true, now: now)
            if before == nil, let active = selector.probe.active {
                starts.append(active.start)
                // The link carries 1 Mbit/s: the queue grows and the receiver's REMB falls to
                // 0.85 × what arrives.
                remb = 850_000
                estimator.handle(rembBitrate: remb, sentPayloadRate: 2_000_000, now: now + .milliseconds(300))
            }
            #expect(selector.target == 1)
        }
        #expect(selector.probe.failed >= 3 && selector.probe.succeeded == 0)
        let gaps = zip(starts, starts.dropFirst()).map { ($1 - $0).seconds }
        #expect(gaps.count >= 3 && gaps[0] >= 2 && gaps[1] >= 4 && gaps[2] >= 8)
        // The verdict comes at the end of the probe and its grace (1.1 s: with no queue
        // measured, the REMB's fall is judged then), the next start 8 s at most after it.
        #expect(gaps.allSatisfy { $0 < 9.3 })
    }

    @Test("after a failed probe the next climb starts again from the rate sent, not from the last probe that passed")
    func climbRestartsAfterFailure() throws {
        var (selector, estimator) = limitedByREMB(850_000)
        var now = t0 + .seconds(10)
        var rates: [Int] = []
        while rates.count < 3 && now < t0 + .seconds(20) {
            now = now + .milliseconds(100)
            let before = selector.probe.active
            selector.update(layers: layers(), audioBitrate: 50_000, estimator: &estimator, canProbe: true, sendingRate: 650_000,
                            now: now)
            if before == nil, let active = selector.probe.active {
                rates.append(active.rate)
                // The second probe meets congestion: the receiver's REMB falls.
                if rates.count == 2 { estimator.handle(rembBitrate: 700_000, sentPayloadRate: 1_400_000, now: now) }
            }
        }
        // 1.5 × 650k passes; 1.5 × that fails; then 1.5 × 650k again.
        #expect(rates == [975_000, 1_462_500, 975_000], "\(rates)")
        #expect(selector.target == 1)
    }

    @Test("a REMB viewer's overuse reaction during a probe (a jump to 0.85 × what arrived, above its last REMB) fails the probe")
    func rembMeasurement() throws {
        var (selector, estimator) = limitedByREMB(600_000)
        var now = t0 + .seconds(10)
        while selector.probe.active == nil && now < t0 + .seconds(12) {
            now = now + .milliseconds(100)
            selector.update(layers: layers(), audioBitrate: 50_000, estimator: &estimator, canProbe: true, sendingRate: 700_000, now: now)
        }
        let probe = try #require(selector.probe.active)
        #expect(probe.rate == 1_050_000)
        // The link carries 800 kbit/s: the viewer's REMB after overuse is 0.85 × 800k, above its last.
        estimator.handle(rembBitrate: 680_000, sentPayloadRate: 700_000, now: now + .milliseconds(400))
        #expect(estimator.rembThroughput?.rate == 800_000)
        while selector.probe.active != nil && now < t0 + .seconds(14) {
            now = now + .milliseconds(100)
            selector.update(layers: layers(), audioBitrate: 50_000, estimator: &estimator, canProbe: true, sendingRate: 700_000, now: now)
        }
        #expect(selector.probe.failed == 1 && selector.probe.succeeded == 0)
        // A slow rise (the receiver's increase) is no measurement.
        var rising = ViewerBandwidthEstimator(feedback: .remb, start: 1_000_000)
        rising.handle(rembBitrate: 650_000, sentPayloadRate: 700_000, now: t0)
        rising.handle(rembBitrate: 700_000, sentPayloadRate: 700_000, now: t0 + .milliseconds(500))
        #expect(rising.rembThroughput == nil)
    }

    @Test("a dead layer is no candidate; the cap keeps taller layers out")
    func liveAndCap() {
        var selector = LayerSelector(maximumHeight: 360)
        var estimator = ViewerBandwidthEstimator(feedback: .transportCC, start: 10_000_000)
        #expect(selector.update(layers: layers(), audioBitrate: 0, estimator: &estimator, canProbe: true, now: t0) == 1)
        // Its layer stops (the publisher paused it): the best live one that fits.
        #expect(selector.update(layers: layers(live: [true, false, true]), audioBitrate: 0, estimator: &estimator,
                                canProbe: true, now: t0 + .seconds(1)) == 0)
        selector.maximumHeight = nil
        #expect(selector.update(layers: layers(), audioBitrate: 0, estimator: &estimator, canProbe: true,
                                now: t0 + .seconds(2)) == 2)
        // A cap below every layer still gets the smallest.
        selector.maximumHeight = 90
        #expect(selector.update(layers: layers(), audioBitrate: 0, estimator: &estimator, canProbe: true,
                                now: t0 + .seconds(3)) == 0)
    }
}
