import OnAirForwarding
import OnAirWebhooks

/// The durable side of webhooks: stream state, the outbox, subscriptions and the delivery
/// log. One SQLite file for one relay (``WebhookStore``), or a PostgreSQL database that
/// several relays share (``PostgresWebhookStore``). Every lifecycle change updates its stream
/// row and inserts its event and deliveries in one transaction.
public protocol WebhookOutboxStore: Sendable {
    /// The retry schedule deliveries follow (the first attempt's delay is set on insert).
    var schedule: RetrySchedule { get }

    // MARK: lifecycle and outbox

    /// Records `changes` in order in one transaction; nil for a change that was not recorded
    /// (an end or viewer update of a session that is not the live one).
    func record(_ changes: [LifecycleChange]) async throws -> [RecordedEvent?]
    /// At start-up: this relay's streams still marked live (a crash) each get `stream.ended`.
    func endStreamsLeftLive(now: Double) async throws -> [RecordedEvent]
    /// Outbox events after `seq`, oldest first (catch-up after a subscriber's downtime).
    func events(after seq: Int64, limit: Int) async throws -> [OutboxEvent]
    /// (generation, sequence, live) of `room`.
    func streamState(room: String) async throws -> (generation: Int64, sequence: Int64, live: Bool)?

    // MARK: deliveries

    /// Claims (or renews) this relay's turn to deliver `subscription`'s lane: one relay at a
    /// time delivers a subscriber's events, so they go out in order. False: another relay has it.
    func claimLane(_ subscription: String) async throws -> Bool
    /// Gives this relay's lanes up (graceful stop), so another relay takes them at once.
    func releaseLanes() async throws
    /// This relay's stream in `room` ended at `endedAt`: the room is free for any relay.
    func releaseRoom(_ room: String, endedAt: Double) async throws

    /// The next deliveries of a subscriber's lane, in the order they must go out.
    func pendingDeliveries(subscription: String, limit: Int) async throws -> [PendingDelivery]
    /// Logs attempts and applies their decisions, in order, in one transaction.
    func recordAttempts(_ outcomes: [AttemptOutcome]) async throws
    /// Queues the event of `delivery` again as a new delivery due now.
    func redeliver(subscription: String, delivery: Int64, now: Double) async throws -> DeliveryRecord?
    /// The delivery log of a subscription, newest first.
    func deliveries(subscription: String, limit: Int, before: Int64?, state: String?) async throws -> [DeliveryRecord]
    /// How many deliveries are in each state.
    func deliveryCounts() async throws -> [String: Int]

    // MARK: subscriptions

    func syncConfigSubscribers(_ subscribers: [RelayConfig.Webhooks.Subscriber], now: Double) async throws
    func createSubscription(url: String, eventTypes: [String], description: String?, secret: WebhookSecret?,
                            now: Double) async throws -> WebhookSubscription
    func subscriptions() async throws -> [WebhookSubscription]
    func subscription(id: String) async throws -> WebhookSubscription?
    func deleteSubscription(id: String) async throws -> Bool
    func rotateSecret(id: String, now: Double) async throws -> WebhookSubscription?
    func enableSubscription(id: String) async throws -> WebhookSubscription?

    // MARK: upkeep

    /// Deletes finished deliveries and events older than `cutoff` that nothing pending needs.
    func prune(before cutoff: Double) async throws
    /// Periodic storage upkeep (SQLite: a WAL checkpoint); nothing for PostgreSQL.
    func checkpoint() async throws
}

extension WebhookOutboxStore {
    /// `stream.started`: a new publisher session, so a new generation of the room.
    public func recordStarted(_ started: StreamStarted) async throws -> RecordedEvent {
        try await record([.started(started)])[0]!
    }

    /// `stream.ended` of the live session of the room; nil (nothing recorded) when that session
    /// is not the live one, so a duplicate or stale end never produces a second event.
    public func recordEnded(_ ended: StreamEnded) async throws -> RecordedEvent? {
        try await record([.ended(ended)])[0]
    }

    /// `stream.viewers` for the live session of the room; nil when it is no longer live.
    public func recordViewers(room: String, sessionID: String, viewers: Int, at: Double) async throws -> RecordedEvent? {
        try await record([.viewers(room: room, sessionID: sessionID, viewers: viewers, at: at)])[0]
    }

    /// Logs one attempt and applies its decision. A 410 disables the subscription and cancels
    /// the rest of its lane.
    public func recordAttempt(_ delivery: PendingDelivery, at: Double, durationMs: Double, result: AttemptResult,
                              decision: DeliveryDecision) async throws {
        try await recordAttempts([AttemptOutcome(delivery: delivery, at: at, durationMs: durationMs, result: result,
                                                 decision: decision)])
    }

    func createSubscription(url: String, eventTypes: [String], description: String?, now: Double) async throws
        -> WebhookSubscription
    {
        try await createSubscription(url: url, eventTypes: eventTypes, description: description, secret: nil, now: now)
    }

    func deliveries(subscription: String, limit: Int) async throws -> [DeliveryRecord] {
        try await deliveries(subscription: subscription, limit: limit, before: nil, state: nil)
    }
}

/// One relay on its own file: every lane is its own.
extension WebhookStore: WebhookOutboxStore {
    public func claimLane(_ subscription: String) async throws -> Bool { true }
    public func releaseLanes() async throws {}
    public func releaseRoom(_ room: String, endedAt: Double) async throws {}
}
