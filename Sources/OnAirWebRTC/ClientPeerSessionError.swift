/// Why a ``ClientPeerSession`` could not be set up from an answer.
public enum ClientPeerSessionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The answer lacks something the transport needs (credentials, a fingerprint, a candidate,
    /// a definite DTLS role).
    case unusableAnswer(String)

    public var description: String {
        switch self {
        case .unusableAnswer(let reason): return "unusable answer: \(reason)"
        }
    }
}
