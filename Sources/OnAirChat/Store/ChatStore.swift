import OnAirChatProtocol
/// Where messages, room states and seen webhook ids live: one SQLite file
/// (``SQLiteChatStore``) or a PostgreSQL database shared by several nodes
/// (``PostgresChatStore``). Every method is one transaction. Message ids are per room,
/// 1, 2, 3, ..., assigned in the transaction that writes the message, never reused, never
/// skipped.
public protocol ChatStore: Sendable {
    /// The room, or nil if nothing ever named it.
    func room(_ id: String) async throws -> RoomRecord?

    /// The room, created (open, no messages) when missing.
    func ensureRoom(_ id: String, now: Int64) async throws -> RoomRecord

    /// Writes a message (creating its room if needed) and returns it with its id; throws
    /// ``ChatStoreError/roomClosed(_:)`` if the room is closed (whichever node closed it).
    func append(_ draft: MessageDraft) async throws -> ChatMessage

    /// A page of a room's messages in ascending id order (empty for an unknown room).
    func page(room: String, _ page: HistoryPage) async throws -> MessagePage

    /// Applies one verified webhook delivery atomically: if its id was seen, `.duplicate` and
    /// nothing else; otherwise remembers the id, ensures the room, asks `decide` what the event
    /// means for the room's current record, and writes the result (record + system message).
    func deliver(_ delivery: WebhookDelivery, decide: @escaping @Sendable (RoomRecord) -> RoomTransition) async throws
        -> DeliveryOutcome

    /// Forgets delivery ids received before `cutoff` (ms since 1970); returns how many.
    func forgetDeliveries(receivedBefore cutoff: Int64) async throws -> Int

    // MARK: - moderation (issue 28)

    /// The room's bans and the mutes that last beyond `now`.
    func moderation(room: String, now: Int64) async throws -> RoomModeration

    /// Whether `user` is banned from `room` (checked on every join with a token).
    func isBanned(room: String, user: String) async throws -> Bool

    /// Bans (`banned`) or unbans `user` in `room`, remembering who and when.
    func setBan(room: String, user: String, banned: Bool, by: String, at: Int64) async throws

    /// Mutes `user` in `room` until `until` (ms since 1970); nil lifts the mute.
    func setMute(room: String, user: String, until: Int64?, by: String, at: Int64) async throws

    /// Sets the room's slow mode (0: off), creating the room if needed; returns the record.
    func setSlowMode(room: String, seconds: Int, at: Int64) async throws -> RoomRecord

    /// Turns message `id` into a tombstone (text gone; `deleted_by`, `deleted_at` set) and
    /// returns it; a message deleted before keeps its first tombstone. nil: no such message.
    func deleteMessage(room: String, id: Int64, by: String, at: Int64) async throws -> ChatMessage?
}
