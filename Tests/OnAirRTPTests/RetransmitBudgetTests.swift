import OnAirWire
import Testing
@testable import OnAirRTP

/// The NACK retransmission token bucket, driven by a manual clock.
@Suite("RetransmitBudget")
struct RetransmitBudgetTests {
    let t0 = MonoTime.seconds(50)

    @Test("a full bucket allows a burst, then nothing until it refills at the rate")
    func burstThenEmpty() {
        // 64/s and a quarter second: exactly 16 tokens, no rounding at the edge.
        var budget = RetransmitBudget(ratePerSecond: 64, burst: 100)
        var burst = 0
        while budget.take(now: t0) { burst += 1 }
        #expect(burst == 100)
        let later = t0 + .milliseconds(250)
        var granted = 0
        while budget.take(now: later) { granted += 1 }
        #expect(granted == 16)
    }

    @Test("refill is capped at the burst size")
    func refillCapped() {
        var budget = RetransmitBudget(ratePerSecond: 300, burst: 100)
        let first = budget.take(now: t0)
        #expect(first)
        let later = t0 + .seconds(60)
        var granted = 0
        while budget.take(now: later) { granted += 1 }
        #expect(granted == 100)
    }

    @Test("over a long run the rate holds at ratePerSecond")
    func sustainedRate() {
        var budget = RetransmitBudget(ratePerSecond: 300, burst: 100)
        var granted = 0
        for ms in 0..<10_000 {  // ask 5 times a millisecond for 10 s
            for _ in 0..<5 where budget.take(now: t0 + .milliseconds(ms)) { granted += 1 }
        }
        #expect(granted >= 100 + 2_990 && granted <= 100 + 3_000, "\(granted)")
    }

    @Test("a cost takes that many tokens at once (bytes against a bitrate share)")
    func costs() {
        var budget = RetransmitBudget(ratePerSecond: 10_000, burst: 3_000)
        let granted = [budget.take(1_200, now: t0), budget.take(1_200, now: t0), budget.take(1_200, now: t0),
                       budget.take(1_200, now: t0 + .milliseconds(60))]
        #expect(granted == [true, true, false, true], "600 left after two, then 600 refilled in 60 ms")
    }

    @Test("defaults: 300 per second, burst 100")
    func defaults() {
        let budget = RetransmitBudget()
        #expect(budget.ratePerSecond == 300 && budget.burst == 100)
    }
}
