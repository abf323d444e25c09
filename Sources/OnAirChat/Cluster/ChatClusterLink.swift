/// How one chat node hears what other nodes wrote. Absent with SQLite (one node).
protocol ChatClusterLink: Sendable {
    /// This node committed a change to `room` (a message, or a new state with its system
    /// message) whose newest message id is `newestID`.
    func announce(room: String, newestID: Int64)

    /// What other nodes changed; consumed by the room directory only.
    var changes: AsyncStream<ClusterChange> { get }
}

/// A change seen from another node.
enum ClusterChange: Sendable, Equatable {
    /// `room` changed up to message `newestID`.
    case room(String, newestID: Int64)
    /// Changes may have been missed (the listener reconnected): every loaded room re-reads.
    case everything
}
