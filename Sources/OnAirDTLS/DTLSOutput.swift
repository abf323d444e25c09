/// What the caller must do after feeding a ``DTLSEndpoint``. Outputs come in order: send the
/// datagrams first, then act on the event that follows them (if any).
public enum DTLSOutput: Sendable, Equatable {
    /// One UDP datagram to send to the peer (one or more DTLS records, never above the MTU).
    case send([UInt8])
    /// The handshake finished, the peer's certificate matched its SDP fingerprint, and an
    /// SRTP profile was agreed: here are the SRTP keys (RFC 5764 §4.2).
    case connected(DTLSSRTPKeys)
    /// The peer sent close_notify (RFC 5246 §7.2.1); the association is over.
    case closed
    /// The association failed for the reason given (an alert, a fingerprint mismatch, no SRTP
    /// profile, OpenSSL's error text). No further output will follow.
    case failed(String)
    /// Application data the peer sent over the association (decrypted).
    case applicationData([UInt8])
}
