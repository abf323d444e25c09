import OnAirWire
import Testing
@testable import OnAirForwarding

/// "Never worse than none": when a viewer's video may pause, and how fast it comes back
/// (``PauseGate`` in ``LayerSelector``), driven with a manual clock through dips of a link.
@Suite("Pause rules")
struct PauseRulesTests {
    static let t0 = MonoTime.seconds(100)
    static let single = [LayerCandidate(index: 0, bitrate: 2_500_000, width: 1280, height: 720, live: true)]
    static let simulcast = [LayerCandidate(index: 0, bitrate: 150_000, width: 320, height: 180, live: true),
                            LayerCandidate(index: 1, bitrate: 600_000, width: 640, height: 360, live: true),
                            LayerCandidate(index: 2, bitrate: 2_500_000, width: 1280, height: 720, live: true)]

    /// A viewer (REMB and receiver reports once a second, as aiortc gives them) on a link that
    /// is clean or carries `capacity` bits/s. Thin, its REMB is 0.85 × the capacity, its reports
    /// give the loss of what does not fit, and a probe meets a falling REMB 200 ms after it
    /// starts; clean, 0 % loss and no REMB fall.
    struct Viewer {
        var selector: LayerSelector
        var estimator = ViewerBandwidthEstimator(feedback: .remb, start: 4_000_000)
        let layers: [LayerCandidate]
        let canProbe: Bool
        var remb = 2_400_000
        var nextReport: MonoTime
        var probeMet: MonoTime?
        /// (time, target) at every change of target.
        var changes: [(at: MonoTime, target: Int?)] = []
        var probeStarts: [(at: MonoTime, rate: Int)] = []
        /// Its NACKs: of what a thin link dropped of the video sent, one update later.
        let nacks: Bool
        var nextSequence: UInt16 = 60_000
        var lossCarry = 0.0
        var pendingNACKs: [UInt16] = []
        var sentLayer: Int?

        init(layers: [LayerCandidate], maximumHeight: Int? = nil, canProbe: Bool = true, nacks: Bool = true) {
            self.layers = layers
            self.canProbe = canProbe
            self.nacks = nacks
            selector = LayerSelector(maximumHeight: maximumHeight)
            nextReport = PauseRulesTests.t0 + .milliseconds(500)
            selector.update(layers: layers, audioBitrate: 50_000, estimator: &estimator, canProbe: canProbe,
                            now: PauseRulesTests.t0)
        }

        var sending: Int { selector.target.map { layers[$0].bitrate + 50_000 } ?? 50_000 }

        /// Runs 100 ms updates until `end`, the link carrying `capacity(now)` bits/s (nil: clean).
        mutating func run(until end: MonoTime, from start: MonoTime, capacity: (MonoTime) -> Int?) {
            var now = start
            while now < end {
                now = now + .milliseconds(100)
                if now >= nextReport {
                    nextReport = now + .seconds(1)
                    if let link = capacity(now) { remb = min(remb, link * 85 / 100) }
                    estimator.handle(rembBitrate: remb, sentPayloadRate: sending, now: now)
                    estimator.handle(fractionLost: capacity(now).map { max(0, 1 - Double($0) / Double(sending)) } ?? 0, now: now)
                }
                if let met = probeMet, now >= met {
                    probeMet = nil
                    remb = remb * 90 / 100
                    estimator.handle(rembBitrate: remb, sentPayloadRate: sending, now: now)
                }
                if nacks {
                    estimator.nackLoss.nacked(pendingNACKs)
                    pendingNACKs.removeAll()
                }
                let before = (selector.target, selector.probe.active?.start)
                selector.update(layers: layers, audioBitrate: 50_000, estimator: &estimator, canProbe: canProbe,
                                sendingRate: sending, now: now)
                if nacks { sendVideo(capacity: capacity(now)) }
                if before.0 != selector.target { changes.append((now, selector.target)) }
                if before.1 == nil, let probe = selector.probe.active {
                    probeStarts.append((now, probe.rate))
                    if capacity(now) != nil { probeMet = now + .milliseconds(200) }
                }
            }
        }

        /// The next 100 ms of video (1,200-octet packets), what does not fit `capacity` lost.
        mutating func sendVideo(capacity: Int?) {
            guard let target = selector.target else { return }
            let bitrate = layers[target].bitrate
            let packets = max(1, bitrate / 8 / 1_200 / 10)
            let lossShare = capacity.map { max(0, 1 - Double($0) / Double(bitrate + 50_000)) } ?? 0
            for index in 0..<packets {
                estimator.nackLoss.sent(nextSequence, startsLayer: index == 0 && sentLayer != target)
                lossCarry += lossShare
                if lossCarry >= 1 {
                    lossCarry -= 1
                    pendingNACKs.append(nextSequence)
                }
                nextSequence &+= 1
            }
            sentLayer = target
        }
    }

    /// A link that carries `rate` bits/s from `start` for `seconds`, clean before and after.
    static func dip(to rate: Int, from start: Double, seconds: Double) -> (MonoTime) -> Int? {
        { now in now >= t0 + .seconds(start) && now < t0 + .seconds(start + seconds) ? rate : nil }
    }
    static func clean(_ now: MonoTime) -> Int? { nil }

    @Test("a 3 s dip to 800 kbit/s on a single layer pauses nothing: forwarded as a relay without an estimator would")
    func shortDipNoPause() {
        var viewer = Viewer(layers: Self.single)
        viewer.run(until: Self.t0 + .seconds(25), from: Self.t0, capacity: Self.dip(to: 800_000, from: 8, seconds: 3))
        #expect(viewer.changes.isEmpty, "\(viewer.changes)")
        #expect(viewer.selector.pauses == 0 && viewer.selector.target == 0)
        // One burst of deep loss (a third of a second at 88 %) pauses nothing either.
        var burst = Viewer(layers: Self.single)
        burst.run(until: Self.t0 + .seconds(15), from: Self.t0, capacity: Self.dip(to: 300_000, from: 8, seconds: 0.3))
        #expect(burst.changes.isEmpty && burst.selector.pauses == 0, "\(burst.changes)")
    }

    /// A deep dip (the link carries under a fifth of the layer: 88 % loss) pauses once NACKs
    /// have shown it for 0.4 s (within a second: the flood starves the audio), a shallower one
    /// (60 % loss) after 5 s.
    @Test("a sustained dip pauses; video is back within 2 s of the link's recovery",
          arguments: [("one layer, 300 kbit/s: deep", single, nil as Int?, 300_000, 0.5...1.2),
                      ("simulcast capped to 180 lines, 80 kbit/s", simulcast, 180, 80_000, 5.0...7.0),
                      ("simulcast, 80 kbit/s: below the smallest layer", simulcast, nil, 80_000, 5.0...7.0)])
    func sustainedDipPausesAndResumes(_ name: String, layers: [LayerCandidate], cap: Int?, rate: Int,
                                      pauseAfter: ClosedRange<Double>) throws {
        var viewer = Viewer(layers: layers, maximumHeight: cap)
        let recovery = Self.t0 + .seconds(18)
        viewer.run(until: recovery, from: Self.t0, capacity: Self.dip(to: rate, from: 8, seconds: 10))
        let pausedAt = try #require(viewer.changes.first { $0.target == nil }?.at, "\(name): never paused")
        #expect(pauseAfter.contains((pausedAt - (Self.t0 + .seconds(8))).seconds), "\(name): paused at \(pausedAt)")
        // A REMB viewer is tried again every 2 s while paused (not probed: see probesWhilePaused);
        // each trial in the dip pauses again.
        let smallest = Self.layerSelected(layers, cap: cap)
        let trials = viewer.changes.filter { $0.at > pausedAt && $0.target != nil }
        #expect(!trials.isEmpty && trials.allSatisfy { $0.target == smallest.index }, "\(name): \(viewer.changes)")
        #expect(viewer.selector.probe.active == nil && viewer.probeStarts.allSatisfy { $0.at < pausedAt })
        viewer.run(until: recovery + .seconds(6), from: recovery, capacity: Self.clean)
        let back = try #require(viewer.changes.last { $0.target != nil }, "\(name): not back")
        #expect(viewer.selector.target == smallest.index && back.at - recovery <= .milliseconds(2100),
                "\(name): back at \(back.at - recovery); \(viewer.changes.map { (($0.at - Self.t0).seconds, $0.target) })")
        #expect(viewer.selector.pauseReason == nil)
    }

    @Test("a paused transport-cc viewer probes the layer at once at the rate its link carried before, again soon after each failure, with no hold")
    func pausedProbes() throws {
        var selector = LayerSelector()
        var estimator = ViewerBandwidthEstimator(feedback: .transportCC, start: 4_000_000)
        let layers = Self.single
        var now = Self.t0
        var probes: [(at: MonoTime, rate: Int)] = []
        var pausedAt: MonoTime?
        while now < Self.t0 + .seconds(20) {
            now = now + .milliseconds(100)
            let thin = now >= Self.t0 + .seconds(6)
            if Int((now - Self.t0).seconds * 10) % 10 == 0 {
                estimator.handle(fractionLost: thin ? 0.93 : 0, now: now)
            }
            let sending = selector.target == nil ? 50_000 : 2_550_000
            let before = selector.probe.active
            selector.update(layers: layers, audioBitrate: 50_000, estimator: &estimator, canProbe: true, sendingRate: sending, now: now)
            if pausedAt == nil, selector.target == nil { pausedAt = now }
            if before == nil, let probe = selector.probe.active { probes.append((probe.start, probe.rate)) }
        }
        let paused = try #require(pausedAt)
        #expect(paused - (Self.t0 + .seconds(6)) <= .seconds(4), "a deep dip (93 % loss in reports alone) pauses within a few seconds")
        let first = try #require(probes.first)
        #expect(first.at - paused <= .milliseconds(300) && first.rate == Int(2_550_000 * 1.15), "\(probes)")
        // Without transport-cc feedback nothing is delivered: each fails; the next one comes soon.
        let spacing = zip(probes, probes.dropFirst()).map { ($1.at - $0.at).seconds }
        #expect(probes.count >= 5 && spacing.allSatisfy { $0 <= 1.5 }, "\(spacing)")
    }

    static func layerSelected(_ layers: [LayerCandidate], cap: Int?) -> LayerCandidate {
        LayerSelector.ladder(layers, maximumHeight: cap).last!
    }

    @Test("a viewer that cannot be probed tries the smallest layer every 1.25 s while paused; its NACKs pause a failed trial again within a second")
    func trialsWithoutProbes() throws {
        var viewer = Viewer(layers: Self.single, canProbe: false)
        let recovery = Self.t0 + .seconds(30)
        viewer.run(until: recovery, from: Self.t0, capacity: Self.dip(to: 300_000, from: 8, seconds: 22))
        let pauses = viewer.changes.filter { $0.target == nil }
        let firstPause = try #require(pauses.first).at
        let trials = viewer.changes.filter { $0.target != nil && $0.at > firstPause }
        #expect(pauses.count >= 3 && trials.count >= 2, "\(viewer.changes)")
        for trial in trials {
            let next = try #require(pauses.first { $0.at > trial.at }, "a trial at \(trial.at) never paused again")
            // Its NACKs show the loss within a span or two, and 0.3 s of it pauses again.
            #expect(next.at - trial.at <= .milliseconds(1000), "re-paused \(next.at - trial.at) after the trial")
        }
        viewer.run(until: recovery + .seconds(6), from: recovery, capacity: Self.clean)
        #expect(viewer.selector.target == 0)
        let back = try #require(viewer.changes.last)
        #expect(back.target == 0 && back.at - recovery <= .milliseconds(1400), "back at \(back.at - recovery)")
    }

    @Test("in a viewer's first seconds a congestion signal must hold 1 s to switch it down, and the hold after is short")
    func joinBurst() throws {
        // One layer: a loss burst and a REMB fall in the first 2 s pause nothing.
        var single = Viewer(layers: Self.single)
        single.run(until: Self.t0 + .seconds(12), from: Self.t0, capacity: Self.dip(to: 800_000, from: 0.4, seconds: 1.8))
        #expect(single.changes.isEmpty && single.selector.pauses == 0, "\(single.changes)")
        // Simulcast: a REMB of 500k 300 ms in: down only after it held 1 s, and probing again
        // 2 s later (not 10).
        var selector = LayerSelector()
        var estimator = ViewerBandwidthEstimator(feedback: .remb, start: 4_000_000)
        let t0 = Self.t0
        #expect(selector.update(layers: Self.simulcast, audioBitrate: 50_000, estimator: &estimator, canProbe: true, now: t0) == 2)
        estimator.handle(rembBitrate: 500_000, sentPayloadRate: 2_500_000, now: t0 + .milliseconds(300))
        var now = t0 + .milliseconds(300)
        var downAt: MonoTime?
        var probeAt: MonoTime?
        while now < t0 + .seconds(8) && probeAt == nil {
            selector.update(layers: Self.simulcast, audioBitrate: 50_000, estimator: &estimator, canProbe: true,
                            sendingRate: selector.target == 2 ? 2_550_000 : 200_000, now: now)
            if downAt == nil && selector.target != 2 { downAt = now }
            if probeAt == nil && selector.probe.active != nil { probeAt = now }
            now = now + .milliseconds(100)
        }
        let down = try #require(downAt)
        #expect(down - (t0 + .milliseconds(300)) >= .seconds(1) && selector.target == 1)
        let probe = try #require(probeAt)
        #expect(probe - down <= .milliseconds(2100), "probing \(probe - down) after the switch down")
        // After the first seconds, down at once, as before.
        var later = LayerSelector()
        var laterEstimator = ViewerBandwidthEstimator(feedback: .remb, start: 4_000_000)
        later.update(layers: Self.simulcast, audioBitrate: 50_000, estimator: &laterEstimator, canProbe: true, now: t0)
        laterEstimator.handle(rembBitrate: 500_000, sentPayloadRate: 2_500_000, now: t0 + .seconds(6))
        #expect(later.update(layers: Self.simulcast, audioBitrate: 50_000, estimator: &laterEstimator, canProbe: true,
                             now: t0 + .seconds(6)) == 1)
    }

    @Test("the estimate alone never pauses: a low REMB with no loss keeps the smallest layer")
    func estimateAloneNoPause() {
        var viewer = Viewer(layers: Self.single)
        viewer.remb = 300_000
        viewer.estimator.handle(rembBitrate: 300_000, sentPayloadRate: 2_550_000, now: Self.t0 + .milliseconds(100))
        viewer.run(until: Self.t0 + .seconds(20), from: Self.t0 + .milliseconds(100), capacity: Self.clean)
        #expect(viewer.estimator.estimate < 1_000_000)
        #expect(viewer.changes.isEmpty && viewer.selector.pauses == 0)
    }

    @Test("PauseGate: evidence must hold without a break longer than the tolerance")
    func gate() {
        var gate = PauseGate()
        let t0 = Self.t0
        let loss: PauseGate.Evidence? = PauseGate.Evidence(reason: .loss)
        let first = [(loss, 0.0), (nil, 1), (loss, 2), (loss, 4.9), (loss, 5)].map {
            gate.observe($0.0, now: t0 + .seconds($0.1))
        }
        #expect(first == [false, false, false, false, true], "a 1 s break is within the tolerance")
        gate.reset()
        let second = [(loss, 0.0), (nil, 2), (loss, 3)].map { gate.observe($0.0, now: t0 + .seconds($0.1)) }
        #expect(second == [false, false, false], "a 2 s break starts the count again")
        #expect(gate.held(now: t0 + .seconds(4)) == .seconds(1))
        // A deep dip (loss above 80 % in reports) pauses after 1.5 s.
        gate.reset()
        let deep: PauseGate.Evidence? = PauseGate.Evidence(reason: .loss, deep: true)
        let third = [(deep, 0.0), (deep, 1.0), (deep, 1.5)].map { gate.observe($0.0, now: t0 + .seconds($0.1)) }
        #expect(third == [false, false, true])
        // Told by NACKs over three spans (NACKLossMeter.sustainedLoss): those are the sustain.
        gate.reset()
        let prompt: PauseGate.Evidence? = PauseGate.Evidence(reason: .loss, deep: true, prompt: true)
        let paused = gate.observe(prompt, now: t0)
        #expect(paused)
    }
}
