import OnAirWire
import Testing
@testable import OnAirRelay

@Suite("Media loop load")
struct MediaLoadMeterTests {
    @Test("the share of wall time spent on the CPU, per period of at least a second")
    func readings() {
        var meter = MediaLoadMeter()
        meter.sample(cpuNanoseconds: 5_000_000_000, at: .seconds(10))
        #expect(meter.load == 0, "no reading before a full period")
        meter.sample(cpuNanoseconds: 5_300_000_000, at: .seconds(10.5))
        #expect(meter.load == 0, "half a period is not a reading yet")
        meter.sample(cpuNanoseconds: 5_600_000_000, at: .seconds(12))
        #expect(abs(meter.load - 0.3) < 1e-9)
        meter.sample(cpuNanoseconds: 6_550_000_000, at: .seconds(13))
        #expect(abs(meter.load - 0.95) < 1e-9)
        meter.sample(cpuNanoseconds: 9_000_000_000, at: .seconds(14))
        #expect(meter.load == 1, "clamped: CPU time of a thread cannot exceed wall time, rounding can")
    }

    @Test("the loop thread's CPU clock advances with work")
    func threadClock() {
        let before = MediaLoadMeter.threadCPUNanoseconds()
        var x: UInt64 = 1
        for i in 0..<2_000_000 { x = x &* 6364136223846793005 &+ UInt64(i) }
        #expect(x != 0)
        #expect(MediaLoadMeter.threadCPUNanoseconds() > before)
    }
}
