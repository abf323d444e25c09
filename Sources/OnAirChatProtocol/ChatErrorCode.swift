/// The `code` of an `error` frame. Stable strings: clients switch on them.
public enum ChatErrorCode: String, Sendable, Codable {
    /// The frame is not a JSON object.
    case badJSON = "bad_json"
    /// A JSON object without a known `type`, or with a field of the wrong kind.
    case badRequest = "bad_request"
    /// `send`/`who` before `join`.
    case notJoined = "not_joined"
    /// A second `join` on one connection.
    case alreadyJoined = "already_joined"
    /// `join` without the configured token, or with a wrong one (the socket then closes).
    case unauthorized
    /// An access token (JWT) that was refused: expired, bad signature, unknown key id, `alg`
    /// not allowed, wrong audience or issuer, malformed. The frame's `reason` names which
    /// (`expired`, `bad_signature`, `unknown_kid`, `alg_not_allowed`, ...); the socket then closes.
    case invalidToken = "invalid_token"
    /// A valid access token that does not allow this: no `chat` grant (`reason`
    /// `missing_grant`) or another room (`reason` `wrong_room`); the socket then closes.
    case forbidden
    /// A display name that is empty, too long or has control characters.
    case badName = "bad_name"
    /// An empty message.
    case emptyMessage = "empty_message"
    /// A message over `limits.max_message_chars`.
    case tooLong = "too_long"
    /// Too many messages or frames: `retry_after_ms` says when to try again.
    case rateLimited = "rate_limited"
    /// The stream ended: the room is read-only until it starts again.
    case roomClosed = "room_closed"
    /// Binary WebSocket frames are not part of the protocol.
    case binaryUnsupported = "binary_unsupported"
    /// A moderation frame from a member whose token does not grant `moderate` in the room
    /// (the connection stays open).
    case notModerator = "not_moderator"
    /// A moderator's `delete` named a message the room does not have.
    case notFound = "not_found"
    /// A moderator muted this user: posts are refused until `retry_after_ms` has passed.
    case muted
    /// The room is in slow mode: this user may post again after `retry_after_ms`.
    case slowMode = "slow_mode"
    /// This user is banned from the room: the join is refused and the socket closes (also
    /// sent to the user's open connections when the ban comes).
    case banned
    /// A moderator removed this user from the room: the socket closes; joining again is allowed.
    case kicked
    /// The store failed; the message was not sent.
    case internalError = "internal_error"
}
