import Foundation
import Logging
import ServiceLifecycle

/// Stream lifecycle webhooks as one service: the store, the recorder that turns the engine's
/// lifecycle calls into outbox rows, and the dispatcher that delivers them.
///
/// Put it FIRST in the ServiceGroup: services shut down in reverse order, so the media plane
/// has ended every stream (`relay_shutdown`) before this service drains and stops.
public struct WebhookService: Service, CustomStringConvertible {
    public let store: WebhookStore
    public let dispatcher: WebhookDispatcher
    /// Set as the engine's `lifecycleObserver`.
    public let observer: WebhookLifecycleObserver
    let poster: WebhookPoster
    let inbox: LifecycleInbox
    let config: RelayConfig.Webhooks
    let logger: Logger

    /// Opens the store, syncs the config subscribers and ends the streams that a crash of the
    /// previous run left marked live. Call before the engine can start a stream.
    public static func open(config: RelayConfig.Webhooks, logger: Logger) async throws -> WebhookService {
        let schedule = RetrySchedule(delays: config.retryScheduleSeconds, jitter: config.retryJitter)
        let store = try WebhookStore(path: config.database, schedule: schedule)
        let now = Date().timeIntervalSince1970
        try await store.syncConfigSubscribers(config.subscribers, now: now)
        for recorded in try await store.endStreamsLeftLive(now: now) {
            logger.warning("stream of room \(recorded.event.room) was still live after a crash: stream.ended (relay_shutdown) queued",
                           metadata: ["room": "\(recorded.event.room)", "event": "\(recorded.event.id)"])
        }
        return WebhookService(store: store, config: config, logger: logger)
    }

    /// A service over an open store (tests and the benchmark open their own).
    public init(store: WebhookStore, config: RelayConfig.Webhooks, logger: Logger) {
        let inbox = LifecycleInbox()
        let poster = WebhookPoster(timeoutSeconds: config.timeoutSeconds)
        self.store = store
        self.poster = poster
        self.dispatcher = WebhookDispatcher(store: store, poster: poster, policy: DeliveryPolicy(schedule: store.schedule),
                                            logger: logger)
        self.observer = WebhookLifecycleObserver(inbox: inbox)
        self.inbox = inbox
        self.config = config
        self.logger = logger
    }

    /// ServiceLifecycle logs services by their description: never the config (it holds secrets).
    public var description: String { "WebhookService(\(config.subscribers.count) config subscriber(s), \(config.database))" }

    public func run() async throws {
        try await dispatcher.start()
        let recorder = LifecycleRecorder(store: store, dispatcher: dispatcher, viewersInterval: config.viewersIntervalSeconds,
                                         logger: logger)
        let recording = Task { [inbox] in await recorder.run(inbox) }
        let observer = self.observer
        let ticker = Task { [store, logger] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                observer.tick()
                do {
                    try await store.checkpoint()
                } catch is CancellationError {
                    break  // shutting down: SQLite checkpoints the WAL as the last connection closes
                } catch {
                    guard !Task.isCancelled else { break }
                    logger.warning("webhooks: WAL checkpoint failed: \(error)")
                }
            }
        }
        let pruner = Task { [store, config, logger] in
            while !Task.isCancelled {
                do {
                    try await store.prune(before: Date().timeIntervalSince1970 - config.retentionDays * 86_400)
                } catch {
                    logger.warning("webhooks: pruning old deliveries failed: \(error)")
                }
                try? await Task.sleep(for: .seconds(3_600))
            }
        }
        try? await gracefulShutdown()
        ticker.cancel()
        pruner.cancel()
        observer.finish()
        await recording.value  // every change the engine reported is in the outbox now
        await dispatcher.drain(grace: .milliseconds(Int64(config.shutdownGraceSeconds * 1000)))
        await dispatcher.stop()
        await poster.shutdown()
        logger.info("webhooks stopped")
    }
}
