import OnAirWire

/// What a response told ``ICEControllingChecker``.
public enum ICECheckerEvent: Hashable, Sendable {
    /// A plain check to this candidate succeeded; a nominating check follows on the next poll.
    case checkSucceeded(TransportAddress)
    /// The nominating check succeeded: media goes to this address (RFC 8445 §8.1.1).
    case selected(TransportAddress)
    /// A consent check on the selected pair was answered (RFC 7675 §5.1).
    case consentRefreshed(TransportAddress)
    /// The peer answered with an error (or from the wrong address, `nil` code): this candidate
    /// is out.
    case checkFailed(TransportAddress, STUNErrorCode?)
}
