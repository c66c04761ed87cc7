import SieveColumns

/// The date texts of GeoPackage `DATE` (`yyyy-mm-dd`) and `DATETIME`
/// (`yyyy-mm-ddThh:mm:ss.fffZ`) columns, written and read without building intermediate strings.
enum GeoPackageDates {
    /// The first and last instant a `DATETIME` text can hold (years 0000–9999).
    static let datetimeRange: ClosedRange<Int64> =
        (CivilTime.days(year: 0, month: 1, day: 1) * CivilTime.millisecondsPerDay)...(CivilTime.days(
            year: 10_000, month: 1, day: 1) * CivilTime.millisecondsPerDay - 1)

    /// Writes `yyyy-mm-ddThh:mm:ss.fffZ` (24 bytes) for an instant in ``datetimeRange`` and
    /// passes the bytes to `body`.
    @inline(__always)
    static func withDatetimeText<T>(_ milliseconds: Int64, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        let c = CivilTime.components(milliseconds: milliseconds)
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &text) { buffer in
            func digits(_ value: Int64, _ count: Int, at offset: Int) {
                var v = value
                for k in stride(from: count - 1, through: 0, by: -1) {
                    buffer[offset + k] = UInt8(truncatingIfNeeded: 48 + v % 10)
                    v /= 10
                }
            }
            digits(c.year, 4, at: 0)
            buffer[4] = 45  // -
            digits(c.month, 2, at: 5)
            buffer[7] = 45
            digits(c.day, 2, at: 8)
            buffer[10] = 84  // T
            digits(c.hour, 2, at: 11)
            buffer[13] = 58  // :
            digits(c.minute, 2, at: 14)
            buffer[16] = 58
            digits(c.second, 2, at: 17)
            buffer[19] = 46  // .
            digits(c.millisecond, 3, at: 20)
            buffer[23] = 90  // Z
            return body(UnsafeRawBufferPointer(rebasing: buffer[0..<24]))
        }
    }

    /// Reads a date text: `yyyy-mm-dd` (midnight UTC) when `dateOnly`, else ISO 8601
    /// `yyyy-mm-dd[(T| )hh:mm[:ss[.f…]]][Z|±hh[:mm]]` (a missing zone is UTC). `nil` when the
    /// text is not one.
    static func parse(_ bytes: UnsafeRawBufferPointer, dateOnly: Bool) -> Int64? {
        // The common forms first, straight from the bytes: yyyy-mm-dd, yyyy-mm-ddThh:mm:ss.fffZ.
        if bytes.count == 10 || (!dateOnly && bytes.count == 24) {
            if let value = fastParse(bytes) { return value }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let syntax: CivilTime.Syntax = dateOnly ? .sqlDate : [.isoSeparator, .spaceSeparator, .time, .zulu, .offset]
        return CivilTime.parse(text, syntax: syntax)
    }

    @inline(__always)
    private static func fastParse(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        func number(_ offset: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for k in offset..<(offset + count) {
                let digit = bytes[k] &- 48
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            return value
        }
        guard bytes[4] == 45, bytes[7] == 45, let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            (1...12).contains(month), day >= 1, day <= 31
        else { return nil }
        let days = CivilTime.days(year: year, month: month, day: day)
        // Reject impossible days (2023-02-30) by converting back.
        let back = CivilTime.date(days: days)
        guard back.month == month, back.day == day else { return nil }
        var milliseconds = days * CivilTime.millisecondsPerDay
        if bytes.count == 10 { return milliseconds }
        guard bytes[10] == 84, bytes[13] == 58, bytes[16] == 58, bytes[19] == 46, bytes[23] == 90,
            let hour = number(11, 2), hour < 24, let minute = number(14, 2), minute < 60, let second = number(17, 2),
            second < 60, let fraction = number(20, 3)
        else { return nil }
        milliseconds += hour * 3_600_000 + minute * 60_000 + second * 1000 + fraction
        return milliseconds
    }
}
