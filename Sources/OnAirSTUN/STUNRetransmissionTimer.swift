import OnAirWire

/// The retransmission timer of one STUN request (RFC 8489 §6.2.1 over UDP): send, then resend
/// after RTO, 2·RTO, 4·RTO… until Rc transmissions in all, then wait Rm·RTO for a last answer
/// before giving up. Over TCP/TLS (§6.2.2) it is one transmission and a 39.5 s wait. Shared by
/// ICE checks and TURN requests.
struct STUNRetransmissionTimer: Sendable {
    enum Step: Equatable {
        case send
        case timedOut
    }

    private let maxTransmissions: Int
    private let finalWait: Duration
    private var transmissions = 0
    private var interval: Duration
    /// When ``step(now:)`` has something to do: the next (re)transmission or the timeout.
    private(set) var deadline: MonoTime

    init(rto: Duration, maxTransmissions: Int, finalWait: Duration, now: MonoTime) {
        interval = rto
        self.maxTransmissions = max(1, maxTransmissions)
        self.finalWait = finalWait
        deadline = now
    }

    /// `.send` when the request should go out (again), `.timedOut` once the last wait is over,
    /// nil when nothing is due yet.
    mutating func step(now: MonoTime) -> Step? {
        guard now >= deadline else { return nil }
        guard transmissions < maxTransmissions else { return .timedOut }
        transmissions += 1
        if transmissions == maxTransmissions {
            deadline = now + finalWait
        } else {
            deadline = now + interval
            interval = interval * 2
        }
        return .send
    }
}
