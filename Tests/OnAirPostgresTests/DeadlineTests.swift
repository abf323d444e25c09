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
        let started = ContinuousClock.now
        await #expect(throws: LateError.self) {
            _ = try await Deadline.run(.milliseconds(200), timeout: { LateError() }) {
                // Waits 3 s whatever happens (a pooled request that is cancelled but never resumed).
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    DispatchQueue.global().asyncAfter(deadline: .now() + 3) { continuation.resume() }
                }
                return 1
            }
        }
        #expect(ContinuousClock.now - started < .seconds(2))
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
        let started = ContinuousClock.now
        waiting.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
        #expect(ContinuousClock.now - started < .seconds(2))
    }
}
