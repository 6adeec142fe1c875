/// The proto3 JSON text of `google.protobuf.Timestamp`: RFC 3339, written in UTC with `Z`
/// (`"2026-11-29T15:38:45Z"`, `"2026-11-29T15:38:45.120Z"`), read with any offset.
enum TimestampText {
    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, the range the type allows.
    static let minSeconds: Int64 = -62_135_596_800
    static let maxSeconds: Int64 = 253_402_300_799

    static func format(seconds: Int64, nanos: Int32) -> String {
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let yearText = String(year)
        return String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText + "-" + two(month) + "-"
            + two(day) + "T" + two(secondOfDay / 3600) + ":" + two(secondOfDay / 60 % 60) + ":"
            + two(secondOfDay % 60) + DurationText.fractionText(UInt32(max(0, nanos))) + "Z"
    }

    /// Parses RFC 3339 (`YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|±HH:MM)`); nil when malformed or out of range.
    static func parse(_ text: String) -> (seconds: Int64, nanos: Int32)? {
        let b = Array(text.utf8)
        guard b.count >= 20 else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for i in range {
                guard i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(b[i] - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), b[4] == UInt8(ascii: "-"), let month = number(5..<7), b[7] == UInt8(ascii: "-"),
              let day = number(8..<10), b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t"),
              let hour = number(11..<13), b[13] == UInt8(ascii: ":"), let minute = number(14..<16),
              b[16] == UInt8(ascii: ":"), let second = number(17..<19),
              (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60 else { return nil }
        var i = 19
        var nanos: Int64 = 0
        if b[i] == UInt8(ascii: ".") {
            let start = i + 1
            i = start
            while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") { i += 1 }
            guard i > start, i - start <= 9, let fraction = number(start..<i) else { return nil }
            nanos = fraction
            for _ in (i - start)..<9 { nanos *= 10 }
        }
        guard i < b.count else { return nil }
        var offset: Int64 = 0
        if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
            i += 1
        } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            guard let hours = number((i + 1)..<(i + 3)), i + 3 < b.count, b[i + 3] == UInt8(ascii: ":"),
                  let minutes = number((i + 4)..<(i + 6)), hours < 24, minutes < 60 else { return nil }
            offset = (hours * 3600 + minutes * 60) * (b[i] == UInt8(ascii: "-") ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let seconds = days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        guard seconds >= minSeconds, seconds <= maxSeconds else { return nil }
        return (seconds, Int32(nanos))
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }

    // Howard Hinnant's days_from_civil and civil_from_days (proleptic Gregorian calendar).
    private static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
