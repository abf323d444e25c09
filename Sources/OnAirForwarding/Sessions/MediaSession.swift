import OnAirDTLS
import OnAirSDP
import OnAirWebRTC
import OnAirWire

/// One WebRTC session (a publisher or a viewer) as the engine tracks it: its peer state
/// machine, where to send, and its signalling identity. Confined to the media event loop.
package class MediaSession {
    package let id: String
    package let room: String
    /// The room it is in, held directly (the per-packet path looks nothing up by name);
    /// cleared when the session ends, which breaks the room's reference back.
    package var hub: Room?
    package let kind: SessionKind
    package let peer: PeerSession
    package let negotiated: NegotiatedSession
    package let createdAt: MonoTime
    /// Strong entity tag of the current ICE credentials; a restart makes a new one.
    package var etag: String
    package var localUfrag: String
    /// Where media goes, once ICE has selected a pair.
    package var destination: DatagramDestination?
    /// The TCP connections this session authenticated (ICE-TCP); closed when it ends.
    package var streamTransports: [TransportAddress] = []
    package var connectedAt: MonoTime?
    package var ended = false

    package var packetsIn: UInt64 = 0
    package var bytesIn: UInt64 = 0
    package var packetsOut: UInt64 = 0
    package var bytesOut: UInt64 = 0
    /// Round-trip time from RTCP report blocks (RFC 3550 §6.4.1), seconds.
    package var roundTripTime: Double?

    package init(id: String, room: String, kind: SessionKind, peer: PeerSession, negotiated: NegotiatedSession,
         localUfrag: String, etag: String, now: MonoTime) {
        self.id = id
        self.room = room
        self.kind = kind
        self.peer = peer
        self.negotiated = negotiated
        self.localUfrag = localUfrag
        self.createdAt = now
        self.etag = etag
    }
}
