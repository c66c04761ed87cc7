/// Conversions between epoch milliseconds (UTC) and calendar dates and times, and the parsing of
/// the date and time texts GIS data and SQL literals use.
///
/// The calendar is the proleptic Gregorian calendar in UTC; no leap seconds. The day-count
/// conversion follows the classic era-based formulas (400-year eras of 146,097 days).
///
/// Every `Int64` millisecond count is an instant: ``components(milliseconds:)`` and
/// ``format(milliseconds:dateOnlyAtMidnight:)`` are total, from `Int64.min`
/// (`-292275055-05-16T16:47:04.192Z`) to `Int64.max` (`+292278994-08-17T07:12:55.807Z`), and
/// never trap.
public enum CivilTime {
    /// Milliseconds in a day.
    public static let millisecondsPerDay: Int64 = 86_400_000

    /// The first and last day (counted from 1970-01-01) that hold an instant of the `Int64`
    /// millisecond range; neither is whole: `Int64.min` falls in the afternoon of the first,
    /// `Int64.max` in the morning of the last.
    public static let dayRange: ClosedRange<Int64> = floorDivide(.min, millisecondsPerDay)...floorDivide(.max, millisecondsPerDay)

    /// Days from 1970-01-01 to the given date (negative before it). `month` 1…12, `day` 1…31.
    ///
    /// Exact for years within ±10^16 (far beyond the ±292 million years an `Int64` of
    /// milliseconds spans); the arithmetic wraps instead of trapping beyond that. Callers that
    /// take a year from input check it first, as ``parse(_:syntax:)`` does (four digits).
    public static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year &- 1 : year
        let era = (y >= 0 ? y : y &- 399) / 400
        let yearOfEra = y &- era &* 400
        let shiftedMonth = month > 2 ? month &- 3 : month &+ 9
        let dayOfYear = (153 &* shiftedMonth &+ 2) / 5 &+ day &- 1
        let dayOfEra = yearOfEra &* 365 &+ yearOfEra / 4 &- yearOfEra / 100 &+ dayOfYear
        return era &* 146_097 &+ dayOfEra &- 719_468
    }

    /// The date `days` days after 1970-01-01. Exact for `|days| ≤ 2^62` (far beyond
    /// ``dayRange``); wraps instead of trapping beyond.
    public static func date(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days &+ 719_468
        let era = (z >= 0 ? z : z &- 146_096) / 146_097
        let dayOfEra = z &- era &* 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra &+ era &* 400 &+ (month <= 2 ? 1 : 0), month, day)
    }

    /// The calendar fields of an instant, in UTC. Total over `Int64`: years run from
    /// -292,275,055 to 292,278,994.
    public static func components(milliseconds: Int64) -> (year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64, millisecond: Int64) {
        // Day and time of day without forming `days * millisecondsPerDay`, which leaves `Int64`
        // for the first day of the range.
        let (days, timeOfDay) = floorDivideWithRemainder(milliseconds, millisecondsPerDay)
        var rest = timeOfDay
        let (year, month, day) = date(days: days)
        let hour = rest / 3_600_000
        rest -= hour * 3_600_000
        let minute = rest / 60_000
        rest -= minute * 60_000
        let second = rest / 1000
        return (year, month, day, hour, minute, second, rest - second * 1000)
    }

    /// Midnight (UTC) of the day holding `milliseconds`, or `nil` when that midnight is before
    /// `Int64.min` (the instants of the range's first day, before -292275055-05-17).
    public static func startOfDay(milliseconds: Int64) -> Int64? {
        let timeOfDay = floorDivideWithRemainder(milliseconds, millisecondsPerDay).remainder
        let (start, overflow) = milliseconds.subtractingReportingOverflow(timeOfDay)
        return overflow ? nil : start
    }

    /// Whether `milliseconds` is a midnight (UTC): the instant a day-only value is stored as.
    public static func isMidnight(_ milliseconds: Int64) -> Bool {
        floorDivideWithRemainder(milliseconds, millisecondsPerDay).remainder == 0
    }

    /// `a / b` rounded toward negative infinity, and the remainder that goes with it
    /// (`0 ≤ remainder < b` for `b > 0`); `b` must not be 0, and `a / b` must fit (not
    /// `Int64.min / -1`).
    public static func floorDivideWithRemainder(_ a: Int64, _ b: Int64) -> (quotient: Int64, remainder: Int64) {
        let quotient = a / b, remainder = a % b
        if remainder != 0 && (remainder < 0) != (b < 0) { return (quotient - 1, remainder + b) }
        return (quotient, remainder)
    }

    /// `a / b` rounded toward negative infinity.
    public static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let quotient = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
    }

    /// Whether `day` exists in that month.
    package static func isValid(year: Int64, month: Int64, day: Int64) -> Bool {
        guard (1...12).contains(month), day >= 1 else { return false }
        let lengths: [Int64] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        let isLeap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let length = month == 2 && isLeap ? 29 : lengths[Int(month - 1)]
        return day <= length
    }

    /// What a date/time text may look like.
    public struct Syntax: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// `T` between date and time (ISO 8601).
        public static let isoSeparator = Syntax(rawValue: 1)
        /// A space between date and time (SQL).
        public static let spaceSeparator = Syntax(rawValue: 2)
        /// A time part may follow the date.
        public static let time = Syntax(rawValue: 4)
        /// `Z` may end the text (ISO 8601).
        public static let zulu = Syntax(rawValue: 8)
        /// `±hh:mm` (or `±hhmm`, `±hh`) may end the text.
        public static let offset = Syntax(rawValue: 16)

        /// ISO 8601 as GeoJSON properties write it: `yyyy-mm-dd` or `yyyy-mm-ddThh:mm[:ss[.fff]]`
        /// with an optional `Z` or offset.
        public static let iso8601: Syntax = [.isoSeparator, .time, .zulu, .offset]
        /// SQL `TIMESTAMP 'yyyy-mm-dd hh:mi:ss[.fff][±hh:mm]'` (and the ISO `T`).
        public static let sqlTimestamp: Syntax = [.spaceSeparator, .isoSeparator, .time, .offset, .zulu]
        /// SQL `DATE 'yyyy-mm-dd'`.
        public static let sqlDate: Syntax = []
    }

    /// Parses `yyyy-mm-dd[(T| )hh:mm[:ss[.f…]]][Z|±hh[:mm]]` as allowed by `syntax`, returning
    /// epoch milliseconds in UTC (times without an offset are read as UTC), or `nil` when the
    /// text does not match or names an impossible date or time. Fractions beyond milliseconds are
    /// truncated.
    public static func parse(_ text: String, syntax: Syntax) -> Int64? {
        var bytes = Array(text.utf8)[...]
        func digits(_ count: Int) -> Int64? {
            guard bytes.count >= count else { return nil }
            var value: Int64 = 0
            for _ in 0..<count {
                guard let byte = bytes.first, byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
                bytes.removeFirst()
            }
            return value
        }
        func take(_ byte: UInt8) -> Bool {
            guard bytes.first == byte else { return false }
            bytes.removeFirst()
            return true
        }
        guard let year = digits(4), take(45), let month = digits(2), take(45), let day = digits(2),
            isValid(year: year, month: month, day: day)
        else { return nil }
        var milliseconds = days(year: year, month: month, day: day) * millisecondsPerDay
        guard let separator = bytes.first else { return milliseconds }
        guard syntax.contains(.time) else { return nil }
        if separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") {
            guard syntax.contains(.isoSeparator) else { return nil }
        } else if separator == UInt8(ascii: " ") {
            guard syntax.contains(.spaceSeparator) else { return nil }
        } else {
            return nil
        }
        bytes.removeFirst()
        guard let hour = digits(2), hour < 24, take(58), let minute = digits(2), minute < 60 else { return nil }
        var second: Int64 = 0
        var fraction: Int64 = 0
        if take(58) {
            guard let value = digits(2), value < 60 else { return nil }
            second = value
            if take(46) {
                var scale: Int64 = 100
                var any = false
                while let byte = bytes.first, byte >= 48, byte <= 57 {
                    fraction += Int64(byte - 48) * scale
                    scale /= 10
                    any = true
                    bytes.removeFirst()
                }
                guard any else { return nil }
            }
        }
        milliseconds += hour * 3_600_000 + minute * 60_000 + second * 1000 + fraction
        guard let zone = bytes.first else { return milliseconds }
        if zone == UInt8(ascii: "Z") || zone == UInt8(ascii: "z") {
            guard syntax.contains(.zulu), bytes.count == 1 else { return nil }
            return milliseconds
        }
        guard syntax.contains(.offset), zone == UInt8(ascii: "+") || zone == UInt8(ascii: "-") else { return nil }
        bytes.removeFirst()
        guard let offsetHours = digits(2), offsetHours <= 18 else { return nil }
        var offsetMinutes: Int64 = 0
        if !bytes.isEmpty {
            _ = take(58)
            guard let value = digits(2), value < 60 else { return nil }
            offsetMinutes = value
        }
        guard bytes.isEmpty else { return nil }
        let offset = (offsetHours * 60 + offsetMinutes) * 60_000
        return zone == UInt8(ascii: "+") ? milliseconds - offset : milliseconds + offset
    }

    /// `yyyy-mm-ddThh:mm:ss.fffZ` (ISO 8601, UTC), or `yyyy-mm-dd` when the instant is midnight
    /// and `dateOnlyAtMidnight` is set. Total over `Int64`.
    ///
    /// Years 0000 to 9999 print as four digits. Other years use ISO 8601's expanded form, as
    /// `java.time` does: at least four digits after a sign, `-` before year 0 (`-0001-12-31`,
    /// `-292275055-05-16T16:47:04.192Z`), `+` after year 9999 (`+10000-01-01`,
    /// `+292278994-08-17T07:12:55.807Z`).
    public static func format(milliseconds: Int64, dateOnlyAtMidnight: Bool = false) -> String {
        let c = components(milliseconds: milliseconds)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value.magnitude)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let sign = c.year < 0 ? "-" : (c.year > 9999 ? "+" : "")
        let date = "\(sign)\(pad(c.year, 4))-\(pad(c.month, 2))-\(pad(c.day, 2))"
        if dateOnlyAtMidnight, c.hour == 0, c.minute == 0, c.second == 0, c.millisecond == 0 { return date }
        return date + "T\(pad(c.hour, 2)):\(pad(c.minute, 2)):\(pad(c.second, 2)).\(pad(c.millisecond, 3))Z"
    }
}
