import OnAirWire

/// One outstanding request of a ``TURNClient`` and its RFC 8489 §6.2 timer: over UDP resent
/// after RTO, 2·RTO… (§6.2.1, Rc transmissions, then Rm·RTO of waiting); over TCP/TLS sent once
/// and given up after 39.5 s (§6.2.2: the transport retransmits, not we).
struct TURNTransaction: Sendable {
    let request: TURNRequest
    let transactionID: [UInt8]
    let bytes: [UInt8]
    /// 438 Stale Nonce answers this request already had (each one retried with the new nonce).
    let staleNonceRetries: Int
    private var timer: STUNRetransmissionTimer

    init(request: TURNRequest, transactionID: [UInt8], bytes: [UInt8], reliable: Bool, staleNonceRetries: Int, now: MonoTime) {
        self.request = request
        self.transactionID = transactionID
        self.bytes = bytes
        self.staleNonceRetries = staleNonceRetries
        timer = STUNRetransmissionTimer(rto: .milliseconds(500), maxTransmissions: reliable ? 1 : 7,
                                        finalWait: reliable ? .milliseconds(39_500) : .milliseconds(8_000), now: now)
    }

    var deadline: MonoTime { timer.deadline }

    /// true: send ``bytes`` (again); false: nothing due; nil: the request timed out.
    mutating func step(now: MonoTime) -> Bool? {
        switch timer.step(now: now) {
        case .send?: return true
        case nil: return false
        case .timedOut?: return nil
        }
    }
}
