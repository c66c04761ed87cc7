import Foundation
import Testing

@testable import SieveColumns

@Suite("Civil time")
struct CivilTimeTests {
    @Test func knownDays() {
        #expect(CivilTime.days(year: 1970, month: 1, day: 1) == 0)
        #expect(CivilTime.days(year: 1969, month: 12, day: 31) == -1)
        #expect(CivilTime.days(year: 2000, month: 3, day: 1) == 11_017)
        #expect(CivilTime.days(year: 1600, month: 1, day: 1) == -135_140)
    }

    /// Every day from 1600 to 2400 against Foundation's Gregorian calendar in UTC.
    @Test func agreesWithFoundationCalendar() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        for days in stride(from: Int64(-135_140), through: 157_000, by: 7) {
            let date = Date(timeIntervalSince1970: Double(days) * 86_400)
            let expected = calendar.dateComponents([.year, .month, .day], from: date)
            let ours = CivilTime.date(days: days)
            #expect(ours.year == Int64(expected.year ?? 0) && ours.month == Int64(expected.month ?? 0) && ours.day == Int64(expected.day ?? 0), "\(days)")
            #expect(CivilTime.days(year: ours.year, month: ours.month, day: ours.day) == days)
        }
    }

    @Test(arguments: [
        ("2024-02-29", CivilTime.Syntax.iso8601, Int64(1_709_164_800_000)),
        ("2024-02-29T12:30:00Z", .iso8601, 1_709_209_800_000),
        ("2024-02-29T12:30:00.250+02:00", .iso8601, 1_709_202_600_250),
        ("2024-02-29T12:30", .iso8601, 1_709_209_800_000),
        ("1969-12-31T23:59:59.999Z", .iso8601, -1),
        ("2024-02-29 12:30:00", .sqlTimestamp, 1_709_209_800_000),
        ("2024-02-29 12:30:00-05:00", .sqlTimestamp, 1_709_227_800_000),
    ])
    func parses(text: String, syntax: CivilTime.Syntax, expected: Int64) {
        #expect(CivilTime.parse(text, syntax: syntax) == expected)
    }

    @Test(arguments: [
        ("2023-02-29", CivilTime.Syntax.iso8601), ("2024-13-01", .iso8601), ("1888", .iso8601),
        ("2005-06", .iso8601), ("2024-02-29 12:30:00", .iso8601), ("2024-02-29T12:30:00", .sqlDate),
        ("2024-02-29T25:00:00", .iso8601), ("2024-02-29T12:30:00Zx", .iso8601), ("24-02-29", .iso8601),
        ("2024-02-29T12:30:00.", .iso8601), ("", .iso8601),
    ])
    func rejects(text: String, syntax: CivilTime.Syntax) {
        #expect(CivilTime.parse(text, syntax: syntax) == nil)
    }

    @Test func formatsAndComponents() {
        #expect(CivilTime.format(milliseconds: 1_709_209_800_250) == "2024-02-29T12:30:00.250Z")
        #expect(CivilTime.format(milliseconds: 1_709_164_800_000, dateOnlyAtMidnight: true) == "2024-02-29")
        let c = CivilTime.components(milliseconds: -1)
        #expect(c.year == 1969 && c.month == 12 && c.day == 31 && c.hour == 23 && c.minute == 59 && c.second == 59 && c.millisecond == 999)
    }
}
