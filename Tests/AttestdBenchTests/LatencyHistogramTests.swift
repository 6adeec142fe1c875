import Testing
@testable import attestd_bench

@Suite("LatencyHistogram")
struct LatencyHistogramTests {
    @Test("percentiles of 1 to 100,000 ns lie within 1 % of the exact ranks")
    func percentilesAreWithinPrecision() {
        var histogram = LatencyHistogram()
        for value in 1...100_000 { histogram.record(UInt64(value)) }
        for percentile in [50.0, 90, 99, 99.9] {
            let exact = percentile / 100 * 100_000
            let reported = Double(histogram.value(atPercentile: percentile))
            #expect(abs(reported - exact) / exact < 0.01, "p\(percentile): \(reported) vs \(exact)")
        }
        #expect(histogram.value(atPercentile: 100) == 100_000)
        #expect(histogram.total == 100_000)
        #expect(histogram.minValue == 1)
    }

    @Test("values below 256 ns are kept exactly")
    func smallValuesAreExact() {
        var histogram = LatencyHistogram()
        histogram.record(3)
        histogram.record(200)
        #expect(histogram.value(atPercentile: 50) == 3)
        #expect(histogram.value(atPercentile: 99) == 200)
    }

    @Test("bucket indices grow with the value and each bucket holds the values mapped to it")
    func bucketsAreContiguous() {
        var previous = 0
        var value: UInt64 = 1
        while value < 1 << 40 {
            let index = LatencyHistogram.index(of: value)
            #expect(index >= previous)
            #expect(LatencyHistogram.highestEquivalent(index) >= value)
            #expect(LatencyHistogram.index(of: LatencyHistogram.highestEquivalent(index)) == index)
            previous = index
            value = value * 3 / 2 + 1
        }
    }

    @Test("merging two histograms gives the histogram of all their values")
    func mergeAddsCounts() {
        var low = LatencyHistogram()
        var high = LatencyHistogram()
        var both = LatencyHistogram()
        for value in 1...1000 {
            low.record(UInt64(value))
            both.record(UInt64(value))
        }
        for value in 1_000_001...1_001_000 {
            high.record(UInt64(value))
            both.record(UInt64(value))
        }
        low.merge(high)
        #expect(low.total == both.total)
        for percentile in [10.0, 50, 75, 99, 100] {
            #expect(low.value(atPercentile: percentile) == both.value(atPercentile: percentile))
        }
        #expect(low.maxValue == 1_001_000)
    }

    @Test("an empty histogram reports zero")
    func emptyIsZero() {
        let histogram = LatencyHistogram()
        #expect(histogram.value(atPercentile: 99) == 0)
        #expect(histogram.mean == 0)
    }
}
