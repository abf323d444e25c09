/// Why the engine refused a signalling request, mapped 1:1 onto HTTP statuses by the
/// WHIP/WHEP controllers.
public enum EngineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Malformed SDP or sdpfrag (400).
    case badRequest(String)
    /// Well-formed but unacceptable offer: no usable codec, no BUNDLE, ... (422).
    case unprocessable(String)
    /// The room already has a live publisher (409).
    case roomBusy(String)
    /// Nobody publishes in the room yet (409 + Retry-After for WHEP).
    case notLive(String)
    /// No such session (404).
    case unknownSession
    /// Session/viewer limits reached (503).
    case overloaded(String)
    /// PATCH If-Match does not match the current entity tag (412).
    case preconditionFailed
    /// ICE restart PATCH without If-Match (428).
    case preconditionRequired

    public var description: String {
        switch self {
        case .badRequest(let r), .unprocessable(let r), .roomBusy(let r), .notLive(let r), .overloaded(let r): return r
        case .unknownSession: return "no such session"
        case .preconditionFailed: return "If-Match does not match the session's current ETag"
        case .preconditionRequired: return "an ICE restart needs If-Match with the session's ETag"
        }
    }
}
