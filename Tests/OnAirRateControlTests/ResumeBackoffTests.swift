import Testing

@testable import OnAirRateControl

@Suite("ResumeBackoff: when a paused simulcast layer may be tried again")
struct ResumeBackoffTests {
    let second: UInt64 = 1_000_000_000

    @Test("a pause waits 4 s; a resume undone within 10 s doubles the wait; one that holds resets it")
    func backoff() {
        var backoff = ResumeBackoff()
        backoff.layersActive(3, now: 0)
        #expect(backoff.mayTry(now: 0))
        backoff.layersActive(2, now: 1 * second)  // congestion paused the top layer
        #expect(!backoff.mayTry(now: 4 * second) && backoff.mayTry(now: 5 * second))
        backoff.layersActive(3, now: 6 * second)  // resumed ...
        backoff.layersActive(2, now: 8 * second)  // ... and undone 2 s later
        #expect(backoff.wait == 8 * second && !backoff.mayTry(now: 15 * second) && backoff.mayTry(now: 16 * second))
        backoff.layersActive(3, now: 17 * second)
        backoff.layersActive(2, now: 18 * second)
        #expect(backoff.wait == 16 * second)
        backoff.layersActive(3, now: 40 * second)
        backoff.layersActive(3, now: 51 * second)  // held 11 s
        #expect(backoff.wait == 4 * second)
        backoff.layersActive(2, now: 60 * second)
        #expect(backoff.mayTry(now: 64 * second))
    }

    @Test("the wait never passes its maximum")
    func capped() {
        var backoff = ResumeBackoff()
        backoff.layersActive(2, now: 0)
        var now: UInt64 = 0
        for _ in 0..<10 {
            now += 100 * second
            backoff.layersActive(3, now: now)
            backoff.layersActive(2, now: now + second)
        }
        #expect(backoff.wait == 64 * second)
    }
}
