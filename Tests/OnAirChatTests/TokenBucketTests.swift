import Testing
@testable import OnAirChat

@Suite("Token bucket")
struct TokenBucketTests {
    @Test("a full bucket allows its burst, then refuses with the time to the next token")
    func burstThenRefuse() {
        var bucket = TokenBucket(capacity: 3, rate: 2)
        #expect(bucket.take(now: 10) == nil)
        #expect(bucket.take(now: 10) == nil)
        #expect(bucket.take(now: 10) == nil)
        let wait = bucket.take(now: 10)
        #expect(wait == 0.5)
        // A refused attempt costs nothing: half a second later exactly one token is back.
        #expect(bucket.take(now: 10.25) == 0.25)
        #expect(bucket.take(now: 10.5) == nil)
        #expect(bucket.take(now: 10.5) != nil)
    }

    @Test("refill stops at capacity")
    func refillCapped() {
        var bucket = TokenBucket(capacity: 2, rate: 1)
        #expect(bucket.take(now: 0) == nil)
        #expect(bucket.take(now: 1000) == nil)
        #expect(bucket.take(now: 1000) == nil)
        #expect(bucket.take(now: 1000) != nil)
    }

    @Test("time going backwards adds nothing")
    func clockBackwards() {
        var bucket = TokenBucket(capacity: 1, rate: 1)
        #expect(bucket.take(now: 100) == nil)
        #expect(bucket.take(now: 50) != nil)
        #expect(bucket.take(now: 100.5) != nil)
        #expect(bucket.take(now: 101) == nil)
    }
}
