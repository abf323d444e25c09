import Logging
import ServiceLifecycle

/// All rooms of this process, by id. A room is loaded (its worker started) the first time
/// something needs it live: a join, a bot post or a stream event; it then stays loaded.
/// Runs as a service: it owns the room workers as child tasks and, on graceful shutdown,
/// finishes every room (queued commands are still handled, members are disconnected).
public final class RoomDirectory: Service, Sendable, CustomStringConvertible {
    public var description: String { "RoomDirectory" }
    private let registry: Registry
    private let spawned: AsyncStream<(ChatRoom, RoomRecord)>
    private let spawner: AsyncStream<(ChatRoom, RoomRecord)>.Continuation
    let store: any ChatStore
    let config: ChatConfig
    let logger: Logger
    let clock: WallClock
    let cluster: (any ChatClusterLink)?

    init(store: any ChatStore, config: ChatConfig, logger: Logger, clock: WallClock = .system,
         cluster: (any ChatClusterLink)? = nil) {
        self.store = store
        self.cluster = cluster
        self.config = config
        self.logger = logger
        self.clock = clock
        registry = Registry()
        (spawned, spawner) = AsyncStream.makeStream(of: (ChatRoom, RoomRecord).self)
    }

    /// The live room `id`. `create: false` returns nil for a room the store has never seen.
    func room(_ id: String, create: Bool) async throws -> ChatRoom? {
        if let room = await registry.room(id) { return room }
        let record: RoomRecord
        if create {
            record = try await store.ensureRoom(id, now: clock.milliseconds())
        } else {
            guard let existing = try await store.room(id) else { return nil }
            record = existing
        }
        let (room, isNew) = await registry.insert(ChatRoom(id: id))
        if isNew {
            spawner.yield((room, record))
            // Another node may have changed the room between the read above and the insert.
            if cluster != nil {
                room.submit(.catchUp(newestID: nil))
                room.submit(.refreshPresence)
            }
        }
        return room
    }

    /// The room if it is loaded (for `GET /rooms/{id}`, which must not load rooms).
    func loadedRoom(_ id: String) async -> ChatRoom? {
        await registry.room(id)
    }

    public func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { [registry, spawner] in
                try? await gracefulShutdown()
                spawner.finish()
                for room in await registry.closeAll() { room.finish() }
            }
            if let cluster {
                group.addTask { [registry] in
                    // Other nodes' changes reach the rooms loaded here; the others read the store when loaded.
                    for await change in cluster.changes {
                        self.logger.trace("cluster: \(change)")
                        switch change {
                        case .room(let id, let newestID): await registry.room(id)?.submit(.catchUp(newestID: newestID))
                        case .presence(let id): await registry.room(id)?.submit(.refreshPresence)
                        case .moderation(let event): await registry.room(event.room)?.submit(.remoteModeration(event))
                        case .everything:
                            for room in await registry.all() {
                                room.submit(.catchUp(newestID: nil))
                                room.submit(.refreshPresence)
                                room.submit(.reloadModeration)
                            }
                        case .republish: for room in await registry.all() { room.submit(.republishPresence) }
                        }
                    }
                }
            }
            for await (room, record) in spawned {
                let worker = RoomWorker(room: room, record: record, store: store, config: config, logger: logger, clock: clock,
                                        cluster: cluster)
                group.addTask {
                    var worker = worker
                    await worker.run()
                }
            }
        }
    }

    /// The id -> room map, the only shared mutable state of the directory.
    private actor Registry {
        private var rooms: [String: ChatRoom] = [:]
        private var closed = false

        func room(_ id: String) -> ChatRoom? { rooms[id] }

        /// Keeps the first room registered under an id (two callers may race to load it).
        func insert(_ room: ChatRoom) -> (ChatRoom, isNew: Bool) {
            if let existing = rooms[room.id] { return (existing, false) }
            if closed { room.finish() }
            rooms[room.id] = room
            return (room, !closed)
        }

        func all() -> [ChatRoom] { Array(rooms.values) }

        func closeAll() -> [ChatRoom] {
            closed = true
            return Array(rooms.values)
        }
    }
}
