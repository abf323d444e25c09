import Foundation
import OnAirChatProtocol

/// A frame from the server: one JSON object per WebSocket text message, `type` first.
/// See the protocol section of the README for every field; in short:
///
///     joined       you, room state, history (or what you missed), presence
///     message      a new message (user, bot or system)
///     ack          your send was stored as message `id`
///     history      a page of older/newer messages
///     presence     count changed: who joined / left since the last presence frame (lists capped)
///     members      answer to who
///     room.closed  the stream ended: read-only from now on (after the system `message`)
///     room.opened  the stream (re)started: sends allowed again (after the system `message`)
///     error        something you sent was refused (the connection stays open)
///     pong         answer to ping
///     done         a moderator's action was carried out (with its event)
///     message.deleted, member.muted, member.unmuted, member.kicked, member.banned,
///     member.unbanned, room.slow_mode    a moderator's action (``ModerationEvent``)
public enum ServerFrame: Sendable, Encodable {
    case joined(Joined)
    case message(ChatMessage)
    case ack(ref: String?, id: Int64)
    case history(ref: String?, page: MessagePage)
    case presence(count: Int, joined: [Member], left: [Member], truncated: Bool)
    case members(ref: String?, count: Int, members: [Member], truncated: Bool)
    case roomClosed(room: String, reason: String, messageID: Int64?)
    case roomOpened(room: String, messageID: Int64?)
    /// `reason`: for `invalid_token` and `forbidden`, why in one word (`expired`, `wrong_room`, ...).
    case error(code: ChatErrorCode, message: String, ref: String?, retryAfterMS: Int? = nil, reason: String? = nil)
    case pong(ref: String?)
    /// A moderator's action, told to the room.
    case moderation(ModerationEvent)
    /// The answer to a moderator's frame.
    case done(ref: String?, event: ModerationEvent)

    /// A connected person, as others see them.
    public struct Member: Sendable, Encodable, Equatable {
        /// Per-connection id (`c17`): two tabs of one person are two members.
        public var id: String
        public var name: String
        /// The user id (`sub`) of a member who joined with an access token; nil in an open chat.
        public var user: String?

        public init(id: String, name: String, user: String? = nil) {
            self.id = id
            self.name = name
            self.user = user
        }
    }

    public struct Joined: Sendable {
        public var ref: String?
        public var room: String
        public var you: Member
        public var state: RoomRecord.State
        public var closedReason: String?
        /// The newest message id in the room right now.
        public var lastID: Int64
        /// Without a resume point: the newest `history_on_join` messages. With `after`: every
        /// message after it (up to `resume_limit`), so the client has no gap.
        public var messages: [ChatMessage]
        /// Fresh join: older messages exist. Resume: more missed messages exist beyond this
        /// page (fetch them with history after the last one).
        public var more: Bool
        public var resumed: Bool
        public var count: Int
        public var members: [Member]
        /// Slow mode: seconds between two messages of one user (0: off).
        public var slowModeSeconds: Int = 0
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        func put<T: Encodable>(_ key: String, _ value: T?) throws {
            if let value { try c.encode(value, forKey: Key(key)) }
        }
        switch self {
        case .joined(let j):
            try put("type", "joined"); try put("ref", j.ref); try put("room", j.room); try put("you", j.you)
            try put("state", j.state.rawValue); try put("closed_reason", j.closedReason); try put("last_id", j.lastID)
            try put("messages", j.messages.map(WireMessage.init)); try put("more", j.more); try put("resumed", j.resumed)
            try put("presence", PresenceSnapshot(count: j.count, members: j.members))
            try put("slow_mode_seconds", j.slowModeSeconds)
        case .message(let message):
            try put("type", "message"); try put("message", WireMessage(message))
        case .ack(let ref, let id):
            try put("type", "ack"); try put("ref", ref); try put("id", id)
        case .history(let ref, let page):
            try put("type", "history"); try put("ref", ref)
            try put("messages", page.messages.map(WireMessage.init)); try put("more", page.more)
        case .presence(let count, let joined, let left, let truncated):
            try put("type", "presence"); try put("count", count); try put("joined", joined); try put("left", left)
            if truncated { try put("truncated", true) }
        case .members(let ref, let count, let members, let truncated):
            try put("type", "members"); try put("ref", ref); try put("count", count); try put("members", members)
            try put("truncated", truncated)
        case .roomClosed(let room, let reason, let messageID):
            try put("type", "room.closed"); try put("room", room); try put("reason", reason); try put("message_id", messageID)
        case .roomOpened(let room, let messageID):
            try put("type", "room.opened"); try put("room", room); try put("message_id", messageID)
        case .error(let code, let message, let ref, let retryAfterMS, let reason):
            try put("type", "error"); try put("code", code.rawValue); try put("message", message); try put("ref", ref)
            try put("retry_after_ms", retryAfterMS); try put("reason", reason)
        case .pong(let ref):
            try put("type", "pong"); try put("ref", ref)
        case .moderation(let event):
            try event.encode(to: encoder)
        case .done(let ref, let event):
            try put("type", "done"); try put("ref", ref); try put("event", event)
        }
    }

    private struct PresenceSnapshot: Encodable {
        var count: Int
        var members: [Member]
    }
}

/// A message on the wire: `at` as RFC 3339 text and `ts` as epoch milliseconds.
struct WireMessage: Encodable {
    let message: ChatMessage

    init(_ message: ChatMessage) { self.message = message }

    enum CodingKeys: String, CodingKey {
        case id, room, kind, name, user, text, at, ts, event, reason, deleted, deletedBy = "deleted_by", deletedAt = "deleted_at"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(message.id, forKey: .id)
        try c.encode(message.room, forKey: .room)
        try c.encode(message.kind.rawValue, forKey: .kind)
        try c.encode(message.name, forKey: .name)
        try c.encodeIfPresent(message.userID, forKey: .user)
        try c.encode(message.text, forKey: .text)
        try c.encode(RFC3339.format(milliseconds: message.at), forKey: .at)
        try c.encode(message.at, forKey: .ts)
        try c.encodeIfPresent(message.event, forKey: .event)
        try c.encodeIfPresent(message.reason, forKey: .reason)
        // A tombstone: `deleted`, who and when; the text is empty.
        if let deletedAt = message.deletedAt {
            try c.encode(true, forKey: .deleted)
            try c.encodeIfPresent(message.deletedBy, forKey: .deletedBy)
            try c.encode(RFC3339.format(milliseconds: deletedAt), forKey: .deletedAt)
        }
    }
}
