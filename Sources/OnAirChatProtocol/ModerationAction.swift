/// What a moderator (an access token with the `moderate` grant for the room) may do, as one
/// client frame or one `POST /rooms/{id}/moderation` body (the same JSON):
///
///     {"type":"delete","id":17}                  the message becomes a tombstone
///     {"type":"mute","user":"bob","seconds":300}  bob's posts are refused for 300 s (0: unmute)
///     {"type":"kick","user":"bob"}               bob's connections close; he may rejoin
///     {"type":"ban","user":"bob"}                kicked, and his joins refused until unbanned
///     {"type":"unban","user":"bob"}
///     {"type":"slow_mode","seconds":10}          one message per user per 10 s (0: off)
public enum ModerationAction: Sendable, Equatable {
    case delete(messageID: Int64)
    case mute(user: String, seconds: Int)
    case kick(user: String)
    case ban(user: String)
    case unban(user: String)
    case slowMode(seconds: Int)

    /// The frame types, in the order the README lists them.
    public static let types = ["delete", "mute", "kick", "ban", "unban", "slow_mode"]
    /// Longest user id a frame may name (a token's `sub` is the app's id: short in practice).
    public static let maxUserChars = 256
    /// Longest mute and slow-mode interval: one week (a longer mute is a ban).
    public static let maxSeconds = 7 * 24 * 3600

    /// The frame's `type`.
    public var type: String {
        switch self {
        case .delete: return "delete"
        case .mute: return "mute"
        case .kick: return "kick"
        case .ban: return "ban"
        case .unban: return "unban"
        case .slowMode: return "slow_mode"
        }
    }

    /// The user the action is about (nil for delete and slow mode).
    public var user: String? {
        switch self {
        case .mute(let user, _), .kick(let user), .ban(let user), .unban(let user): return user
        case .delete, .slowMode: return nil
        }
    }

    /// The message a `delete` names.
    public var messageID: Int64? {
        if case .delete(let id) = self { return id }
        return nil
    }

    /// Reads an action of `type` from a frame's fields; nil when `type` is not an action.
    static func parse(type: String, id: Int64?, user: String?, seconds: Int?) throws(ClientFrame.Problem.Detail) -> ModerationAction? {
        func target() throws(ClientFrame.Problem.Detail) -> String {
            guard let user, !user.isEmpty else { throw .init(code: .badRequest, message: "\(type) needs a user (the user id, a token's sub)") }
            guard user.unicodeScalars.count <= maxUserChars else {
                throw .init(code: .badRequest, message: "user ids are at most \(maxUserChars) characters")
            }
            return user
        }
        func interval() throws(ClientFrame.Problem.Detail) -> Int {
            guard let seconds else { throw .init(code: .badRequest, message: "\(type) needs seconds (0 turns it off)") }
            guard (0...maxSeconds).contains(seconds) else {
                throw .init(code: .badRequest, message: "seconds must be 0...\(maxSeconds)")
            }
            return seconds
        }
        switch type {
        case "delete":
            guard let id else { throw .init(code: .badRequest, message: "delete needs the message id") }
            guard id >= 1 else { throw .init(code: .badRequest, message: "id must be >= 1") }
            return .delete(messageID: id)
        case "mute": return .mute(user: try target(), seconds: try interval())
        case "kick": return .kick(user: try target())
        case "ban": return .ban(user: try target())
        case "unban": return .unban(user: try target())
        case "slow_mode": return .slowMode(seconds: try interval())
        default: return nil
        }
    }
}
