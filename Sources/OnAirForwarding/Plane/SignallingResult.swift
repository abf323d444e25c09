/// What a successful WHIP/WHEP POST produces.
public struct SessionCreated: Sendable {
    public let sessionID: String
    public let room: String
    public let kind: SessionKind
    public let answerSDP: String
    /// Strong entity tag of the session's ICE state (RFC 9725 §4.3.1), without quotes.
    public let etag: String
}

/// What a PATCH produces: nothing (trickle accepted) or a restart answer fragment.
public enum SessionPatched: Sendable {
    case trickleAccepted
    case restarted(fragment: String, etag: String)
}
