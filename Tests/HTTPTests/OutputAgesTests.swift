@testable import HTTP
import Testing

/// The slow-reader check's bookkeeping: when the oldest byte the peer has not taken was produced.
@Suite("Output ages")
struct OutputAgesTests {
    private let second: UInt64 = 1_000_000_000

    @Test("the oldest untaken byte is the first one produced that the peer has not acknowledged")
    func oldestUntaken() {
        var ages = OutputAges()
        ages.produced(through: 100, now: 1 * second)
        ages.produced(through: 300, now: 2 * second)
        ages.wrote(300)
        #expect(ages.oldestUntaken(unacknowledged: 300) == 1 * second)
        #expect(ages.oldestUntaken(unacknowledged: 250) == 1 * second)
        #expect(ages.oldestUntaken(unacknowledged: 200) == 2 * second)
        #expect(ages.oldestUntaken(unacknowledged: 0) == nil)
        #expect(ages.isEmpty)
    }

    @Test("bytes not yet accepted by the socket count as untaken, whatever the kernel holds")
    func unwrittenBytesAreUntaken() {
        var ages = OutputAges()
        ages.produced(through: 1_000, now: 5 * second)
        ages.wrote(400)
        #expect(ages.oldestUntaken(unacknowledged: 0) == 5 * second)
        ages.wrote(600)
        #expect(ages.oldestUntaken(unacknowledged: 0) == nil)
    }

    @Test("output produced within a quarter second of the previous shares its time, never a later one")
    func coalescing() {
        var ages = OutputAges()
        ages.produced(through: 10, now: 1 * second)
        ages.produced(through: 20, now: 1 * second + 200_000_000)
        ages.produced(through: 30, now: 1 * second + 300_000_000)
        ages.wrote(30)
        // The second stretch was folded into the first: it looks older than it is, never younger.
        #expect(ages.oldestUntaken(unacknowledged: 15) == 1 * second)
        #expect(ages.oldestUntaken(unacknowledged: 5) == 1 * second + 300_000_000)
    }

    @Test("output dropped unsent no longer counts")
    func droppedOutput() {
        var ages = OutputAges()
        ages.produced(through: 100, now: 1 * second)
        ages.produced(through: 200, now: 2 * second)
        ages.produced(through: 300, now: 3 * second)
        ages.wrote(150)
        ages.dropped(after: 150)
        #expect(ages.produced == 150)
        #expect(ages.oldestUntaken(unacknowledged: 60) == 1 * second)
        #expect(ages.oldestUntaken(unacknowledged: 0) == nil)
        // What is produced after the drop is new.
        ages.produced(through: 180, now: 9 * second)
        #expect(ages.oldestUntaken(unacknowledged: 0) == 9 * second)
    }
}
