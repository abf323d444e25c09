import OnAirRTP
import OnAirRateControl
import Testing

@Suite("Link statistics and quality score (simplified E-model)")
struct LinkQualityTests {
    @Test func statisticsFromReportBlock() {
        let block = ReportBlock(ssrc: 1, fractionLost: 64, cumulativeLost: -3, jitter: 900)
        let video = LinkStatistics(reportBlock: block, clockRate: 90_000, roundTripTime: 0.04)
        #expect(video.fractionLost == 0.25)
        #expect(video.lossPercent == 25)
        #expect(video.cumulativeLost == -3)
        #expect(abs(video.jitter - 0.010) < 1e-12)
        #expect(video.roundTripTime == 0.04)
        let audio = LinkStatistics(reportBlock: block, clockRate: 48_000, roundTripTime: nil)
        #expect(abs(audio.jitter - 0.01875) < 1e-12)
    }

    @Test func perfectLinkIsFive() {
        let quality = LinkQualityScore(lossPercent: 0, jitter: 0, roundTripTime: 0)
        #expect(quality.score == 5)
        // 93.2 - 10 ms / 40.
        #expect(abs(quality.rFactor - 92.95) < 1e-9)
        #expect(quality.meanOpinionScore > 4.3 && quality.meanOpinionScore <= 4.5)
        #expect(LinkStatistics(fractionLost: 0, jitter: 0.002, roundTripTime: 0.03).quality.score == 5)
    }

    @Test func tenPercentLossAndLongRoundTripIsPoor() {
        let quality = LinkQualityScore(lossPercent: 10, jitter: 0, roundTripTime: 0.3)
        // Latency 150 + 10 = 160 ms -> penalty (160 - 120) / 10 = 4; loss 25.
        #expect(abs(quality.rFactor - 64.2) < 1e-9)
        #expect(quality.score <= 2)
    }

    @Test func latencyPenaltyChangesSlopeAt160Milliseconds() {
        // 2 x 70 ms jitter + 10 = 150 ms -> 150 / 40.
        #expect(abs(LinkQualityScore(lossPercent: 0, jitter: 0.07, roundTripTime: 0).rFactor - (93.2 - 3.75)) < 1e-9)
        // RTT 400 ms: 200 + 10 = 210 ms -> (210 - 120) / 10 = 9.
        #expect(abs(LinkQualityScore(lossPercent: 0, jitter: 0, roundTripTime: 0.4).rFactor - 84.2) < 1e-9)
    }

    @Test func monotonicInLoss() {
        for rtt in [0.0, 0.1, 0.3] {
            var previous = LinkQualityScore(lossPercent: 0, jitter: 0.005, roundTripTime: rtt)
            for step in 1...200 {
                let next = LinkQualityScore(lossPercent: Double(step) / 2, jitter: 0.005, roundTripTime: rtt)
                #expect(next.score <= previous.score)
                #expect(next.meanOpinionScore <= previous.meanOpinionScore)
                #expect(next.rFactor <= previous.rFactor)
                previous = next
            }
            #expect(previous.score == 1)
        }
    }

    @Test func outOfRangeInputsStayInRange() {
        let worst = LinkQualityScore(lossPercent: 500, jitter: 10, roundTripTime: .infinity)
        #expect(worst.rFactor == 0)
        #expect(worst.meanOpinionScore == 1)
        #expect(worst.score == 1)
        let best = LinkQualityScore(lossPercent: -5, jitter: -1, roundTripTime: -1)
        #expect(best.score == 5)
    }
}
