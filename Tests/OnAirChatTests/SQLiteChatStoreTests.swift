import Foundation
import Testing
@testable import OnAirChat

@Suite("SQLite chat store")
struct SQLiteChatStoreTests {
    func draft(_ room: String, _ text: String, at: Int64 = 1_000) -> MessageDraft {
        MessageDraft(room: room, kind: .user, name: "ada", text: text, at: at)
    }

    @Test("ids are a per-room sequence starting at 1")
    func perRoomIDs() async throws {
        let store = try SQLiteChatStore(path: ":memory:")
        var ids: [String: [Int64]] = [:]
        for i in 0..<10 {
            let room = i % 3 == 0 ? "a" : "b"
            ids[room, default: []].append(try await store.append(draft(room, "m\(i)")).id)
        }
        #expect(ids["a"] == [1, 2, 3, 4])
        #expect(ids["b"] == [1, 2, 3, 4, 5, 6])
        #expect(try await store.room("a")?.lastMessageID == 4)
    }

    @Test("pages: latest, before, after, each ascending, with more")
    func pages() async throws {
        let store = try SQLiteChatStore(path: ":memory:")
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

    @Test("messages, room states and delivery ids survive reopening the file")
    func persistence() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("chat-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("chat.sqlite").path
        do {
            let store = try SQLiteChatStore(path: path)
            _ = try await store.append(draft("42", "before restart"))
            let event = ChatFixtures.event("stream.ended", generation: 2, sequence: 5, reason: "kicked")
            let delivery = WebhookDelivery(id: "msg_1", room: "42", type: event.type, receivedAt: 5)
            _ = try await store.deliver(delivery) { RoomLifecycle.decide(event, for: $0, now: 5) }
        }
        let reopened = try SQLiteChatStore(path: path)
        let room = try #require(try await reopened.room("42"))
        #expect(room.state == .closed)
        #expect(room.closedReason == "kicked")
        #expect(room.generation == 2)
        #expect(room.lastMessageID == 2)
        #expect(try await reopened.page(room: "42", .latest(limit: 10)).messages.map(\.text) == ["before restart", "stream ended (kicked)"])
        let again = WebhookDelivery(id: "msg_1", room: "42", type: "stream.started", receivedAt: 6)
        #expect(try await reopened.deliver(again) { _ in .ignore(reason: "must not be asked") } == .duplicate)
        #expect(try await reopened.append(draft("42", "after")).id == 3)
    }

    @Test("a delivery is applied once; ignored ones change nothing but are remembered")
    func deliveries() async throws {
        let store = try SQLiteChatStore(path: ":memory:")
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
