/// RFC 3339 date-times (`2026-11-29T15:38:45Z`, `2026-04-21T18:13:12.153Z`, `2026-11-29T16:38:45+01:00`): the
/// text of protobuf's Timestamp in JSON, of Apple's receipt times, of the log and of the command-line tools.
public enum RFC3339 {
    /// How many digits of the second's fraction ``format(unixSeconds:nanoseconds:fraction:)`` writes.
    public enum Fraction: Sendable {
        /// None: `15:38:45Z`.
        case none
        /// Always three: `15:38:45.120Z`, as Apple's receipts and the log write times.
        case milliseconds
        /// None when zero, else three, six or nine, as proto3's JSON mapping writes a Timestamp.
        case protobuf
    }

    /// `unixSeconds` (and `nanoseconds`, 0 … 999,999,999) after 1970-01-01T00:00:00Z, written in UTC with `Z`.
    public static func format(unixSeconds: Int64, nanoseconds: Int32 = 0, fraction: Fraction = .none) -> String {
        let days = CivilDate.floorDivide(unixSeconds, 86_400)
        let secondOfDay = unixSeconds - days * 86_400
        let date = CivilDate(daysSince1970: days)
        var text: [UInt8] = []
        text.reserveCapacity(32)
        if date.year < 0 { text.append(UInt8(ascii: "-")) }
        append(abs(date.year), digits: 4, to: &text)
        text.append(UInt8(ascii: "-"))
        append(date.month, digits: 2, to: &text)
        text.append(UInt8(ascii: "-"))
        append(date.day, digits: 2, to: &text)
        text.append(UInt8(ascii: "T"))
        append(secondOfDay / 3600, digits: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        append(secondOfDay / 60 % 60, digits: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        append(secondOfDay % 60, digits: 2, to: &text)
        let nanos = Int64(min(max(0, nanoseconds), 999_999_999))
        switch fraction {
        case .none:
            break
        case .milliseconds:
            text.append(UInt8(ascii: "."))
            append(nanos / 1_000_000, digits: 3, to: &text)
        case .protobuf where nanos == 0:
            break
        case .protobuf:
            text.append(UInt8(ascii: "."))
            if nanos % 1_000_000 == 0 {
                append(nanos / 1_000_000, digits: 3, to: &text)
            } else if nanos % 1_000 == 0 {
                append(nanos / 1_000, digits: 6, to: &text)
            } else {
                append(nanos, digits: 9, to: &text)
            }
        }
        text.append(UInt8(ascii: "Z"))
        return String(decoding: text, as: UTF8.self)
    }

    /// The fields of `text` when it is an RFC 3339 `date-time` (`YYYY-MM-DDTHH:MM:SS[.f…](Z|±HH:MM)`, `T` and `Z`
    /// in either case) naming a day that exists; nil otherwise. Any number of fraction digits and a leap second
    /// (`:60`) are read; callers that allow neither check ``DateTime/fractionDigits`` and ``DateTime/second``.
    public static func parse(_ text: some StringProtocol) -> DateTime? {
        if let parsed = text.utf8.withContiguousStorageIfAvailable({ parse(utf8: $0) }) { return parsed }
        var text = String(text)
        return text.withUTF8 { parse(utf8: $0) }
    }

    private static func parse(utf8 b: UnsafeBufferPointer<UInt8>) -> DateTime? {
        guard b.count >= 20 else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            guard range.upperBound <= b.count else { return nil }
            var value: Int64 = 0
            for i in range {
                guard b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(b[i] - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), b[4] == UInt8(ascii: "-"), let month = number(5..<7), b[7] == UInt8(ascii: "-"),
              let day = number(8..<10), b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t"),
              let hour = number(11..<13), b[13] == UInt8(ascii: ":"), let minute = number(14..<16),
              b[16] == UInt8(ascii: ":"), let second = number(17..<19),
              let date = CivilDate(year: year, month: month, day: day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var i = 19
        var nanos: Int64 = 0
        var fractionDigits = 0
        if b[i] == UInt8(ascii: ".") {
            i += 1
            while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") {
                if fractionDigits < 9 { nanos = nanos * 10 + Int64(b[i] - UInt8(ascii: "0")) }
                fractionDigits += 1
                i += 1
            }
            guard fractionDigits > 0 else { return nil }
            for _ in min(fractionDigits, 9)..<9 { nanos *= 10 }
        }
        guard i < b.count else { return nil }
        let offset: DateTime.Offset
        if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
            offset = .utc
            i += 1
        } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            guard let hours = number((i + 1)..<(i + 3)), i + 3 < b.count, b[i + 3] == UInt8(ascii: ":"),
                  let minutes = number((i + 4)..<(i + 6)), hours < 24, minutes < 60 else { return nil }
            offset = b[i] == UInt8(ascii: "+") ? .east(minutes: hours * 60 + minutes) : .west(minutes: hours * 60 + minutes)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        return DateTime(date: date, hour: hour, minute: minute, second: second, nanoseconds: Int32(nanos),
                        fractionDigits: fractionDigits, offset: offset)
    }

    /// Appends `value` (not negative) in decimal, zero-padded to at least `digits` digits.
    private static func append(_ value: Int64, digits: Int, to text: inout [UInt8]) {
        var count = 1
        var rest = value / 10
        while rest > 0 { count += 1; rest /= 10 }
        let end = text.count + max(count, digits)
        text.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: max(count, digits)))
        rest = value
        var index = end - 1
        while rest > 0 {
            text[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
            index -= 1
        }
    }
}
