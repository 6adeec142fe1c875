import HTTP
import Testing

@Suite("Token bucket")
struct TokenBucketTests {
    let second: UInt64 = 1_000_000_000

    /// `#expect` cannot call a mutating method itself.
    func take(_ bucket: inout TokenBucket, _ cost: Double = 1, now: UInt64) -> Bool { bucket.take(cost, now: now) }

    @Test("admits a full burst at once, then refuses")
    func burst() {
        var bucket = TokenBucket(capacity: 5, refillPerSecond: 1, now: 0)
        var admitted = 0
        for _ in 0..<5 where bucket.take(now: 0) { admitted += 1 }
        #expect(admitted == 5)
        #expect(!take(&bucket, now: 0))
    }

    @Test("regains tokens at its rate, never beyond its capacity")
    func refill() {
        var bucket = TokenBucket(capacity: 4, refillPerSecond: 2, now: 0)
        for _ in 0..<4 { _ = bucket.take(now: 0) }
        #expect(!take(&bucket, now: second / 4))  // half a token so far
        #expect(take(&bucket, now: second / 2))  // one token by now
        #expect(!take(&bucket, now: second / 2))
        #expect(bucket.isFull(now: 10 * second))
        var admitted = 0
        for _ in 0..<4 where bucket.take(now: 10 * second) { admitted += 1 }
        #expect(admitted == 4)
        #expect(!take(&bucket, now: 10 * second))
    }

    @Test("a refused take costs nothing")
    func refusedTakeIsFree() {
        var bucket = TokenBucket(capacity: 3, refillPerSecond: 0, now: 0)
        #expect(take(&bucket, 2, now: 0))
        #expect(!take(&bucket, 2, now: 0))
        #expect(take(&bucket, 1, now: 0))
    }

    @Test("credit is capped at the capacity")
    func give() {
        var bucket = TokenBucket(capacity: 3, refillPerSecond: 0, now: 0)
        for _ in 0..<3 { _ = bucket.take(now: 0) }
        bucket.give(10)
        #expect(bucket.tokens == 3)
    }

    @Test("says how long until a token is available")
    func retryAfter() {
        var bucket = TokenBucket(capacity: 1, refillPerSecond: 4, now: 0)
        #expect(bucket.secondsUntilAvailable(now: 0) == 0)
        _ = bucket.take(now: 0)
        #expect(abs(bucket.secondsUntilAvailable(now: 0) - 0.25) < 1e-9)
        let empty = TokenBucket(capacity: 0, refillPerSecond: 0, now: 0)
        #expect(empty.secondsUntilAvailable(now: 0) == .infinity)
    }

    @Test("a clock reading earlier than the last adds nothing")
    func clockGoingBack() {
        var bucket = TokenBucket(capacity: 2, refillPerSecond: 1, now: 10 * second)
        _ = bucket.take(now: 10 * second)
        _ = bucket.take(now: 10 * second)
        #expect(!take(&bucket, now: 5 * second))
        #expect(take(&bucket, now: 11 * second))
    }
}
