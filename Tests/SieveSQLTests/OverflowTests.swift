import SieveColumns
import Testing

@testable import SieveSQL

/// Arithmetic at the ends of `Int64` and of the double range: every case once trapped ("Swift
/// runtime failure: arithmetic overflow") or answered wrongly. The rule: integer (and interval)
/// overflow gives NULL, a date that leaves the `Int64` milliseconds gives NULL, a double that
/// overflows to ±infinity gives NULL, `CAST(… AS INTEGER)` outside `Int64` gives NULL; an
/// interval literal beyond `Int64` milliseconds is a bind-time error. Every expected value is
/// derived by hand in the comment beside it.
@Suite("Overflow at the ends of the ranges")
struct OverflowTests {
    /// Five rows:
    /// - I (integer): Int64.min, Int64.max, 5, NULL, 9_210_000_000_000_000_000
    /// - D (double): -1.7976931348623157e308, 1.7976931348623157e308, 2.5, NULL, -2^63
    /// - T (date): Int64.min, Int64.max, 0 (1970-01-01), NULL, -62_167_219_200_001
    ///   (-0001-12-31T23:59:59.999Z)
    static let schema = SimpleSchema([("I", .integer), ("D", .double), ("T", .date)])

    static func columns() -> [Column] {
        var validity = ValidityBitmap(count: 5, allValid: true)
        validity.set(3, valid: false)
        return [
            .integer(Int64Column(values: [.min, .max, 5, 0, 9_210_000_000_000_000_000], validity: validity)),
            .double(
                DoubleColumn(
                    values: [-.greatestFiniteMagnitude, .greatestFiniteMagnitude, 2.5, 0, -9_223_372_036_854_775_808.0],
                    validity: validity)),
            .date(Int64Column(values: [.min, .max, 0, 0, -62_167_219_200_001], validity: validity)),
        ]
    }

    static let always: [Bool?] = [true, true, true, true, true]

    /// (SQL, rows 0…4 TRUE / FALSE / NULL)
    static let cases: [(String, [Bool?])] = [
        // ROUND / TRUNCATE: the digits -2^63 once negated (trap). 10^k for k ≥ 19 exceeds Int64
        // while every |x| < 9.23·10^18: truncation gives 0, rounding 0 too, except to 10^19,
        // where |x| ≥ 5·10^18 rounds away to ±10^19 (NULL).
        ("ROUND(5, -9223372036854775808) = 0", always),
        ("TRUNCATE(5, -9223372036854775808) = 0", always),
        ("ROUND(I, -9223372036854775808) = 0", [true, true, true, nil, true]),
        ("TRUNCATE(I, -9223372036854775808) = 0", [true, true, true, nil, true]),
        ("ROUND(D, -9223372036854775808) = 0", [true, true, true, nil, true]),
        ("TRUNCATE(D, -9223372036854775808) = 0", [true, true, true, nil, true]),
        ("ROUND(I, -19) IS NULL", [true, true, false, true, true]),
        ("TRUNCATE(I, -19) = 0", [true, true, true, nil, true]),
        ("ROUND(I, -20) = 0", [true, true, true, nil, true]),
        // 10^18: max = 9·10^18 + 223…807 (remainder < 5·10^17 rounds down); 9.21·10^18 → 9·10^18.
        ("ROUND(I, -18) = 9000000000000000000", [false, true, false, nil, true]),
        ("ROUND(I, -18) = -9000000000000000000", [true, false, false, nil, false]),
        // To tens: …807 rounds up to …810 and …808 down to -…810: both beyond Int64.
        ("ROUND(I, -1) IS NULL", [true, true, false, true, false]),
        ("ROUND(I, -1) = 10", [nil, nil, true, nil, false]),
        ("TRUNCATE(I, -1) = 9223372036854775800", [false, true, false, nil, false]),
        ("TRUNCATE(I, -1) = -9223372036854775800", [true, false, false, nil, false]),
        // Exact integer rounding beyond 2^53 (a double would have lost the last digits).
        ("ROUND(9007199254740993, -1) = 9007199254740990", always),
        ("ROUND(9007199254740995, -1) = 9007199254741000", always),
        ("ROUND(-25, -1) = -30 AND ROUND(-24, -1) = -20 AND TRUNCATE(-29, -1) = -20", always),
        // Digits given as doubles saturate: -1e300 is coarser than any Int64, 1e300 finer.
        ("ROUND(123, -1e300) = 0 AND ROUND(2.5, 1e300) = 2.5 AND ROUND(123, 1e300) = 123", always),
        // Doubles: rounding 1.797e308 to 10^308 gives 2e308 = ∞ → NULL; to 10^309, 0.
        ("ROUND(D, -308) IS NULL", [true, true, false, true, false]),
        ("ROUND(D, -309) = 0", [true, true, true, nil, true]),
        // Already whole at that scale: left as it is (2^52 and beyond have no fraction).
        ("ROUND(D, 2) = D", [true, true, true, nil, true]),
        ("ROUND(5e-324, 400) = 5e-324 AND ROUND(1.7e-310, 310) = 2e-310", always),

        // Integer arithmetic: overflow is NULL.
        ("I + 1 IS NULL", [false, true, false, true, false]),
        ("I - 1 IS NULL", [true, false, false, true, false]),
        ("I * -1 IS NULL", [true, false, false, true, false]),
        ("I / -1 IS NULL", [true, false, false, true, false]),
        ("-I IS NULL", [true, false, false, true, false]),
        ("ABS(I) IS NULL", [true, false, false, true, false]),
        ("MOD(I, -1) = 0", [true, true, true, nil, true]),
        ("MOD(I, 9223372036854775807) = -1", [true, false, false, nil, false]),
        ("SIGN(I) = -1", [true, false, false, nil, false]),
        ("9223372036854775807 + 1 IS NULL AND -9223372036854775808 - 1 IS NULL", always),
        ("-9223372036854775808 / -1 IS NULL AND -(-9223372036854775808) IS NULL", always),
        ("ABS(-9223372036854775808) IS NULL AND MOD(-9223372036854775808, -1) = 0", always),
        ("-9223372036854775807 - 1 = -9223372036854775808", always),

        // Doubles: overflow to ±∞ is NULL.
        ("D * 10 IS NULL", [true, true, false, true, false]),
        ("D + D IS NULL", [true, true, false, true, false]),
        ("D / 1e-100 IS NULL", [true, true, false, true, false]),
        ("POWER(D, 2) IS NULL", [true, true, false, true, false]),
        ("D - D = 0", [true, true, true, nil, true]),
        ("D > 9.3e18", [false, true, false, nil, false]),
        ("D < -9.3e18", [true, false, false, nil, false]),

        // CAST to INTEGER: exactly -2^63 ..< 2^63, truncated toward zero.
        ("CAST(D AS INTEGER) IS NULL", [true, true, false, true, false]),
        ("CAST(D AS INTEGER) = -9223372036854775808", [nil, nil, false, nil, true]),
        ("CAST(9.223372036854775807e18 AS INTEGER) IS NULL", always),  // the double is 2^63
        ("CAST(9223372036854774784.0 AS INTEGER) = 9223372036854774784", always),  // 2^63 - 1024
        ("CAST(-9.3e18 AS INTEGER) IS NULL AND CAST('1e400' AS INTEGER) IS NULL", always),
        ("CAST('-9223372036854775808' AS INTEGER) = -9223372036854775808", always),
        ("CAST('9223372036854775808' AS INTEGER) IS NULL", always),
        ("CAST(' 9.2e18 ' AS INTEGER) = 9200000000000000000", always),
        // Text casts read decimal numbers only (Swift's Double(_:) would take hex, inf, nan).
        ("CAST('0x10' AS INTEGER) IS NULL AND CAST('0x1p3' AS FLOAT) IS NULL AND CAST('inf' AS FLOAT) IS NULL", always),
        ("CAST('nan' AS FLOAT) IS NULL AND CAST('1e400' AS FLOAT) IS NULL AND CAST('-2.5e-3' AS FLOAT) = -0.0025", always),

        // Kernels with constants at the ends (integer range, set and double range nodes).
        ("I = 9223372036854775807", [false, true, false, nil, false]),
        ("I = -9223372036854775808", [true, false, false, nil, false]),
        ("I > 9223372036854775807", [false, false, false, nil, false]),
        ("I < -9223372036854775808", [false, false, false, nil, false]),
        ("I >= -9223372036854775808", [true, true, true, nil, true]),
        ("I <= 9223372036854775807", [true, true, true, nil, true]),
        ("I > 9.3e18 OR I < -9.3e18", [false, false, false, nil, false]),
        ("I >= 9223372036854775808", [false, false, false, nil, false]),  // a double: 2^63
        ("I < 9223372036854775808", [true, true, true, nil, true]),
        ("I >= -9223372036854775808.0", [true, true, true, nil, true]),
        ("I BETWEEN -9223372036854775808 AND 9223372036854775807", [true, true, true, nil, true]),
        ("I NOT BETWEEN -9223372036854775807 AND 9223372036854775806", [true, true, false, nil, false]),
        ("I IN (9.21e18)", [false, false, false, nil, true]),  // 9.21e18 is a double holding 9210000000000000000 exactly
        ("I IN (9.223372036854775807e18, -9.223372036854775808e18)", [true, false, false, nil, false]),
        ("I NOT IN (-9223372036854775808, 9223372036854775807)", [false, false, true, nil, true]),
        ("D = -9223372036854775808", [false, false, false, nil, true]),
        ("D = 9223372036854775807", [false, false, false, nil, false]),
        ("D >= 1.7976931348623157e308", [false, true, false, nil, false]),

        // Dates at the ends: arithmetic gives NULL beyond Int64 milliseconds.
        ("T + 1 IS NULL", [false, true, false, true, false]),
        ("T - 1 IS NULL", [true, false, false, true, false]),
        ("T + 0.5 IS NULL", [false, true, false, true, false]),
        ("T + INTERVAL '0.001' SECOND IS NULL", [false, true, false, true, false]),
        ("T - INTERVAL '0.001' SECOND IS NULL", [true, false, false, true, false]),
        ("T - T = 0", [true, true, true, nil, true]),
        // Int64.max ms is 106751991167 days and 25,975,807 ms after the epoch.
        ("T - DATE '1970-01-01' > 106751991167", [false, true, false, nil, false]),
        ("T - DATE '1970-01-01' < -106751991167", [true, false, false, nil, false]),
        // The difference of the two ends does not fit Int64 ms: 213503982334.30… days for max
        // minus -106751991167 days; min minus that day is -25,975,808 ms.
        ("T - (DATE '1970-01-01' - INTERVAL '106751991167' DAY) > 213503982334", [false, true, false, nil, false]),
        ("T - (DATE '1970-01-01' - INTERVAL '106751991167' DAY) < 0", [true, false, false, nil, false]),
        ("T > DATE '9999-12-31'", [false, true, false, nil, false]),
        ("T < DATE '0000-01-01'", [true, false, false, nil, true]),
        ("T BETWEEN DATE '0000-01-01' AND DATE '9999-12-31'", [false, false, true, nil, false]),
        ("T IN (DATE '1970-01-01')", [false, false, true, nil, false]),
        // CAST(… AS DATE): the midnight of Int64.min's day precedes Int64.min → NULL.
        ("CAST(T AS DATE) IS NULL", [true, false, false, true, false]),
        ("CAST(T AS DATE) = T - INTERVAL '07:12:55.807' HOUR TO SECOND", [nil, true, false, nil, false]),
        // Calendar fields and texts (as java.time.Instant gives them).
        ("EXTRACT(YEAR FROM T) = -292275055", [true, false, false, nil, false]),
        ("EXTRACT(YEAR FROM T) = 292278994", [false, true, false, nil, false]),
        ("EXTRACT(YEAR FROM T) = -1", [false, false, false, nil, true]),
        ("EXTRACT(MONTH FROM T) = 5 AND EXTRACT(DAY FROM T) = 16 AND EXTRACT(HOUR FROM T) = 16", [true, false, false, nil, false]),
        ("EXTRACT(MINUTE FROM T) = 47 AND EXTRACT(SECOND FROM T) = 4.192", [true, false, false, nil, false]),
        ("CAST(T AS VARCHAR) = '-292275055-05-16T16:47:04.192Z'", [true, false, false, nil, false]),
        ("CAST(T AS VARCHAR) = '+292278994-08-17T07:12:55.807Z'", [false, true, false, nil, false]),
        ("CAST(T AS VARCHAR) = '1970-01-01'", [false, false, true, nil, false]),
        ("CONCAT(T, '') = '-0001-12-31T23:59:59.999Z'", [false, false, false, nil, true]),
        ("CHAR_LENGTH(CONCAT('<', T, '>')) = 32", [true, true, false, nil, false]),

        // Date ± days: exact, NULL beyond Int64 ms.
        ("DATE '2000-01-01' + 9223372036854775807 IS NULL AND DATE '2000-01-01' + 1e300 IS NULL", always),
        ("DATE '1970-01-01' - 106751991167 IS NOT NULL AND DATE '1970-01-01' - 106751991168 IS NULL", always),
        ("DATE '1970-01-01' + 0.5 = TIMESTAMP '1970-01-01 12:00:00'", always),
        ("DATE '1970-01-01' - 0.0000000058 = TIMESTAMP '1969-12-31 23:59:59.999'", always),  // 0.50112 ms rounds to 1

        // Intervals: the literal's range is all of Int64 ms, -2^63 included.
        ("DATE '2000-01-01' + INTERVAL '-9223372036854775.808' SECOND < DATE '2000-01-01'", always),
        ("DATE '2000-01-01' + INTERVAL -'9223372036854775.808' SECOND < DATE '2000-01-01'", always),
        ("DATE '2000-01-01' - INTERVAL '-9223372036854775.808' SECOND IS NULL", always),
        // -86,400,000 - (-2^63) = 9223372036768375808 (+292278994-08-16T07:12:55.808Z) fits:
        // subtracted directly, not by negating the interval first.
        ("EXTRACT(YEAR FROM DATE '1969-12-31' - INTERVAL '-9223372036854775.808' SECOND) = 292278994", always),
        ("-(INTERVAL '-9223372036854775.808' SECOND) IS NULL", always),
        ("DATE '2000-01-01' + (INTERVAL '1' DAY + INTERVAL '1' DAY) = DATE '2000-01-03'", always),
        ("DATE '2000-01-01' + (INTERVAL '1' DAY - INTERVAL '2' DAY) = DATE '1999-12-31'", always),
        ("INTERVAL '106751991167 07:12:55.807' DAY TO SECOND + INTERVAL '0.001' SECOND IS NULL", always),
        ("INTERVAL '106751991167' DAY = INTERVAL '2562047788008' HOUR", always),
        ("DATE '1970-01-01' + INTERVAL '106751991167 07:12:55.807' DAY TO SECOND > DATE '9999-12-31'", always),
        ("INTERVAL '-106751991167 07:12:55.808' DAY TO SECOND < INTERVAL '-106751991167' DAY", always),
        ("INTERVAL '2562047788015:12' HOUR TO MINUTE > INTERVAL '0' SECOND", always),

        // A CASE or COALESCE of type double (integer and double results) yields doubles: the
        // integer Int64.max becomes 2^63, which equals the double literal, not the integer.
        ("COALESCE(I, 2.5) = 9223372036854775808", [false, true, false, false, false]),
        ("COALESCE(I, 2.5) = 9223372036854775807", [false, false, false, false, false]),
        ("CASE WHEN I > 0 THEN I ELSE 0.5 END = 9223372036854775807", [false, false, false, false, false]),
        ("CASE WHEN I > 0 THEN I ELSE 0.5 END = 9.21e18", [false, false, false, false, true]),
        // EXTRACT(SECOND …) is the double nearest to ss.fff (1.118 once came out one ulp off).
        ("EXTRACT(SECOND FROM TIMESTAMP '2000-01-01 00:00:01.118') = 1.118", always),
        ("EXTRACT(SECOND FROM TIMESTAMP '2000-01-01 00:00:59.999') = 59.999", always),

        // SUBSTRING with starts and lengths at the ends.
        ("SUBSTRING('abc', 9223372036854775807) = ''", always),
        ("SUBSTRING('abc', -9223372036854775808) = 'abc'", always),
        ("SUBSTRING('abc', -9223372036854775808, 9223372036854775807) = ''", always),  // positions min ..< -1
        ("SUBSTRING('abc', 2, 9223372036854775807) = 'bc'", always),
        ("SUBSTRING('abc', 9223372036854775807, 9223372036854775807) = ''", always),
        ("SUBSTRING('abc', 1e300) = '' AND SUBSTRING('abc', -1e300, 1e300) = ''", always),
        ("SUBSTRING('abc', 0, -9223372036854775808) = ''", always),
    ]

    @Test(arguments: cases)
    func rowByRowAndVectorized(sql: String, expected: [Bool?]) throws {
        let clause = try CompiledWhereClause(sql, schema: Self.schema)
        let columns = Self.columns()
        #expect((0..<5).map { clause.evaluate(row: $0, in: columns) } == expected, "\(sql)")
        let selected = clause.matchingRows(in: columns, rowCount: 5)
        #expect(selected == expected.enumerated().filter { $0.element == true }.map { UInt32($0.offset) }, "\(sql) vectorized")
    }

    /// Interval literals beyond `Int64` milliseconds: a bind-time error saying so, not a trap.
    static let outOfRange: [String] = [
        "DATE '2000-01-01' + INTERVAL '9223372036854775.808' SECOND > DATE '2000-01-01'",
        "DATE '2000-01-01' + INTERVAL '9223372036854775.809' SECOND > DATE '2000-01-01'",
        "DATE '2000-01-01' + INTERVAL '9223372036854775.999' SECOND > DATE '2000-01-01'",
        "DATE '2000-01-01' + INTERVAL '-9223372036854775.809' SECOND > DATE '2000-01-01'",
        "DATE '2000-01-01' + INTERVAL '-9223372036854775.999' SECOND > DATE '2000-01-01'",
        "DATE '2000-01-01' + INTERVAL -'-9223372036854775.808' SECOND > DATE '2000-01-01'",
        "DATE '2000-01-01' - INTERVAL -'9223372036854775.809' SECOND > DATE '2000-01-01'",
        "INTERVAL '106751991168' DAY IS NULL",
        "INTERVAL '106751991167 07:12:55.808' DAY TO SECOND IS NULL",
        "INTERVAL '2562047788015:13' HOUR TO MINUTE IS NULL",
        "INTERVAL '99999999999999999999999' SECOND IS NULL",
        "INTERVAL '153722867280913' MINUTE IS NULL",
    ]

    @Test(arguments: outOfRange)
    func intervalOutOfRange(sql: String) {
        #expect {
            _ = try CompiledWhereClause(sql, schema: Self.schema)
        } throws: { error in
            guard let error = error as? WhereClauseError else { return false }
            return error.kind == .badLiteral && error.description.contains("is out of range")
        }
    }

    @Test func intervalReadings() {
        typealias R = Parser.IntervalReading
        #expect(Parser.readInterval("9223372036854775.807", from: .second, to: .second, negated: false) == R.milliseconds(.max))
        #expect(Parser.readInterval("9223372036854775.808", from: .second, to: .second, negated: true) == R.milliseconds(.min))
        #expect(Parser.readInterval("-9223372036854775.808", from: .second, to: .second, negated: false) == R.milliseconds(.min))
        #expect(Parser.readInterval("-9223372036854775.808", from: .second, to: .second, negated: true) == R.outOfRange)
        #expect(Parser.readInterval("9223372036854775.808", from: .second, to: .second, negated: false) == R.outOfRange)
        #expect(Parser.readInterval("1 25", from: .day, to: .hour, negated: false) == R.malformed)
        #expect(Parser.readInterval("-1 02", from: .day, to: .hour, negated: true) == R.milliseconds(93_600_000))
    }
}
