import Foundation

/// A lifecycle change on its way from the media plane to the store.
enum LifecycleMessage: Sendable {
    case started(StreamStarted)
    case ended(StreamEnded)
    case viewers(room: String, sessionID: String, viewers: Int, at: Double)
    /// Once a second: time to send held `stream.viewers` updates.
    case tick(Double)
}

/// The engine's ``StreamLifecycleObserver``: called on the engine's event loop, it only
/// appends to an unbounded AsyncStream (no lock held long, no I/O, no await) and returns.
/// The ``LifecycleRecorder`` writes the changes to the store in the order they happened.
public struct WebhookLifecycleObserver: StreamLifecycleObserver {
    let continuation: AsyncStream<LifecycleMessage>.Continuation

    public func streamStarted(_ event: StreamStarted) { continuation.yield(.started(event)) }

    public func streamEnded(_ event: StreamEnded) { continuation.yield(.ended(event)) }

    public func viewersChanged(room: String, sessionID: String, viewers: Int) {
        continuation.yield(.viewers(room: room, sessionID: sessionID, viewers: viewers, at: Date().timeIntervalSince1970))
    }

    func tick() { continuation.yield(.tick(Date().timeIntervalSince1970)) }

    /// No more changes will come (shutdown): the recorder finishes what it has and returns.
    func finish() { continuation.finish() }
}
