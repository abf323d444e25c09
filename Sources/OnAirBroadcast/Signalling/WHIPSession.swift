/// A WHIP session the endpoint created (RFC 9725 §4.2): where to DELETE it, and the answer.
public struct WHIPSession: Sendable {
    /// Absolute URL of the session resource (the `Location` of the 201, resolved against the
    /// URL that answered, which may differ from ours after a 307).
    public var location: String
    public var etag: String?
    public var answerSDP: String
    /// The `Link: <...>; rel="ice-server"` servers of the answer (RFC 9725 §4.6), for the record.
    public var iceServers: [ICEServer]
}
