import OnAirBroadcast
import Testing

@Suite("Stop signal")
struct StopSignalTests {
    @Test("a SIGTERM then the terminal's SIGINT is a clean end; only a second SIGINT exits at once")
    func secondInterruptOnly() {
        let stop = StopSignal()
        #expect(!stop.receive(isInterrupt: false))
        #expect(!stop.receive(isInterrupt: true), "the run script's SIGTERM arrived first: still the clean end")
        #expect(stop.reason == .terminated)
        #expect(stop.receive(isInterrupt: true), "a second Ctrl-C")

        let person = StopSignal()
        #expect(!person.receive(isInterrupt: true))
        #expect(person.reason == .interrupted)
        #expect(!person.receive(isInterrupt: false))
        #expect(person.receive(isInterrupt: true))
    }
}
