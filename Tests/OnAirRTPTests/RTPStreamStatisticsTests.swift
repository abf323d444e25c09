import OnAirWire
import Testing

@testable import OnAirRTP

@Suite("Receiver statistics (RFC 3550 App. A.1, A.3, A.8)")
struct RTPStreamStatisticsTests {
    @Test func jitterAgainstAHandComputedSequence() {
        // Transit times 1000, 1010, 1000, 1020, 1000 → |D| = 10, 10, 20, 20.
        // J (×16): 10 − 0 = 10; 10 + 10 − 1 = 19; 19 + 20 − 1 = 38; 38 + 20 − 2 = 56.
        // Reported J >> 4: 0, 0, 1, 2, 3. Timestamps and arrivals both wrap on the way.
        let tsBase: UInt32 = 0xFFFF_FF00
        let arrivalBase: UInt32 = 0xFFFF_FFF0
        let samples: [(UInt32, UInt32)] = [(0, 1000), (160, 1170), (320, 1320), (480, 1500), (640, 1640)]
        var stats = RTPStreamStatistics(ssrc: 1)
        var reported: [UInt32] = []
        for (i, (ts, arrival)) in samples.enumerated() {
            stats.record(sequenceNumber: UInt16(i), rtpTimestamp: tsBase &+ ts, arrivalTime: arrivalBase &+ arrival)
            reported.append(stats.jitter)
        }
        #expect(reported == [0, 0, 1, 2, 3])
        let block = stats.makeReportBlock(now: .zero)
        #expect(block?.jitter == 3)
    }

    @Test func steadyStreamHasNoJitter() {
        var stats = RTPStreamStatistics(ssrc: 1)
        for i in 0..<100 {
            stats.record(sequenceNumber: UInt16(i), rtpTimestamp: UInt32(i * 3000), arrivalTime: UInt32(i * 3000 + 777))
        }
        #expect(stats.jitter == 0)
    }

    @Test func lossAndFractionLost() throws {
        var stats = RTPStreamStatistics(ssrc: 0xABCD)
        for seq in 100...109 where seq != 103 && seq != 105 {
            stats.record(sequenceNumber: UInt16(seq), rtpTimestamp: 0, arrivalTime: 0)
        }
        #expect(stats.expected == 10 && stats.received == 8 && stats.cumulativeLost == 2)
        let firstBlock = stats.makeReportBlock(now: .zero)
        let first = try #require(firstBlock)
        #expect(first.ssrc == 0xABCD)
        #expect(first.fractionLost == 51)  // (2 << 8) / 10
        #expect(first.cumulativeLost == 2)
        #expect(first.extendedHighestSequenceNumber == 109)

        // Next interval: 110...119 plus a duplicate and the late 103: more received than expected.
        for seq in 110...119 { stats.record(sequenceNumber: UInt16(seq), rtpTimestamp: 0, arrivalTime: 0) }
        stats.record(sequenceNumber: 110, rtpTimestamp: 0, arrivalTime: 0)
        stats.record(sequenceNumber: 103, rtpTimestamp: 0, arrivalTime: 0)
        let secondBlock = stats.makeReportBlock(now: .zero)
        let second = try #require(secondBlock)
        #expect(second.fractionLost == 0)
        #expect(second.cumulativeLost == 0)  // 20 expected, 20 received (one duplicate)

        for seq in 120...129 where seq % 2 == 0 { stats.record(sequenceNumber: UInt16(seq), rtpTimestamp: 0, arrivalTime: 0) }
        let third = stats.makeReportBlock(now: .zero)
        #expect(third?.fractionLost == 113)  // 4 of 9 lost: (4 << 8) / 9
    }

    @Test func extendedHighestSequenceNumberCountsWraps() {
        var stats = RTPStreamStatistics(ssrc: 1)
        for i in 0..<12 { stats.record(sequenceNumber: 65530 &+ UInt16(i), rtpTimestamp: 0, arrivalTime: 0) }
        #expect(stats.extendedHighestSequenceNumber == 0x0001_0005)
        #expect(stats.expected == 12 && stats.cumulativeLost == 0)
    }

    @Test func bigJumpNeedsTwoSequentialPacketsToRestart() {
        var stats = RTPStreamStatistics(ssrc: 1)
        stats.record(sequenceNumber: 100, rtpTimestamp: 0, arrivalTime: 0)
        stats.record(sequenceNumber: 101, rtpTimestamp: 0, arrivalTime: 0)
        let jump = stats.record(sequenceNumber: 20000, rtpTimestamp: 0, arrivalTime: 0)
        #expect(!jump)
        #expect(stats.extendedHighestSequenceNumber == 101)
        let confirmed = stats.record(sequenceNumber: 20001, rtpTimestamp: 0, arrivalTime: 0)
        #expect(confirmed)
        #expect(stats.extendedHighestSequenceNumber == 20001)
        #expect(stats.expected == 1 && stats.received == 1)
        // A jump within MAX_DROPOUT is a gap, not a restart.
        let gap = stats.record(sequenceNumber: 22000, rtpTimestamp: 0, arrivalTime: 0)
        #expect(gap)
        #expect(stats.cumulativeLost == 1998)
    }

    @Test func noReportBeforeTheFirstPacket() {
        var stats = RTPStreamStatistics(ssrc: 1)
        let block = stats.makeReportBlock(now: .zero)
        #expect(block == nil)
    }

    @Test func lsrAndDlsrFromTheLastSenderReport() throws {
        var stats = RTPStreamStatistics(ssrc: 1)
        stats.record(sequenceNumber: 1, rtpTimestamp: 0, arrivalTime: 0)
        stats.recordSenderReport(ntpTime: NTPTime(rawValue: 0xB705_2000 << 16), arrival: .seconds(10))
        let made = stats.makeReportBlock(now: .milliseconds(15_250))
        let block = try #require(made)
        #expect(block.lastSenderReport == 0xB705_2000)
        #expect(block.delaySinceLastSenderReport == 0x0005_4000)
    }

    @Test func roundTripTimeFromRFC3550Example() {
        // RFC 3550 §6.4.1: A = 0xb710:8000, LSR = 0xb705:2000, DLSR = 0x0005:4000 → 6.125 s.
        let block = ReportBlock(ssrc: 1, lastSenderReport: 0xB705_2000, delaySinceLastSenderReport: 0x0005_4000)
        #expect(block.roundTripTime(arrival: NTPTime(rawValue: 0xB710_8000 << 16)) == .milliseconds(6125))
        #expect(ReportBlock(ssrc: 1).roundTripTime(arrival: NTPTime(rawValue: 1 << 40)) == nil)
        let early = ReportBlock(ssrc: 1, lastSenderReport: 0xB710_8000, delaySinceLastSenderReport: 0x0001_0000)
        #expect(early.roundTripTime(arrival: NTPTime(rawValue: 0xB710_8000 << 16)) == .zero)
    }
}
