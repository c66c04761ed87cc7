import SieveFeatures
import SieveColumns

/// The date texts of GeoPackage `DATE` (`yyyy-mm-dd`) and `DATETIME`
/// (`yyyy-mm-ddThh:mm:ss.fffZ`) columns, written and read without building intermediate strings.
package enum GeoPackageDates {
    /// The first and last instant a `DATETIME` text can hold (years 0000–9999).
    static let datetimeRange: ClosedRange<Int64> =
        (CivilTime.days(year: 0, month: 1, day: 1) * CivilTime.millisecondsPerDay)...(CivilTime.days(
            year: 10_000, month: 1, day: 1) * CivilTime.millisecondsPerDay - 1)

    /// Writes `yyyy-mm-ddThh:mm:ss.fffZ` (24 bytes) for an instant in ``datetimeRange`` and
    /// passes the bytes to `body`.
    @inline(__always)
    static func withDatetimeText<T>(_ milliseconds: Int64, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &text) { buffer in
            guard let base = buffer.baseAddress else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
            writeDatetime(milliseconds, to: base)
            return body(UnsafeRawBufferPointer(rebasing: buffer[0..<24]))
        }
    }

    /// Writes `yyyy-mm-ddThh:mm:ss.fffZ` (24 bytes) at `text` for an instant in ``datetimeRange``.
    @inline(__always)
    static func writeDatetime(_ milliseconds: Int64, to text: UnsafeMutableRawPointer) {
        let c = CivilTime.components(milliseconds: milliseconds)
        /// Two decimal digits of `value` (0…99) at `offset`.
        @inline(__always) func two(_ value: Int64, at offset: Int) {
            let v = UInt16(truncatingIfNeeded: value)
            // Tens in the low byte, units in the high byte (little-endian order of the text).
            text.storeBytes(of: ((48 + v / 10) | (48 + v % 10) << 8).littleEndian, toByteOffset: offset, as: UInt16.self)
        }
        two(c.year / 100, at: 0)
        two(c.year % 100, at: 2)
        text.storeBytes(of: 45, toByteOffset: 4, as: UInt8.self)  // -
        two(c.month, at: 5)
        text.storeBytes(of: 45, toByteOffset: 7, as: UInt8.self)
        two(c.day, at: 8)
        text.storeBytes(of: 84, toByteOffset: 10, as: UInt8.self)  // T
        two(c.hour, at: 11)
        text.storeBytes(of: 58, toByteOffset: 13, as: UInt8.self)  // :
        two(c.minute, at: 14)
        text.storeBytes(of: 58, toByteOffset: 16, as: UInt8.self)
        two(c.second, at: 17)
        text.storeBytes(of: 46, toByteOffset: 19, as: UInt8.self)  // .
        two(c.millisecond / 10, at: 20)
        text.storeBytes(of: UInt8(truncatingIfNeeded: 48 + c.millisecond % 10), toByteOffset: 22, as: UInt8.self)
        text.storeBytes(of: 90, toByteOffset: 23, as: UInt8.self)  // Z
    }

    /// Reads a date text: `yyyy-mm-dd` (midnight UTC) when `dateOnly`, else ISO 8601
    /// `yyyy-mm-dd[(T| )hh:mm[:ss[.f…]]][Z|±hh[:mm]]` (a missing zone is UTC). `nil` when the
    /// text is not one.
    package static func parse(_ bytes: UnsafeRawBufferPointer, dateOnly: Bool) -> Int64? {
        CivilTime.parse(bytes, syntax: dateOnly ? .sqlDate : [.isoSeparator, .spaceSeparator, .time, .zulu, .offset])
    }
}
