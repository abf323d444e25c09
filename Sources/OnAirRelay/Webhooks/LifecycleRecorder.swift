import Foundation
import Logging

/// Writes lifecycle changes to the store in order, everything that piled up in one
/// transaction, then wakes the lanes of the subscriptions that got deliveries.
struct LifecycleRecorder: Sendable {
    let store: WebhookStore
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
            if !changes.isEmpty { await record(changes) }
        }
    }

    /// A failed write is retried a few times (a busy or briefly full disk), then logged: the
    /// changes are lost for webhooks, but a stream left marked live still gets its
    /// `relay_shutdown` end at the next start.
    private func record(_ changes: [LifecycleChange]) async {
        for attempt in 1...3 {
            do {
                let recorded = try await store.record(changes)
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
                return
            } catch {
                logger.error("could not record \(changes.count) lifecycle change(s) (attempt \(attempt) of 3): \(error)")
                try? await Task.sleep(for: .milliseconds(100 * attempt))
            }
        }
    }
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
