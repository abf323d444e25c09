/// How one chat node hears what other nodes wrote, and tells them who is here. Absent with
/// SQLite (one node).
protocol ChatClusterLink: Sendable {
    /// This node's id (part of its member ids, so that they are unique across nodes).
    var nodeID: String { get }

    /// This node committed a change to `room` (a message, or a new state with its system
    /// message) whose newest message id is `newestID`.
    func announce(room: String, newestID: Int64)

    /// A moderator acted in a room on this node (already stored): the other nodes apply it to
    /// their members and tell them.
    func announce(_ event: ModerationEvent)

    /// A member joined or left `room` on this node (published under this node's lease).
    func memberJoined(room: String, _ member: ServerFrame.Member)
    func memberLeft(room: String, _ member: ServerFrame.Member)

    /// The members of `room` on the other live nodes.
    func remoteMembers(of room: String) async throws -> [ServerFrame.Member]

    /// What other nodes changed; consumed by the room directory only.
    var changes: AsyncStream<ClusterChange> { get }
}

/// A change seen from another node.
enum ClusterChange: Sendable, Equatable {
    /// `room` changed up to message `newestID`.
    case room(String, newestID: Int64)
    /// Who is in `room` changed on some node (a join, a leave, a node's lease expiring).
    case presence(String)
    /// Changes may have been missed (the listener reconnected): every loaded room re-reads.
    case everything
    /// A moderator on another node acted (``ModerationEvent``).
    case moderation(ModerationEvent)
    /// This node's lease had lapsed and others dropped its members: publish them again.
    case republish
}
