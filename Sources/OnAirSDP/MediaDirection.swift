/// RFC 8866 §6.7 / RFC 3264 §5.1 media direction, one property attribute per m= line
/// (or at session level as the default for all media).
public enum MediaDirection: String, Sendable, Equatable, CaseIterable {
    case sendrecv
    case sendonly
    case recvonly
    case inactive

    /// The direction an answerer mirrors (RFC 3264 §6.1): sendonly ↔ recvonly.
    public var reversed: MediaDirection {
        switch self {
        case .sendonly: return .recvonly
        case .recvonly: return .sendonly
        case .sendrecv, .inactive: return self
        }
    }

    /// True when the side that wrote this direction will send media.
    public var sends: Bool { self == .sendrecv || self == .sendonly }
    /// True when the side that wrote this direction will receive media.
    public var receives: Bool { self == .sendrecv || self == .recvonly }
}
