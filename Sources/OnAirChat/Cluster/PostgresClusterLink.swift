import Logging
import OnAirPostgres
import ServiceLifecycle

/// ``ChatClusterLink`` over PostgreSQL LISTEN/NOTIFY on channel `onair_chat`: a doorbell
/// only (payload `<newest id> <room>`, at most one per room per flush); the rooms read the
/// tables themselves. Runs as a service (the LISTEN connection and its reconnects).
final class PostgresClusterLink: ChatClusterLink, Service, CustomStringConvertible {
    var description: String { "PostgresClusterLink" }
    static let channel = "onair_chat"

    let changes: AsyncStream<ClusterChange>
    private let sink: AsyncStream<ClusterChange>.Continuation
    private let doorbell: Doorbell
    private let listener: NotificationListener
    private let logger: Logger

    init(database: SharedDatabase, logger: Logger) {
        doorbell = Doorbell(database: database, channel: Self.channel)
        listener = NotificationListener(url: database.url, channel: Self.channel, logger: logger)
        self.logger = logger
        (changes, sink) = AsyncStream.makeStream(of: ClusterChange.self, bufferingPolicy: .unbounded)
    }

    func announce(room: String, newestID: Int64) {
        doorbell.ring(room, "\(newestID) \(room)")
    }

    func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.listener.run() }
            group.addTask {
                for await event in self.listener.events {
                    switch event {
                    case .listening:
                        self.sink.yield(.everything)
                    case .notification(let payload):
                        guard let change = Self.parse(payload) else {
                            self.logger.warning("cluster: ignored a malformed notification \(payload.prefix(80))")
                            continue
                        }
                        self.sink.yield(change)
                    }
                }
            }
            try? await gracefulShutdown()
            group.cancelAll()
        }
        sink.finish()
    }

    /// `<newest id> <room>` as announced.
    static func parse(_ payload: String) -> ClusterChange? {
        guard let space = payload.firstIndex(of: " "), let id = Int64(payload[..<space]), id >= 0 else { return nil }
        let room = String(payload[payload.index(after: space)...])
        guard !room.isEmpty else { return nil }
        return .room(room, newestID: id)
    }
}
