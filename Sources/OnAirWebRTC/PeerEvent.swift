import OnAirWire

/// What a ``PeerSession`` asks of its owner after a datagram or a timer.
public enum PeerEvent: Sendable {
    /// Send these bytes to that address (STUN responses, DTLS flights, SRTCP we generate).
    case send([UInt8], to: TransportAddress)
    /// ICE nominated this remote address; media goes there from now on.
    case selected(TransportAddress)
    /// An authenticated connectivity check came from a new address (RFC 8445 §7.3.1.4): the
    /// peer is who the offer said. For a TCP connection, the end of its unauthenticated phase.
    case validated(TransportAddress)
    /// DTLS finished and SRTP keys are installed: media may flow.
    case connected
    /// A decrypted RTP packet from the peer.
    case rtp([UInt8])
    /// A decrypted RTCP compound packet from the peer.
    case rtcp([UInt8])
    /// The session is over; no further events follow.
    case closed(PeerCloseReason)
}
