import Foundation
import SieveTestSupport
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

    // MARK: The whole Int64 range

    /// Instants at and near the ends of `Int64` and the year 0000/9999 borders. The expected
    /// fields and texts are what `java.time.Instant.ofEpochMilli` gives (an independent
    /// implementation of the same proleptic Gregorian calendar); Java abbreviates zero seconds
    /// and milliseconds, the texts here always carry `.fff`.
    static let extremes: [(Int64, (Int64, Int64, Int64, Int64, Int64, Int64, Int64), String)] = [
        (.max, (292_278_994, 8, 17, 7, 12, 55, 807), "+292278994-08-17T07:12:55.807Z"),
        (.min, (-292_275_055, 5, 16, 16, 47, 4, 192), "-292275055-05-16T16:47:04.192Z"),
        (.min + 1, (-292_275_055, 5, 16, 16, 47, 4, 193), "-292275055-05-16T16:47:04.193Z"),
        (-9_223_372_036_854_775_000, (-292_275_055, 5, 16, 16, 47, 5, 0), "-292275055-05-16T16:47:05.000Z"),
        (-9_223_372_036_828_800_000, (-292_275_055, 5, 17, 0, 0, 0, 0), "-292275055-05-17T00:00:00.000Z"),
        (9_223_372_036_828_800_000, (292_278_994, 8, 17, 0, 0, 0, 0), "+292278994-08-17T00:00:00.000Z"),
        (-62_135_596_800_000, (1, 1, 1, 0, 0, 0, 0), "0001-01-01T00:00:00.000Z"),
        (-62_167_219_200_000, (0, 1, 1, 0, 0, 0, 0), "0000-01-01T00:00:00.000Z"),
        (-62_167_219_200_001, (-1, 12, 31, 23, 59, 59, 999), "-0001-12-31T23:59:59.999Z"),
        (-62_198_755_200_000, (-1, 1, 1, 0, 0, 0, 0), "-0001-01-01T00:00:00.000Z"),
        (-377_705_116_800_000, (-9999, 1, 1, 0, 0, 0, 0), "-9999-01-01T00:00:00.000Z"),
        (-377_705_116_800_001, (-10000, 12, 31, 23, 59, 59, 999), "-10000-12-31T23:59:59.999Z"),
        (253_402_300_799_999, (9999, 12, 31, 23, 59, 59, 999), "9999-12-31T23:59:59.999Z"),
        (253_402_300_800_000, (10000, 1, 1, 0, 0, 0, 0), "+10000-01-01T00:00:00.000Z"),
    ]

    @Test(arguments: extremes)
    func totalOverInt64(ms: Int64, fields: (Int64, Int64, Int64, Int64, Int64, Int64, Int64), text: String) {
        let c = CivilTime.components(milliseconds: ms)
        #expect(
            c.year == fields.0 && c.month == fields.1 && c.day == fields.2 && c.hour == fields.3 && c.minute == fields.4
                && c.second == fields.5 && c.millisecond == fields.6, "\(ms): \(c)")
        #expect(CivilTime.format(milliseconds: ms) == text)
        // Date only at midnight: the text up to the `T`.
        let dateOnly = CivilTime.format(milliseconds: ms, dateOnlyAtMidnight: true)
        let midnight = fields.3 == 0 && fields.4 == 0 && fields.5 == 0 && fields.6 == 0
        #expect(dateOnly == (midnight ? String(text.prefix { $0 != "T" }) : text))
    }

    @Test func startOfDayAtTheEnds() {
        // Int64.min is in the afternoon of -292275055-05-16, whose midnight is before Int64.min.
        #expect(CivilTime.startOfDay(milliseconds: .min) == nil)
        #expect(CivilTime.startOfDay(milliseconds: -9_223_372_036_828_800_001) == nil)
        #expect(CivilTime.startOfDay(milliseconds: -9_223_372_036_828_800_000) == -9_223_372_036_828_800_000)
        #expect(CivilTime.startOfDay(milliseconds: .max) == 9_223_372_036_828_800_000)
        #expect(CivilTime.startOfDay(milliseconds: -1) == -86_400_000)
        #expect(CivilTime.startOfDay(milliseconds: 86_399_999) == 0)
        #expect(CivilTime.dayRange == -106_751_991_168...106_751_991_167)
        let (q, r) = CivilTime.floorDivideWithRemainder(.min, CivilTime.millisecondsPerDay)
        // -106751991168 days and 60,424,192 ms (16:47:04.192) after that day's midnight.
        #expect(q == -106_751_991_168 && r == 60_424_192)
    }

    /// Random instants over the whole range (and the ends themselves): the fields read back
    /// through `days(year:month:day:)` to the same instant, and the text has the documented form.
    @Test func randomInstantsRoundTrip() {
        var generator = SeededGenerator(seed: 0x5EED)
        var samples: [Int64] = [.min, .min + 1, .max, .max - 1, 0, -1, 1]
        for _ in 0..<20_000 { samples.append(Int64(bitPattern: generator.next())) }
        for ms in samples {
            let c = CivilTime.components(milliseconds: ms)
            #expect((1...12).contains(c.month) && (1...31).contains(c.day) && (0..<24).contains(c.hour))
            #expect((0..<60).contains(c.minute) && (0..<60).contains(c.second) && (0..<1000).contains(c.millisecond))
            let days = CivilTime.days(year: c.year, month: c.month, day: c.day)
            let timeOfDay = ((c.hour * 60 + c.minute) * 60 + c.second) * 1000 + c.millisecond
            // days * 86,400,000 + timeOfDay == ms, checked without leaving Int64.
            let (q, r) = CivilTime.floorDivideWithRemainder(ms, CivilTime.millisecondsPerDay)
            #expect(days == q && timeOfDay == r, "\(ms)")
            let text = CivilTime.format(milliseconds: ms)
            let sign = c.year < 0 ? "-" : (c.year > 9999 ? "+" : "")
            #expect(text.hasPrefix(sign + (c.year.magnitude < 1000 ? String(repeating: "0", count: 4 - String(c.year.magnitude).count) : "") + String(c.year.magnitude) + "-"))
            #expect(text.hasSuffix("Z"))
        }
    }
}
