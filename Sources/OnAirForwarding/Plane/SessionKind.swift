/// Which side of a room a WebRTC session is on.
public enum SessionKind: String, Sendable, Codable {
    /// A WHIP publisher: sends media into the room.
    case publisher
    /// A WHEP viewer: receives the room's media.
    case viewer
}
