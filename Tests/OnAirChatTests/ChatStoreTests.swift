import Foundation
import Testing
@testable import OnAirChat

/// The store contract, on SQLite and on a real PostgreSQL server. Two stores opened on one
/// location are two nodes (or a restart).
@Suite("Chat store (SQLite and PostgreSQL)")
struct ChatStoreTests {
    func draft(_ room: String, _ text: String, at: Int64 = 1_000) -> MessageDraft {
        MessageDraft(room: room, kind: .user, name: "ada", text: text, at: at)
    }

    @Test("ids are a per-room sequence starting at 1", arguments: StoreKind.allCases)
    func perRoomIDs(_ kind: StoreKind) async throws {
        try await ChatStoreFactory.with(kind) { stores in
            let store = try await stores.open()
            var ids: [String: [Int64]] = [:]
            for i in 0..<10 {
                let room = i % 3 == 0 ? "a" : "b"
                ids[room, default: []].append(try await store.append(draft(room, "m\(i)")).id)
            }
            #expect(ids["a"] == [1, 2, 3, 4])
            #expect(ids["b"] == [1, 2, 3, 4, 5, 6])
            #expect(try await store.room("a")?.lastMessageID == 4)
        }
    }

    @Test("pages: latest, before, after, each ascending, with more", arguments: StoreKind.allCases)
    func pages(_ kind: StoreKind) async throws {
        try await ChatStoreFactory.with(kind) { stores in
            let store = try await stores.open()
            for i in 1...10 { _ = try await store.append(draft("r", "m\(i)", at: Int64(i))) }
            let latest = try await store.page(room: "r", .latest(limit: 3))
            #expect(latest.messages.map(\.id) == [8, 9, 10])
            #expect(latest.more)
            let before = try await store.page(room: "r", .before(id: 8, limit: 3))
            #expect(before.messages.map(\.id) == [5, 6, 7])
            #expect(before.more)
            let first = try await store.page(room: "r", .before(id: 3, limit: 5))
            #expect(first.messages.map(\.id) == [1, 2])
            #expect(!first.more)
            // Resume after id 6: exactly what was missed, in order.
            let after = try await store.page(room: "r", .after(id: 6, limit: 100))
            #expect(after.messages.map(\.text) == ["m7", "m8", "m9", "m10"])
            #expect(!after.more)
            let capped = try await store.page(room: "r", .after(id: 0, limit: 4))
            #expect(capped.messages.map(\.id) == [1, 2, 3, 4])
            #expect(capped.more)
            #expect(try await store.page(room: "unknown", .latest(limit: 5)) == MessagePage(messages: [], more: false))
        }
    }

    @Test("messages, room states and delivery ids survive reopening the store", arguments: StoreKind.allCases)
    func persistence(_ kind: StoreKind) async throws {
        try await ChatStoreFactory.with(kind) { stores in
            do {
                let store = try await stores.open()
                _ = try await store.append(draft("42", "before restart"))
                let event = ChatFixtures.event("stream.ended", generation: 2, sequence: 5, reason: "kicked")
                let delivery = WebhookDelivery(id: "msg_1", room: "42", type: event.type, receivedAt: 5)
                _ = try await store.deliver(delivery) { RoomLifecycle.decide(event, for: $0, now: 5) }
            }
            let reopened = try await stores.open()
            let room = try #require(try await reopened.room("42"))
            #expect(room.state == .closed)
            #expect(room.closedReason == "kicked")
            #expect(room.generation == 2)
            #expect(room.lastMessageID == 2)
            #expect(try await reopened.page(room: "42", .latest(limit: 10)).messages.map(\.text) == ["before restart", "stream ended (kicked)"])
            let again = WebhookDelivery(id: "msg_1", room: "42", type: "stream.started", receivedAt: 6)
            #expect(try await reopened.deliver(again) { _ in .ignore(reason: "must not be asked") } == .duplicate)
            // Closed: a send is refused with the room's record, whichever node asks.
            await #expect(throws: ChatStoreError.roomClosed(room)) { try await reopened.append(draft("42", "after")) }
            let started = ChatFixtures.event("stream.started", generation: 3, sequence: 1)
            _ = try await reopened.deliver(WebhookDelivery(id: "msg_2", room: "42", type: started.type, receivedAt: 7)) {
                RoomLifecycle.decide(started, for: $0, now: 7)
            }
            #expect(try await reopened.append(draft("42", "after")).id == 4)
        }
    }

    @Test("a delivery is applied once; ignored ones change nothing but are remembered", arguments: StoreKind.allCases)
    func deliveries(_ kind: StoreKind) async throws {
        try await ChatStoreFactory.with(kind) { stores in
            let store = try await stores.open()
            let started = ChatFixtures.event("stream.started", generation: 3, sequence: 1)
            let first = try await store.deliver(WebhookDelivery(id: "a", room: "9", type: started.type, receivedAt: 10)) {
                RoomLifecycle.decide(started, for: $0, now: 10)
            }
            guard case .applied(let room, let message) = first else { Issue.record("not applied: \(first)"); return }
            #expect(room.state == .open && room.generation == 3 && room.sequence == 1)
            #expect(message?.id == 1 && message?.kind == .system && message?.text == RoomLifecycle.startedText)
            let old = ChatFixtures.event("stream.ended", generation: 2, sequence: 9, reason: "dtls_closed")
            let ignored = try await store.deliver(WebhookDelivery(id: "b", room: "9", type: old.type, receivedAt: 11)) {
                RoomLifecycle.decide(old, for: $0, now: 11)
            }
            guard case .ignored(_, let unchanged) = ignored else { Issue.record("not ignored: \(ignored)"); return }
            #expect(unchanged == room)
            #expect(try await store.room("9") == room)
            #expect(try await store.deliver(WebhookDelivery(id: "b", room: "9", type: old.type, receivedAt: 12)) { _ in
                .ignore(reason: "unreachable")
            } == .duplicate)
            #expect(try await store.forgetDeliveries(receivedBefore: 11) == 1)
            #expect(try await store.forgetDeliveries(receivedBefore: 100) == 1)
        }
    }

    @Test("concurrent writers on two nodes: ids 1...n, no gap, no duplicate, every message once", arguments: StoreKind.allCases)
    func concurrentWriters(_ kind: StoreKind) async throws {
        try await ChatStoreFactory.with(kind) { stores in
            let nodes = [try await stores.open(), try await stores.open()]
            _ = try await nodes[0].ensureRoom("42", now: 1)
            let perWriter = 100
            let writers = 8
            let ids = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for writer in 0..<writers {
                    let node = nodes[writer % 2]
                    group.addTask {
                        var ids: [Int64] = []
                        for i in 0..<perWriter { ids.append(try await node.append(draft("42", "w\(writer)-\(i)")).id) }
                        return ids
                    }
                }
                var all: [Int64] = []
                for try await some in group {
                    #expect(some == some.sorted(), "one writer's ids ascend")
                    all += some
                }
                return all
            }
            let total = writers * perWriter
            #expect(ids.sorted() == (1...Int64(total)).map { $0 })
            let stored = try await nodes[1].page(room: "42", .after(id: 0, limit: total + 10)).messages
            #expect(stored.map(\.id) == (1...Int64(total)).map { $0 })
            #expect(Set(stored.map(\.text)).count == total)
            #expect(try await nodes[0].room("42")?.lastMessageID == Int64(total))
        }
    }

    @Test("the same webhook id delivered on two nodes at once is applied once", arguments: StoreKind.allCases)
    func deliveryDedupeAcrossNodes(_ kind: StoreKind) async throws {
        try await ChatStoreFactory.with(kind) { stores in
            let nodes = [try await stores.open(), try await stores.open()]
            let ended = ChatFixtures.event("stream.ended", generation: 1, sequence: 2, reason: "publisher_deleted")
            for round in 0..<20 {
                let delivery = WebhookDelivery(id: "msg_\(round)", room: "r\(round)", type: ended.type, receivedAt: 5)
                let outcomes = try await withThrowingTaskGroup(of: DeliveryOutcome.self) { group in
                    for node in nodes {
                        group.addTask { try await node.deliver(delivery) { RoomLifecycle.decide(ended, for: $0, now: 5) } }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(outcomes.filter { $0 == .duplicate }.count == 1, "round \(round): \(outcomes)")
                #expect(try await nodes[0].page(room: "r\(round)", .latest(limit: 10)).messages.count == 1)
            }
        }
    }
}
