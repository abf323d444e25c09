/// What the store knows about a room: whether chat is open, and the newest stream event
/// applied to it (so that late events of an older publisher session are recognised).
public struct RoomRecord: Sendable, Equatable {
    public enum State: String, Sendable, Codable {
        /// Anyone who joined may send.
        case open
        /// The stream ended: history stays readable, sends are refused until the next start.
        case closed
    }

    public var id: String
    public var state: State
    /// The id of the newest message (0 when there is none).
    public var lastMessageID: Int64
    /// `generation` and `sequence` of the newest stream event applied; nil before the first.
    public var generation: Int64?
    public var sequence: Int64?
    /// Why the room closed (the relay's `stream.ended` reason).
    public var closedReason: String?
    /// The relay's last `stream.viewers` figure.
    public var viewers: Int?
    /// Slow mode: the least seconds between two messages of one user (0: off); set by moderators.
    public var slowModeSeconds: Int
    /// Milliseconds since 1970.
    public var createdAt: Int64
    public var updatedAt: Int64

    public init(id: String, state: State = .open, lastMessageID: Int64 = 0, generation: Int64? = nil,
                sequence: Int64? = nil, closedReason: String? = nil, viewers: Int? = nil, slowModeSeconds: Int = 0,
                createdAt: Int64, updatedAt: Int64) {
        self.id = id
        self.state = state
        self.lastMessageID = lastMessageID
        self.generation = generation
        self.sequence = sequence
        self.closedReason = closedReason
        self.viewers = viewers
        self.slowModeSeconds = slowModeSeconds
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Takes what a stream event decided (``RoomTransition/apply(updated:message:)``): state,
    /// event position, close reason, viewers, update time. The id, the message counter and the
    /// creation time stay the store's.
    mutating func takeLifecycle(of updated: RoomRecord) {
        state = updated.state
        generation = updated.generation
        sequence = updated.sequence
        closedReason = updated.closedReason
        viewers = updated.viewers
        updatedAt = updated.updatedAt
    }
}
