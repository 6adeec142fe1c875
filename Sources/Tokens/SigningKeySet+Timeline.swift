import Basics

extension SigningKeySet.Entry {
    /// The states the key goes through, each with the time it begins (`Int64.min`: since forever), in order.
    public var timeline: [(state: SigningKeyState, from: Int64)] {
        let bounds = [published.lowerBound, signing?.lowerBound, signing?.upperBound, published.upperBound]
            .compactMap { $0 }.filter { $0 != .min && $0 != .max }
        var timeline = [(state: state(at: .min), from: Int64.min)]
        for bound in Set(bounds).sorted() where state(at: bound) != timeline[timeline.count - 1].state {
            timeline.append((state(at: bound), bound))
        }
        return timeline
    }

    /// What happens to the key after `time`: its states to come with their times, as
    /// `retired from 2026-07-01T06:00:00Z, withdrawn from 2026-07-01T07:01:00Z`; "no change to come" when none.
    public func transitions(after time: Int64) -> String {
        let coming = timeline.filter { $0.from > time }
        guard !coming.isEmpty else { return "no change to come" }
        return coming.map { "\($0.state.rawValue) from \(RFC3339.format(unixSeconds: $0.from))" }.joined(separator: ", ")
    }
}
