import Foundation
import Testing
@testable import OnAirRelay

/// The wake-up primitive of the lanes and the recorder: a ring is never lost.
@Suite("Webhooks: doorbell")
struct WebhooksDoorbellTests {
    @Test("a ring before the wait is kept: the wait returns at once")
    func ringBeforeWait() async {
        let bell = Doorbell()
        bell.ring()
        let start = ContinuousClock.now
        await bell.wait(timeout: .seconds(5))
        #expect(ContinuousClock.now - start < .milliseconds(500))
    }

    @Test("without a ring the wait lasts its timeout; a ring wakes a waiter early")
    func timeoutAndWake() async {
        let bell = Doorbell()
        var start = ContinuousClock.now
        await bell.wait(timeout: .milliseconds(100))
        #expect(ContinuousClock.now - start >= .milliseconds(100))
        start = ContinuousClock.now
        let ringer = Task {
            try? await Task.sleep(for: .milliseconds(50))
            bell.ring()
        }
        await bell.wait(timeout: .seconds(10))
        #expect(ContinuousClock.now - start < .seconds(5))
        await ringer.value
    }

    @Test("cancelling the waiting task ends the wait")
    func cancellation() async {
        let bell = Doorbell()
        let waiter = Task { await bell.wait(timeout: nil) }
        try? await Task.sleep(for: .milliseconds(50))
        waiter.cancel()
        await waiter.value  // returns: would hang forever otherwise
    }

    @Test("the inbox hands over everything posted, in order, then nil after finish")
    func inbox() async {
        let inbox = LifecycleInbox()
        for i in 0..<3 { inbox.post(.tick(Double(i))) }
        let first = await inbox.next()
        #expect(first?.count == 3)
        inbox.post(.tick(9))
        inbox.finish()
        inbox.post(.tick(10))  // after finish: dropped
        let rest = await inbox.next()
        #expect(rest?.count == 1)
        #expect(await inbox.next() == nil)
    }

    @Test("a full inbox (the database away) drops viewer counts and ticks, never starts or ends")
    func inboxBound() async {
        let inbox = LifecycleInbox(capacity: 4)
        for i in 0..<6 { inbox.post(.viewers(room: "42", sessionID: "p", viewers: i, at: 0)) }
        inbox.post(.tick(1))
        inbox.post(.started(WebhookFixtures.started("42", "q")))
        inbox.post(.ended(WebhookFixtures.ended("42", "q")))
        #expect(inbox.takeDropped() == 3)
        #expect(inbox.takeDropped() == 0)
        let held = await inbox.next() ?? []
        #expect(held.count == 6)
        #expect(held.filter { !$0.isSuperseded }.count == 2, "the start and the end are kept past the bound")
    }
}
