import OnAirWire
import Testing

@testable import OnAirRateControl

@Suite("ResumeBackoff: when a paused simulcast layer may be tried again")
struct ResumeBackoffTests {
    @Test("a pause waits 4 s; a resume undone within 10 s doubles the wait; one that holds resets it")
    func backoff() {
        var backoff = ResumeBackoff()
        backoff.layersActive(3, now: .zero)
        #expect(backoff.mayTry(now: .zero))
        backoff.layersActive(2, now: at(.seconds(1)))  // congestion paused the top layer
        #expect(!backoff.mayTry(now: at(.seconds(4))) && backoff.mayTry(now: at(.seconds(5))))
        backoff.layersActive(3, now: at(.seconds(6)))  // resumed ...
        backoff.layersActive(2, now: at(.seconds(8)))  // ... and undone 2 s later
        #expect(backoff.wait == .seconds(8) && !backoff.mayTry(now: at(.seconds(15))) && backoff.mayTry(now: at(.seconds(16))))
        backoff.layersActive(3, now: at(.seconds(17)))
        backoff.layersActive(2, now: at(.seconds(18)))
        #expect(backoff.wait == .seconds(16))
        backoff.layersActive(3, now: at(.seconds(40)))
        backoff.layersActive(3, now: at(.seconds(51)))  // held 11 s
        #expect(backoff.wait == .seconds(4))
        backoff.layersActive(2, now: at(.seconds(60)))
        #expect(backoff.mayTry(now: at(.seconds(64))))
    }

    @Test("the wait never passes its maximum")
    func capped() {
        var backoff = ResumeBackoff()
        backoff.layersActive(2, now: .zero)
        var now = MonoTime.zero
        for _ in 0..<10 {
            now += .seconds(100)
            backoff.layersActive(3, now: now)
            backoff.layersActive(2, now: now + .seconds(1))
        }
        #expect(backoff.wait == .seconds(64))
    }
}
