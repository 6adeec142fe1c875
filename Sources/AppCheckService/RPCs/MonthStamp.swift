import AppCheckMessages
import Basics

/// Apple's `last_update_time` is a month, `YYYY-MM`; the API answers with a Timestamp at its first instant (UTC).
enum MonthStamp {
    static func timestamp(_ text: String) -> ProtoTimestamp? {
        let parts = text.split(separator: "-")
        guard parts.count == 2, parts[0].count == 4, parts[1].count == 2,
              let year = Int64(parts[0]), let month = Int64(parts[1]), let first = CivilDate(year: year, month: month, day: 1)
        else { return nil }
        return ProtoTimestamp(seconds: first.daysSince1970 * 86_400)
    }

    /// The first instant (UTC) of the month that `unixSeconds` falls in.
    static func month(of unixSeconds: Int64) -> ProtoTimestamp {
        let today = CivilDate(unixSeconds: unixSeconds)
        return ProtoTimestamp(seconds: CivilDate(year: today.year, month: today.month, day: 1)!.daysSince1970 * 86_400)
    }
}
