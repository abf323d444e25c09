import OnAirRTP
import OnAirSDP
import OnAirWebRTC
import OnAirWire

/// A WHEP viewer: receives the room's media with its own SSRCs, sequence numbers and
/// timestamps (``TrackRewriter``), in the payload types it negotiated.
final class ViewerSession: MediaSession {
    var video: TrackRewriter?
    var audio: TrackRewriter?
    var retransmitBudget = RetransmitBudget()
    var retransmissions: UInt64 = 0
    var nacksReceived: UInt64 = 0
    var keyframeRequests: UInt64 = 0
    var packetsDropped: UInt64 = 0
    /// Packets and payload octets sent per track, for our sender reports (RFC 3550 §6.4.1).
    var videoPackets: UInt32 = 0
    var videoOctets: UInt32 = 0
    var audioPackets: UInt32 = 0
    var audioOctets: UInt32 = 0
    /// The compact NTP time of our last SR per SSRC, to turn report blocks into RTT.
    var lastSenderReport: [UInt32: (compact: UInt32, sentAt: MonoTime)] = [:]
    let cname: String

    init(id: String, room: String, peer: PeerSession, negotiated: NegotiatedSession, localUfrag: String,
         video: TrackRewriter?, audio: TrackRewriter?, cname: String, now: MonoTime) {
        self.video = video
        self.audio = audio
        self.cname = cname
        super.init(id: id, room: room, kind: .viewer, peer: peer, negotiated: negotiated, localUfrag: localUfrag, now: now)
    }
}
