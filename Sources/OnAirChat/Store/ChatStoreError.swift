/// A store's refusal that the room worker answers in its own terms.
public enum ChatStoreError: Error, Equatable {
    /// A message was sent to a room whose stream ended (on this node or another): the room's
    /// current record, so that the worker catches up with it.
    case roomClosed(RoomRecord)
}
