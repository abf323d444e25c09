import OnAirDTLS
import OnAirSDP
import OnAirWebRTC
import OnAirWire

/// One WebRTC session (a publisher or a viewer) as the engine tracks it: its peer state
/// machine, where to send, and its signalling identity. Confined to the media event loop.
class MediaSession {
    let id: String
    let room: String
    let kind: SessionKind
    let peer: PeerSession
    let negotiated: NegotiatedSession
    let createdAt: MonoTime
    /// Strong entity tag of the current ICE credentials; a restart makes a new one.
    var etag: String
    var localUfrag: String
    /// Where media goes, once ICE has selected a pair.
    var destination: DatagramDestination?
    var connectedAt: MonoTime?
    var ended = false

    var packetsIn: UInt64 = 0
    var bytesIn: UInt64 = 0
    var packetsOut: UInt64 = 0
    var bytesOut: UInt64 = 0
    /// Round-trip time from RTCP report blocks (RFC 3550 §6.4.1), seconds.
    var roundTripTime: Double?

    init(id: String, room: String, kind: SessionKind, peer: PeerSession, negotiated: NegotiatedSession,
         localUfrag: String, now: MonoTime) {
        self.id = id
        self.room = room
        self.kind = kind
        self.peer = peer
        self.negotiated = negotiated
        self.localUfrag = localUfrag
        self.createdAt = now
        self.etag = ICECredentials.randomID()
    }
}
