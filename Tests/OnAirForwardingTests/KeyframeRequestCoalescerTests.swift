import OnAirWire
import OnAirTestSupport
import Testing
@testable import OnAirForwarding

/// Keyframe request (PLI) coalescing, driven by a manual clock.
@Suite("KeyframeRequestCoalescer")
struct KeyframeRequestCoalescerTests {
    let t0 = MonoTime.seconds(100)

    @Test("the first request goes out; more within the interval become one pending request")
    func coalesces() {
        let coalescer = Driven(KeyframeRequestCoalescer(interval: .milliseconds(500)))
        #expect(coalescer.request(now: t0))
        #expect(coalescer.sent == 1)
        for ms in [1, 100, 200, 300, 499] {
            #expect(!coalescer.request(now: t0 + .milliseconds(ms)), "\(ms) ms")
        }
        #expect(coalescer.sent == 1 && coalescer.suppressed == 4)
        #expect(!coalescer.poll(now: t0 + .milliseconds(499)))
        #expect(coalescer.poll(now: t0 + .milliseconds(500)))
        #expect(coalescer.sent == 2)
        // Nothing pending any more.
        #expect(!coalescer.poll(now: t0 + .milliseconds(2000)))
        #expect(coalescer.sent == 2)
    }

    @Test("a held request waits a full interval after the last PLI, not after itself")
    func intervalCountsFromLastSent() {
        let coalescer = Driven(KeyframeRequestCoalescer(interval: .milliseconds(500)))
        #expect(coalescer.request(now: t0))
        #expect(!coalescer.poll(now: t0 + .milliseconds(550)))  // nothing was held
        #expect(coalescer.request(now: t0 + .milliseconds(600)))  // interval over: goes at once
        #expect(!coalescer.request(now: t0 + .milliseconds(700)))
        #expect(!coalescer.poll(now: t0 + .milliseconds(1099)))
        #expect(coalescer.poll(now: t0 + .milliseconds(1100)))
        #expect(coalescer.sent == 3 && coalescer.suppressed == 0)
    }

    @Test("a keyframe arriving on its own satisfies the pending request")
    func keyframeSatisfiesPending() {
        let coalescer = Driven(KeyframeRequestCoalescer(interval: .milliseconds(500)))
        #expect(coalescer.request(now: t0))
        #expect(!coalescer.request(now: t0 + .milliseconds(100)))
        coalescer.keyframeArrived()
        #expect(!coalescer.poll(now: t0 + .milliseconds(600)))
        #expect(!coalescer.poll(now: t0 + .seconds(5)))
        #expect(coalescer.sent == 1)
    }

    @Test("a thousand viewers asking every 10 ms for 10 s cause at most one PLI per interval")
    func storm() {
        let coalescer = Driven(KeyframeRequestCoalescer(interval: .milliseconds(500)))
        var sent = 0
        for tick in 0..<1000 {
            let now = t0 + .milliseconds(10 * tick)
            for _ in 0..<1000 where coalescer.request(now: now) { sent += 1 }
            if coalescer.poll(now: now) { sent += 1 }
        }
        #expect(sent == 20)  // one at 0 ms, then one each 500 ms up to 9.5 s
        #expect(coalescer.sent == 20)
    }

    @Test("a prompt request (a joiner) waits only the minimum gap once the last keyframe came; others a full interval")
    func promptAfterArrival() {
        let coalescer = Driven(KeyframeRequestCoalescer(interval: .milliseconds(500), minimumGap: .milliseconds(100)))
        #expect(coalescer.request(now: t0))
        coalescer.keyframeArrived()
        // A viewer's PLI right after: the interval holds (no IDR per round trip after loss).
        #expect(!coalescer.request(now: t0 + .milliseconds(150)))
        #expect(!coalescer.poll(now: t0 + .milliseconds(499)))
        #expect(coalescer.poll(now: t0 + .milliseconds(500)))
        coalescer.keyframeArrived()
        // A joiner within the minimum gap is held, and goes when the gap is over.
        #expect(!coalescer.request(now: t0 + .milliseconds(560), prompt: true))
        #expect(!coalescer.poll(now: t0 + .milliseconds(599)))
        #expect(coalescer.poll(now: t0 + .milliseconds(600)))
        // While that keyframe is on its way, even a joiner waits for it.
        #expect(!coalescer.request(now: t0 + .milliseconds(750), prompt: true))
        coalescer.keyframeArrived()
        #expect(coalescer.request(now: t0 + .milliseconds(760), prompt: true))
        #expect(coalescer.sent == 4)
    }

    @Test("the default interval is half a second, the minimum gap a tenth")
    func defaultInterval() {
        #expect(KeyframeRequestCoalescer().interval == .milliseconds(500))
        #expect(KeyframeRequestCoalescer().minimumGap == .milliseconds(100))
    }
}
