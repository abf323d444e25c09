import Logging
import Synchronization
@testable import OnAirChat
import Testing

/// The hourly pruner of webhook ids is a service: when its service group cancels it (another
/// service ended), it must return, not loop on a sleep that a cancelled task skips at once
/// (seen: a chat whose HTTP server had ended spun two cores' worth of threads at 90 % for 40
/// minutes and never exited).
@Suite("Chat: delivery pruner")
struct DeliveryPrunerTests {
    @Test("cancelled, it returns at once instead of spinning")
    func returnsWhenCancelled() async throws {
        let pruner = DeliveryPruner(store: try SQLiteChatStore(path: ":memory:"), keepHours: 24, clock: WallClock(),
                                    logger: Logger(label: "pruner-test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let clock = ContinuousClock()
        let started = clock.now
        let finished = Mutex(false)
        let task = Task {
            try? await pruner.run()
            finished.withLock { $0 = true }
        }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        while !finished.withLock({ $0 }), clock.now - started < .seconds(5) {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(finished.withLock { $0 }, "the pruner kept running after it was cancelled")
        #expect(clock.now - started < .seconds(5))
    }
}
