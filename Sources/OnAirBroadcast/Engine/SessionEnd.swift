import OnAirWebRTC

/// Why one WHIP session's media loop returned.
enum SessionEnd: Sendable {
    /// Ctrl-C, SIGTERM or `broadcast stop`.
    case stopped(StopSignal.Reason)
    /// `--duration` elapsed.
    case durationReached
    /// A file without `--loop` was sent to the end.
    case endOfInput
    /// ICE consent lapsed, DTLS closed or failed, or the connection never came up.
    case connectionLost(String)
    /// The media pipeline failed (decode or encode error).
    case failed(String)

    var exitReason: String {
        switch self {
        case .stopped(let reason): return reason == .terminated ? "terminated" : "interrupted"
        case .durationReached: return "duration"
        case .endOfInput: return "end_of_input"
        case .connectionLost: return "connection_lost"
        case .failed: return "failed"
        }
    }
}
