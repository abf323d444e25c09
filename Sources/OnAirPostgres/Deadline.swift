import Synchronization

/// Runs an operation with a deadline that holds even when the operation ignores cancellation.
/// A task group cannot give that: it waits for every child, so a pooled connection request
/// that is cancelled but never resumed (seen after a PostgreSQL restart: a webhook lane stuck
/// for the rest of the relay's life) would hold its caller forever. Here the caller gets the
/// timeout error at the deadline, the operation is cancelled and left to end on its own.
enum Deadline {
    static func run<Result: Sendable>(
        _ limit: Duration, timeout: @escaping @Sendable () -> any Error,
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let outcome = Outcome<Result>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
                outcome.attach(continuation)
                let work = Task {
                    do { outcome.finish(.success(try await body())) } catch { outcome.finish(.failure(error)) }
                }
                let timer = Task {
                    try? await Task.sleep(for: limit)
                    if !Task.isCancelled { outcome.finish(.failure(timeout())) }
                }
                outcome.setTasks(work: work, timer: timer)
            }
        } onCancel: {
            outcome.finish(.failure(CancellationError()))
        }
    }

    /// The first result wins; it resumes the caller and cancels what is left running.
    private final class Outcome<Result: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Result, any Error>?
            var result: Swift.Result<Result, any Error>?
            var work: Task<Void, Never>?
            var timer: Task<Void, Never>?
        }
        private let state = Mutex(State())

        func attach(_ continuation: CheckedContinuation<Result, any Error>) {
            let early = state.withLock { state -> Swift.Result<Result, any Error>? in
                if let result = state.result { return result }  // cancelled before we got here
                state.continuation = continuation
                return nil
            }
            if let early { continuation.resume(with: early) }
        }

        func setTasks(work: Task<Void, Never>, timer: Task<Void, Never>) {
            let done = state.withLock { state -> Bool in
                state.work = work
                state.timer = timer
                return state.result != nil
            }
            if done {
                work.cancel()
                timer.cancel()
            }
        }

        func finish(_ result: Swift.Result<Result, any Error>) {
            let (continuation, work, timer) = state.withLock { state -> (CheckedContinuation<Result, any Error>?, Task<Void, Never>?, Task<Void, Never>?) in
                guard state.result == nil else { return (nil, nil, nil) }
                state.result = result
                defer { state.continuation = nil }
                return (state.continuation, state.work, state.timer)
            }
            work?.cancel()
            timer?.cancel()
            continuation?.resume(with: result)
        }
    }
}
