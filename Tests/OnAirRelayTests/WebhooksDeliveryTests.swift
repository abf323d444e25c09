import Foundation
import OnAirWebhooks
import Testing
@testable import OnAirRelay

/// The dispatcher against a real HTTP receiver on 127.0.0.1: what it sends verifies, the
/// receiver's answers steer it (410, Retry-After, failures), order holds per subscriber, and
/// pending deliveries survive closing and reopening the database file.
@Suite("Webhooks: delivery", .serialized)
struct WebhooksDeliveryTests {
    /// Short delays so retries happen within the test; no jitter so timings are exact.
    static let fast = RetrySchedule(delays: [0, 0.2, 0.2, 0.2], jitter: 0)

    @Test("what the dispatcher sends verifies with both secrets during rotation, and carries the stored body", arguments: OutboxKind.allCases)
    func signedDeliveries(_ kind: OutboxKind) async throws {
        try await OutboxStoreFactory.with(kind) { stores in
            let receiver = WebhookTestReceiver()
            try await receiver.serve { url in
                let store = try await stores.open(Self.fast)
                let created = try await store.createSubscription(url: url, eventTypes: [], description: nil, now: 0)
                let rotated = try #require(try await store.rotateSecret(id: created.id, now: Date().timeIntervalSince1970))
                let running = WebhookFixtures.dispatcher(store)
                try await running.0.start()
                let started = try await store.recordStarted(WebhookFixtures.started("42", "pub"))
                await running.0.wake(started.subscriptionIDs)
                #expect(await receiver.waitFor(count: 1))
                await WebhookFixtures.stop(running)

                let got = try #require(await receiver.received.first)
                #expect(got.id == started.event.id && got.body == started.event.body)
                #expect(got.contentType == "application/json")
                #expect(got.signature.split(separator: " ").count == 2, "current and previous secret")
                let age = Date().timeIntervalSince1970 - Double(got.timestamp)!
                #expect(age >= 0 && age < 5)
                for secret in [rotated.secret, created.secret] {
                    try WebhookSignature.verify(id: got.id, timestamp: got.timestamp, signatureHeader: got.signature,
                                                body: got.body, secrets: [try WebhookSecret(secret)])
                }
                #expect(throws: WebhookVerificationError.badSignature) {
                    try WebhookSignature.verify(id: got.id, timestamp: got.timestamp, signatureHeader: got.signature,
                                                body: got.body, secrets: [WebhookSecret.generate()])
                }
                let log = try await store.deliveries(subscription: created.id, limit: 10)
                #expect(log.count == 1 && log[0].state == "delivered" && log[0].attempts == 1)
                #expect(log[0].attemptLog.map(\.status) == [200])
            }
        }
    }

    @Test("per-subscriber order: the next event waits until the head is delivered", arguments: OutboxKind.allCases)
    func ordering(_ kind: OutboxKind) async throws {
        try await OutboxStoreFactory.with(kind) { stores in
            let receiver = WebhookTestReceiver()
            try await receiver.serve { url in
                let store = try await stores.open(Self.fast)
                let subscription = try await store.createSubscription(url: url, eventTypes: [], description: nil, now: 0)
                let started = try await store.recordStarted(WebhookFixtures.started("42", "pub"))
                let viewers = try #require(try await store.recordViewers(room: "42", sessionID: "pub", viewers: 2,
                                                                        at: Date().timeIntervalSince1970))
                let ended = try #require(try await store.recordEnded(WebhookFixtures.ended("42", "pub")))
                // The first event is refused twice (503) before it is taken.
                await receiver.setPlan { id, arrival in (id == started.event.id && arrival <= 2) ? (503, nil) : (200, nil) }
                let running = WebhookFixtures.dispatcher(store)
                try await running.0.start()
                #expect(await receiver.waitFor(count: 5))
                try await Task.sleep(for: .milliseconds(300))
                await WebhookFixtures.stop(running)
                #expect(await receiver.ids == [started.event.id, started.event.id, started.event.id, viewers.event.id, ended.event.id])
                let log = try await store.deliveries(subscription: subscription.id, limit: 10)
                #expect(log.map(\.state) == ["delivered", "delivered", "delivered"])
                #expect(log.last?.attemptLog.map(\.status) == [503, 503, 200])
                let gaps = await receiver.received.map(\.at)
                #expect(gaps[1] - gaps[0] >= 0.19 && gaps[2] - gaps[1] >= 0.19, "retries follow the schedule")
            }
        }
    }

    @Test("a lane longer than one batch: every event exactly once, in outbox order, all logged", arguments: OutboxKind.allCases)
    func manyBatches(_ kind: OutboxKind) async throws {
        try await OutboxStoreFactory.with(kind) { stores in
            let receiver = WebhookTestReceiver()
            try await receiver.serve { url in
                let store = try await stores.open(Self.fast)
                let subscription = try await store.createSubscription(url: url, eventTypes: [], description: nil, now: 0)
                var expected: [String] = []
                for i in 0..<(SubscriberLane.batchSize * 3 + 5) {
                    expected.append(try await store.recordStarted(WebhookFixtures.started("r\(i)", "p")).event.id)
                }
                let running = WebhookFixtures.dispatcher(store)
                try await running.0.start()
                #expect(await receiver.waitFor(count: expected.count))
                await WebhookFixtures.stop(running)
                #expect(await receiver.ids == expected)
                #expect(try await store.deliveryCounts() == ["delivered": expected.count])
                #expect(try await store.deliveries(subscription: subscription.id, limit: 500).allSatisfy { $0.attemptLog.count == 1 })
            }
        }
    }

    @Test("410 Gone disables the subscription and cancels the rest of its lane; other subscribers go on", arguments: OutboxKind.allCases)
    func goneDisables(_ kind: OutboxKind) async throws {
        try await OutboxStoreFactory.with(kind) { stores in
            let receiver = WebhookTestReceiver(plan: { _, _ in (410, nil) })
            let healthy = WebhookTestReceiver()
            try await receiver.serve { goneURL in
                try await healthy.serve { okURL in
                    let store = try await stores.open(Self.fast)
                    let gone = try await store.createSubscription(url: goneURL, eventTypes: [], description: nil, now: 0)
                    let ok = try await store.createSubscription(url: okURL, eventTypes: [], description: nil, now: 0)
                    _ = try await store.recordStarted(WebhookFixtures.started("42", "pub"))
                    _ = try await store.recordEnded(WebhookFixtures.ended("42", "pub"))
                    let running = WebhookFixtures.dispatcher(store)
                    try await running.0.start()
                    #expect(await healthy.waitFor(count: 2))
                    try await Task.sleep(for: .milliseconds(500))
                    let later = try await store.recordStarted(WebhookFixtures.started("42", "pub2"))
                    await running.0.wake(later.subscriptionIDs)
                    #expect(await healthy.waitFor(count: 3))
                    await WebhookFixtures.stop(running)
                    #expect(await receiver.received.count == 1, "nothing more after 410")
                    #expect(later.subscriptionIDs == [ok.id], "no deliveries are queued for a disabled subscription")
                    let disabled = try #require(try await store.subscription(id: gone.id))
                    #expect(!disabled.enabled && disabled.disabledReason == "the subscriber answered 410 Gone")
                    let log = try await store.deliveries(subscription: gone.id, limit: 10)
                    #expect(log.map(\.state) == ["cancelled", "failed"])
                }
            }
        }
    }

    @Test("429 with Retry-After: the next attempt waits as long as the receiver asked", arguments: OutboxKind.allCases)
    func retryAfterHonoured(_ kind: OutboxKind) async throws {
        try await OutboxStoreFactory.with(kind) { stores in
            let receiver = WebhookTestReceiver(plan: { _, arrival in arrival == 1 ? (429, "1") : (200, nil) })
            try await receiver.serve { url in
                let store = try await stores.open(Self.fast)
                let subscription = try await store.createSubscription(url: url, eventTypes: [], description: nil, now: 0)
                _ = try await store.recordStarted(WebhookFixtures.started("42", "pub"))
                let running = WebhookFixtures.dispatcher(store)
                try await running.0.start()
                #expect(await receiver.waitFor(count: 2, timeout: 5))
                await WebhookFixtures.stop(running)
                let times = await receiver.received.map(\.at)
                #expect(times[1] - times[0] >= 0.95, "waited \(times[1] - times[0]) s; the schedule alone says 0.2 s")
                #expect(times[1] - times[0] < 2)
                let log = try await store.deliveries(subscription: subscription.id, limit: 1)
                #expect(log[0].attemptLog.map(\.status) == [429, 200] && log[0].state == "delivered")
            }
        }
    }

    @Test("a failed delivery can be redelivered by hand: a new delivery of the same event (same webhook-id)", arguments: OutboxKind.allCases)
    func manualRedelivery(_ kind: OutboxKind) async throws {
        try await OutboxStoreFactory.with(kind) { stores in
            let receiver = WebhookTestReceiver(plan: { _, _ in (500, nil) })
            try await receiver.serve { url in
                let store = try await stores.open(RetrySchedule(delays: [0], jitter: 0))
                let subscription = try await store.createSubscription(url: url, eventTypes: [], description: nil, now: 0)
                let started = try await store.recordStarted(WebhookFixtures.started("42", "pub"))
                let running = WebhookFixtures.dispatcher(store)
                try await running.0.start()
                #expect(await receiver.waitFor(count: 1))
                try await Task.sleep(for: .milliseconds(100))
                let failed = try await store.deliveries(subscription: subscription.id, limit: 10)
                #expect(failed.map(\.state) == ["failed"] && failed[0].lastError == "HTTP 500; gave up after 1 attempts")
                await receiver.setPlan { _, _ in (200, nil) }
                let queued = try #require(try await store.redeliver(subscription: subscription.id, delivery: failed[0].id,
                                                                    now: Date().timeIntervalSince1970))
                #expect(queued.redeliveryOf == failed[0].id && queued.state == "pending" && queued.eventID == started.event.id)
                #expect(try await store.redeliver(subscription: "wh_other", delivery: failed[0].id, now: 0) == nil)
                await running.0.wake([subscription.id])
                #expect(await receiver.waitFor(count: 2))
                try await Task.sleep(for: .milliseconds(100))
                await WebhookFixtures.stop(running)
                #expect(await receiver.ids == [started.event.id, started.event.id])
                let log = try await store.deliveries(subscription: subscription.id, limit: 10)
                #expect(log.map(\.state) == ["delivered", "failed"])
            }
        }
    }

    @Test("restart: deliveries pending when the store was closed go out from the reopened file, crash-left streams end", arguments: OutboxKind.allCases)
    func restartRecovery(_ kind: OutboxKind) async throws {
        try await OutboxStoreFactory.with(kind) { stores in
            let receiver = WebhookTestReceiver(plan: { _, _ in (503, nil) })  // the receiver is "down"
            try await receiver.serve { url in
                var expected: [String] = []
                do {
                    let store = try await stores.open(RetrySchedule(delays: [0, 0.1, 0.1, 0.5, 0.5], jitter: 0))
                    _ = try await store.createSubscription(url: url, eventTypes: [], description: nil, now: 0)
                    expected.append(try await store.recordStarted(WebhookFixtures.started("42", "pub")).event.id)
                    expected.append(try await store.recordStarted(WebhookFixtures.started("43", "pub2")).event.id)
                    expected.append(try #require(try await store.recordEnded(WebhookFixtures.ended("43", "pub2"))).event.id)
                    let running = WebhookFixtures.dispatcher(store)
                    try await running.0.start()
                    #expect(await receiver.waitFor(count: 3))  // three failed attempts of the head, the 4th is 0.5 s away
                    await WebhookFixtures.stop(running)  // the relay goes away with everything pending
                    #expect(try await store.deliveryCounts() == ["pending": 3])
                }
                await receiver.setPlan { _, _ in (200, nil) }
                // The next run: same file. Room 42 was left live, so it ends with relay_shutdown.
                let store = try await stores.open(RetrySchedule(delays: [0, 0.1, 0.1, 0.5, 0.5], jitter: 0))
                let recovered = try await store.endStreamsLeftLive(now: Date().timeIntervalSince1970)
                expected.append(try #require(recovered.first).event.id)
                let running = WebhookFixtures.dispatcher(store)
                try await running.0.start()
                #expect(await receiver.waitFor(count: 3 + 4))
                try await Task.sleep(for: .milliseconds(100))
                await WebhookFixtures.stop(running)
                let delivered = await receiver.received.dropFirst(3).map(\.id)
                #expect(delivered == expected, "every event once, in outbox order")
                #expect(try await store.deliveryCounts() == ["delivered": 4])
                let last = try StreamEvent.decode(await receiver.received.last!.body)
                #expect(last.type == "stream.ended" && last.data.reason == "relay_shutdown" && last.data.room == "42")
            }
        }
    }
}
