/// What to do with a Media Playlist request (RFC 8216bis §6.2.5.2 Blocking Playlist
/// Reload). The relay adds the time limit: a request still waiting after three target
/// durations gets 503 (§6.2.5.2).
public enum BlockingReloadDecision: Equatable, Sendable {
    /// Send the playlist now (a Playlist Delta Update if `deltaUpdate`).
    case respond(deltaUpdate: Bool)
    /// Hold the request until `target` is satisfied (see ``PlaylistProgress/isSatisfied(_:)``).
    case wait(BlockingTarget, deltaUpdate: Bool)
    /// Answer 400 Bad Request.
    case badRequest(String)
}

/// What a held request waits for.
public enum BlockingTarget: Hashable, Sendable {
    /// `_HLS_msn=M` alone: a complete Media Segment with sequence number M or later.
    case segment(Int)
    /// `_HLS_msn=M&_HLS_part=N`: Part N of segment M, or any later part.
    case part(PartPosition)
}
