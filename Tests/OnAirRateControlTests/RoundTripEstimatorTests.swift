import OnAirRTP
import OnAirRateControl
import OnAirWire
import Testing

@Suite("Round-trip time from reception reports (RFC 3550 §6.4.1)")
struct RoundTripEstimatorTests {
    /// Our SR left at this wall-clock time (Unix ns); the receiver held it 1.5 s.
    static let srSent: UInt64 = 1_763_800_000_123_456_789
    static let held = NTPTime.compact(.milliseconds(1500))

    static func block(lsr: UInt32 = NTPTime(unixNanoseconds: srSent).compact, dlsr: UInt32 = held) -> ReportBlock {
        ReportBlock(ssrc: 0xCAFE, fractionLost: 0, lastSenderReport: lsr, delaySinceLastSenderReport: dlsr)
    }

    @Test func fiftyMilliseconds() {
        var estimator = RoundTripEstimator()
        // The RR arrives 1.5 s + 50 ms after our SR left: 50 ms were spent on the path.
        let arrival = NTPTime(unixNanoseconds: Self.srSent + 1_550_000_000)
        let rtt = estimator.update(reportBlock: Self.block(), arrivalNTP: arrival)
        // Compact NTP has 1/65536 s resolution; LSR, DLSR and A are each rounded once.
        #expect(abs(((rtt ?? .seconds(-1)) - .milliseconds(50)).seconds) < 3.0 / 65536)
        #expect(estimator.latest == rtt)
        #expect(estimator.smoothed == rtt)
    }

    @Test func exactCompactValues() {
        var estimator = RoundTripEstimator()
        // A - LSR - DLSR = 0x2000 units = 8192/65536 s = 125 ms exactly.
        let block = ReportBlock(ssrc: 1, lastSenderReport: 0x1234_0000, delaySinceLastSenderReport: 0x0001_0000)
        let arrival = NTPTime(rawValue: UInt64(0x1235_2000) << 16)
        #expect(estimator.update(reportBlock: block, arrivalNTP: arrival) == .milliseconds(125))
    }

    @Test func noSenderReportYetGivesNothing() {
        var estimator = RoundTripEstimator()
        let arrival = NTPTime(unixNanoseconds: Self.srSent)
        #expect(estimator.update(reportBlock: Self.block(lsr: 0), arrivalNTP: arrival) == nil)
        #expect(estimator.latest == nil)
        #expect(estimator.smoothed == nil)
    }

    @Test func overstatedDelayCountsAsZero() {
        var estimator = RoundTripEstimator()
        // Arrives "before" LSR + DLSR: the receiver's clock ran fast.
        let arrival = NTPTime(unixNanoseconds: Self.srSent + 1_400_000_000)
        #expect(estimator.update(reportBlock: Self.block(), arrivalNTP: arrival) == .zero)
    }

    @Test func smoothingWeighsNewSamplesByOneEighth() throws {
        var estimator = RoundTripEstimator()
        let block = ReportBlock(ssrc: 1, lastSenderReport: 0x1234_0000, delaySinceLastSenderReport: 0)
        estimator.update(reportBlock: block, arrivalNTP: NTPTime(rawValue: UInt64(0x1234_2000) << 16))  // 125 ms
        estimator.update(reportBlock: block, arrivalNTP: NTPTime(rawValue: UInt64(0x1234_6000) << 16))  // 375 ms
        #expect(estimator.latest == .milliseconds(375))
        let smoothed = try #require(estimator.smoothed)
        #expect(abs((smoothed - (.milliseconds(125) + (.milliseconds(375) - .milliseconds(125)) / 8)).seconds) < 1e-12)
    }
}
