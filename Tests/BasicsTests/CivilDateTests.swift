import Basics
import Testing

@Suite("Civil calendar")
struct CivilDateTests {
    @Test("counts days from 1970-01-01, before it too")
    func knownDays() throws {
        #expect(try #require(CivilDate(year: 1970, month: 1, day: 1)).daysSince1970 == 0)
        #expect(try #require(CivilDate(year: 1969, month: 12, day: 31)).daysSince1970 == -1)
        #expect(try #require(CivilDate(year: 2000, month: 2, day: 29)).daysSince1970 == 11_016)
        #expect(try #require(CivilDate(year: 1, month: 1, day: 1)).daysSince1970 == -719_162)
        #expect(CivilDate(daysSince1970: -719_162) == CivilDate(year: 1, month: 1, day: 1))
        #expect(CivilDate(daysSince1970: 11_016) == CivilDate(year: 2000, month: 2, day: 29))
    }

    @Test("goes from days to a date and back for every day from year 1 to 9999 (sampled)")
    func roundTrip() {
        var previous: CivilDate?
        for days in stride(from: Int64(-719_162), through: 2_932_896, by: 97) {
            let date = CivilDate(daysSince1970: days)
            #expect(date.daysSince1970 == days)
            #expect(CivilDate(year: date.year, month: date.month, day: date.day) == date)
            if let previous { #expect((previous.year, previous.month, previous.day) < (date.year, date.month, date.day)) }
            previous = date
        }
    }

    @Test("refuses days that do not exist: 31 April, 29 February outside leap years, month 13, day 0")
    func refusesMissingDays() {
        #expect(CivilDate(year: 2026, month: 4, day: 31) == nil)
        #expect(CivilDate(year: 2026, month: 2, day: 29) == nil)
        #expect(CivilDate(year: 1900, month: 2, day: 29) == nil)
        #expect(CivilDate(year: 2000, month: 2, day: 29) != nil)
        #expect(CivilDate(year: 2024, month: 2, day: 29) != nil)
        #expect(CivilDate(year: 2026, month: 13, day: 1) == nil)
        #expect(CivilDate(year: 2026, month: 0, day: 1) == nil)
        #expect(CivilDate(year: 2026, month: 1, day: 0) == nil)
        #expect(CivilDate(year: 2026, month: 12, day: 31) != nil)
    }

    @Test("the date of an instant is its UTC day, before 1970 too")
    func dateOfInstant() {
        #expect(CivilDate(unixSeconds: 0) == CivilDate(year: 1970, month: 1, day: 1))
        #expect(CivilDate(unixSeconds: -1) == CivilDate(year: 1969, month: 12, day: 31))
        #expect(CivilDate(unixSeconds: 1_795_966_725) == CivilDate(year: 2026, month: 11, day: 29))
    }
}
