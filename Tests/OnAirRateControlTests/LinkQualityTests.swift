import OnAirRTP
import OnAirRateControl
import OnAirWire
import Testing

@Suite("Link statistics and quality score (simplified E-model)")
struct LinkQualityTests {
    @Test func statisticsFromReportBlock() {
        let block = ReportBlock(ssrc: 1, fractionLost: 64, cumulativeLost: -3, jitter: 900)
        let video = LinkStatistics(reportBlock: block, clockRate: 90_000, roundTripTime: .milliseconds(40))
        #expect(video.fractionLost == 0.25)
        #expect(video.lossPercent == 25)
        #expect(video.cumulativeLost == -3)
        #expect(video.jitter == .milliseconds(10))
        #expect(video.roundTripTime == .milliseconds(40))
        let audio = LinkStatistics(reportBlock: block, clockRate: 48_000, roundTripTime: nil)
        #expect(audio.jitter == .microseconds(18_750))
    }

    @Test func perfectLinkIsFive() {
        let quality = LinkQualityScore(lossPercent: 0, jitter: .zero, roundTripTime: .zero)
        #expect(quality.score == 5)
        // 93.2 - 10 ms / 40.
        #expect(abs(quality.rFactor - 92.95) < 1e-9)
        #expect(quality.meanOpinionScore > 4.3 && quality.meanOpinionScore <= 4.5)
        #expect(LinkStatistics(fractionLost: 0, jitter: .milliseconds(2), roundTripTime: .milliseconds(30)).quality.score == 5)
    }

    @Test func tenPercentLossAndLongRoundTripIsPoor() {
        let quality = LinkQualityScore(lossPercent: 10, jitter: .zero, roundTripTime: .milliseconds(300))
        // Latency 150 + 10 = 160 ms -> penalty (160 - 120) / 10 = 4; loss 25.
        #expect(abs(quality.rFactor - 64.2) < 1e-9)
        #expect(quality.score <= 2)
    }

    @Test func latencyPenaltyChangesSlopeAt160Milliseconds() {
        // 2 x 70 ms jitter + 10 = 150 ms -> 150 / 40.
        #expect(abs(LinkQualityScore(lossPercent: 0, jitter: .milliseconds(70), roundTripTime: .zero).rFactor - (93.2 - 3.75)) < 1e-9)
        // RTT 400 ms: 200 + 10 = 210 ms -> (210 - 120) / 10 = 9.
        #expect(abs(LinkQualityScore(lossPercent: 0, jitter: .zero, roundTripTime: .milliseconds(400)).rFactor - 84.2) < 1e-9)
    }

    @Test func monotonicInLoss() {
        for rtt in [Duration.zero, .milliseconds(100), .milliseconds(300)] {
            var previous = LinkQualityScore(lossPercent: 0, jitter: .milliseconds(5), roundTripTime: rtt)
            for step in 1...200 {
                let next = LinkQualityScore(lossPercent: Double(step) / 2, jitter: .milliseconds(5), roundTripTime: rtt)
                #expect(next.score <= previous.score)
                #expect(next.meanOpinionScore <= previous.meanOpinionScore)
                #expect(next.rFactor <= previous.rFactor)
                previous = next
            }
            #expect(previous.score == 1)
        }
    }

    @Test func outOfRangeInputsStayInRange() {
        // No Duration is infinite: a round trip of a day stands for one that never ends.
        let worst = LinkQualityScore(lossPercent: 500, jitter: .seconds(10), roundTripTime: .seconds(86_400))
        #expect(worst.rFactor == 0)
        #expect(worst.meanOpinionScore == 1)
        #expect(worst.score == 1)
        let best = LinkQualityScore(lossPercent: -5, jitter: .seconds(-1), roundTripTime: .seconds(-1))
        #expect(best.score == 5)
    }
}
