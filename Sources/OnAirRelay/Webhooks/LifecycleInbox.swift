import Synchronization

/// The hand-off from the media plane to the recorder: the engine's event loop appends under a
/// short lock and rings; the recorder takes everything that piled up at once, so a burst of
/// changes becomes one database transaction.
final class LifecycleInbox: Sendable {
    private struct State {
        var messages: [LifecycleMessage] = []
        var finished = false
    }

    private let state = Mutex(State())
    private let doorbell = Doorbell()

    /// Never blocks on I/O: safe on an event loop. Ignored after ``finish()``.
    func post(_ message: LifecycleMessage) {
        let accepted = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            state.messages.append(message)
            return true
        }
        if accepted { doorbell.ring() }
    }

    /// No more messages: ``next()`` returns what is left, then nil.
    func finish() {
        state.withLock { $0.finished = true }
        doorbell.ring()
    }

    /// The relay is shutting down: nothing more will be posted.
    var isFinished: Bool { state.withLock { $0.finished } }

    /// Everything posted since the last call (waiting for at least one), or nil once finished
    /// and empty. One consumer only.
    func next() async -> [LifecycleMessage]? {
        while true {
            let taken = state.withLock { state -> (messages: [LifecycleMessage], finished: Bool) in
                let messages = state.messages
                state.messages = []
                return (messages, state.finished)
            }
            if !taken.messages.isEmpty { return taken.messages }
            if taken.finished { return nil }
            await doorbell.wait(timeout: nil)
        }
    }
}
