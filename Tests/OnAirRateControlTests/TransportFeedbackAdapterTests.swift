import OnAirRTP
import OnAirRateControl
import OnAirWire
import Testing

@Suite("Transport-cc adapter: send history, acknowledged bitrate, controller reaction")
struct TransportFeedbackAdapterTests {
    @Test func acknowledgedBitrateIsWhatArrived() throws {
        // 1200 bytes every 10 ms = 960 kbit/s, through a link twice as fast.
        var simulation = PublisherSimulation(capacity: 2_000_000)
        let summaries = try simulation.run(for: .seconds(2), interval: .milliseconds(10))
        let rate = try #require(summaries.last?.acknowledgedBitrate)
        #expect(abs(Double(rate) - 960_000) < 960_000 * 0.02)
        // Not enough arrivals in the first feedback (under 100 ms) for a figure.
        #expect(summaries.first?.acknowledgedBitrate == nil)
        #expect(summaries.last?.feedbackDelay.map { $0 < .milliseconds(200) } == true)
    }

    @Test func acknowledgedBitrateFollowsTheBottleneck() throws {
        var simulation = PublisherSimulation(capacity: 800_000)
        let summaries = try simulation.run(for: .seconds(3), interval: .milliseconds(10))
        let rate = try #require(summaries.last?.acknowledgedBitrate)
        #expect(abs(Double(rate) - 800_000) < 800_000 * 0.03)
    }

    @Test func overuseBringsTheTargetToEightyFivePercentOfAcknowledged() throws {
        var controller = BitrateController(minimum: 200_000, maximum: 3_000_000, start: 2_000_000)
        var simulation = PublisherSimulation(capacity: 800_000)
        var overuseAcknowledged: Int?
        var firstCut: Int?
        _ = try simulation.run(for: .seconds(3), interval: .milliseconds(10)) { summary, now in
            controller.handle(transportFeedback: summary, now: now)
            if summary.usage == .overuse, overuseAcknowledged == nil {
                overuseAcknowledged = summary.acknowledgedBitrate
                firstCut = controller.target
            }
        }
        // The cut follows the acknowledged rate at that moment...
        let acknowledged = Double(try #require(overuseAcknowledged))
        #expect(abs(acknowledged - 800_000) < 800_000 * 0.05)
        #expect(firstCut == Int((0.85 * acknowledged).rounded(.down)))
        // ... and later overuse verdicts (the simulated sender does not slow down, so the
        // queue keeps growing) cut only below 0.85 x what still arrives: about 680 kbit/s.
        #expect(controller.lastChangeReason == .delayOveruse)
        #expect(abs(Double(controller.target) - 0.85 * 800_000) < 0.85 * 800_000 * 0.05)
        #expect(controller.pollChange(now: simulation.now) == controller.target)
    }

    @Test func overuseWithoutAcknowledgedRateBacksOffFromTarget() {
        var controller = BitrateController(minimum: 200_000, maximum: 3_000_000, start: 1_000_000)
        let overuse = TransportFeedbackSummary(usage: .overuse, acknowledgedBitrate: nil, receivedPackets: 10,
                                               lostPackets: 0, unknownPackets: 0, feedbackDelay: nil)
        controller.handle(transportFeedback: overuse, now: .zero)
        #expect(controller.target == 850_000)
        // Not again within 300 ms: the encoder has not followed yet.
        controller.handle(transportFeedback: overuse, now: at(.milliseconds(100)))
        #expect(controller.target == 850_000)
        controller.handle(transportFeedback: overuse, now: at(.milliseconds(300)))
        #expect(controller.target == 722_500)
    }

    @Test func underuseAndOveruseHoldIncreases() {
        var controller = BitrateController(minimum: 200_000, maximum: 3_000_000, start: 1_000_000)
        controller.handle(fractionLost: 0, now: .zero)
        for step in 1...5 {
            let now = at(.seconds(step))
            controller.handle(transportFeedback: TransportFeedbackSummary(
                usage: .underuse, acknowledgedBitrate: 1_000_000, receivedPackets: 80, lostPackets: 0,
                unknownPackets: 0, feedbackDelay: .milliseconds(50)), now: now)
            controller.handle(fractionLost: 0, now: now)
        }
        #expect(controller.target == 1_000_000)
        #expect(controller.delayUsage(now: at(.seconds(5))) == .underuse)
        // Normal again: increases resume, bounded by 1.5 x acknowledged.
        for step in 6...20 {
            let now = at(.seconds(step))
            controller.handle(transportFeedback: TransportFeedbackSummary(
                usage: .normal, acknowledgedBitrate: 1_000_000, receivedPackets: 80, lostPackets: 0,
                unknownPackets: 0, feedbackDelay: .milliseconds(50)), now: now)
            controller.handle(fractionLost: 0, now: now)
        }
        #expect(controller.target == 1_500_000)
        // Feedback stopped: after 2 s the verdict and the headroom no longer apply.
        #expect(controller.delayUsage(now: at(.seconds(23))) == nil)
        controller.handle(fractionLost: 0, now: at(.seconds(23)))
        #expect(controller.target > 1_500_000)
    }

    @Test func sequenceNumbersWrap() throws {
        var simulation = PublisherSimulation(capacity: 2_000_000, firstSequence: 65_500)
        // 300 packets: 65500 ... 65535, 0 ... 263, feedback every 100 ms across the wrap.
        let summaries = try simulation.run(for: .seconds(3), interval: .milliseconds(10))
        #expect(simulation.sequence == 264)
        #expect(summaries.reduce(0) { $0 + $1.receivedPackets } >= 290)
        #expect(summaries.allSatisfy { $0.unknownPackets == 0 && $0.lostPackets == 0 })
        #expect(summaries.allSatisfy { $0.usage == .normal })
        let rate = try #require(summaries.last?.acknowledgedBitrate)
        #expect(abs(Double(rate) - 960_000) < 960_000 * 0.02)
    }

    @Test func feedbackSpanningTheWrapMatchesEveryPacket() throws {
        var adapter = TransportFeedbackAdapter()
        var writer = FeedbackWriter()
        for i in 0..<20 {
            let sequence = UInt16(65_530) &+ UInt16(i)
            adapter.recordSent(sequence: sequence, size: 1000, now: at(.milliseconds(5 * i)))
            writer.note(sequence: sequence, arrival: i == 7 ? nil : 1_000_000 + Int64(i) * 5_000)
        }
        let feedback = try #require(try writer.flush())
        #expect(feedback.baseSequenceNumber == 65_530)
        let summary = adapter.feedback(feedback, now: at(.milliseconds(200)))
        #expect(summary.receivedPackets == 19)
        #expect(summary.lostPackets == 1)  // 65537 mod 65536 = 1
        #expect(summary.unknownPackets == 0)
        #expect(abs(summary.lossFraction - 0.05) < 1e-12)
    }

    @Test func overwrittenAndRepeatedPacketsAreUnknown() throws {
        // A 16-packet history: feedback about packet 0 after packet 40 was sent finds
        // slot 0 reused by packet 32, and must not take packet 32's send time.
        var adapter = TransportFeedbackAdapter(historyCapacity: 16)
        for i in 0..<40 { adapter.recordSent(sequence: UInt16(i), size: 1000, now: at(.milliseconds(i))) }
        var old = FeedbackWriter()
        for i in 0..<10 { old.note(sequence: UInt16(i), arrival: 5_000 + Int64(i) * 1_000) }
        let stale = adapter.feedback(try #require(try old.flush()), now: at(.milliseconds(50)))
        #expect(stale.receivedPackets == 0)
        #expect(stale.unknownPackets == 10)
        var recent = FeedbackWriter()
        for i in 30..<40 { recent.note(sequence: UInt16(i), arrival: 40_000 + Int64(i) * 1_000) }
        let feedback = try #require(try recent.flush())
        #expect(adapter.feedback(feedback, now: at(.milliseconds(50))).receivedPackets == 10)
        // The same feedback again: nothing is counted twice.
        let repeated = adapter.feedback(feedback, now: at(.milliseconds(60)))
        #expect(repeated.receivedPackets == 0)
        #expect(repeated.unknownPackets == 10)
    }
}
