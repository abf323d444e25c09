import OnAirWire
import Testing
@testable import OnAirForwarding

/// NACK answers per viewer: once per round trip, holes filled with what they carried, and
/// unasked resends for receivers that never repeat a NACK (aiortc).
@Suite("RetransmissionHistory")
struct RetransmissionHistoryTests {
    let t0 = MonoTime.seconds(50)

    @Test("remembers each packet's timestamp and marker, until its slot is reused")
    func remembersWhatWasSent() {
        var history = RetransmissionHistory()
        history.recordSent(sequence: 65_535, timestamp: 9_000, marker: true)
        history.recordSent(sequence: 0, timestamp: 12_000, marker: false)
        #expect(history.sent(65_535)! == (9_000, true))
        #expect(history.sent(0)! == (12_000, false))
        #expect(history.sent(1) == nil)
        history.recordSent(sequence: 65_535 &+ UInt16(RetransmissionHistory.capacity), timestamp: 1, marker: false)
        #expect(history.sent(65_535) == nil, "its slot now holds a newer packet")
    }

    @Test("a packet is resent at most once per interval, and at most three times")
    func oncePerRoundTrip() {
        var history = RetransmissionHistory()
        history.recordSent(sequence: 10, timestamp: 3_000, marker: false)
        let rtt = Duration.milliseconds(100)
        #expect(history.mayResend(10, interval: rtt, now: t0))
        history.noteResent(10, confirm: false, now: t0)
        #expect(!history.mayResend(10, interval: rtt, now: t0 + .milliseconds(60)), "asked again within the round trip")
        #expect(history.mayResend(10, interval: rtt, now: t0 + .milliseconds(100)))
        history.noteResent(10, confirm: false, now: t0 + .milliseconds(100))
        history.noteResent(10, confirm: false, now: t0 + .milliseconds(200))
        #expect(!history.mayResend(10, interval: rtt, now: t0 + .seconds(5)), "three attempts spent")
        #expect(history.mayResend(11, interval: rtt, now: t0), "unknown packets are not held back")
    }

    @Test("an unconfirmed resend is due again after the interval; a NACK that leaves it out confirms it")
    func unaskedResends() {
        var history = RetransmissionHistory()
        for sequence in UInt16(100)..<200 { history.recordSent(sequence: sequence, timestamp: UInt32(sequence) * 3000, marker: true) }
        history.noteResent(120, confirm: true, now: t0)
        history.noteResent(121, confirm: true, now: t0)
        var due: [UInt16] = []
        history.collectOverdue(interval: .milliseconds(120), now: t0 + .milliseconds(100), into: &due)
        #expect(due.isEmpty)
        history.collectOverdue(interval: .milliseconds(120), now: t0 + .milliseconds(130), into: &due)
        #expect(due == [120, 121])
        // aiortc's next NACK (a new gap at 190) lists 121 again but not 120: 120 arrived.
        history.noteNACK([121, 190])
        #expect(history.outstandingCount == 1)
        due.removeAll()
        history.noteResent(121, confirm: true, now: t0 + .milliseconds(130))
        history.noteResent(121, confirm: true, now: t0 + .milliseconds(260))
        history.collectOverdue(interval: .milliseconds(120), now: t0 + .seconds(1), into: &due)
        #expect(due.isEmpty && history.outstandingCount == 0, "three attempts: given up")
        // A NACK whose newest entry is more than 128 packets on says nothing about older resends.
        history.noteResent(150, confirm: true, now: t0)
        history.noteNACK([150 &+ 200])
        #expect(history.outstandingCount == 1)
    }
}
