/// Why a stream ended, as `stream.ended` events report it.
public enum StreamEndReason: String, Sendable, Codable, CaseIterable {
    /// The publisher sent DELETE on its WHIP session (RFC 9725 §4.2).
    case publisherDeleted = "publisher_deleted"
    /// No consent and no media from the publisher within the consent timeout (RFC 7675):
    /// it crashed, lost its network, or was killed.
    case publisherTimeout = "publisher_timeout"
    /// The publisher closed DTLS (close_notify) without a DELETE.
    case dtlsClosed = "dtls_closed"
    /// The DTLS association failed (alert, certificate mismatch).
    case dtlsFailed = "dtls_failed"
    /// An administrator ended it (`POST /api/streams/{room}/kick`).
    case kicked
    /// The relay shut down (SIGTERM), or restarted after a crash with the stream still marked live.
    case relayShutdown = "relay_shutdown"
    /// The relay serving the stream vanished (killed, cut off): another relay sharing its
    /// database saw the room's lease expire and ended the stream for it.
    case relayLost = "relay_lost"
}

/// A stream came up: its publisher finished ICE + DTLS.
public struct StreamStarted: Sendable, Equatable {
    public var room: String
    public var sessionID: String
    public var codecs: [String]
    public var at: Double  // seconds since 1970
}

/// A stream went down.
public struct StreamEnded: Sendable, Equatable {
    public var room: String
    public var sessionID: String
    public var reason: StreamEndReason
    public var durationSeconds: Double
    public var bytesIn: UInt64
    public var bytesOut: UInt64
    public var peakViewers: Int
    public var at: Double
}

/// Receives stream lifecycle changes from the media plane. Called on the engine's event
/// loop: implementations must hand the work off (e.g. to an actor) and return at once.
public protocol StreamLifecycleObserver: Sendable {
    func streamStarted(_ event: StreamStarted)
    func streamEnded(_ event: StreamEnded)
    /// The number of connected viewers changed (implementations rate-limit if they publish it).
    func viewersChanged(room: String, sessionID: String, viewers: Int)
}
