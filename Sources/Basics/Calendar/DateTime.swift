/// An instant as RFC 3339 (§5.6) writes it: a civil date, a time of day and an offset from UTC, each field as
/// the text gave it. ``RFC3339/parse(_:)`` reads one; callers then apply their own limits (range, leap seconds,
/// digits of fraction, offsets).
public struct DateTime: Hashable, Sendable {
    /// The offset the text gave after the time.
    public enum Offset: Hashable, Sendable {
        /// `Z` or `z`.
        case utc
        /// `+HH:MM`, in minutes (`+00:00` is 0).
        case east(minutes: Int64)
        /// `-HH:MM`, in minutes; `-00:00` is RFC 3339's "UTC, local offset unknown".
        case west(minutes: Int64)

        /// Seconds to add to UTC for local time.
        public var seconds: Int64 {
            switch self {
            case .utc: 0
            case .east(let minutes): minutes * 60
            case .west(let minutes): -minutes * 60
            }
        }
    }

    public let date: CivilDate
    /// 0 … 23.
    public let hour: Int64
    /// 0 … 59.
    public let minute: Int64
    /// 0 … 60; 60 only for a leap second.
    public let second: Int64
    /// The first nine digits of the fraction as nanoseconds (0 without one); later digits are dropped.
    public let nanoseconds: Int32
    /// How many digits the fraction had (0 without one).
    public let fractionDigits: Int
    public let offset: Offset

    /// Whether the text was written in UTC: `Z` or `+00:00` (not `-00:00`, which says the local offset is unknown).
    public var isWrittenInUTC: Bool { offset == .utc || offset == .east(minutes: 0) }

    /// Seconds since 1970-01-01T00:00:00Z, fractions dropped; a leap second counts as the first second of the next
    /// minute.
    public var unixSeconds: Int64 {
        date.daysSince1970 * 86_400 + hour * 3600 + minute * 60 + second - offset.seconds
    }

    init(date: CivilDate, hour: Int64, minute: Int64, second: Int64, nanoseconds: Int32, fractionDigits: Int,
         offset: Offset) {
        self.date = date
        self.hour = hour
        self.minute = minute
        self.second = second
        self.nanoseconds = nanoseconds
        self.fractionDigits = fractionDigits
        self.offset = offset
    }
}
