import Foundation
import Synchronization

/// The two bits per device per team, kept in memory and, when a path is given, in a JSON file rewritten
/// atomically after every update so that they survive a restart of the stand-in (as Apple's survive reinstalls).
final class TwoBitsStore: Sendable {
    struct Bits: Codable, Equatable, Sendable {
        var bit0: Bool
        var bit1: Bool
        /// `YYYY-MM` in UTC, as Apple reports it.
        var lastUpdateTime: String
    }

    /// team id → device id → bits
    private let state: Mutex<[String: [String: Bits]]>
    private let path: String?

    init(path: String?) throws {
        self.path = path
        var initial: [String: [String: Bits]] = [:]
        if let path, FileManager.default.fileExists(atPath: path) {
            initial = try JSONDecoder().decode([String: [String: Bits]].self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        }
        state = Mutex(initial)
    }

    func bits(team: String, device: String) -> Bits? {
        state.withLock { $0[team]?[device] }
    }

    /// Sets the bits that are given (a nil bit is left as it was; never-set bits start false) and stamps the month.
    func update(team: String, device: String, bit0: Bool?, bit1: Bool?, month: String) throws {
        let snapshot = state.withLock { state in
            var bits = state[team]?[device] ?? Bits(bit0: false, bit1: false, lastUpdateTime: month)
            if let bit0 { bits.bit0 = bit0 }
            if let bit1 { bits.bit1 = bit1 }
            bits.lastUpdateTime = month
            state[team, default: [:]][device] = bits
            return state
        }
        guard let path else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(snapshot).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
