/// The proto3 JSON text of `google.protobuf.Duration`: seconds with an `s` suffix, `"300s"`, `"1.500s"`, `"-0.5s"`.
enum DurationText {
    /// The largest magnitude of `seconds` the type allows (10,000 years).
    static let maxSeconds: Int64 = 315_576_000_000

    /// Parses `text`; nil unless it is `-?digits(.1–9 digits)?s` within ±315,576,000,000 s.
    static func parse(_ text: String) -> (seconds: Int64, nanos: Int32)? {
        var utf8 = Substring(text).utf8
        guard utf8.last == UInt8(ascii: "s") else { return nil }
        utf8 = utf8.dropLast()
        var negative = false
        if utf8.first == UInt8(ascii: "-") { negative = true; utf8 = utf8.dropFirst() }
        let dot = utf8.firstIndex(of: UInt8(ascii: "."))
        let whole = utf8[..<(dot ?? utf8.endIndex)]
        guard !whole.isEmpty, whole.count <= 12, let seconds = digits(whole) else { return nil }
        var nanos: Int64 = 0
        if let dot {
            let fraction = utf8[utf8.index(after: dot)...]
            guard !fraction.isEmpty, fraction.count <= 9, let value = digits(fraction) else { return nil }
            nanos = value
            for _ in fraction.count..<9 { nanos *= 10 }
        }
        guard seconds <= maxSeconds else { return nil }
        return negative ? (-seconds, Int32(-nanos)) : (seconds, Int32(nanos))
    }

    /// `seconds` and `nanos` as text, with 0, 3, 6 or 9 fractional digits.
    static func format(seconds: Int64, nanos: Int32) -> String {
        let negative = seconds < 0 || nanos < 0
        let whole = seconds.magnitude
        let fraction = nanos.magnitude
        return (negative ? "-" : "") + String(whole) + fractionText(UInt32(fraction)) + "s"
    }

    /// `.fff`, `.ffffff` or `.fffffffff`, or nothing when `nanos` is zero.
    static func fractionText(_ nanos: UInt32) -> String {
        guard nanos != 0 else { return "" }
        let padded = String(nanos)
        var text = String(repeating: "0", count: 9 - padded.count) + padded
        if nanos % 1_000_000 == 0 {
            text.removeLast(6)
        } else if nanos % 1_000 == 0 {
            text.removeLast(3)
        }
        return "." + text
    }

    private static func digits(_ text: Substring.UTF8View.SubSequence) -> Int64? {
        var value: Int64 = 0
        for byte in text {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
