import Foundation
import Logging

/// Runs one ``SubscriberLane`` per enabled subscription: lanes deliver in parallel with each
/// other, in order within themselves.
public actor WebhookDispatcher {
    let store: any WebhookOutboxStore
    let poster: WebhookPoster
    let policy: DeliveryPolicy
    let logger: Logger
    private var lanes: [String: (lane: SubscriberLane, task: Task<Void, Never>)] = [:]
    private var stopped = false

    public init(store: any WebhookOutboxStore, poster: WebhookPoster, policy: DeliveryPolicy, logger: Logger) {
        self.store = store
        self.poster = poster
        self.policy = policy
        self.logger = logger
    }

    /// Starts a lane for every enabled subscription (pending deliveries of the previous run
    /// go out from here).
    public func start() async throws {
        for subscription in try await store.subscriptions() where subscription.enabled {
            ensureLane(subscription.id).ring()
        }
    }

    /// Tells the other relays on a shared database (their lanes may hold these subscriptions).
    private var peers: (@Sendable ([String]) -> Void)?

    func setPeers(_ announce: @escaping @Sendable ([String]) -> Void) { peers = announce }

    /// New deliveries were queued for these subscriptions, or they were created or re-enabled.
    public func wake(_ subscriptionIDs: [String]) {
        for id in subscriptionIDs { ensureLane(id).ring() }
        peers?(subscriptionIDs)
    }

    /// Another relay queued deliveries for these subscriptions.
    func wakeFromPeer(_ subscriptionIDs: [String]) {
        for id in subscriptionIDs { ensureLane(id).ring() }
    }

    /// Every lane looks at the store again (after notifications may have been missed).
    func wakeAll() async {
        do {
            for subscription in try await store.subscriptions() where subscription.enabled { ensureLane(subscription.id).ring() }
        } catch {
            logger.warning("webhooks: subscriptions not read: \(error)")
        }
    }

    /// The subscription is gone: stop its lane (a delivery in flight is abandoned).
    public func remove(_ subscriptionID: String) {
        lanes.removeValue(forKey: subscriptionID)?.task.cancel()
    }

    /// Waits (at most `grace`) until no lane has anything due, e.g. the `stream.ended` events
    /// of a graceful shutdown. Whatever is left goes out after the next start.
    public func drain(grace: Duration) async {
        for entry in lanes.values { entry.lane.ring() }
        let deadline = ContinuousClock.now + grace
        while ContinuousClock.now < deadline, !Task.isCancelled {
            if lanes.values.allSatisfy({ $0.lane.isSettled }) { return }
            try? await Task.sleep(for: .milliseconds(10))
        }
        logger.warning("webhooks: deliveries still due at shutdown; they go out after the next start")
    }

    /// Stops every lane, waits for them, and gives their claims up to the other relays.
    public func stop() async {
        stopped = true
        let tasks = lanes.values.map(\.task)
        lanes.removeAll()
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        do {
            try await store.releaseLanes()
        } catch {
            logger.warning("webhooks: lanes not released (\(error)); other relays take them when the lease runs out")
        }
    }

    private func ensureLane(_ id: String) -> SubscriberLane {
        if let entry = lanes[id], !entry.lane.isFinished || stopped { return entry.lane }
        let lane = SubscriberLane(subscriptionID: id, store: store, poster: poster, policy: policy, logger: logger)
        if stopped { return lane }  // never started: nothing runs after stop()
        lanes[id] = (lane, Task { await lane.run() })
        return lane
    }
}
