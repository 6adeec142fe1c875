/// A token bucket: holds up to `capacity` tokens, regains `refillPerSecond` of them each second, and admits an
/// event only while it can pay for it. Time is passed in (``MonotonicClock`` nanoseconds), so the bucket is a
/// plain value that tests drive with a pinned clock.
public struct TokenBucket: Sendable {
    /// The most tokens the bucket holds: the burst it admits after a quiet spell.
    public let capacity: Double
    /// Tokens regained per second: the sustained rate it admits.
    public let refillPerSecond: Double
    /// Tokens available as of the last call.
    public private(set) var tokens: Double
    private var updatedAt: UInt64

    /// A full bucket at `now`.
    public init(capacity: Double, refillPerSecond: Double, now: UInt64) {
        self.capacity = max(0, capacity)
        self.refillPerSecond = max(0, refillPerSecond)
        self.tokens = self.capacity
        self.updatedAt = now
    }

    /// Takes `cost` tokens and returns true if the bucket holds that many at `now`; otherwise takes nothing.
    public mutating func take(_ cost: Double = 1, now: UInt64) -> Bool {
        refill(now: now)
        guard tokens >= cost else { return false }
        tokens -= cost
        return true
    }

    /// Adds `amount` tokens (never beyond `capacity`): credit for useful work.
    public mutating func give(_ amount: Double) {
        tokens = min(capacity, tokens + amount)
    }

    /// Seconds until `cost` tokens will be available (0 if they are now): a client's `Retry-After`.
    public func secondsUntilAvailable(_ cost: Double = 1, now: UInt64) -> Double {
        var copy = self
        copy.refill(now: now)
        guard copy.tokens < cost else { return 0 }
        guard refillPerSecond > 0 else { return .infinity }
        return (cost - copy.tokens) / refillPerSecond
    }

    /// Whether the bucket is full at `now`: such an entry can be forgotten, since a new one starts full too.
    public func isFull(now: UInt64) -> Bool {
        var copy = self
        copy.refill(now: now)
        return copy.tokens >= capacity
    }

    private mutating func refill(now: UInt64) {
        // A clock that reads earlier than the last update (another thread's reading) adds nothing.
        guard now > updatedAt else { return }
        let elapsed = Double(now - updatedAt) / 1e9
        tokens = min(capacity, tokens + elapsed * refillPerSecond)
        updatedAt = now
    }
}
