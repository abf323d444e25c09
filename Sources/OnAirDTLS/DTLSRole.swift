/// Which side of the DTLS handshake we play. In WebRTC it follows from the SDP `a=setup`
/// attribute (RFC 8842 §5.3: `active` is the DTLS client, `passive` the server).
public enum DTLSRole: Sendable, Equatable {
    /// Sends the ClientHello.
    case client
    /// Waits for the ClientHello.
    case server
}
