import Foundation
import Logging
import OnAirWebhooks
import OnAirTestSupport
import ServiceLifecycle
import Testing
@testable import OnAirRelay

/// The whole webhook service as the relay runs it: engine observer calls in, signed
/// deliveries out, and a graceful shutdown that still delivers the last `stream.ended`.
@Suite("Webhooks: service")
struct WebhooksServiceTests {
    @Test("observer → outbox → delivery; viewer updates rate-limited; shutdown drains the final stream.ended", arguments: OutboxKind.allCases)
    func observerToReceiver(_ kind: OutboxKind) async throws {
        let receiver = WebhookTestReceiver()
        try await receiver.serve { url in
            var config = RelayConfig.Webhooks()
            config.database = kind == .sqlite ? ":memory:" : try await ThrowawayPostgres.database()
            config.viewersIntervalSeconds = 1
            let secret = WebhookSecret.generate().encoded
            config.subscribers = [.init(url: url, secret: secret)]
            let service = try await WebhookService.open(config: config, relayID: "http://relay-a.test", logger: WebhookFixtures.quietLogger)
            let group = ServiceGroup(configuration: .init(services: [.init(service: service)], logger: WebhookFixtures.quietLogger))
            let running = Task { try await group.run() }

            let observer = service.observer
            observer.streamStarted(WebhookFixtures.started("42", "pub"))
            for viewers in 1...5 { observer.viewersChanged(room: "42", sessionID: "pub", viewers: viewers) }
            #expect(await receiver.waitFor(count: 3, timeout: 5), "started, viewers=1, then viewers=5 after the interval")
            observer.streamEnded(WebhookFixtures.ended("42", "pub", .publisherTimeout))
            await group.triggerGracefulShutdown()
            try await running.value

            let events = try await receiver.received.map { try StreamEvent.decode($0.body) }
            #expect(events.map(\.type) == ["stream.started", "stream.viewers", "stream.viewers", "stream.ended"])
            #expect(events.map(\.data.viewers) == [nil, 1, 5, nil])
            #expect(events.map(\.data.sequence) == [1, 2, 3, 4] && Set(events.map(\.data.generation)) == [1])
            #expect(events.last?.data.reason == "publisher_timeout" && events.last?.data.peakViewers == 5)
            for got in await receiver.received {
                try WebhookSignature.verify(id: got.id, timestamp: got.timestamp, signatureHeader: got.signature,
                                            body: got.body, secrets: [try WebhookSecret(secret)])
            }
        }
    }
}
