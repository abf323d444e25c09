import OnAirWire
import Testing

@testable import OnAirRTP

/// Upstream loss repair requests (RFC 4585 §6.2.1), driven by a manual clock.
@Suite("NACKGenerator")
struct NACKGeneratorTests {
    let t0 = MonoTime.seconds(50)

    /// Feeds arrivals at `t0`, returns what each was.
    private func feed(_ generator: inout NACKGenerator, _ sequences: [UInt16], at now: MonoTime) -> [NACKGenerator.Arrival] {
        sequences.map { generator.received($0, now: now).arrival }
    }

    private func poll(_ generator: inout NACKGenerator, at now: MonoTime) -> (due: [UInt16], givenUp: Int) {
        var due: [UInt16] = []
        var givenUp: [UInt16] = []
        let count = generator.poll(now: now, into: &due, givenUp: &givenUp)
        #expect(count == givenUp.count)
        return (due, count)
    }

    @Test("packets in order leave nothing to ask for")
    func inOrder() {
        var generator = NACKGenerator()
        #expect(feed(&generator, Array(100...200), at: t0).allSatisfy { $0 == .new })
        #expect(poll(&generator, at: t0 + .seconds(1)) == ([], 0))
        #expect(generator.missingCount == 0)
    }

    @Test("a gap is asked for once enough later packets arrived, or after the reorder delay")
    func gapIsRequestedAfterReorderTolerance() {
        var generator = NACKGenerator()
        _ = feed(&generator, [1, 2, 5], at: t0)  // 3 and 4 missing; 2 and 1 packets after them
        #expect(generator.missingCount == 2)
        #expect(poll(&generator, at: t0) == ([], 0))
        _ = feed(&generator, [6], at: t0)  // 3 now has three later packets, 4 has two
        #expect(poll(&generator, at: t0) == ([3], 0))
        #expect(poll(&generator, at: t0 + .milliseconds(10)) == ([4], 0))
        #expect(generator.requested == 2)
    }

    @Test("a reordered packet is never asked for")
    func reorderingIsTolerated() {
        var generator = NACKGenerator()
        #expect(feed(&generator, [1, 2, 4, 3, 5], at: t0) == [.new, .new, .new, .reordered, .new])
        #expect(poll(&generator, at: t0 + .seconds(1)) == ([], 0))
        #expect(generator.requested == 0 && generator.repaired == 0 && generator.unrepaired == 0)
    }

    @Test("a repair counts, and its delay becomes the round trip")
    func repairLearnsRoundTrip() {
        var generator = NACKGenerator()
        _ = feed(&generator, [10, 12, 13, 14, 15], at: t0)
        #expect(poll(&generator, at: t0) == ([11], 0))
        #expect(generator.received(11, now: t0 + .milliseconds(40)).arrival == .repaired)
        #expect(generator.repaired == 1 && generator.missingCount == 0)
        #expect(generator.roundTrip == .milliseconds(40))
        #expect(generator.received(11, now: t0 + .milliseconds(41)).arrival == .duplicate)
    }

    @Test("asks again after a round trip, gives up at the deadline, and says so")
    func resendThenGiveUp() {
        var generator = NACKGenerator()  // RTT 100 ms until measured: deadline 340 ms
        _ = feed(&generator, [1, 3, 4, 5], at: t0)
        #expect(poll(&generator, at: t0).due == [2])
        #expect(poll(&generator, at: t0 + .milliseconds(99)).due == [])
        #expect(poll(&generator, at: t0 + .milliseconds(100)).due == [2])
        #expect(poll(&generator, at: t0 + .milliseconds(200)).due == [2])
        #expect(poll(&generator, at: t0 + .milliseconds(300)).due == [2])
        #expect(generator.deadline == .milliseconds(340))
        var due: [UInt16] = [], givenUp: [UInt16] = []
        #expect(generator.poll(now: t0 + .milliseconds(341), into: &due, givenUp: &givenUp) == 1)
        #expect(due.isEmpty && givenUp == [2])
        #expect(generator.requested == 4 && generator.unrepaired == 1 && generator.missingCount == 0)
        // Too late now: it is forwarded, but it is no repair.
        #expect(generator.received(2, now: t0 + .milliseconds(400)).arrival == .duplicate)
    }

    @Test("a retried packet teaches no round trip (Karn's rule)")
    func retriedRepairIsNoSample() {
        var generator = NACKGenerator()
        _ = feed(&generator, [1, 3, 4, 5], at: t0)
        _ = poll(&generator, at: t0)
        _ = poll(&generator, at: t0 + .milliseconds(100))
        #expect(generator.received(2, now: t0 + .milliseconds(110)).arrival == .repaired)
        #expect(generator.roundTrip == .milliseconds(100))
    }

    @Test("gaps across the sequence wrap")
    func acrossTheWrap() {
        var generator = NACKGenerator()
        _ = feed(&generator, [65533, 65534, 1, 2, 3], at: t0)
        #expect(poll(&generator, at: t0) == ([65535, 0], 0))
        #expect(feed(&generator, [0, 65535], at: t0 + .milliseconds(5)) == [.repaired, .repaired])
    }

    @Test("an outage beyond the missing limit is given up at once and wants a keyframe")
    func outage() {
        var settings = NACKGenerator.Settings()
        settings.maximumMissing = 50
        var generator = NACKGenerator(settings: settings)
        _ = feed(&generator, [1, 10], at: t0)
        #expect(generator.missingCount == 8)
        let result = generator.received(100, now: t0)
        #expect(result.unrepairable && generator.missingCount == 0)
        #expect(generator.unrepaired == 8 + 89)
    }

    @Test("resends are never closer than the minimum interval, whatever the round trip")
    func minimumResendInterval() {
        var generator = NACKGenerator()
        _ = feed(&generator, [1, 3, 4, 5, 7, 8, 9], at: t0)
        _ = poll(&generator, at: t0)
        _ = generator.received(2, now: t0 + .milliseconds(1))  // RTT 1 ms
        #expect(poll(&generator, at: t0 + .milliseconds(10)).due == [])
        #expect(poll(&generator, at: t0 + .milliseconds(20)).due == [6])
        #expect(generator.deadline == .milliseconds(120))
    }
}
