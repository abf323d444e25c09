import Foundation
import Logging
import Synchronization

/// One subscriber's delivery loop. Deliveries go out strictly in outbox order: the head of
/// the lane must be delivered (or given up) before the next is tried, so a subscriber never
/// sees `stream.ended` before the `stream.started` it ends. Woken by its ``Doorbell`` when a
/// delivery is queued; sleeps until the head's retry time otherwise.
final class SubscriberLane: Sendable {
    let subscriptionID: String
    let store: any WebhookOutboxStore
    let poster: WebhookPoster
    let policy: DeliveryPolicy
    let logger: Logger
    /// Deliveries fetched per read of the lane's head.
    static let batchSize = 64
    /// An idle lane looks at the store this often even without a ring (belt and braces).
    static let idleRecheck: Duration = .seconds(60)
    /// A lane another relay holds is tried again this often (a dead holder's lease runs out).
    static let claimRetry: Duration = .seconds(2)

    private let doorbell = Doorbell()
    private struct Progress {
        var rings: UInt64 = 0
        var ringsSeen: UInt64 = 0
        var idle = false
        var finished = false
    }
    private let progress = Mutex(Progress())

    init(subscriptionID: String, store: any WebhookOutboxStore, poster: WebhookPoster, policy: DeliveryPolicy, logger: Logger) {
        self.subscriptionID = subscriptionID
        self.store = store
        self.poster = poster
        self.policy = policy
        self.logger = logger
    }

    /// Something was queued for this subscriber (or changed): look again.
    func ring() {
        progress.withLock { $0.rings += 1 }
        doorbell.ring()
    }

    /// Nothing is due and every ring has been looked at (for the shutdown drain).
    var isSettled: Bool { progress.withLock { $0.finished || ($0.idle && $0.ringsSeen == $0.rings) } }

    var isFinished: Bool { progress.withLock { $0.finished } }

    /// Runs until cancelled, or until the subscription is deleted or disabled.
    ///
    /// Outcomes are written to the store once per batch (one transaction), not once per
    /// POST: a failed head is written at once (its retry time decides what comes next), and
    /// everything is written before the store is read again, so nothing is sent twice by the
    /// lane itself. A crash can lose at most one batch of "delivered" marks: those events go
    /// out again after the restart (at-least-once; receivers dedupe by webhook-id).
    func run() async {
        defer { progress.withLock { $0.finished = true } }
        while !Task.isCancelled {
            progress.withLock {
                $0.ringsSeen = $0.rings
                $0.idle = false  // busy until it has looked at the store again
            }
            var outcomes: [AttemptOutcome] = []
            var waitUntil: Double?  // nil: idle; 0: go on at once; else the head's retry time
            var storeFailed = false
            do {
                guard let subscription = try await store.subscription(id: subscriptionID), subscription.enabled else {
                    logger.info("webhook lane stopped: subscription deleted or disabled", metadata: ["subscription": "\(subscriptionID)"])
                    return
                }
                guard try await store.claimLane(subscriptionID) else {
                    // Another relay delivers this lane now; look again soon (it may die).
                    progress.withLock { $0.idle = true }
                    await doorbell.wait(timeout: Self.claimRetry)
                    continue
                }
                let batch = try await store.pendingDeliveries(subscription: subscriptionID, limit: Self.batchSize)
                waitUntil = batch.isEmpty ? nil : 0
                for delivery in batch {
                    guard !Task.isCancelled else { break }
                    if delivery.nextAttemptAt > Date().timeIntervalSince1970 {
                        waitUntil = delivery.nextAttemptAt
                        break
                    }
                    let outcome = try await attempt(delivery, to: subscription)
                    outcomes.append(outcome)
                    if outcome.decision != .delivered { break }  // the head stays blocked: read it again
                }
            } catch is CancellationError {
                // shutting down: write what went out, below, then stop
            } catch {
                storeFailed = true
                logger.error("webhook lane: store error, retrying in 1 s: \(error)", metadata: ["subscription": "\(subscriptionID)"])
            }
            if !outcomes.isEmpty {
                do {
                    try await record(outcomes)
                } catch {
                    storeFailed = true
                    logger.error("webhook lane: could not log \(outcomes.count) attempt(s): \(error)",
                                 metadata: ["subscription": "\(subscriptionID)"])
                }
            }
            if Task.isCancelled { return }
            if storeFailed {
                await doorbell.wait(timeout: .seconds(1))
                continue
            }
            if waitUntil == 0 { continue }  // the batch went out, or its head just changed
            progress.withLock { $0.idle = true }
            let timeout = waitUntil.map { Duration.milliseconds(Int64(max(0, $0 - Date().timeIntervalSince1970) * 1000) + 1) }
            await doorbell.wait(timeout: timeout.map { min($0, Self.idleRecheck) } ?? Self.idleRecheck)
        }
    }

    /// Writes outcomes in one transaction. Not cancellable: once POSTs got their answers, the
    /// outcomes are written even during shutdown, so delivered events are not sent again.
    private func record(_ outcomes: [AttemptOutcome]) async throws {
        try await Task { [store] in try await store.recordAttempts(outcomes) }.value
    }

    /// One signed POST and its consequence (logged; written to the store by the caller).
    private func attempt(_ delivery: PendingDelivery, to subscription: WebhookSubscription) async throws -> AttemptOutcome {
        let start = Date().timeIntervalSince1970
        let headers = WebhookPoster.headers(eventID: delivery.eventID, body: delivery.body,
                                            secrets: subscription.signingSecrets(now: start), now: start)
        let clock = ContinuousClock.now
        let result = await poster.post(url: subscription.url, headers: headers, body: delivery.body)
        if Task.isCancelled, case .failed = result {
            throw CancellationError()  // cut off by shutdown: not an attempt, the delivery stays as it was
        }
        let elapsed = ContinuousClock.now - clock
        let durationMs = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        let now = Date().timeIntervalSince1970
        let decision = policy.decide(result, attempts: delivery.attempts + 1, now: now, random: .random(in: 0..<1))
        let metadata: Logger.Metadata = ["subscription": "\(subscriptionID)", "event": "\(delivery.eventID)",
                                         "attempt": "\(delivery.attempts + 1)"]
        switch decision {
        case .delivered:
            logger.debug("webhook delivered", metadata: metadata)
        case .retry(let at, let reason):
            logger.warning("webhook attempt failed (\(reason)); next in \(Int(at - now)) s", metadata: metadata)
        case .giveUp(let reason):
            logger.error("webhook delivery given up: \(reason)", metadata: metadata)
        case .disable(let reason):
            logger.error("webhook subscription disabled: \(reason)", metadata: metadata)
        }
        return AttemptOutcome(delivery: delivery, at: start, durationMs: durationMs, result: result, decision: decision)
    }
}
