import Testing
@testable import attestd_bench

@Suite("PhaseResult")
struct PhaseResultTests {
    @Test("merging workers' results adds their completions per bin and keeps each bin's slowest answer")
    func mergeTimelines() {
        var first = PhaseResult()
        first.timeline = [3, 4]
        first.timelineSlowest = [1_000, 40_000_000]
        var second = PhaseResult()
        second.timeline = [1, 1, 2]
        second.timelineSlowest = [2_000, 5_000, 7_000]
        first.merge(second)
        #expect(first.timeline == [4, 5, 2])
        #expect(first.timelineSlowest == [2_000, 40_000_000, 7_000])
    }
}
