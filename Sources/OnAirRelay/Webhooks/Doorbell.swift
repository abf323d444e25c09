import Synchronization

/// Wakes one waiting task. A ring while nobody waits is kept, so the next ``wait(timeout:)``
/// returns at once: a wake-up can never fall between "found nothing to do" and "waiting".
final class Doorbell: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Void, Never>
        var timer: Task<Void, Never>?
    }

    private struct State {
        var rung = false
        var waiter: Waiter?
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    func ring() {
        let waiter = state.withLock { state -> Waiter? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.timer?.cancel()
        waiter?.continuation.resume()
    }

    /// Returns when rung, after `timeout` (nil: no limit), or when the task is cancelled.
    func wait(timeout: Duration?) async {
        let id = state.withLock { state -> UInt64? in
            if state.rung {
                state.rung = false
                return nil
            }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let registered = state.withLock { state -> Bool in
                    // The cancellation flag is set before onCancel runs: checking it under the
                    // lock closes the gap where onCancel ran before we registered.
                    if state.rung || Task.isCancelled {
                        state.rung = false
                        return false
                    }
                    state.waiter = Waiter(id: id, continuation: continuation, timer: nil)
                    return true
                }
                guard registered else {
                    continuation.resume()
                    return
                }
                if let timeout {
                    let timer = Task { [weak self] in
                        try? await Task.sleep(for: timeout)
                        if !Task.isCancelled { self?.fire(id, cancelTimer: false) }
                    }
                    let stillWaiting = state.withLock { state -> Bool in
                        guard state.waiter?.id == id else { return false }
                        state.waiter?.timer = timer
                        return true
                    }
                    if !stillWaiting { timer.cancel() }
                }
            }
        } onCancel: {
            fire(id, cancelTimer: true)
        }
    }

    private func fire(_ id: UInt64, cancelTimer: Bool) {
        let waiter = state.withLock { state -> Waiter? in
            guard state.waiter?.id == id else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        if cancelTimer { waiter?.timer?.cancel() }
        waiter?.continuation.resume()
    }
}
