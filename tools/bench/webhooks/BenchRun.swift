import Foundation
import Logging
import OnAirForwarding
import OnAirRelay
import OnAirWebhooks
import ServiceLifecycle

/// One scenario: a WebhookService on a fresh database file with `subscribers` subscriptions
/// to the receiver, running in its own ServiceGroup, shut down (and the file removed) after.
enum BenchRun {
    static func with(url: String, secret: WebhookSecret, subscribers: Int, logger: Logger,
                     _ body: (WebhookLifecycleObserver) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("webhooks-bench-\(UUID().uuidString).sqlite").path
        var config = RelayConfig.Webhooks()
        config.database = path
        config.subscribers = (0..<subscribers).map { .init(url: url + "?subscriber=\($0)", secret: secret.encoded) }
        let service = try await WebhookService.open(config: config, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [service], logger: logger))
        let running = Task { try await group.run() }
        try await body(service.observer)
        await group.triggerGracefulShutdown()
        try await running.value
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    static func waitUntil(_ condition: @Sendable () -> Bool, timeout: Double) async -> Bool {
        let deadline = Monotonic.seconds() + timeout
        while !condition() {
            if Monotonic.seconds() > deadline { return false }
            try? await Task.sleep(for: .microseconds(200))
        }
        return true
    }

    static func started(_ room: String) -> StreamStarted {
        StreamStarted(room: room, session: "s-" + room, codecs: ["video/H264/90000", "audio/opus/48000/2"],
                      at: Date().timeIntervalSince1970)
    }

    static func ended(_ room: String) -> StreamEnded {
        StreamEnded(room: room, session: "s-" + room, reason: .publisherDeleted, durationSeconds: 61.5,
                    bytesIn: 45_000_000, bytesOut: 900_000_000, peakViewers: 20, at: Date().timeIntervalSince1970)
    }
}
