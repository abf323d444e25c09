import Foundation
import Logging

/// Writes lifecycle changes to the store in order, everything that piled up in one
/// transaction, then wakes the lanes of the subscriptions that got deliveries.
struct LifecycleRecorder: Sendable {
    let store: any WebhookOutboxStore
    let dispatcher: WebhookDispatcher
    let viewersInterval: Double
    let logger: Logger

    /// Runs until the inbox is finished and empty.
    func run(_ inbox: LifecycleInbox) async {
        var throttle = ViewerUpdateThrottle(interval: viewersInterval)
        while let messages = await inbox.next() {
            var changes: [LifecycleChange] = []
            for message in messages {
                switch message {
                case .started(let started):
                    throttle.reset(room: started.room)
                    changes.append(.started(started))
                case .ended(let ended):
                    throttle.reset(room: ended.room)
                    changes.append(.ended(ended))
                case .viewers(let room, let sessionID, let viewers, let at):
                    if let update = throttle.changed(room: room, sessionID: sessionID, viewers: viewers, now: at) {
                        changes.append(.viewers(room: update.room, sessionID: update.sessionID, viewers: update.viewers, at: at))
                    }
                case .tick(let now):
                    for update in throttle.due(now: now) {
                        changes.append(.viewers(room: update.room, sessionID: update.sessionID, viewers: update.viewers, at: now))
                    }
                }
            }
            if !changes.isEmpty { await record(changes, inbox: inbox) }
            let dropped = inbox.takeDropped()
            if dropped > 0 {
                logger.error("\(dropped) viewer update(s) dropped: \(inbox.capacity) lifecycle changes were already held (database away)")
            }
        }
    }

    /// A failed write (the database away, a full disk) is retried with backoff, holding the
    /// changes in memory meanwhile (later ones wait in the inbox, in order), and logged. At
    /// shutdown the retries stop after ``shutdownRetries``: what is still held is logged as lost
    /// for webhooks (a stream left marked live still gets its `relay_shutdown` end at the next
    /// start).
    private func record(_ changes: [LifecycleChange], inbox: LifecycleInbox) async {
        var attempt = 0
        var backoff = Duration.milliseconds(100)
        while true {
            attempt += 1
            do {
                let recorded = try await store.record(changes)
                if attempt > 1 { logger.notice("recorded \(changes.count) lifecycle change(s) held in memory, after \(attempt) attempts") }
                var woken = Set<String>()
                for (change, event) in zip(changes, recorded) {
                    guard let event else {
                        logger.debug("\(change.type) not recorded: that session is not the live one", metadata: ["room": "\(change.room)"])
                        continue
                    }
                    woken.formUnion(event.subscriptionIDs)
                    let level: Logger.Level = event.event.type == "stream.viewers" ? .debug : .info
                    logger.log(level: level, "\(event.event.type) queued",
                               metadata: ["room": "\(event.event.room)", "event": "\(event.event.id)",
                                          "generation": "\(event.event.generation)",
                                          "subscribers": "\(event.subscriptionIDs.count)"])
                }
                await dispatcher.wake(woken.sorted())
                for case .ended(let ended) in changes {
                    do {
                        try await store.releaseRoom(ended.room, endedAt: ended.at)
                    } catch {
                        logger.warning("room \(ended.room) not released in the directory (its lease runs out instead): \(error)")
                    }
                }
                return
            } catch {
                if inbox.isFinished && attempt >= Self.shutdownRetries {
                    logger.error("shutting down with \(changes.count) lifecycle change(s) not recorded: \(error)")
                    return
                }
                if attempt == 1 || attempt.isMultiple(of: 10) {
                    logger.error("could not record \(changes.count) lifecycle change(s) (attempt \(attempt)); held in memory, retrying: \(error)")
                }
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(2))
            }
        }
    }

    /// Attempts left to a write once the relay is shutting down.
    static let shutdownRetries = 5
}

extension LifecycleChange {
    var type: String {
        switch self {
        case .started: return "stream.started"
        case .ended: return "stream.ended"
        case .viewers: return "stream.viewers"
        }
    }

    var room: String {
        switch self {
        case .started(let started): return started.room
        case .ended(let ended): return ended.room
        case .viewers(let room, _, _, _): return room
        }
    }
}
