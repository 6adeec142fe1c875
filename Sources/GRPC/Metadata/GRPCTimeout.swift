/// A `grpc-timeout` header value: at most 8 ASCII digits and a unit (H, M, S, m, u, n).
public struct GRPCTimeout: Hashable, Sendable {
    /// The timeout in nanoseconds, saturated at `Int64.max` (99999999H does not fit).
    public let nanoseconds: Int64

    /// A timeout of `nanoseconds` (negative values become zero).
    public init(nanoseconds: Int64) {
        self.nanoseconds = max(0, nanoseconds)
    }

    /// Parses a `grpc-timeout` value; nil when it is not 1–8 digits followed by one unit letter.
    public init?(headerValue: some StringProtocol) {
        let utf8 = Substring(headerValue).utf8
        guard utf8.count >= 2, utf8.count <= 9, let unit = utf8.last else { return nil }
        var amount: Int64 = 0
        for byte in utf8.dropLast() {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            amount = amount * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        let scale: Int64
        switch unit {
        case UInt8(ascii: "H"): scale = 3_600_000_000_000
        case UInt8(ascii: "M"): scale = 60_000_000_000
        case UInt8(ascii: "S"): scale = 1_000_000_000
        case UInt8(ascii: "m"): scale = 1_000_000
        case UInt8(ascii: "u"): scale = 1_000
        case UInt8(ascii: "n"): scale = 1
        default: return nil
        }
        let (product, overflow) = amount.multipliedReportingOverflow(by: scale)
        self.nanoseconds = overflow ? .max : product
    }

    /// The value to send in `grpc-timeout`: the finest unit that keeps the amount within 8 digits, rounding up
    /// so a deadline is never shortened.
    public var headerValue: String {
        let units: [(Int64, Character)] = [
            (1, "n"), (1_000, "u"), (1_000_000, "m"), (1_000_000_000, "S"), (60_000_000_000, "M"),
            (3_600_000_000_000, "H"),
        ]
        for (scale, unit) in units {
            let amount = nanoseconds / scale + (nanoseconds % scale == 0 ? 0 : 1)
            if amount <= 99_999_999 { return "\(amount)\(unit)" }
        }
        return "99999999H"
    }
}
