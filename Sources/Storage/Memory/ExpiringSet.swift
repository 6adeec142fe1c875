/// Members that are forgotten once their last second has passed. They are filed by that second, so forgetting
/// touches only what has expired, and memory stays bounded by the rate of inserts times their lifetime.
struct ExpiringSet<Member: Hashable & Sendable>: Sendable {
    private var members: Set<Member> = []
    private var expiring: [Int64: [Member]] = [:]
    /// Every second up to this one has been swept.
    private var sweptThrough: Int64?

    /// Inserts `member`, to be kept through the second `keepUntil`, unless it is already present (and not yet
    /// forgotten at `now`); returns whether it inserted.
    mutating func insert(_ member: Member, keepUntil: Int64, now: Int64) -> Bool {
        sweep(now: now)
        guard members.insert(member).inserted else { return false }
        expiring[keepUntil, default: []].append(member)
        return true
    }

    /// Drops the members whose last second has passed since the last sweep.
    private mutating func sweep(now: Int64) {
        let from = sweptThrough.map { $0 + 1 } ?? Swift.min(expiring.keys.min() ?? now, now)
        guard from < now else { return }
        // After a long idle gap, walking every second would be slow; walking the buckets is bounded by their count.
        let seconds: [Int64] = now - from > 4_096 ? expiring.keys.filter { $0 < now }.sorted() : Array(from..<now)
        for second in seconds {
            for member in expiring.removeValue(forKey: second) ?? [] { members.remove(member) }
        }
        sweptThrough = now - 1
    }
}
