import Testing

@testable import OnAirBroadcast

@Suite("LatencyHistogram")
struct LatencyHistogramTests {
    @Test("quantiles to 0.1 ms; beyond 1 s lands in the overflow bucket")
    func quantiles() {
        var histogram = LatencyHistogram()
        #expect(histogram.quantile(0.5) == nil)
        for millisecond in 1...100 { histogram.record(nanoseconds: UInt64(millisecond) * 1_000_000 - 50_000) }
        #expect(histogram.quantile(0.5) == 50.0)
        #expect(histogram.quantile(0.99) == 99.0)
        histogram.record(nanoseconds: 5_000_000_000)
        #expect(histogram.quantile(1.0) == 1000.1)
    }
}
