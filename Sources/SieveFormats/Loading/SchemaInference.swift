import SieveFeatures
import SieveGeometry

/// What the values of one property looked like across all features, and the field type that
/// follows from it.
///
/// The rules (DESIGN.md, "Reading GeoJSON"):
/// - only integer literals that fit `Int64` → Integer when all fit 32 bits, BigInteger
///   otherwise;
/// - numbers, at least one written with a fraction or exponent (or an integer literal too
///   large for `Int64`) → Double, even when whole (`889953.0`);
/// - only booleans → SmallInteger (0/1);
/// - only strings, all ISO-8601 dates or date-times (`CivilTime.parse(_:syntax: .iso8601)`)
///   → Date; `"1888"` and `"2005-06"` are not dates;
/// - anything else (strings, mixed kinds, arrays, objects) → String; no value at all (every
///   occurrence `null` or missing) → String.
struct PropertyStatistics {
    /// Non-null occurrences.
    var values = 0
    /// Integer literals that fit `Int64`.
    var integers = 0
    /// Whether every such integer fits `Int32`.
    var allFitInt32 = true
    /// Other numbers.
    var doubles = 0
    /// Booleans.
    var booleans = 0
    /// Strings.
    var strings = 0
    /// Whether every string seen is an ISO-8601 date (checked only while the property holds
    /// nothing but strings).
    var allDates = true
    /// Arrays and objects.
    var others = 0

    /// Records an integer literal that fits `Int64`.
    mutating func observeInteger(_ value: Int64) {
        integers += 1
        if allFitInt32, Int32(exactly: value) == nil { allFitInt32 = false }
        values += 1
    }

    /// Records a number with a fraction or exponent (or an integer literal beyond `Int64`).
    mutating func observeDouble() {
        doubles += 1
        values += 1
    }

    /// Records a boolean.
    mutating func observeBool() {
        booleans += 1
        values += 1
    }

    /// Records a string; `isDate` says whether it is an ISO-8601 date (asked only while the
    /// property holds nothing but strings, all dates).
    mutating func observeString(isDate: Bool) {
        strings += 1
        if !isDate { allDates = false }
        values += 1
    }

    /// Records an array or object.
    mutating func observeOther() {
        others += 1
        values += 1
    }

    /// The statistics of two parts of the same property together.
    func merged(with other: PropertyStatistics) -> PropertyStatistics {
        var result = self
        result.values += other.values
        result.integers += other.integers
        result.allFitInt32 = allFitInt32 && other.allFitInt32
        result.doubles += other.doubles
        result.booleans += other.booleans
        result.strings += other.strings
        result.allDates = allDates && other.allDates
        result.others += other.others
        return result
    }

    /// Whether every non-null value was an integer literal fitting `Int64`.
    var onlyIntegers: Bool { values > 0 && integers == values }

    /// The inferred field type.
    var fieldType: FieldType {
        if values == 0 { return .string }
        if integers == values { return allFitInt32 ? .integer : .bigInteger }
        if integers + doubles == values { return .double }
        if booleans == values { return .smallInteger }
        if strings == values, allDates { return .date }
        return .string
    }
}
