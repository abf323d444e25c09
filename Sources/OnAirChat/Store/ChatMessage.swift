/// One stored chat message. `id` is the room's own sequence (1, 2, 3, ... per room), assigned
/// by the store in the transaction that writes the message, so ids are the resume points.
public struct ChatMessage: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        /// Written by a person over the WebSocket.
        case user
        /// Written by a bot over `POST /rooms/{id}/messages`.
        case bot
        /// Written by the sidecar itself (stream started / ended).
        case system
    }

    public var room: String
    public var id: Int64
    public var kind: Kind
    public var name: String
    public var text: String
    /// Milliseconds since 1970 (UTC).
    public var at: Int64
    /// System messages: the stream event behind them (`stream.started`, `stream.ended`).
    public var event: String?
    /// System messages of `stream.ended`: the relay's end reason.
    public var reason: String?
    /// The sender's user id (an access token's `sub`); nil in an open chat, for bots and the system.
    public var userID: String?
    /// A tombstone (a moderator deleted it): who (their user id) and when (ms since 1970);
    /// the text is gone (empty).
    public var deletedBy: String?
    public var deletedAt: Int64?

    public init(room: String, id: Int64, kind: Kind, name: String, text: String, at: Int64,
                event: String? = nil, reason: String? = nil, userID: String? = nil,
                deletedBy: String? = nil, deletedAt: Int64? = nil) {
        self.room = room
        self.id = id
        self.kind = kind
        self.name = name
        self.text = text
        self.at = at
        self.event = event
        self.reason = reason
        self.userID = userID
        self.deletedBy = deletedBy
        self.deletedAt = deletedAt
    }
}

/// A message before the store gave it an id.
public struct MessageDraft: Sendable, Equatable {
    public var room: String
    public var kind: ChatMessage.Kind
    public var name: String
    public var text: String
    public var at: Int64
    public var event: String?
    public var reason: String?
    public var userID: String?

    public init(room: String, kind: ChatMessage.Kind, name: String, text: String, at: Int64,
                event: String? = nil, reason: String? = nil, userID: String? = nil) {
        self.room = room
        self.kind = kind
        self.name = name
        self.text = text
        self.at = at
        self.event = event
        self.reason = reason
        self.userID = userID
    }

    func stored(id: Int64) -> ChatMessage {
        ChatMessage(room: room, id: id, kind: kind, name: name, text: text, at: at, event: event, reason: reason, userID: userID)
    }
}
