import OnAirWire

/// One outstanding Binding request of ``ICEControllingChecker`` and its retransmission timer.
///
/// RFC 8489 §6.2.1 over UDP: send, then resend after RTO, 2·RTO, 4·RTO… until Rc transmissions
/// in all, then wait Rm·RTO for a last answer before giving up. With RTO 500 ms, Rc 7, Rm 16
/// that is sends at 0, 0.5, 1.5, 3.5, 7.5, 15.5, 31.5 s and a timeout at 39.5 s.
struct ICECheckTransaction: Sendable {
    enum Purpose: Sendable, Equatable {
        /// An ordinary connectivity check (no USE-CANDIDATE).
        case probe
        /// The check with USE-CANDIDATE that nominates the pair (RFC 8445 §8.1.1).
        case nominate
        /// RFC 7675 consent check on the selected pair.
        case consent
    }

    enum Step: Equatable {
        case send
        case timedOut
    }

    let transactionID: [UInt8]
    let destination: TransportAddress
    let purpose: Purpose
    let bytes: [UInt8]
    private let maxTransmissions: Int
    private let finalWait: Duration
    private var transmissions = 0
    private var interval: Duration
    /// When ``step(now:)`` has something to do: the next (re)transmission or the timeout.
    private(set) var deadline: MonoTime

    init(transactionID: [UInt8], destination: TransportAddress, purpose: Purpose, bytes: [UInt8],
         rto: Duration, maxTransmissions: Int, finalWait: Duration, now: MonoTime) {
        self.transactionID = transactionID
        self.destination = destination
        self.purpose = purpose
        self.bytes = bytes
        self.interval = rto
        self.maxTransmissions = max(1, maxTransmissions)
        self.finalWait = finalWait
        self.deadline = now
    }

    /// Advances the timer: `.send` when the bytes should go out (again), `.timedOut` once the
    /// last wait is over, nil when nothing is due yet.
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
