import Foundation
import Logging
import OnAirPostgres
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// ``ChatClusterLink`` over PostgreSQL. LISTEN/NOTIFY on channel `onair_chat` is a doorbell
/// only (`<newest id> <room>` for messages, `p <node> <room>` for presence; at most one per room per
/// flush); the rooms read the tables themselves. A moderator's action is the exception: its
/// event rides in the notification (`m <node> <room> <event JSON>`, one per action), since a
/// kick is stored nowhere; what must persist (bans, mutes, slow mode, tombstones) is in the
/// tables first, and a listener that reconnects re-reads bans and mutes. Presence lives in `chat_presence` under this
/// node's lease (`chat_node`, renewed every ``heartbeat``): a node that dies stops renewing,
/// and any node's sweep drops its members once the lease has run out.
final class PostgresClusterLink: ChatClusterLink, Service, CustomStringConvertible {
    var description: String { "PostgresClusterLink" }
    static let channel = "onair_chat"
    /// Lease renewal; a dead node's members are gone within `lease + heartbeat` (8 s).
    static let heartbeat = Duration.seconds(2)
    static let lease = Duration.seconds(6)

    let nodeID: String
    let changes: AsyncStream<ClusterChange>
    private let sink: AsyncStream<ClusterChange>.Continuation
    private let database: SharedDatabase
    private let doorbell: NotifyDoorbell
    private let listener: NotificationListener
    private let presenceQueue = Mutex(PresenceQueue())
    private let logger: Logger

    /// Presence changes not yet written, coalesced per (room, member): the last one counts.
    struct PresenceQueue {
        var changes: [PresenceKey: (member: ServerFrame.Member, joined: Bool)] = [:]
        var flushing = false
    }

    struct PresenceKey: Hashable {
        var room: String
        var member: String
    }

    init(database: SharedDatabase, logger: Logger) {
        self.database = database
        nodeID = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        doorbell = NotifyDoorbell(database: database, channel: Self.channel)
        listener = NotificationListener(url: database.url, channel: Self.channel, logger: logger)
        var logger = logger
        logger[metadataKey: "node"] = "\(nodeID)"
        self.logger = logger
        (changes, sink) = AsyncStream.makeStream(of: ClusterChange.self, bufferingPolicy: .unbounded)
    }

    func announce(room: String, newestID: Int64) {
        doorbell.ring(room, "\(newestID) \(room)")
    }

    func announce(_ event: ModerationEvent) {
        guard let json = try? JSONEncoder().encode(event) else { return }
        doorbell.ring("m \(UUID().uuidString)", "m \(nodeID) \(event.room) \(String(decoding: json, as: UTF8.self))")
    }

    // MARK: - presence

    func memberJoined(room: String, _ member: ServerFrame.Member) { queuePresence(room, member, joined: true) }
    func memberLeft(room: String, _ member: ServerFrame.Member) { queuePresence(room, member, joined: false) }

    func remoteMembers(of room: String) async throws -> [ServerFrame.Member] {
        let nodeID = self.nodeID
        let logger = database.logger
        return try await database.withConnection { connection in
            let rows = try await connection.query("""
                SELECT p.member, p.name, p.user_id FROM chat_presence p JOIN chat_node n ON n.id = p.node
                WHERE p.room = \(room) AND p.node <> \(nodeID) AND n.expires_at >= now()
                """, logger: logger)
            var members: [ServerFrame.Member] = []
            for try await (id, name, user) in rows.decode((String, String, String?).self) {
                members.append(.init(id: id, name: name, user: user))
            }
            return members
        }
    }

    private func queuePresence(_ room: String, _ member: ServerFrame.Member, joined: Bool) {
        let start = presenceQueue.withLock { queue -> Bool in
            queue.changes[PresenceKey(room: room, member: member.id)] = (member, joined)
            guard !queue.flushing else { return false }
            queue.flushing = true
            return true
        }
        if start { Task { await flushPresence() } }
    }

    /// Writes queued presence in one transaction per batch, then rings each room. A failed
    /// write keeps the batch for the next try (the heartbeat retries), so nothing is dropped.
    private func flushPresence() async {
        while true {
            let batch = presenceQueue.withLock { queue -> [PresenceKey: (member: ServerFrame.Member, joined: Bool)] in
                let batch = queue.changes
                queue.changes.removeAll()
                if batch.isEmpty { queue.flushing = false }
                return batch
            }
            guard !batch.isEmpty else { return }
            do {
                try await writePresence(batch)
                for room in Set(batch.keys.map(\.room)) { doorbell.ring("p \(room)", "p \(nodeID) \(room)") }
            } catch {
                logger.warning("cluster: presence not written (\(error)); retrying")
                presenceQueue.withLock { queue in
                    for (key, change) in batch where queue.changes[key] == nil { queue.changes[key] = change }
                    queue.flushing = false
                }
                return
            }
        }
    }

    private func writePresence(_ batch: [PresenceKey: (member: ServerFrame.Member, joined: Bool)]) async throws {
        let joined = batch.filter(\.value.joined)
        let left = batch.filter { !$0.value.joined }
        let nodeID = self.nodeID
        let logger = database.logger
        try await database.transaction { connection in
            if !joined.isEmpty {
                try await connection.query("""
                    INSERT INTO chat_presence (node, room, member, name, user_id)
                    SELECT \(nodeID), r, m, n, NULLIF(u, '') FROM unnest(\(joined.keys.map(\.room))::text[], \(joined.keys.map(\.member))::text[],
                                                        \(joined.values.map(\.member.name))::text[],
                                                        \(joined.values.map { $0.member.user ?? "" })::text[]) AS t(r, m, n, u)
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
            if !left.isEmpty {
                try await connection.query("""
                    DELETE FROM chat_presence WHERE node = \(nodeID)
                      AND (room, member) IN (SELECT * FROM unnest(\(left.keys.map(\.room))::text[], \(left.keys.map(\.member))::text[]))
                    """, logger: logger)
            }
        }
    }

    /// Renews this node's lease (a lapsed one means the others dropped its members: publish
    /// them again), retries queued presence, and drops the members of nodes whose lease ran out.
    private func keepLease() async {
        var renewedBefore = false
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let created = try await renewLease()
                if created && renewedBefore {
                    logger.notice("cluster: this node's lease had lapsed; publishing its members again")
                    sink.yield(.republish)
                }
                renewedBefore = true
                for room in try await sweepExpiredNodes() { doorbell.ring("s \(room)", "p - \(room)") }
                let retry = presenceQueue.withLock { queue -> Bool in
                    guard !queue.changes.isEmpty, !queue.flushing else { return false }
                    queue.flushing = true
                    return true
                }
                if retry { await flushPresence() }
            } catch {
                logger.warning("cluster: lease not renewed: \(error)")
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.heartbeat) }
        }
    }

    /// True when the lease row was created (first start, or after others swept it).
    private func renewLease() async throws -> Bool {
        let nodeID = self.nodeID
        let seconds = Double(Self.lease.components.seconds)
        let logger = database.logger
        return try await database.withConnection { connection in
            let rows = try await connection.query("""
                INSERT INTO chat_node (id, expires_at) VALUES (\(nodeID), now() + make_interval(secs => \(seconds)))
                ON CONFLICT (id) DO UPDATE SET expires_at = EXCLUDED.expires_at
                RETURNING (xmax = 0)
                """, logger: logger)
            for try await created in rows.decode(Bool.self) { return created }
            return false
        }
    }

    /// Rooms that lost members because their node's lease ran out.
    private func sweepExpiredNodes() async throws -> Set<String> {
        let logger = database.logger
        return try await database.transaction { connection in
            try await connection.query("DELETE FROM chat_node WHERE expires_at < now()", logger: logger)
            let rows = try await connection.query("""
                DELETE FROM chat_presence p WHERE NOT EXISTS (SELECT 1 FROM chat_node n WHERE n.id = p.node) RETURNING room
                """, logger: logger)
            var rooms = Set<String>()
            for try await room in rows.decode(String.self) { rooms.insert(room) }
            return rooms
        }
    }

    /// On a graceful stop: this node's members leave every room at once.
    private func resign() async {
        let nodeID = self.nodeID
        let logger = database.logger
        do {
            let rooms = try await database.transaction { connection in
                let rows = try await connection.query("DELETE FROM chat_presence WHERE node = \(nodeID) RETURNING room", logger: logger)
                var rooms = Set<String>()
                for try await room in rows.decode(String.self) { rooms.insert(room) }
                try await connection.query("DELETE FROM chat_node WHERE id = \(nodeID)", logger: logger)
                return rooms
            }
            for room in rooms { doorbell.ring("p \(room)", "p \(nodeID) \(room)") }
        } catch {
            logger.warning("cluster: could not withdraw this node's members (\(error)); its lease expires in \(Self.lease)")
        }
    }

    // MARK: - service

    func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.listener.run() }
            group.addTask {
                for await event in self.listener.events {
                    switch event {
                    case .listening:
                        self.sink.yield(.everything)
                    case .notification(let payload):
                        switch Self.parse(payload, thisNode: self.nodeID) {
                        case .change(let change): self.sink.yield(change)
                        case .own: continue
                        case .malformed: self.logger.warning("cluster: ignored a malformed notification \(payload.prefix(80))")
                        }
                    }
                }
            }
            group.addTask { await self.keepLease() }
            try? await gracefulShutdown()
            await resign()
            group.cancelAll()
        }
        sink.finish()
    }

    enum Parsed: Equatable {
        case change(ClusterChange)
        /// This node's own presence ring: nothing to read.
        case own
        case malformed
    }

    /// `m <node> <room> <event JSON>`, `<newest id> <room>`, or `p <node> <room>` (`-`: a sweep, for every node), as announced.
    static func parse(_ payload: String, thisNode: String) -> Parsed {
        if payload.hasPrefix("m ") {
            let parts = payload.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            guard parts.count == 4 else { return .malformed }
            if parts[1] == thisNode { return .own }
            guard let event = try? JSONDecoder().decode(ModerationEvent.self, from: Data(parts[3].utf8)), event.room == parts[2] else {
                return .malformed
            }
            return .change(.moderation(event))
        }
        let parts = payload.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        if parts.count == 3, parts[0] == "p", !parts[2].isEmpty {
            return parts[1] == thisNode ? .own : .change(.presence(String(parts[2])))
        }
        guard let space = payload.firstIndex(of: " "), let id = Int64(payload[..<space]), id >= 0 else { return .malformed }
        let room = String(payload[payload.index(after: space)...])
        return room.isEmpty ? .malformed : .change(.room(room, newestID: id))
    }
}
