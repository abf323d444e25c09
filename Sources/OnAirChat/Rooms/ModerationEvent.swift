import Foundation
import OnAirChatProtocol

/// What a moderator did, as every member of the room is told (an event frame whose `type` is
/// ``Kind``'s raw value) and as the other nodes hear it (the same JSON in the cluster's
/// notification, ``PostgresClusterLink``):
///
///     {"type":"message.deleted","room":"42","message_id":17,"user":"bob","by":"mod","at":"...","ts":...}
///     {"type":"member.muted","room":"42","user":"bob","seconds":300,"until":"...","until_ts":...,"by":"mod",...}
///     {"type":"member.unmuted" | "member.kicked" | "member.banned" | "member.unbanned","room":"42","user":"bob",...}
///     {"type":"room.slow_mode","room":"42","seconds":10,"by":"mod",...}
public struct ModerationEvent: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        case messageDeleted = "message.deleted"
        case memberMuted = "member.muted"
        case memberUnmuted = "member.unmuted"
        case memberKicked = "member.kicked"
        case memberBanned = "member.banned"
        case memberUnbanned = "member.unbanned"
        case slowMode = "room.slow_mode"
    }

    public var kind: Kind
    public var room: String
    /// The member acted on; for a deletion, the deleted message's sender (nil: bot, system or open chat).
    public var user: String?
    /// The deleted message.
    public var messageID: Int64?
    /// Mute length or slow-mode interval.
    public var seconds: Int?
    /// The end of a mute (ms since 1970).
    public var until: Int64?
    /// The moderator's user id (their token's `sub`).
    public var by: String
    /// When (ms since 1970).
    public var at: Int64

    public init(kind: Kind, room: String, user: String? = nil, messageID: Int64? = nil, seconds: Int? = nil, until: Int64? = nil,
                by: String, at: Int64) {
        self.kind = kind
        self.room = room
        self.user = user
        self.messageID = messageID
        self.seconds = seconds
        self.until = until
        self.by = by
        self.at = at
    }

    enum CodingKeys: String, CodingKey {
        case kind = "type", room, user, messageID = "message_id", seconds, until, untilTS = "until_ts", by, at, ts
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(room, forKey: .room)
        try c.encodeIfPresent(messageID, forKey: .messageID)
        try c.encodeIfPresent(user, forKey: .user)
        try c.encodeIfPresent(seconds, forKey: .seconds)
        if let until {
            try c.encode(RFC3339.format(milliseconds: until), forKey: .until)
            try c.encode(until, forKey: .untilTS)
        }
        try c.encode(by, forKey: .by)
        try c.encode(RFC3339.format(milliseconds: at), forKey: .at)
        try c.encode(at, forKey: .ts)
    }

    /// Reads what ``encode(to:)`` wrote (the epoch-millisecond fields; the RFC 3339 ones repeat them).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        kind = try c.decode(Kind.self, forKey: .kind)
        room = try c.decode(String.self, forKey: .room)
        user = try c.decodeIfPresent(String.self, forKey: .user)
        messageID = try c.decodeIfPresent(Int64.self, forKey: .messageID)
        seconds = try c.decodeIfPresent(Int.self, forKey: .seconds)
        until = try c.decodeIfPresent(Int64.self, forKey: .untilTS)
        by = try c.decode(String.self, forKey: .by)
        at = try c.decode(Int64.self, forKey: .ts)
    }
}
