import Basics
import Foundation
import Synchronization

/// Unix seconds for the stores under test: starts at the real time (Redis expires keys by its own clock, so all
/// three stores get expiry times near the real now) and moves only when a test moves it.
final class TestClock: Sendable {
    let seconds: Atomic<Int64>

    init() { seconds = Atomic(Int64(Date().timeIntervalSince1970)) }

    var now: Int64 { seconds.load(ordering: .relaxed) }

    func set(_ value: Int64) { seconds.store(value, ordering: .relaxed) }

    var source: TimeSource { TimeSource(unixSeconds: { [self] in now }) }
}
