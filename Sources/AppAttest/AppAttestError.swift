/// Why an attestation, assertion or receipt was refused: one distinct reason per rule, plus a detail for people.
///
/// Equality compares the reason only, so a test can expect `AppAttestError(.nonceMismatch)` without repeating the
/// detail. The reason's `name` is what logs and the `reason` metric label carry.
public struct AppAttestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The rule that failed.
    public var reason: Reason
    /// What exactly was seen, for a person debugging a device (never sent to clients).
    public var detail: String

    public init(_ reason: Reason, _ detail: String = "") {
        self.reason = reason
        self.detail = detail
    }

    /// `name: detail`, or the name alone.
    public var description: String { detail.isEmpty ? reason.name : "\(reason.name): \(detail)" }

    public static func == (lhs: AppAttestError, rhs: AppAttestError) -> Bool { lhs.reason == rhs.reason }
}
