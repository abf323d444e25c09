import Synchronization

/// The hand-off from the media plane to the recorder: the engine's event loop appends under a
/// short lock and rings; the recorder takes everything that piled up at once, so a burst of
/// changes becomes one database transaction.
///
/// While the database is away the recorder retries and messages pile up here. Past
/// ``capacity`` the viewer counts and ticks are dropped (a later count supersedes them);
/// starts and ends are always kept, as they are what subscribers (the chat) act on.
final class LifecycleInbox: Sendable {
    private struct State {
        var messages: [LifecycleMessage] = []
        var finished = false
        var dropped = 0
    }

    private let state = Mutex(State())
    private let doorbell = Doorbell()
    let capacity: Int

    init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// Never blocks on I/O: safe on an event loop. Ignored after ``finish()``.
    func post(_ message: LifecycleMessage) {
        let accepted = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            if state.messages.count >= capacity, message.isSuperseded {
                state.dropped += 1
                return false
            }
            state.messages.append(message)
            return true
        }
        if accepted { doorbell.ring() }
    }

    /// Viewer counts and ticks dropped because the backlog was full, since the last call.
    func takeDropped() -> Int {
        state.withLock { state in
            defer { state.dropped = 0 }
            return state.dropped
        }
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

extension LifecycleMessage {
    /// A later message makes this one moot (viewer counts, ticks).
    var isSuperseded: Bool {
        switch self {
        case .viewers, .tick: true
        case .started, .ended: false
        }
    }
}
