import OnAirRTP
import OnAirWebRTC
import OnAirWire

/// One end of a test session: a real ``ClientPeerSession`` (ICE, DTLS, SRTP) at an address
/// of its own, with what it decrypted and what it has to send.
package final class TestPeer {
    package let address: TransportAddress
    package let session: ClientPeerSession
    /// Decrypted RTP packets, in arrival order.
    package private(set) var rtp: [[UInt8]] = []
    /// Decrypted RTCP packets, in arrival order.
    package private(set) var rtcp: [RTCPPacket] = []
    /// Datagrams for the plane.
    package var outbox: [[UInt8]] = []

    package init(address: TransportAddress, session: ClientPeerSession) {
        self.address = address
        self.session = session
    }

    package func receive(_ datagram: [UInt8], from source: TransportAddress, now: MonoTime) {
        var events: [PeerEvent] = []
        session.receive(datagram, from: source, now: now, events: &events)
        handle(events)
    }

    package func poll(now: MonoTime) {
        var events: [PeerEvent] = []
        session.poll(now: now, events: &events)
        handle(events)
    }

    /// Protects and queues an RTP packet (the session must be connected).
    package func sendRTP(_ packet: [UInt8]) {
        guard let protected = session.protectRTP(packet) else { return }
        outbox.append(protected)
    }

    package func sendRTCP(_ packets: [RTCPPacket]) {
        guard let protected = session.protectRTCP(RTCPCompoundBuilder.serialize(packets)) else { return }
        outbox.append(protected)
    }

    private func handle(_ events: [PeerEvent]) {
        for event in events {
            switch event {
            case .send(let bytes, _): outbox.append(bytes)
            case .rtp(let packet): rtp.append(packet)
            case .rtcp(let packet): rtcp += (try? RTCPPacket.parseCompound(packet)) ?? []
            case .selected, .validated, .connected, .closed: break
            }
        }
    }
}
