extension CivilTime {
    /// Parses UTF-8 bytes as ``parse(_:syntax:)`` parses text, reading the canonical forms
    /// `yyyy-mm-dd` and `yyyy-mm-ddThh:mm:ss.fffZ` (what GeoPackage and the JSON writers store)
    /// straight from the bytes, without making a string.
    package static func parse(_ bytes: UnsafeRawBufferPointer, syntax: Syntax) -> Int64? {
        if bytes.count == 10 || (bytes.count == 24 && syntax.isSuperset(of: [.isoSeparator, .time, .zulu])) {
            if let value = parseCanonical(bytes) { return value }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        return parse(text, syntax: syntax)
    }

    /// The canonical forms `yyyy-mm-dd` (10 bytes) and `yyyy-mm-ddThh:mm:ss.fffZ` (24 bytes),
    /// read digit by digit without branching per digit; `nil` for anything else (which
    /// ``parse(_:syntax:)-(UnsafeRawBufferPointer,_)`` then reads the general way, so `nil` is never wrong).
    @inline(__always)
    package static func parseCanonical(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        let count = bytes.count
        guard count == 10 || count == 24, let p = bytes.baseAddress else { return nil }
        @inline(__always) func byte(_ i: Int) -> UInt8 { p.load(fromByteOffset: i, as: UInt8.self) }
        @inline(__always) func digit(_ i: Int) -> Int32 { Int32(byte(i)) &- 48 }
        // A digit is 0…9: d and 9 - d are both non-negative, so their OR over all digits is too.
        @inline(__always) func check(_ d: Int32) -> Int32 { d | (9 &- d) }
        let y0 = digit(0)
        let y1 = digit(1)
        let y2 = digit(2)
        let y3 = digit(3)
        let m0 = digit(5)
        let m1 = digit(6)
        let d0 = digit(8)
        let d1 = digit(9)
        let checked = check(y0) | check(y1) | check(y2) | check(y3) | check(m0) | check(m1) | check(d0) | check(d1)
        guard checked >= 0, byte(4) == 45, byte(7) == 45 else { return nil }
        let year = Int64(y0 &* 1000 &+ y1 &* 100 &+ y2 &* 10 &+ y3)
        let month = Int64(m0 &* 10 &+ m1)
        let day = Int64(d0 &* 10 &+ d1)
        guard month >= 1, month <= 12, day >= 1, day <= daysInMonth(month, year: year) else { return nil }
        let midnight = CivilTime.days(year: year, month: month, day: day) &* CivilTime.millisecondsPerDay
        if count == 10 { return midnight }
        let h0 = digit(11)
        let h1 = digit(12)
        let n0 = digit(14)
        let n1 = digit(15)
        let s0 = digit(17)
        let s1 = digit(18)
        let f0 = digit(20)
        let f1 = digit(21)
        let f2 = digit(22)
        let timeChecked = check(h0) | check(h1) | check(n0) | check(n1) | check(s0) | check(s1) | check(f0) | check(f1) | check(f2)
        guard timeChecked >= 0, byte(10) == 84, byte(13) == 58, byte(16) == 58, byte(19) == 46, byte(23) == 90
        else { return nil }
        let hour = h0 &* 10 &+ h1
        let minute = n0 &* 10 &+ n1
        let second = s0 &* 10 &+ s1
        guard hour < 24, minute < 60, second < 60 else { return nil }
        let time = Int64(hour) &* 3_600_000 &+ Int64(minute) &* 60_000 &+ Int64(second) &* 1000
            &+ Int64(f0 &* 100 &+ f1 &* 10 &+ f2)
        return midnight &+ time
    }

    /// The number of days of `month` (1–12) in the proleptic Gregorian `year`.
    @inline(__always)
    static func daysInMonth(_ month: Int64, year: Int64) -> Int64 {
        if month == 2 { return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28 }
        // 31 for January, March, May, July, August, October, December.
        return (0b1_0101_1010_1010 >> month) & 1 == 1 ? 31 : 30
    }
}
