/// ISO 8601 UTC timestamps as receipts and the CLI write them: `2026-04-21T18:13:12.153Z`, `2026-04-21T18:13:12Z`.
public enum Timestamp {
    /// Unix seconds (fractions dropped) for `text`, or nil when it is not `YYYY-MM-DDTHH:MM:SS[.fff]Z` (or `+00:00`).
    public static func unixSeconds(_ text: String) -> Int64? {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 20 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard index < utf8.count, (48...57).contains(utf8[index]) else { return nil }
                value = value * 10 + Int(utf8[index] - 48)
            }
            return value
        }
        guard let year = number(0..<4), utf8[4] == 45, let month = number(5..<7), utf8[7] == 45,
              let day = number(8..<10), utf8[10] == 84 || utf8[10] == 116, let hour = number(11..<13), utf8[13] == 58,
              let minute = number(14..<16), utf8[16] == 58, let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        if utf8[index] == 46 {
            index += 1
            let start = index
            while index < utf8.count, (48...57).contains(utf8[index]) { index += 1 }
            guard index > start else { return nil }
        }
        let zone = String(decoding: utf8[index...], as: UTF8.self)
        guard zone == "Z" || zone == "z" || zone == "+00:00" else { return nil }
        return daysFromCivil(year: year, month: month, day: day) * 86_400
            + Int64(hour * 3600 + minute * 60 + second)
    }

    /// `2026-04-21T18:13:12Z` for Unix seconds `time`.
    public static func string(_ time: Int64) -> String {
        let days = time >= 0 ? time / 86_400 : (time - 86_399) / 86_400
        let seconds = Int(time - days * 86_400)
        let (year, month, day) = civilFromDays(days)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let y = String(year)
        return "\(String(repeating: "0", count: max(0, 4 - y.count)))\(y)-\(two(month))-\(two(day))T"
            + "\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))Z"
    }

    // Howard Hinnant's civil-calendar algorithms: exact for the proleptic Gregorian calendar.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64((month + 9) % 12)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civilFromDays(_ days: Int64) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = Int(doy - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        let year = Int(yoe + era * 400) + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}
