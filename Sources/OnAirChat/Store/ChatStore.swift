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
}
