import OnAirChatProtocol
import OnAirWebhooks

/// Work for a room's worker. Commands are handled one at a time, in arrival order; those
/// with a ``Reply`` answer the caller, the others answer over the client's socket.
enum RoomCommand: Sendable {
    /// A connection joins: it gets `joined` (history or what it missed), then live messages.
    case join(JoinRequest)
    /// A connection left (closed, failed or was dropped).
    case leave(memberID: UInt64)
    /// A member sends a message (already validated and rate limited by its connection).
    case send(memberID: UInt64, text: String, ref: String?)
    /// A member asks who is here.
    case who(memberID: UInt64, ref: String?)
    /// A bot (or a token holder) posts over REST; `moderator`: the token grants `moderate` (no slow mode).
    case post(MessageDraft, moderator: Bool, Reply<Result<ChatMessage, RoomRefusal>>)
    /// A moderator's action (the grant was checked by the caller), over the WebSocket or REST.
    case moderate(ModerationRequest, Reply<Result<ModerationEvent, RoomRefusal>>)
    /// Another node's moderator acted in this room: apply it here and tell the members.
    case remoteModeration(ModerationEvent)
    /// Bans and mutes may have changed unheard (the cluster listener reconnected): re-read them.
    case reloadModeration
    /// A verified webhook delivery for this room.
    case streamEvent(StreamEvent, WebhookDelivery, Reply<Result<DeliveryOutcome, RoomRefusal>>)
    /// State for `GET /rooms/{id}`.
    case snapshot(Reply<RoomSnapshot>)
    /// Time to send the batched presence changes.
    case flushPresence
    /// Another node changed the room up to message `newestID` (nil: it may have, re-read).
    case catchUp(newestID: Int64?)
    /// Who is in the room on other nodes changed: re-read it.
    case refreshPresence
    /// This node's members were dropped by the other nodes (its lease lapsed): publish them again.
    case republishPresence
}

struct JoinRequest: Sendable {
    var outlet: ChatOutlet
    var name: String
    /// The user id (`sub`) of an access token; nil in an open chat.
    var user: String? = nil
    /// The token grants `moderate` in the room (exempt from slow mode).
    var moderator = false
    var after: Int64?
    var ref: String?
}

/// Why a room did not do what a REST caller asked.
enum RoomRefusal: Error, Equatable {
    case closed(reason: String?)
    case storeFailed(String)
    case shuttingDown
    /// Moderation: no such message to delete.
    case notFound
    /// The poster is muted until then (ms since 1970).
    case muted(until: Int64)
    /// The poster is banned from the room.
    case banned
    /// Slow mode or the per-user bucket: retry after that many milliseconds.
    case slowMode(retryAfterMS: Int)
    case rateLimited(retryAfterMS: Int)
}

/// A moderator's action: what, and who (their token's `sub`).
struct ModerationRequest: Sendable {
    var action: ModerationAction
    var by: String
}

/// A room as `GET /rooms/{id}` shows it.
struct RoomSnapshot: Sendable, Equatable {
    var record: RoomRecord
    var presence: Int
}

/// The answer channel of one command: a checked continuation resumed exactly once.
struct Reply<Value: Sendable>: Sendable {
    let continuation: CheckedContinuation<Value, any Error>

    func callAsFunction(_ value: Value) { continuation.resume(returning: value) }
}
