/// One verified webhook request, as far as the store cares: its `webhook-id` (the dedupe key,
/// remembered for `webhooks.dedupe_hours`), the room it names and its event type.
public struct WebhookDelivery: Sendable, Equatable {
    public var id: String
    public var room: String
    public var type: String
    /// Milliseconds since 1970.
    public var receivedAt: Int64

    public init(id: String, room: String, type: String, receivedAt: Int64) {
        self.id = id
        self.room = room
        self.type = type
        self.receivedAt = receivedAt
    }
}

/// What applying a stream event to a room means, decided from the room's current record
/// (``RoomLifecycle``) inside the store's transaction.
public enum RoomTransition: Sendable, Equatable {
    /// Leave the room as it is (older generation, stale sequence, unknown type); the delivery
    /// id is still remembered.
    case ignore(reason: String)
    /// Store `updated` (its `lastMessageID` is the store's business) and append `message`.
    case apply(updated: RoomRecord, message: MessageDraft?)
}

/// The result of ``ChatStore/deliver(_:decide:)``.
public enum DeliveryOutcome: Sendable, Equatable {
    /// This `webhook-id` was seen before: nothing changed.
    case duplicate
    /// Remembered, but the room did not change.
    case ignored(reason: String, room: RoomRecord)
    /// The room changed; `message` is the system message written, if any.
    case applied(room: RoomRecord, message: ChatMessage?)
}
