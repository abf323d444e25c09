import OnAirWebhooks
import Testing
@testable import OnAirChat

@Suite("Room lifecycle (stream events)")
struct RoomLifecycleTests {
    let fresh = RoomRecord(id: "42", createdAt: 0, updatedAt: 0)

    func applied(_ transition: RoomTransition) -> (RoomRecord, MessageDraft?)? {
        if case .apply(let room, let message) = transition { return (room, message) }
        return nil
    }

    @Test("stream.ended closes with a system message carrying the reason")
    func ended() throws {
        let event = ChatFixtures.event(StreamEvent.ended, generation: 1, sequence: 2, reason: "publisher_timeout")
        let (room, message) = try #require(applied(RoomLifecycle.decide(event, for: fresh, now: 77)))
        #expect(room.state == .closed)
        #expect(room.closedReason == "publisher_timeout")
        #expect(room.generation == 1 && room.sequence == 2 && room.updatedAt == 77)
        #expect(message == MessageDraft(room: "42", kind: .system, name: RoomLifecycle.systemName,
                                        text: "stream ended (publisher_timeout)", at: 77, event: StreamEvent.ended,
                                        reason: "publisher_timeout"))
        // A second end of the same session: remembered, no second message.
        let twice = ChatFixtures.event(StreamEvent.ended, generation: 1, sequence: 3, reason: "publisher_timeout")
        let (_, none) = try #require(applied(RoomLifecycle.decide(twice, for: room, now: 78)))
        #expect(none == nil)
    }

    @Test("stream.started reopens a closed room")
    func reopen() throws {
        var closed = fresh
        closed.state = .closed
        closed.closedReason = "kicked"
        closed.generation = 4
        closed.sequence = 10
        let event = ChatFixtures.event(StreamEvent.started, generation: 5, sequence: 11)
        let (room, message) = try #require(applied(RoomLifecycle.decide(event, for: closed, now: 1)))
        #expect(room.state == .open && room.closedReason == nil && room.generation == 5)
        #expect(message?.text == RoomLifecycle.startedText)
    }

    @Test("older generations and already-applied sequences are ignored", arguments: [
        (Int64(3), Int64(99)), (4, 10), (4, 9),
    ])
    func stale(generation: Int64, sequence: Int64) {
        var current = fresh
        current.generation = 4
        current.sequence = 10
        let event = ChatFixtures.event(StreamEvent.ended, generation: generation, sequence: sequence, reason: "kicked")
        guard case .ignore = RoomLifecycle.decide(event, for: current, now: 1) else {
            Issue.record("(\(generation), \(sequence)) applied over (4, 10)")
            return
        }
    }

    @Test("the first event of a fresh room applies whatever its numbers")
    func firstEvent() {
        let event = ChatFixtures.event(StreamEvent.started, generation: 0, sequence: 0)
        #expect(applied(RoomLifecycle.decide(event, for: fresh, now: 1)) != nil)
    }

    @Test("stream.viewers records the count silently; unknown types are ignored")
    func others() throws {
        let viewers = ChatFixtures.event(StreamEvent.viewers, generation: 1, sequence: 1, viewers: 12)
        let (room, message) = try #require(applied(RoomLifecycle.decide(viewers, for: fresh, now: 1)))
        #expect(room.viewers == 12 && room.state == .open && message == nil)
        let unknown = ChatFixtures.event("stream.paused", generation: 1, sequence: 2)
        guard case .ignore = RoomLifecycle.decide(unknown, for: room, now: 2) else {
            Issue.record("unknown type applied")
            return
        }
    }
}
