/// An HDR-style latency histogram: log-linear buckets over nanoseconds, 128 linear sub-buckets per power of two,
/// so every recorded value is kept within 1/128 (0.8 %) of itself from 1 ns to hours, in a fixed few kilobytes,
/// and histograms from several threads merge by adding counts.
struct LatencyHistogram: Sendable {
    private static let subBucketBits = 8
    private static let subBucketCount = 1 << subBucketBits
    private static let halfCount = subBucketCount / 2
    private static let bucketCount = (64 - subBucketBits + 1) * halfCount + halfCount

    private var counts = [UInt64](repeating: 0, count: LatencyHistogram.bucketCount)
    private(set) var total: UInt64 = 0
    private(set) var maxValue: UInt64 = 0
    private(set) var minValue: UInt64 = .max
    private var sum: Double = 0

    var mean: Double { total == 0 ? 0 : sum / Double(total) }

    mutating func record(_ value: UInt64) {
        counts[Self.index(of: value)] += 1
        total += 1
        sum += Double(value)
        if value > maxValue { maxValue = value }
        if value < minValue { minValue = value }
    }

    mutating func merge(_ other: LatencyHistogram) {
        for i in 0..<counts.count where other.counts[i] != 0 { counts[i] += other.counts[i] }
        total += other.total
        sum += other.sum
        maxValue = max(maxValue, other.maxValue)
        minValue = min(minValue, other.minValue)
    }

    /// The smallest recorded value at or above which `100 - percentile` % of values lie (reported as the highest
    /// value equivalent to its bucket, as HdrHistogram does, and never above the true maximum).
    func value(atPercentile percentile: Double) -> UInt64 {
        guard total > 0 else { return 0 }
        if percentile >= 100 { return maxValue }
        let rank = max(1, UInt64((percentile / 100 * Double(total)).rounded(.up)))
        var seen: UInt64 = 0
        for (index, count) in counts.enumerated() where count != 0 {
            seen += count
            if seen >= rank { return min(Self.highestEquivalent(index), maxValue) }
        }
        return maxValue
    }

    /// Values below `subBucketCount` have a bucket each; above, each power of two is split into `halfCount` steps.
    static func index(of value: UInt64) -> Int {
        if value < UInt64(subBucketCount) { return Int(value) }
        let shift = (64 - value.leadingZeroBitCount) - subBucketBits
        return shift * halfCount + Int(value >> UInt64(shift))
    }

    static func highestEquivalent(_ index: Int) -> UInt64 {
        if index < subBucketCount { return UInt64(index) }
        let shift = (index - halfCount) / halfCount
        let mantissa = UInt64(index - shift * halfCount)
        return ((mantissa + 1) << UInt64(shift)) - 1
    }
}
