import Synchronization

/// How the stand-in's `attestationData` answers, changeable while it runs (`POST /sim/receipts`) so that tests can
/// walk a refresher through Apple's answers without waiting a day for a receipt's Not Before.
public final class RiskMetricControls: Sendable {
    /// What the next refreshes get.
    public enum Answer: String, Sendable, CaseIterable {
        /// Apple's rules: 304 before Not Before, 404 after 30 days, else a new receipt.
        case normal
        /// 304 Not Modified, whatever the receipt.
        case notModified
        /// 404, whatever the receipt.
        case noData
        /// A new receipt whose content was changed after signing, so its signature does not verify.
        case badSignature
    }

    private struct State {
        var answer: Answer = .normal
        var riskMetric: Int
        var notBeforeSeconds: Int64
    }

    private let state: Mutex<State>

    /// - Parameters:
    ///   - riskMetric: the metric new receipts carry.
    ///   - notBeforeSeconds: how long after its creation a new receipt may be refreshed (Apple: about a day).
    public init(riskMetric: Int, notBeforeSeconds: Int64 = 86_400) {
        state = Mutex(State(riskMetric: riskMetric, notBeforeSeconds: notBeforeSeconds))
    }

    public var answer: Answer {
        get { state.withLock { $0.answer } }
        set { state.withLock { $0.answer = newValue } }
    }

    public var riskMetric: Int {
        get { state.withLock { $0.riskMetric } }
        set { state.withLock { $0.riskMetric = newValue } }
    }

    public var notBeforeSeconds: Int64 {
        get { state.withLock { $0.notBeforeSeconds } }
        set { state.withLock { $0.notBeforeSeconds = newValue } }
    }
}
