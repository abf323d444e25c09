import OnAirSDP

/// What the media plane is told by its configuration: limits, timeouts, and the addresses
/// it advertises (the relay builds it from `relay.yaml`, whose defaults are these).
package struct MediaPlaneSettings: Sendable {
    package var maxSessions = 2_000
    package var maxViewersPerRoom = 1_500
    /// The share of the forwarding thread's time above which new viewers are refused (1: never).
    package var maxMediaLoad = 0.85
    package var connectTimeoutSeconds = 15.0
    /// A publisher with no valid STUN, DTLS or SRTP for this long is gone (RFC 7675).
    package var consentTimeoutSeconds = 3.0
    /// The same for a viewer (receive-only: RTCP and consent checks are all it sends).
    package var viewerConsentTimeoutSeconds = 15.0
    package var retransmitCacheSize = 1024
    /// The REMB cap sent to publishers (bit/s).
    package var maxPublishBitrate = 6_000_000
    /// Host candidates' addresses (RFC 8839 §5.1) on ``udpPort``.
    package var candidateAddresses: [String] = ["127.0.0.1"]
    package var udpPort = 0
    /// The passive ICE-TCP port (RFC 6544) of the same addresses; nil: UDP only.
    package var tcpPort: Int?
    /// This plane's media worker (``StreamFeed`` cursors are per worker).
    package var worker = 0

    package init() {}

    package static let defaults = MediaPlaneSettings()
}
