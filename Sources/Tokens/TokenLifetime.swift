/// How long an App Check token lives, from minting to expiry. Firebase's rule: 30 minutes to 7 days, 1 hour by
/// default; limited-use tokens live 5 minutes.
public struct TokenLifetime: Sendable, Hashable, CustomStringConvertible {
    /// The lifetime in whole seconds.
    public let seconds: Int64

    /// The lifetimes an app's configuration (or a custom token's `ttl`) may choose, inclusive.
    public static let allowedSeconds: ClosedRange<Int64> = 1_800...604_800
    /// One hour, the lifetime when the configuration names none.
    public static let `default` = TokenLifetime(unchecked: 3_600)
    /// Five minutes, for limited-use tokens (replay protection): always this, whatever the app's lifetime.
    public static let limitedUse = TokenLifetime(unchecked: 300)

    /// A configured lifetime; nil outside 30 min – 7 days.
    public init?(seconds: Int64) {
        guard Self.allowedSeconds.contains(seconds) else { return nil }
        self.seconds = seconds
    }

    /// A lifetime from a protobuf JSON Duration such as `"3600s"` or `"1800.5s"` (fractions are dropped);
    /// nil when the text is not a Duration or the value is outside 30 min – 7 days.
    public init?(duration text: String) {
        guard text.hasSuffix("s") else { return nil }
        let number = text.dropLast()
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let isDigits = { (text: Substring) in text.allSatisfy { $0.isASCII && $0.isNumber } }
        guard let whole = parts.first, (1...12).contains(whole.count), isDigits(whole),
              parts.count == 1 || ((1...9).contains(parts[1].count) && isDigits(parts[1])),
              let seconds = Int64(whole)
        else { return nil }
        self.init(seconds: seconds)
    }

    private init(unchecked seconds: Int64) { self.seconds = seconds }

    /// The protobuf JSON Duration text, e.g. `3600s`.
    public var description: String { "\(seconds)s" }
}
