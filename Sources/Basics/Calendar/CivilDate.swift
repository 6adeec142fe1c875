/// A day of the proleptic Gregorian calendar, the calendar of RFC 3339, X.509 validity and Apple's receipts,
/// and its place counted in days from 1970-01-01.
public struct CivilDate: Hashable, Sendable {
    public let year: Int64
    /// 1 … 12.
    public let month: Int64
    /// 1 … the month's length.
    public let day: Int64

    /// The date, or nil when it does not exist (no 31 April, no 29 February outside leap years).
    public init?(year: Int64, month: Int64, day: Int64) {
        guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days after 1970-01-01 (before it when negative).
    public init(daysSince1970 days: Int64) {
        // Howard Hinnant's civil_from_days: eras of 400 years (146,097 days), years starting on 1 March so that
        // the leap day is the last of its year.
        let z = days + 719_468
        let era = Self.floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// The date (UTC) of the instant `unixSeconds` after 1970-01-01T00:00:00Z.
    public init(unixSeconds: Int64) {
        self.init(daysSince1970: Self.floorDivide(unixSeconds, 86_400))
    }

    /// Days from 1970-01-01 to this date (negative before it).
    public var daysSince1970: Int64 {
        // Howard Hinnant's days_from_civil, the inverse of ``init(daysSince1970:)``.
        let y = month <= 2 ? year - 1 : year
        let era = Self.floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The number of days in `month` (1 … 12) of `year`.
    public static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Whether `year` has a 29 February.
    public static func isLeap(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// `a / b` rounded toward minus infinity (`b` positive): instants before 1970 still fall on the right day.
    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a >= 0 ? a / b : -((-a + b - 1) / b)
    }
}
