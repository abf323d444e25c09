import Foundation
import OnAirForwarding

/// A lifecycle change on its way from the media plane to the store.
enum LifecycleMessage: Sendable {
    case started(StreamStarted)
    case ended(StreamEnded)
    case viewers(room: String, sessionID: String, viewers: Int, at: Double)
    /// Once a second: time to send held `stream.viewers` updates.
    case tick(Double)
}

/// The engine's ``StreamLifecycleObserver``: called on the engine's event loop, it only
/// appends to the ``LifecycleInbox`` (a short lock, no I/O, no await) and returns. The
/// ``LifecycleRecorder`` writes the changes to the store in the order they happened.
public struct WebhookLifecycleObserver: StreamLifecycleObserver {
    let inbox: LifecycleInbox

    public func streamStarted(_ event: StreamStarted) { inbox.post(.started(event)) }

    public func streamEnded(_ event: StreamEnded) { inbox.post(.ended(event)) }

    public func viewersChanged(room: String, sessionID: String, viewers: Int) {
        inbox.post(.viewers(room: room, sessionID: sessionID, viewers: viewers, at: Date().timeIntervalSince1970))
    }

    func tick() { inbox.post(.tick(Date().timeIntervalSince1970)) }

    /// No more changes will come (shutdown): the recorder finishes what it has and returns.
    func finish() { inbox.finish() }
}
