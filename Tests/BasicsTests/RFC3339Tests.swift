import Basics
import Testing

@Suite("RFC 3339")
struct RFC3339Tests {
    @Test("reads the examples of RFC 3339 §5.8")
    func rfcExamples() throws {
        let utc = try #require(RFC3339.parse("1985-04-12T23:20:50.52Z"))
        #expect(utc.unixSeconds == 482_196_050)
        #expect(utc.nanoseconds == 520_000_000 && utc.fractionDigits == 2)
        #expect(utc.offset == .utc && utc.isWrittenInUTC)

        let pacific = try #require(RFC3339.parse("1996-12-19T16:39:57-08:00"))
        #expect(pacific.unixSeconds == 851_042_397)
        #expect(pacific.offset == .west(minutes: 480) && !pacific.isWrittenInUTC)

        // A leap second, in UTC and in Pacific time: the same instant, counted as the next minute's first second.
        let leap = try #require(RFC3339.parse("1990-12-31T23:59:60Z"))
        #expect(leap.second == 60 && leap.unixSeconds == 662_688_000)
        #expect(RFC3339.parse("1990-12-31T15:59:60-08:00")?.unixSeconds == 662_688_000)

        let netherlands = try #require(RFC3339.parse("1937-01-01T12:00:27.87+00:20"))
        #expect(netherlands.unixSeconds == -1_041_337_173)
        #expect(netherlands.offset == .east(minutes: 20))
    }

    @Test("tells UTC as written (Z, z, +00:00) from an unknown local offset (-00:00)")
    func utcSpellings() {
        #expect(RFC3339.parse("2026-04-21T18:13:12Z")?.isWrittenInUTC == true)
        #expect(RFC3339.parse("2026-04-21t18:13:12z")?.isWrittenInUTC == true)
        #expect(RFC3339.parse("2026-04-21T18:13:12.153+00:00")?.isWrittenInUTC == true)
        #expect(RFC3339.parse("2026-04-21T18:13:12-00:00")?.isWrittenInUTC == false)
        #expect(RFC3339.parse("2026-04-21T18:13:12.153Z")?.unixSeconds == RFC3339.parse("2026-04-21T18:13:12Z")?.unixSeconds)
    }

    @Test("keeps nine digits of a longer fraction and says how many there were")
    func longFractions() throws {
        let time = try #require(RFC3339.parse("2026-11-29T15:38:45.1234567891Z"))
        #expect(time.nanoseconds == 123_456_789 && time.fractionDigits == 10)
        #expect(RFC3339.parse("2026-11-29T15:38:45.000000001Z")?.nanoseconds == 1)
    }

    @Test("refuses what is not an RFC 3339 date-time naming a day that exists")
    func refusals() {
        for bad in ["2026-02-30T00:00:00Z", "2026-04-31T00:00:00Z", "2026-11-29 15:38:45Z", "2026-11-29T15:38:45",
                    "2026-13-01T00:00:00Z", "10000-01-01T00:00:00Z", "2026-11-29T24:00:00Z", "2026-11-29T23:60:00Z",
                    "2026-11-29T23:59:61Z", "2026-11-29T15:38:45.Z", "2026-11-29T15:38:45+1:00", "2026-11-29T15:38:45+24:00",
                    "2026-11-29T15:38:45+01:60", "2026-11-29T15:38:45Z ", "2026-1-29T15:38:45Z", "+026-11-29T15:38:45Z",
                    "2026-11-29T15:38:45+0100", "2026-11-29T15:38:45UTC", ""] {
            #expect(RFC3339.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("writes UTC with no fraction, milliseconds, or protobuf's 0, 3, 6 or 9 digits")
    func formats() {
        #expect(RFC3339.format(unixSeconds: 1_795_966_725) == "2026-11-29T15:38:45Z")
        #expect(RFC3339.format(unixSeconds: 2_373_148_800) == "2045-03-15T00:00:00Z")
        #expect(RFC3339.format(unixSeconds: -1) == "1969-12-31T23:59:59Z")
        #expect(RFC3339.format(unixSeconds: -62_135_596_800) == "0001-01-01T00:00:00Z")
        #expect(RFC3339.format(unixSeconds: 253_402_300_799) == "9999-12-31T23:59:59Z")
        #expect(RFC3339.format(unixSeconds: 0, nanoseconds: 7_000_000, fraction: .milliseconds) == "1970-01-01T00:00:00.007Z")
        #expect(RFC3339.format(unixSeconds: 0, nanoseconds: 0, fraction: .milliseconds) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.format(unixSeconds: 0, nanoseconds: 999_999_999, fraction: .milliseconds) == "1970-01-01T00:00:00.999Z")
        #expect(RFC3339.format(unixSeconds: 0, nanoseconds: 0, fraction: .protobuf) == "1970-01-01T00:00:00Z")
        #expect(RFC3339.format(unixSeconds: 0, nanoseconds: 120_000_000, fraction: .protobuf) == "1970-01-01T00:00:00.120Z")
        #expect(RFC3339.format(unixSeconds: 0, nanoseconds: 1_000, fraction: .protobuf) == "1970-01-01T00:00:00.000001Z")
        #expect(RFC3339.format(unixSeconds: 0, nanoseconds: 5, fraction: .protobuf) == "1970-01-01T00:00:00.000000005Z")
        #expect(RFC3339.format(unixSeconds: 0, nanoseconds: 5, fraction: .none) == "1970-01-01T00:00:00Z")
    }

    @Test("reads back what it writes")
    func roundTrip() throws {
        for seconds in stride(from: Int64(-62_135_596_800), through: 253_402_300_799, by: 7_919_993) {
            let time = try #require(RFC3339.parse(RFC3339.format(unixSeconds: seconds, nanoseconds: 250_000_000, fraction: .protobuf)))
            #expect(time.unixSeconds == seconds && time.nanoseconds == 250_000_000)
        }
    }
}
