/// Why a WebRTC peer session ended.
public enum PeerCloseReason: Sendable, Equatable, CustomStringConvertible {
    /// The peer sent a DTLS close_notify (RFC 5246 §7.2.1).
    case dtlsClosed
    /// No authenticated STUN, DTLS or SRTP from the peer within the consent timeout (RFC 7675 §5.1).
    case consentExpired
    /// The DTLS handshake failed (alert, fingerprint mismatch, no common SRTP profile).
    case dtlsFailed(String)
    /// ICE and DTLS did not complete within the connect timeout.
    case connectTimeout
    /// We ended it (HTTP DELETE, shutdown, kick).
    case local

    public var description: String {
        switch self {
        case .dtlsClosed: return "dtls_closed"
        case .consentExpired: return "consent_expired"
        case .dtlsFailed(let reason): return "dtls_failed: \(reason)"
        case .connectTimeout: return "connect_timeout"
        case .local: return "local"
        }
    }
}
