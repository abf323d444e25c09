import OnAirWire
import Testing
@testable import OnAirForwarding

@Suite("Media loop load")
struct MediaLoadMeterTests {
    @Test("the share of wall time spent on the CPU, per period of at least a second")
    func readings() {
        var meter = MediaLoadMeter()
        meter.sample(cpuNanoseconds: 5_000_000_000, viewers: 10, at: .seconds(10))
        #expect(meter.load == 0, "no reading before a full period")
        meter.sample(cpuNanoseconds: 5_300_000_000, viewers: 10, at: .seconds(10.5))
        #expect(meter.load == 0, "half a period is not a reading yet")
        meter.sample(cpuNanoseconds: 5_600_000_000, viewers: 10, at: .seconds(12))
        #expect(abs(meter.load - 0.3) < 1e-9)
        meter.sample(cpuNanoseconds: 6_550_000_000, viewers: 10, at: .seconds(13))
        #expect(abs(meter.load - 0.95) < 1e-9)
        meter.sample(cpuNanoseconds: 9_000_000_000, viewers: 10, at: .seconds(14))
        #expect(meter.load == 1, "clamped: CPU time of a thread cannot exceed wall time, rounding can")
    }

    @Test("admission projects the viewers admitted since the last reading, each at a viewer's cost")
    func projection() {
        var meter = MediaLoadMeter()
        meter.sample(cpuNanoseconds: 0, viewers: 100, at: .seconds(10))
        // 50 % for 100 viewers, the fan-out 40 % of it: a viewer costs 1.5 x 0.4 % capped at 0.5 %.
        meter.noteFanOut(from: .seconds(10.2), to: .seconds(10.6))
        meter.sample(cpuNanoseconds: 500_000_000, viewers: 100, at: .seconds(11))
        #expect(abs(meter.fanOutLoad - 0.4) < 1e-9)
        #expect(abs(meter.loadPerViewer - 0.005) < 1e-12)
        // A burst of joins inside one period: 60 more fit under 0.8 (0.5 + 60 x 0.005 = 0.8).
        var admitted = 0
        while meter.admitViewer(limit: 0.8) { admitted += 1 }
        #expect(admitted == 60)
        let oneMore = meter.admitViewer(limit: 0.8)
        #expect(!oneMore)
        // The next reading replaces the projection with what the loop really did.
        meter.sample(cpuNanoseconds: 1_100_000_000, viewers: 160, at: .seconds(12))     // 60 % for 160
        #expect(abs(meter.projectedLoad - 0.6) < 1e-9)
        let afterReading = meter.admitViewer(limit: 0.8)
        #expect(afterReading)
    }

    @Test("a burst on a relay that had one viewer: each new viewer costs what the fan-out took for it, not the whole loop")
    func burstAfterFewViewers() {
        var meter = MediaLoadMeter()
        meter.sample(cpuNanoseconds: 0, viewers: 1, at: .seconds(10))
        // 5 % busy (a publisher, timers, HTTP hand-offs); the one viewer's fan-out 0.2 %.
        meter.noteFanOut(from: .seconds(10.5), to: .seconds(10.502))
        meter.sample(cpuNanoseconds: 50_000_000, viewers: 1, at: .seconds(11))
        #expect(abs(meter.loadPerViewer - 0.003) < 1e-9)
        var admitted = 0
        for _ in 0..<200 where meter.admitViewer(limit: 0.85) { admitted += 1 }
        #expect(admitted == 200, "the old average (5 % a viewer) let 17 in")
        // The limit still holds: 0.05 + n x 0.003 < 0.85 up to n = 266.
        while meter.admitViewer(limit: 0.85) { admitted += 1 }
        #expect(admitted == 267)
    }

    @Test("with no viewers yet, nothing is projected: the first viewers always get in below the limit")
    func noViewersYet() {
        var meter = MediaLoadMeter()
        meter.sample(cpuNanoseconds: 0, viewers: 0, at: .seconds(10))
        meter.sample(cpuNanoseconds: 100_000_000, viewers: 0, at: .seconds(11))
        var admitted = 0
        for _ in 0..<1000 where meter.admitViewer(limit: 0.85) { admitted += 1 }
        #expect(admitted == 1000)
    }

    @Test("a limit of 1 admits everyone, also when the projection passes 100 %")
    func limitOneIsOff() {
        var meter = MediaLoadMeter()
        meter.sample(cpuNanoseconds: 0, viewers: 10, at: .seconds(10))
        meter.noteFanOut(from: .seconds(10), to: .seconds(10.9))
        meter.sample(cpuNanoseconds: 950_000_000, viewers: 10, at: .seconds(11))
        var admitted = 0
        for _ in 0..<100 where meter.admitViewer(limit: 1) { admitted += 1 }
        #expect(admitted == 100)
        #expect(meter.projectedLoad > 1)
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
