import Logging
import Synchronization
@testable import OnAirChat
import Testing

/// The hourly pruner of webhook ids is a service: when its service group cancels it (another
/// service ended), it must return, not loop on a sleep that a cancelled task skips at once
/// (seen: a chat whose HTTP server had ended kept about 90 % of a core busy for 40
/// minutes and never exited).
@Suite("Chat: delivery pruner")
struct DeliveryPrunerTests {
    @Test("cancelled, it returns instead of spinning")
    func returnsWhenCancelled() async throws {
        let pruner = DeliveryPruner(store: try SQLiteChatStore(path: ":memory:"), keepHours: 24, clock: WallClock(),
                                    logger: Logger(label: "pruner-test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let clock = ContinuousClock()
        let finished = Mutex(false)
        let task = Task {
            try? await pruner.run()
            finished.withLock { $0 = true }
        }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        // Returns as soon as it runs again; the bound is generous because the whole suite shares
        // the cooperative pool (2 threads on a 2-core machine). Without the fix it never returns.
        let deadline = clock.now + .seconds(60)
        while !finished.withLock({ $0 }), clock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(finished.withLock { $0 }, "the pruner kept running after it was cancelled")
    }
}
