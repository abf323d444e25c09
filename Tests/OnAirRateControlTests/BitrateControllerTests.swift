import OnAirRTP
import OnAirRateControl
import OnAirWire
import Testing

@Suite("Bitrate controller: loss (GCC §6), REMB ceiling, encoder reconfiguration")
struct BitrateControllerTests {
    static func controller() -> BitrateController {
        BitrateController(minimum: 300_000, maximum: 2_500_000, start: 1_000_000)
    }

    static func report(lossPercent: Double) -> ReportBlock {
        ReportBlock(ssrc: 0xCAFE, fractionLost: UInt8((lossPercent * 2.56).rounded()))
    }

    @Test func startIsClamped() {
        #expect(BitrateController(minimum: 300_000, maximum: 2_500_000, start: 9_000_000).target == 2_500_000)
        #expect(BitrateController(minimum: 300_000, maximum: 2_500_000, start: 10).target == 300_000)
        let controller = Self.controller()
        #expect(controller.target == 1_000_000)
        #expect(controller.encoderBitrate == 1_000_000)
        #expect(controller.lastChangeReason == .start)
    }

    @Test func cleanReportsRampUpSlowlyAndNeverBeyondMaximum() {
        var controller = Self.controller()
        var now = at(.seconds(5))
        controller.handle(reportBlock: Self.report(lossPercent: 0), now: now)
        #expect(controller.target == 1_000_000)  // the first report only starts the clock
        var previous = controller.target
        for _ in 0..<40 {
            now += .seconds(1)
            controller.handle(reportBlock: Self.report(lossPercent: 1), now: now)
            #expect(controller.target <= 2_500_000)
            #expect(controller.target >= previous)
            // About 8% per second of clean reports, not more.
            #expect(Double(controller.target) <= Double(previous) * 1.0801)
            previous = controller.target
        }
        #expect(controller.target == 2_500_000)
        #expect(controller.lastChangeReason == .cleanIncrease)
        // After one second: +8%, not more.
        var fresh = Self.controller()
        fresh.handle(fractionLost: 0, now: .zero)
        fresh.handle(fractionLost: 0, now: at(.seconds(1)))
        #expect(fresh.target == 1_080_000)
    }

    @Test("sending less than the target (a paused simulcast layer), increases may pass the acknowledged headroom up to the probe ceiling")
    func probeCeilingLiftsTheHeadroomCap() {
        func run(probe: Int?) -> (target: Int, handedOut: Int?) {
            var controller = Self.controller()
            controller.probeCeiling = probe
            let normal = TransportFeedbackSummary(usage: .normal, acknowledgedBitrate: 300_000, receivedPackets: 30,
                                                  lostPackets: 0, unknownPackets: 0, feedbackDelay: .milliseconds(50))
            var handedOut: Int?
            for step in 0...20 {
                controller.handle(transportFeedback: normal, now: at(.seconds(step)))
                controller.handle(fractionLost: 0, now: at(.seconds(step)))
                if let change = controller.pollChange(now: at(.seconds(step))) { handedOut = change }
            }
            return (controller.target, handedOut)
        }
        #expect(run(probe: nil) == (1_000_000, nil), "never above 1.5 x 300k = 450k: it holds its start")
        // 8 %/s up to the ceiling, no further; reaching it is handed out even when the last
        // step is smaller than a reconfiguration is worth (the ceiling resumes a layer).
        #expect(run(probe: 1_600_000) == (1_600_000, 1_600_000))
        #expect(run(probe: 1_020_000) == (1_020_000, 1_020_000))
    }

    @Test func reportsFasterThanOncePerSecondIncreaseOncePerSecond() {
        var controller = Self.controller()
        var targets: Set<Int> = []
        // 5 s of clean reports every 200 ms.
        for step in 0...25 {
            controller.handle(fractionLost: 0, now: at(.milliseconds(step * 200)))
            targets.insert(controller.target)
        }
        #expect(targets.count == 6)  // the start value and five increases
        #expect(abs(Double(controller.target) - 1_000_000 * 1.469_328) < 10)
    }

    @Test func twentyPercentLossCutsAtOnceAndNeverBelowMinimum() {
        var controller = Self.controller()
        controller.handle(reportBlock: Self.report(lossPercent: 20), now: .zero)
        // 1 - 0.5 x (51/256): the field holds 51/256 = 19.9%.
        #expect(controller.target == Int((1_000_000 * (1 - 0.5 * 51.0 / 256)).rounded(.down)))
        #expect(controller.lastChangeReason == .loss)
        // Every lossy report cuts again, straight away.
        let first = controller.target
        controller.handle(reportBlock: Self.report(lossPercent: 20), now: at(.nanoseconds(1)))
        #expect(controller.target < first)
        for step in 2..<100 {
            controller.handle(reportBlock: Self.report(lossPercent: 20), now: at(.nanoseconds(step)))
            #expect(controller.target >= 300_000)
        }
        #expect(controller.target == 300_000)
    }

    @Test func moderateLossHolds() {
        var controller = Self.controller()
        for step in 0..<10 {
            controller.handle(fractionLost: 0.05, now: at(.seconds(step)))
        }
        #expect(controller.target == 1_000_000)
        // Clean time counts from the last lossy report: one more second before rising.
        controller.handle(fractionLost: 0, now: at(.milliseconds(9_500)))
        #expect(controller.target == 1_000_000)
        controller.handle(fractionLost: 0, now: at(.seconds(10)))
        #expect(controller.target == 1_080_000)
    }

    @Test func decreaseDelaysTheNextIncrease() {
        var controller = Self.controller()
        controller.handle(fractionLost: 0, now: .zero)
        controller.handle(fractionLost: 0.5, now: at(.milliseconds(900)))
        #expect(controller.target == 750_000)
        controller.handle(fractionLost: 0, now: at(.milliseconds(1_100)))
        #expect(controller.target == 750_000)
        controller.handle(fractionLost: 0, now: at(.milliseconds(1_900)))
        #expect(controller.target == 810_000)
    }

    @Test func rembCapsTheTarget() {
        var controller = Self.controller()
        controller.handle(remb: REMB(senderSSRC: 9, bitrate: 600_000, ssrcs: [0xCAFE]), now: .zero)
        #expect(controller.target == 600_000)
        #expect(controller.lastChangeReason == .remb)
        #expect(controller.rembCeiling(now: at(.seconds(1))) == 600_000)
        // Clean reports cannot lift it above the ceiling while REMBs keep coming.
        for step in 1...20 {
            let now = at(.seconds(step))
            if step % 2 == 0 { controller.handle(rembBitrate: 600_000, now: now) }
            controller.handle(fractionLost: 0, now: now)
            #expect(controller.target <= 600_000)
        }
        #expect(controller.target == 600_000)
        // A REMB above the target is no reason to rise by itself.
        controller.handle(rembBitrate: 2_000_000, now: at(.seconds(21)))
        #expect(controller.target == 600_000)
    }

    @Test func rembBelowMinimumStopsAtMinimum() {
        var controller = Self.controller()
        controller.handle(rembBitrate: 50_000, now: .zero)
        #expect(controller.target == 300_000)
    }

    @Test func staleRembNoLongerCaps() {
        var controller = Self.controller()
        controller.handle(rembBitrate: 600_000, now: .zero)
        for step in 1...12 {
            controller.handle(fractionLost: 0, now: at(.seconds(step)))
            if step < 5 { #expect(controller.target == 600_000) }
        }
        #expect(controller.rembCeiling(now: at(.seconds(12))) == nil)
        #expect(controller.target > 600_000)
        #expect(controller.lastChangeReason == .cleanIncrease)
    }

    @Test func pollChangeHandsOutDecreasesAtOnce() {
        var controller = Self.controller()
        #expect(controller.pollChange(now: .zero) == nil)
        controller.handle(fractionLost: 0.2, now: .zero)
        #expect(controller.pollChange(now: .zero) == controller.target)
        #expect(controller.encoderBitrate == controller.target)
        #expect(controller.pollChange(now: .zero) == nil)
        // A further decrease 1 ms later still goes out.
        controller.handle(rembBitrate: 700_000, now: at(.milliseconds(1)))
        #expect(controller.pollChange(now: at(.milliseconds(1))) == 700_000)
    }

    @Test func pollChangeRateLimitsIncreases() {
        // Fast growth (x2 per second, checked every 100 ms: +7.2% each) to exercise the limit.
        var configuration = BitrateController.Configuration(minimum: 300_000, maximum: 5_000_000, start: 1_000_000)
        configuration.increasePerSecond = 2
        configuration.increaseInterval = .milliseconds(100)
        var controller = BitrateController(configuration: configuration)
        var handedOut: [(time: MonoTime, bitrate: Int)] = []
        for step in 0...30 {
            let now = at(.milliseconds(step * 100))
            controller.handle(fractionLost: 0, now: now)
            if let bitrate = controller.pollChange(now: now) { handedOut.append((now, bitrate)) }
        }
        #expect(handedOut.count >= 4)
        for (earlier, later) in zip(handedOut, handedOut.dropFirst()) {
            #expect(later.time - earlier.time >= .milliseconds(500))
            #expect(later.bitrate > earlier.bitrate)
        }
        // But a decrease right after an increase goes out at once.
        let now = handedOut.last!.time + .milliseconds(1)
        controller.handle(fractionLost: 0.3, now: now)
        #expect(controller.pollChange(now: now) == controller.target)
    }

    @Test func pollChangeIgnoresSmallIncreasesUntilTheyAddUp() {
        // +0.77% every 100 ms: only every ~0.7 s do they reach 5%.
        var configuration = BitrateController.Configuration(minimum: 300_000, maximum: 1_200_000, start: 1_000_000)
        configuration.increaseInterval = .milliseconds(100)
        var controller = BitrateController(configuration: configuration)
        var handedOut: [Int] = []
        for step in 0...60 {
            let now = at(.milliseconds(step * 100))
            controller.handle(fractionLost: 0, now: now)
            if let bitrate = controller.pollChange(now: now) {
                #expect(Double(bitrate) >= Double(handedOut.last ?? 1_000_000) * 1.05 || bitrate == 1_200_000)
                handedOut.append(bitrate)
            }
        }
        // ... and reaching the maximum is handed out even when the last step is small.
        #expect(handedOut.last == 1_200_000)
        #expect(handedOut.count <= 5)
    }
}
