import OnAirRTP
import OnAirRateControl
import OnAirTestSupport
import OnAirWire
import Testing

@Suite("Delay-based estimator (GCC §5) on transport-cc feedback")
struct DelayBasedEstimatorTests {
    @Test func constantDelayIsNormal() throws {
        // 960 kbit/s over a 5 Mbit/s link: no queue, the delay never changes.
        var simulation = PublisherSimulation(capacity: 5_000_000)
        let summaries = try simulation.run(for: .seconds(10), interval: .milliseconds(10))
        #expect(summaries.count > 90)
        #expect(summaries.allSatisfy { $0.usage == .normal })
        #expect(summaries.allSatisfy { $0.lostPackets == 0 && $0.unknownPackets == 0 })
    }

    @Test func jitterWithoutTrendIsNormal() {
        // Frames of 4 packets sent in a burst every 33 ms, each frame's delay 20-24 ms at
        // random: noise, but no queue building up.
        var estimator = DelayBasedEstimator()
        var random = SplitMix64(seed: 42)
        var verdicts: Set<BandwidthUsage> = []
        for frame in 0..<600 {
            let sendTime = at(.seconds(10) + .milliseconds(33 * frame))
            let delay = Duration.microseconds(Int64.random(in: 20_000...24_000, using: &random))
            for packet in 0..<4 {
                let sent = sendTime + .microseconds(100 * packet)
                // The receiver's clock reads the sender's plus the delay (250 µs more a packet).
                let arrival = (sent - .zero) + delay + .microseconds(250 * packet)
                verdicts.insert(estimator.packet(sendTime: sent, arrivalTime: arrival))
            }
        }
        #expect(!verdicts.contains(.overuse))
        #expect(estimator.usage == .normal)
    }

    @Test func growingDelayIsOveruseAndDrainingIsUnderuse() throws {
        // 480 kbit/s through an 800 kbit/s bottleneck: no queue.
        var simulation = PublisherSimulation(capacity: 800_000)
        let calm = try simulation.run(for: .seconds(2), interval: .milliseconds(20))
        #expect(calm.allSatisfy { $0.usage == .normal })
        // Then 960 kbit/s: the queue grows 200 ms every second.
        let filling = try simulation.run(for: .seconds(3), interval: .milliseconds(10))
        let firstOveruse = try #require(filling.firstIndex { $0.usage == .overuse })
        // Detected within about a second (20 groups fill the trendline window).
        #expect(firstOveruse <= 12)
        #expect(!filling.contains { $0.usage == .underuse })
        // Now send 480 kbit/s: the queue drains.
        let draining = try simulation.run(for: .seconds(2), interval: .milliseconds(20))
        #expect(draining.contains { $0.usage == .underuse })
        #expect(draining.last?.usage != .overuse)
    }

    @Test func thresholdAdaptsWithinBounds() throws {
        var simulation = PublisherSimulation(capacity: 800_000)
        _ = try simulation.run(for: .seconds(4), interval: .milliseconds(10))
        let threshold = simulation.adapter.estimator.threshold
        #expect(threshold >= 6 && threshold <= 600)
        #expect(threshold != 12.5)
    }
}
