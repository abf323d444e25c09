import NIOCore

/// The bounds of a media worker's ICE-TCP connections (RFC 6544): what an unauthenticated
/// peer may take, and how much a session's queue holds.
struct TCPMediaLimits: Sendable {
    /// Connections per worker; more are closed as they are accepted.
    var maximumConnections = 4_096
    /// A connection with no passing STUN check by then is closed.
    var connectTimeout: TimeAmount = .seconds(10)
    /// Bytes a connection may send before a STUN check over it passes: a few checks' worth,
    /// so a peer that never authenticates cannot hold memory or time.
    var bytesBeforeAuthentication = 64 * 1024
    /// Seconds of the session's RTP its queue holds before no new video frame goes in.
    var queueSeconds = 0.25
    /// The queue's budget whatever the rate: a keyframe of a low layer fits.
    var minimumQueueBytes = 16 * 1024
    /// What the queue never exceeds, control packets included.
    var hardQueueBytes = 512 * 1024
    /// How long a connection whose session ended may take to send what is queued for it.
    var closeGrace: TimeAmount = .seconds(2)
    /// Bytes handed to the channel at a time, and unsent bytes the kernel keeps
    /// (`TCP_NOTSENT_LOWAT`): what waits where it cannot be dropped.
    var writeChunkBytes = 16 * 1024
}
