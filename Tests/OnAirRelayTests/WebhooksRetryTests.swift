import Foundation
import Testing
@testable import OnAirRelay

/// The retry schedule (Svix delays with jitter) and what each response leads to.
@Suite("Webhooks: retry policy")
struct WebhooksRetryTests {
    @Test("the default schedule is Svix's: 0 s, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h")
    func svixSchedule() {
        let schedule = RetrySchedule(jitter: 0)
        #expect(schedule.maxAttempts == 8)
        #expect((1...8).map { schedule.delay(beforeAttempt: $0, random: 0.5)! } == [0, 5, 300, 1_800, 7_200, 18_000, 36_000, 36_000])
        #expect(schedule.delay(beforeAttempt: 9, random: 0) == nil && schedule.delay(beforeAttempt: 0, random: 0) == nil)
    }

    @Test("jitter stays within ±20 % and spreads over the range")
    func jitterBounds() {
        let schedule = RetrySchedule()
        #expect(schedule.bounds(beforeAttempt: 2) == 4...6)
        #expect(schedule.bounds(beforeAttempt: 3) == 240...360)
        #expect(schedule.bounds(beforeAttempt: 1) == 0...0, "the first attempt is never delayed")
        var generator = SystemRandomNumberGenerator()
        let samples = (0..<2_000).map { _ in schedule.delay(beforeAttempt: 4, random: .random(in: 0..<1, using: &generator))! }
        #expect(samples.allSatisfy { (1_440...2_160).contains($0) })
        #expect(samples.min()! < 1_500 && samples.max()! > 2_100, "the jitter is used, not a constant")
        #expect(schedule.delay(beforeAttempt: 2, random: -3) == 4 && schedule.delay(beforeAttempt: 2, random: 7) == 6)
    }

    let policy = DeliveryPolicy(schedule: RetrySchedule(delays: [0, 5, 300], jitter: 0))
    let now = 1_000_000.0

    @Test("2xx delivers; 410 disables; other answers and no answer retry on schedule, then give up")
    func decisions() {
        for status in [200, 201, 204, 299] {
            #expect(policy.decide(.response(status: status, retryAfter: nil), attempts: 1, now: now, random: 0) == .delivered)
        }
        #expect(policy.decide(.response(status: 410, retryAfter: "5"), attempts: 1, now: now, random: 0)
                == .disable(reason: "the subscriber answered 410 Gone"))
        #expect(policy.decide(.response(status: 500, retryAfter: nil), attempts: 1, now: now, random: 0)
                == .retry(at: now + 5, reason: "HTTP 500"))
        #expect(policy.decide(.response(status: 301, retryAfter: nil), attempts: 1, now: now, random: 0)
                == .retry(at: now + 5, reason: "HTTP 301"), "a redirect is not followed: it is a failure")
        #expect(policy.decide(.failed("connection refused"), attempts: 2, now: now, random: 0)
                == .retry(at: now + 300, reason: "connection refused"))
        #expect(policy.decide(.response(status: 503, retryAfter: nil), attempts: 3, now: now, random: 0)
                == .giveUp(reason: "HTTP 503; gave up after 3 attempts"))
    }

    @Test("Retry-After (429, 503): not before the time asked for, never earlier than the schedule, capped at a day")
    func retryAfter() {
        #expect(policy.decide(.response(status: 429, retryAfter: "60"), attempts: 1, now: now, random: 0)
                == .retry(at: now + 60, reason: "HTTP 429"))
        #expect(policy.decide(.response(status: 429, retryAfter: "1"), attempts: 1, now: now, random: 0)
                == .retry(at: now + 5, reason: "HTTP 429"), "the schedule's 5 s is later than 1 s")
        #expect(policy.decide(.response(status: 429, retryAfter: nil), attempts: 1, now: now, random: 0)
                == .retry(at: now + 5, reason: "HTTP 429"))
        #expect(policy.decide(.response(status: 503, retryAfter: "99999999"), attempts: 1, now: now, random: 0)
                == .retry(at: now + 86_400, reason: "HTTP 503"))
        #expect(policy.decide(.response(status: 503, retryAfter: "soon"), attempts: 1, now: now, random: 0)
                == .retry(at: now + 5, reason: "HTTP 503"), "an unreadable Retry-After falls back to the schedule")
    }

    @Test("Retry-After as an HTTP-date (RFC 9110 §5.6.7 IMF-fixdate)")
    func retryAfterDate() {
        // 1994-11-06 08:49:37 UTC = 784111777 (the RFC's own example date).
        let at = 784_111_777.0
        #expect(DeliveryPolicy.retryAfterSeconds("Sun, 06 Nov 1994 08:49:37 GMT", now: at - 120) == 120)
        #expect(DeliveryPolicy.retryAfterSeconds("Sun, 06 Nov 1994 08:49:37 GMT", now: at + 10) == 0)
        #expect(DeliveryPolicy.retryAfterSeconds(" 30 ", now: 0) == 30)
        #expect(DeliveryPolicy.retryAfterSeconds("-5", now: 0) == nil)
        #expect(DeliveryPolicy.retryAfterSeconds("Sunday, 06-Nov-94 08:49:37", now: 0) == nil)
    }
}

/// `stream.viewers` rate limit: ≥ interval apart per room, only on change.
@Suite("Webhooks: viewer update throttle")
struct WebhooksViewerThrottleTests {
    typealias Update = ViewerUpdateThrottle.Update

    @Test("first change goes out; changes inside the interval are held and sent once it passed, if still different")
    func holdsAndSends() {
        var throttle = ViewerUpdateThrottle(interval: 5)
        #expect(throttle.changed(room: "42", sessionID: "p", viewers: 1, now: 100) == Update(room: "42", sessionID: "p", viewers: 1))
        #expect(throttle.changed(room: "42", sessionID: "p", viewers: 2, now: 101) == nil)
        #expect(throttle.changed(room: "42", sessionID: "p", viewers: 3, now: 102) == nil)
        #expect(throttle.due(now: 104.9).isEmpty)
        #expect(throttle.due(now: 105) == [Update(room: "42", sessionID: "p", viewers: 3)])
        #expect(throttle.due(now: 111).isEmpty, "nothing held")
        #expect(throttle.changed(room: "42", sessionID: "p", viewers: 3, now: 112) == nil, "no change, no event")
        #expect(throttle.changed(room: "42", sessionID: "p", viewers: 4, now: 112) == Update(room: "42", sessionID: "p", viewers: 4))
    }

    @Test("a change that is undone inside the interval sends nothing")
    func undoneChange() {
        var throttle = ViewerUpdateThrottle(interval: 5)
        _ = throttle.changed(room: "42", sessionID: "p", viewers: 1, now: 100)
        #expect(throttle.changed(room: "42", sessionID: "p", viewers: 2, now: 101) == nil)
        #expect(throttle.changed(room: "42", sessionID: "p", viewers: 1, now: 102) == nil)
        #expect(throttle.due(now: 200).isEmpty)
    }

    @Test("rooms are independent; a new session or a reset starts afresh")
    func roomsAndSessions() {
        var throttle = ViewerUpdateThrottle(interval: 5)
        _ = throttle.changed(room: "a", sessionID: "p", viewers: 1, now: 100)
        #expect(throttle.changed(room: "b", sessionID: "q", viewers: 1, now: 100) != nil)
        #expect(throttle.changed(room: "a", sessionID: "p2", viewers: 1, now: 101) != nil, "new session")
        _ = throttle.changed(room: "b", sessionID: "q", viewers: 5, now: 101)
        throttle.reset(room: "b")
        #expect(throttle.due(now: 200).isEmpty, "the held change of an ended stream is dropped")
    }
}
