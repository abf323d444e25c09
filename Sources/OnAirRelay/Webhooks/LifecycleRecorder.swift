import Foundation
import Logging

/// Writes lifecycle changes to the store one at a time, in order, then wakes the lanes of
/// the subscriptions that got deliveries.
struct LifecycleRecorder: Sendable {
    let store: WebhookStore
    let dispatcher: WebhookDispatcher
    let viewersInterval: Double
    let logger: Logger

    /// Runs until the message stream finishes.
    func run(_ messages: AsyncStream<LifecycleMessage>) async {
        var throttle = ViewerUpdateThrottle(interval: viewersInterval)
        for await message in messages {
            switch message {
            case .started(let started):
                throttle.reset(room: started.room)
                await record("stream.started", room: started.room) { try await store.recordStarted(started) }
            case .ended(let ended):
                throttle.reset(room: ended.room)
                await record("stream.ended", room: ended.room) { try await store.recordEnded(ended) }
            case .viewers(let room, let sessionID, let viewers, let at):
                if let update = throttle.changed(room: room, sessionID: sessionID, viewers: viewers, now: at) {
                    await recordViewers(update, at: at)
                }
            case .tick(let now):
                for update in throttle.due(now: now) { await recordViewers(update, at: now) }
            }
        }
    }

    private func recordViewers(_ update: ViewerUpdateThrottle.Update, at: Double) async {
        await record("stream.viewers", room: update.room) {
            try await store.recordViewers(room: update.room, sessionID: update.sessionID, viewers: update.viewers, at: at)
        }
    }

    /// A failed write is retried a few times (a busy or briefly full disk), then logged: the
    /// change is lost for webhooks, but a crash-style `relay_shutdown` end still follows at
    /// the next start if the stream stayed marked live.
    private func record(_ what: String, room: String, _ write: @Sendable () async throws -> RecordedEvent?) async {
        for attempt in 1...3 {
            do {
                guard let recorded = try await write() else {
                    logger.debug("\(what) not recorded: that session is not the live one", metadata: ["room": "\(room)"])
                    return
                }
                logger.info("\(what) queued", metadata: ["room": "\(room)", "event": "\(recorded.event.id)",
                                                         "generation": "\(recorded.event.generation)",
                                                         "subscribers": "\(recorded.subscriptionIDs.count)"])
                await dispatcher.wake(recorded.subscriptionIDs)
                return
            } catch {
                logger.error("could not record \(what) (attempt \(attempt) of 3): \(error)", metadata: ["room": "\(room)"])
                try? await Task.sleep(for: .milliseconds(100 * attempt))
            }
        }
    }
}
