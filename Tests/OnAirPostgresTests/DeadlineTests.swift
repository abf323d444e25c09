import Foundation
import Synchronization
import Testing
@testable import OnAirPostgres

struct LateError: Error {}

@Suite("Deadline: the caller gets its answer at the deadline")
struct DeadlineTests {
    @Test("a result before the deadline comes back")
    func resultInTime() async throws {
        let value = try await Deadline.run(.seconds(5), timeout: { LateError() }) { 42 }
        #expect(value == 42)
    }

    @Test("an operation that ignores cancellation does not hold its caller past the deadline")
    func uncooperativeBody() async throws {
        // The operation waits for a gate that opens only after the caller got its answer (or,
        // as a safety net, 30 s later): a deadline that waited for it would see `finished` set.
        let gate = Gate()
        let finished = Mutex(false)
        await #expect(throws: LateError.self) {
            _ = try await Deadline.run(.milliseconds(200), timeout: { LateError() }) {
                await gate.wait()
                finished.withLock { $0 = true }
                return 1
            }
        }
        #expect(!finished.withLock { $0 }, "the caller was held until the operation ended")
        gate.open()
    }

    @Test("the operation's own error passes through")
    func bodyError() async throws {
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            _ = try await Deadline.run(.seconds(5), timeout: { LateError() }) { () async throws -> Int in throw Refused() }
        }
    }

    @Test("the caller's cancellation ends the wait at once")
    func callerCancelled() async throws {
        let waiting = Task {
            try await Deadline.run(.seconds(30), timeout: { LateError() }) { () async throws -> Int in
                try await Task.sleep(for: .seconds(30))
                return 1
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
    }
}

/// A one-shot gate that ignores cancellation (like a pooled request that is never resumed).
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    init() {
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) { [weak self] in self?.open() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
