import Logging
import Synchronization

/// What every route and connection of one chat server shares.
struct ChatServices: Sendable {
    let config: ChatConfig
    let store: any ChatStore
    let directory: RoomDirectory
    let clock: WallClock
    let logger: Logger
    let connectionIDs: ConnectionIDs
    /// Join, post and read rights (static tokens, access tokens).
    let access: ChatAccess
}

/// Hands out connection (member) ids: 1, 2, 3, ... for the life of the process.
final class ConnectionIDs: Sendable {
    private let counter = Atomic<UInt64>(0)

    func next() -> UInt64 {
        counter.wrappingAdd(1, ordering: .relaxed).newValue
    }
}
