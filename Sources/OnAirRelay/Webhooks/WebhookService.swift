import Foundation
import Logging
import OnAirPostgres
import ServiceLifecycle

/// Stream lifecycle webhooks as one service: the store, the recorder that turns the engine's
/// lifecycle calls into outbox rows, and the dispatcher that delivers them.
///
/// Put it FIRST in the ServiceGroup: services shut down in reverse order, so the media plane
/// has ended every stream (`relay_shutdown`) before this service drains and stops.
public struct WebhookService: Service, CustomStringConvertible {
    public let store: any WebhookOutboxStore
    public let dispatcher: WebhookDispatcher
    /// Set as the engine's `lifecycleObserver`.
    public let observer: WebhookLifecycleObserver
    let poster: WebhookPoster
    let inbox: LifecycleInbox
    let config: RelayConfig.Webhooks
    let logger: Logger

    /// With a PostgreSQL database: the pool, the other relays and this relay's rooms.
    let shared: Shared?

    struct Shared: Sendable {
        let database: SharedDatabase
        let store: PostgresWebhookStore
        let peers: RelayPeers
        let pool: Task<Void, Never>
    }

    /// Opens the store, syncs the config subscribers and ends the streams that a crash of the
    /// previous run left marked live. Call before the engine can start a stream. With a
    /// PostgreSQL URL, `relayID` (the public URL) names this relay to the others; an
    /// unreachable server or a refused login fails here in one line.
    public static func open(config: RelayConfig.Webhooks, relayID: String? = nil, logger: Logger) async throws -> WebhookService {
        let schedule = RetrySchedule(delays: config.retryScheduleSeconds, jitter: config.retryJitter)
        let store: any WebhookOutboxStore
        var shared: Shared?
        switch try DatabaseLocation(parsing: config.database) {
        case .sqlite(let path):
            store = try WebhookStore(path: path, schedule: schedule)
        case .postgres(let url):
            guard let relayID else { throw SharedDatabaseError(.refused, "a relay on PostgreSQL needs http.public_url") }
            let database = try SharedDatabase(url: url, logger: logger)
            try await database.checkReachable()
            let pool = Task { await database.run() }
            do {
                let postgres = try await PostgresWebhookStore(database: database, relayID: relayID, schedule: schedule)
                shared = Shared(database: database, store: postgres, peers: RelayPeers(database: database, logger: logger), pool: pool)
                store = postgres
            } catch {
                pool.cancel()
                throw error
            }
        }
        let now = Date().timeIntervalSince1970
        try await store.syncConfigSubscribers(config.subscribers, now: now)
        for recorded in try await store.endStreamsLeftLive(now: now) {
            logger.warning("stream of room \(recorded.event.room) was still live after a crash: stream.ended (relay_shutdown) queued",
                           metadata: ["room": "\(recorded.event.room)", "event": "\(recorded.event.id)"])
        }
        return WebhookService(store: store, config: config, logger: logger, shared: shared)
    }

    /// A service over an open store (tests and the benchmark open their own).
    public init(store: any WebhookOutboxStore, config: RelayConfig.Webhooks, logger: Logger) {
        self.init(store: store, config: config, logger: logger, shared: nil)
    }

    init(store: any WebhookOutboxStore, config: RelayConfig.Webhooks, logger: Logger, shared: Shared?) {
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
        self.shared = shared
    }

    /// The room directory shared with the other relays (nil with SQLite: one relay).
    public var roomDirectory: PostgresWebhookStore? { shared?.store }

    /// ServiceLifecycle logs services by their description: never the config (it holds secrets).
    public var description: String { "WebhookService(\(config.subscribers.count) config subscriber(s), \(config.database))" }

    public func run() async throws {
        var cluster: Task<Void, Never>?
        if let shared {
            await dispatcher.setPeers { [peers = shared.peers] in peers.announce($0) }
            cluster = Task { [dispatcher, logger] in
                await withDiscardingTaskGroup { group in
                    group.addTask { await shared.peers.run(waking: dispatcher) }
                    group.addTask { await Self.keepRooms(shared.store, dispatcher: dispatcher, logger: logger) }
                }
            }
        }
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
        cluster?.cancel()
        await cluster?.value
        await poster.shutdown()
        shared?.pool.cancel()
        logger.info("webhooks stopped")
    }

    /// Renews this relay's rooms in the directory, and ends the streams of relays whose room
    /// leases ran out (`relay_lost`), waking the lanes that must deliver those ends.
    static func keepRooms(_ store: PostgresWebhookStore, dispatcher: WebhookDispatcher, logger: Logger) async {
        while !Task.isCancelled {
            do {
                try await store.renewRooms()
                let lost = try await store.endLostStreams(now: Date().timeIntervalSince1970)
                for recorded in lost {
                    logger.warning("room \(recorded.event.room): its relay is gone (lease expired): stream.ended (relay_lost) queued",
                                   metadata: ["room": "\(recorded.event.room)", "event": "\(recorded.event.id)"])
                }
                let woken = Set(lost.flatMap(\.subscriptionIDs))
                if !woken.isEmpty { await dispatcher.wake(woken.sorted()) }
            } catch {
                logger.warning("room directory: \(error)")
            }
            try? await Task.sleep(for: PostgresWebhookStore.roomRenewal)
        }
    }
}
