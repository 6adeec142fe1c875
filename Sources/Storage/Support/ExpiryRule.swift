/// How every store judges the expiry of a challenge or limited-use token it is asked to consume (DESIGN.md,
/// "State"): one whose expiry is at or before the store's own now is refused, never recorded nor taken over; a
/// consumed one is kept until its expiry plus the clock-skew allowance, so that a node whose clock runs behind the
/// store's still finds it consumed.
public enum ExpiryRule {
    /// The allowance when none is configured: nodes whose clocks are a minute apart still agree.
    public static let defaultClockSkewSeconds: Int64 = 60

    /// Whether a record expiring at `expiresAt` (unix seconds) may still be consumed at `now`.
    static func isLive(expiresAt: Int64, now: Int64) -> Bool {
        expiresAt > now
    }

    /// The unix second until which a record consumed with `expiresAt` must be kept.
    static func keepUntil(_ expiresAt: Int64, clockSkewSeconds: Int64) -> Int64 {
        let (sum, overflow) = expiresAt.addingReportingOverflow(max(0, clockSkewSeconds))
        return overflow ? .max : sum
    }
}
