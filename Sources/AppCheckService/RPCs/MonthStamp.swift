import AppCheckMessages
#if canImport(Glibc)
import Glibc
#endif

/// Apple's `last_update_time` is a month, `YYYY-MM`; the API answers with a Timestamp at its first instant (UTC).
enum MonthStamp {
    static func timestamp(_ text: String) -> ProtoTimestamp? {
        let parts = text.split(separator: "-")
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 2,
              let year = Int64(parts[0]), let month = Int64(parts[1]), (1...12).contains(month)
        else { return nil }
        return ProtoTimestamp(seconds: daysFromCivil(year: year, month: month, day: 1) * 86_400)
    }

    /// The first instant of the current month (UTC).
    static func currentMonth() -> ProtoTimestamp {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        return ProtoTimestamp(seconds: daysFromCivil(year: Int64(parts.tm_year) + 1900, month: Int64(parts.tm_mon) + 1, day: 1) * 86_400)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
