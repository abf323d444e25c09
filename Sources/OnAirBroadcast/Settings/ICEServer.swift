import OnAirSTUN

/// One ICE server (RFC 9725 §4.6: what `Link: rel="ice-server"` names; the WebRTC API's
/// RTCIceServer): a `stun:`/`turn:`/`turns:` URI and, for TURN, the long-term credential.
public struct ICEServer: Sendable, Equatable {
    public var url: String
    public var username: String?
    public var credential: String?

    public init(url: String, username: String? = nil, credential: String? = nil) {
        self.url = url
        self.username = username
        self.credential = credential
    }

    /// The `turn:`/`turns:` URI when this is a TURN server we can use (one with credentials).
    public var turnURI: TURNServerURI? {
        guard username != nil, credential != nil, let uri = TURNServerURI(url) else { return nil }
        return uri
    }
}
