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
    private var transmissions = 0
    private let maxTransmissions: Int
    private var interval: Duration
    private let finalWait: Duration
    private(set) var deadline: MonoTime

    init(request: TURNRequest, transactionID: [UInt8], bytes: [UInt8], reliable: Bool, staleNonceRetries: Int, now: MonoTime) {
        self.request = request
        self.transactionID = transactionID
        self.bytes = bytes
        self.staleNonceRetries = staleNonceRetries
        maxTransmissions = reliable ? 1 : 7
        interval = .milliseconds(500)
        finalWait = reliable ? .milliseconds(39_500) : .milliseconds(8_000)
        deadline = now
    }

    /// true: send ``bytes`` (again); false: nothing due; nil: the request timed out.
    mutating func step(now: MonoTime) -> Bool? {
        guard now >= deadline else { return false }
        guard transmissions < maxTransmissions else { return nil }
        transmissions += 1
        if transmissions == maxTransmissions {
            deadline = now + finalWait
        } else {
            deadline = now + interval
            interval = interval * 2
        }
        return true
    }
}
