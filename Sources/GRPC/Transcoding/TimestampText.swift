import Basics

/// The proto3 JSON text of `google.protobuf.Timestamp`: RFC 3339, written in UTC with `Z` and 0, 3, 6 or 9
/// fraction digits (`"2026-11-29T15:38:45Z"`, `"2026-11-29T15:38:45.120Z"`), read with any offset, within the range
/// the type allows, with at most nine fraction digits and no leap second.
enum TimestampText {
    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, the range the type allows.
    static let minSeconds: Int64 = -62_135_596_800
    static let maxSeconds: Int64 = 253_402_300_799

    static func format(seconds: Int64, nanos: Int32) -> String {
        RFC3339.format(unixSeconds: seconds, nanoseconds: nanos, fraction: .protobuf)
    }

    /// Parses RFC 3339 (`YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|±HH:MM)`); nil when malformed or out of range.
    static func parse(_ text: String) -> (seconds: Int64, nanos: Int32)? {
        guard let time = RFC3339.parse(text), time.fractionDigits <= 9, time.second < 60 else { return nil }
        let seconds = time.unixSeconds
        guard seconds >= minSeconds, seconds <= maxSeconds else { return nil }
        return (seconds, time.nanoseconds)
    }
}
