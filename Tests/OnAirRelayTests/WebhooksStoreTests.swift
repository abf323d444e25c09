import Foundation
import GRDB
import OnAirWebhooks
import Testing
@testable import OnAirRelay

/// The outbox store: state and outbox change together, generations and sequences are
/// assigned as the issue asks, and a crash leaves nothing half-written.
@Suite("Webhooks: store")
struct WebhooksStoreTests {
    let now = 1_750_000_000.0

    static let schedule = RetrySchedule(delays: [0, 5, 300], jitter: 0.2)

    @Test("started/viewers/ended: generation per session, sequence per room, payload fields", arguments: OutboxKind.allCases)
    func generationsAndSequences(_ kind: OutboxKind) async throws {
        try await OutboxStoreFactory.with(kind) { stores in
            let store = try await stores.open(Self.schedule)
            let s1 = try await store.recordStarted(WebhookFixtures.started("42", "pubA", at: now))
            #expect(s1.event.generation == 1 && s1.event.sequence == 1 && s1.event.type == "stream.started")
            let v = try #require(try await store.recordViewers(room: "42", sessionID: "pubA", viewers: 7, at: now + 1))
            #expect(v.event.generation == 1 && v.event.sequence == 2)
            let e1 = try #require(try await store.recordEnded(WebhookFixtures.ended("42", "pubA", peak: 3, at: now + 2)))
            #expect(e1.event.generation == 1 && e1.event.sequence == 3)
            let s2 = try await store.recordStarted(WebhookFixtures.started("42", "pubB", at: now + 3))
            #expect(s2.event.generation == 2 && s2.event.sequence == 4)
            let other = try await store.recordStarted(WebhookFixtures.started("7", "pubC", at: now + 3))
            #expect(other.event.generation == 1 && other.event.sequence == 1, "sequences are per room")
            #expect(other.event.seq == s2.event.seq + 1, "the outbox sequence is global")

            let payload = try StreamEvent.decode(e1.event.body)
            #expect(payload.type == "stream.ended" && payload.timestamp == "2025-06-15T15:06:42.000Z")
            #expect(payload.data.eventID == e1.event.id && e1.event.id.hasPrefix("evt_") && e1.event.id.count == 28)
            #expect(payload.data.reason == "publisher_deleted" && payload.data.sessionID == "pubA")
            #expect(payload.data.peakViewers == 7, "the peak seen through viewer updates (7) beats the engine's 3")
            #expect(payload.data.durationSeconds == 12.5 && payload.data.bytesIn == 1000 && payload.data.bytesOut == 3000)
            let state = try #require(try await store.streamState(room: "42"))
            #expect(state.generation == 2 && state.sequence == 4 && state.live)
            #expect(Set([s1, v, e1, s2, other].map(\.event.id)).count == 5, "event ids are unique")
        }
    }

    @Test("a burst recorded in one transaction numbers events exactly as one by one; stale changes give nil", arguments: OutboxKind.allCases)
    func batchRecording(_ kind: OutboxKind) async throws {
        try await OutboxStoreFactory.with(kind) { stores in
            let store = try await stores.open(Self.schedule)
            let results = try await store.record([
                .started(WebhookFixtures.started("42", "a", at: now)),
                .viewers(room: "42", sessionID: "a", viewers: 2, at: now),
                .ended(WebhookFixtures.ended("42", "a", at: now)),
                .ended(WebhookFixtures.ended("42", "a", at: now)),  // a duplicate end
                .started(WebhookFixtures.started("42", "b", at: now)),
                .viewers(room: "42", sessionID: "a", viewers: 9, at: now),  // the old session
                .started(WebhookFixtures.started("7", "c", at: now)),
            ])
            #expect(results.map { $0?.event.type } == ["stream.started", "stream.viewers", "stream.ended", nil, "stream.started", nil,
                                                      "stream.started"])
            #expect(results.map { $0?.event.generation } == [1, 1, 1, nil, 2, nil, 1])
            #expect(results.map { $0?.event.sequence } == [1, 2, 3, nil, 4, nil, 1])
            let seqs = results.compactMap { $0?.event.seq }
            #expect(seqs == seqs.sorted() && Set(seqs).count == 5)
            #expect(try await OutboxStoreFactory.events(store, after: 0, limit: 100, atLeast: 5).count == 5)
        }
    }

    @Test("an end of a session that is not the live one writes nothing", arguments: OutboxKind.allCases)
    func staleEndIgnored(_ kind: OutboxKind) async throws {
        try await OutboxStoreFactory.with(kind) { stores in
            let store = try await stores.open(Self.schedule)
            _ = try await store.recordStarted(WebhookFixtures.started("42", "old", at: now))
            _ = try await store.recordEnded(WebhookFixtures.ended("42", "old", at: now + 1))
            _ = try await store.recordStarted(WebhookFixtures.started("42", "new", at: now + 2))
            #expect(try await store.recordEnded(WebhookFixtures.ended("42", "old", at: now + 3)) == nil)
            #expect(try await store.recordEnded(WebhookFixtures.ended("nope", "x", at: now + 3)) == nil)
            #expect(try await store.recordViewers(room: "42", sessionID: "old", viewers: 1, at: now + 3) == nil)
            #expect(try await OutboxStoreFactory.events(store, after: 0, limit: 100, atLeast: 3).count == 3)
            let state = try #require(try await store.streamState(room: "42"))
            #expect(state.live && state.generation == 2 && state.sequence == 3)
        }
    }

    @Test("state change and outbox row are one transaction: a failing event insert leaves the stream row as it was", arguments: OutboxKind.allCases)
    func oneTransaction(_ kind: OutboxKind) async throws {
        try await OutboxStoreFactory.with(kind) { stores in
            let store = try await stores.open(Self.schedule)
            _ = try await store.recordStarted(WebhookFixtures.started("42", "pubA", at: now))
            try await stores.refuseEventInserts(store)
            await #expect(throws: (any Error).self) { try await store.recordEnded(WebhookFixtures.ended("42", "pubA", at: self.now + 1)) }
            let state = try #require(try await store.streamState(room: "42"))
            #expect(state.live && state.sequence == 1, "the stream is still live: the end was not half-recorded")
            #expect(try await store.deliveryCounts().isEmpty)
        }
    }

    @Test("deliveries are queued for enabled subscriptions that want the type, in the same transaction", arguments: OutboxKind.allCases)
    func fanOutByEventType(_ kind: OutboxKind) async throws {
        try await OutboxStoreFactory.with(kind) { stores in
            let store = try await stores.open(Self.schedule)
            let all = try await store.createSubscription(url: "http://127.0.0.1:1/a", eventTypes: [], description: nil, now: now)
            let endsOnly = try await store.createSubscription(url: "http://127.0.0.1:1/b", eventTypes: ["stream.ended"],
                                                              description: "chat", now: now)
            #expect(all.eventTypes == StreamEventType.all && endsOnly.eventTypes == ["stream.ended"])
            #expect(all.secret.hasPrefix("whsec_"))
            #expect(try WebhookSecret(all.secret).bytes.count == 32)
            let started = try await store.recordStarted(WebhookFixtures.started("42", "p", at: now))
            #expect(started.subscriptionIDs == [all.id])
            let ended = try #require(try await store.recordEnded(WebhookFixtures.ended("42", "p", at: now + 1)))
            #expect(Set(ended.subscriptionIDs) == [all.id, endsOnly.id])
            let head = try await store.pendingDeliveries(subscription: all.id, limit: 10)
            #expect(head.map(\.eventID) == [started.event.id, ended.event.id])
            #expect(head.map(\.attempts) == [0, 0] && head.map(\.nextAttemptAt) == [now, now + 1], "attempt 1 is due at once (delay 0)")
            #expect(try await store.pendingDeliveries(subscription: endsOnly.id, limit: 10).map(\.eventID) == [ended.event.id])
        }
    }

    @Test("config subscribers: stable ids, updated in place, disabled (pending cancelled) when removed", arguments: OutboxKind.allCases)
    func configSync(_ kind: OutboxKind) async throws {
        try await OutboxStoreFactory.with(kind) { stores in
            let store = try await stores.open(Self.schedule)
            let secret = WebhookSecret.generate().encoded
            let a = RelayConfig.Webhooks.Subscriber(url: "http://127.0.0.1:9/a", secret: secret, events: ["stream.ended"])
            try await store.syncConfigSubscribers([a], now: now)
            let id = WebhookStore.configSubscriptionID(url: a.url)
            #expect(id.hasPrefix("wh_cfg_") && id == WebhookStore.configSubscriptionID(url: a.url))
            _ = try await store.recordStarted(WebhookFixtures.started("42", "p", at: now))
            _ = try await store.recordEnded(WebhookFixtures.ended("42", "p", at: now))
            var changed = a
            changed.events = []
            changed.previousSecret = WebhookSecret.generate().encoded
            try await store.syncConfigSubscribers([changed], now: now + 1)
            let updated = try #require(try await store.subscription(id: id))
            #expect(updated.eventTypes == StreamEventType.all && updated.source == "config")
            #expect(updated.signingSecrets(now: now).count == 2, "previous_secret from the config signs too")
            try await store.syncConfigSubscribers([], now: now + 2)
            let removed = try #require(try await store.subscription(id: id))
            #expect(!removed.enabled && removed.disabledReason == "removed from the config file")
            #expect(try await store.deliveryCounts() == ["cancelled": 1])
        }
    }

    @Test("retention: finished deliveries and events older than the cutoff go; pending ones and their events stay", arguments: OutboxKind.allCases)
    func prune(_ kind: OutboxKind) async throws {
        try await OutboxStoreFactory.with(kind) { stores in
            let store = try await stores.open(Self.schedule)
            let subscription = try await store.createSubscription(url: "http://127.0.0.1:1/", eventTypes: [], description: nil, now: now)
            let old = try await store.recordStarted(WebhookFixtures.started("42", "p", at: now))
            let pending = try #require(try await store.recordEnded(WebhookFixtures.ended("42", "p", at: now + 1)))
            let head = try await store.pendingDeliveries(subscription: subscription.id, limit: 1)[0]
            try await store.recordAttempt(head, at: now + 2, durationMs: 1, result: .response(status: 204, retryAfter: nil),
                                          decision: .delivered)
            let recent = try await store.recordStarted(WebhookFixtures.started("43", "q", at: now + 1_000))
            try await store.prune(before: now + 500)
            let left = try await OutboxStoreFactory.events(store, after: 0, limit: 10, atLeast: 2).map(\.id)
            #expect(left == [pending.event.id, recent.event.id], "\(old.event.id) was delivered and old: pruned")
            #expect(try await store.deliveryCounts() == ["pending": 2])
        }
    }

    @Test("catch-up: events after a sequence, in order, paged", arguments: OutboxKind.allCases)
    func catchUp(_ kind: OutboxKind) async throws {
        try await OutboxStoreFactory.with(kind) { stores in
            let store = try await stores.open(Self.schedule)
            for i in 0..<5 {
                _ = try await store.recordStarted(WebhookFixtures.started("r\(i)", "p", at: now + Double(i)))
            }
            let first = try await OutboxStoreFactory.events(store, after: 0, limit: 3, atLeast: 3)
            #expect(first.map(\.room) == ["r0", "r1", "r2"])
            let rest = try await OutboxStoreFactory.events(store, after: first.last!.seq, limit: 3, atLeast: 2)
            #expect(rest.map(\.room) == ["r3", "r4"])
            #expect(try await store.events(after: rest.last!.seq, limit: 3).isEmpty)
        }
    }

    @Test("restart after a crash: streams left live end with relay_shutdown, in the next generation's sequence", arguments: OutboxKind.allCases)
    func crashRecovery(_ kind: OutboxKind) async throws {
        try await OutboxStoreFactory.with(kind) { stores in
            do {
                let store = try await stores.open(Self.schedule)
                _ = try await store.createSubscription(url: "http://127.0.0.1:1/", eventTypes: [], description: nil, now: now)
                _ = try await store.recordStarted(WebhookFixtures.started("42", "pubA", at: now))
                _ = try await store.recordViewers(room: "42", sessionID: "pubA", viewers: 4, at: now + 1)
                _ = try await store.recordStarted(WebhookFixtures.started("43", "pubB", at: now))
                _ = try await store.recordEnded(WebhookFixtures.ended("43", "pubB", at: now + 2))
            }  // the store is closed here, as a crash would leave the file
            let reopened = try await stores.open(Self.schedule)
            let recovered = try await reopened.endStreamsLeftLive(now: now + 100)
            #expect(recovered.map(\.event.room) == ["42"])
            let payload = try StreamEvent.decode(recovered[0].event.body)
            #expect(payload.type == "stream.ended" && payload.data.reason == "relay_shutdown")
            #expect(payload.data.generation == 1 && payload.data.sequence == 3 && payload.data.sessionID == "pubA")
            #expect(payload.data.durationSeconds == 100 && payload.data.peakViewers == 4 && payload.data.bytesIn == nil)
            #expect(recovered[0].subscriptionIDs.count == 1)
            #expect(try await reopened.endStreamsLeftLive(now: now + 200).isEmpty, "recovered once only")
            #expect(try await reopened.deliveryCounts() == ["pending": 5])
        }
    }
}
