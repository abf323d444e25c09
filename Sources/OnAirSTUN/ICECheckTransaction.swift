import OnAirWire

/// One outstanding Binding request of ``ICEControllingChecker`` and its retransmission timer
/// (``STUNRetransmissionTimer``: with RTO 500 ms, Rc 7, Rm 16, sends at 0, 0.5, 1.5, 3.5, 7.5,
/// 15.5, 31.5 s and a timeout at 39.5 s).
struct ICECheckTransaction: Sendable {
    enum Purpose: Sendable, Equatable {
        /// An ordinary connectivity check (no USE-CANDIDATE).
        case probe
        /// The check with USE-CANDIDATE that nominates the pair (RFC 8445 §8.1.1).
        case nominate
        /// RFC 7675 consent check on the selected pair.
        case consent
    }

    typealias Step = STUNRetransmissionTimer.Step

    let transactionID: [UInt8]
    let destination: TransportAddress
    let purpose: Purpose
    let bytes: [UInt8]
    private var timer: STUNRetransmissionTimer

    init(transactionID: [UInt8], destination: TransportAddress, purpose: Purpose, bytes: [UInt8],
         rto: Duration, maxTransmissions: Int, finalWait: Duration, now: MonoTime) {
        self.transactionID = transactionID
        self.destination = destination
        self.purpose = purpose
        self.bytes = bytes
        timer = STUNRetransmissionTimer(rto: rto, maxTransmissions: maxTransmissions, finalWait: finalWait, now: now)
    }

    /// When ``step(now:)`` has something to do: the next (re)transmission or the timeout.
    var deadline: MonoTime { timer.deadline }

    /// Advances the timer: `.send` when the bytes should go out (again), `.timedOut` once the
    /// last wait is over, nil when nothing is due yet.
    mutating func step(now: MonoTime) -> Step? { timer.step(now: now) }
}
