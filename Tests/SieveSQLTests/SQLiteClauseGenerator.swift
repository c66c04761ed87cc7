@testable import SieveSQL

/// One random expression in two dialects: GeoSieve's where-clause SQL and SQLite's.
struct DualExpression {
    enum Kind { case integer, double, string, boolean, date, interval }

    var geo: String
    var lite: String
    var kind: Kind

    init(_ geo: String, _ lite: String, _ kind: Kind) {
        self.geo = geo
        self.lite = lite
        self.kind = kind
    }

    /// The same text in both dialects.
    init(both text: String, _ kind: Kind) {
        self.init(text, text, kind)
    }
}

/// The extreme values of the differential test: in the table's X, Y, T and S columns and as
/// constants in the clauses.
enum Extremes {
    /// Int64 bounds and their neighbours, 2^53 ± 1 (where doubles stop being exact), 2^62,
    /// √(2^63) on both sides (where squares overflow), and a few ordinary values.
    static let integers: [Int64] = [
        .min, .min + 1, .min + 2, .max, .max - 1, .max - 2, 0, 1, -1, 2, 7, -7, 9_007_199_254_740_992,
        9_007_199_254_740_993, -9_007_199_254_740_993, 4_611_686_018_427_387_904, -4_611_686_018_427_387_904,
        3_037_000_499, 3_037_000_500, -3_037_000_500, 2_147_483_647, 9_210_000_000_000_000_000, 1_000_000_000_000_000_000,
    ]

    /// ±2^63 and the doubles just inside, the largest finite doubles (whose sums and products
    /// overflow to ±∞), 2^1023, subnormals, the smallest normal, 2^53, and ordinary values.
    static let doubles: [Double] = [
        9_223_372_036_854_775_808.0, -9_223_372_036_854_775_808.0, 9_223_372_036_854_774_784.0, -9_223_372_036_854_774_784.0,
        1.797_693_134_862_315_7e308, -1.797_693_134_862_315_7e308, 1e308, -1e308, 8.98846567431158e307, .leastNonzeroMagnitude, -.leastNonzeroMagnitude,
        2.2250738585072014e-308, 0.0, 1.5, -2.5, 0.25, 9_007_199_254_740_992.0, 4.5e15, 1e300, -1e300, 9.21e18, 1e19,
        3_037_000_499.5,
    ]

    /// Instants (epoch ms) at the ends of Int64 and around the year 0000 and 9999 borders
    /// (-62167219200000 is 0000-01-01, 253402300799999 is 9999-12-31T23:59:59.999Z,
    /// ±9223372036828800000 are the first and last whole days of the range).
    static let instants: [Int64] = [
        .min, .min + 1, .max, .max - 1, 0, -1, 86_399_999, -62_167_219_200_001, -62_167_219_200_000, 253_402_300_799_999,
        253_402_300_800_000, -9_223_372_036_828_800_000, -9_223_372_036_828_800_001, 9_223_372_036_828_800_000,
        1_709_164_800_000, 1_709_209_800_250,
    ]

    /// Intervals in milliseconds, rendered in every qualifier they fit.
    static let intervals: [Int64] = [
        0, 1, -1, 999, 1000, 60_000, 3_600_000, 86_400_000, -86_400_000, 90_061_001, 31_536_000_000, 25_975_807, -25_975_808,
        1_000_000_000_000, 9_223_372_036_828_800_000, -9_223_372_036_828_800_000, .max, .min, .max - 1, .min + 1,
    ]

    /// Short strings: empty, both normalization forms of uncased letters (Hangul, kana: SQLite
    /// folds ASCII only, so no cased non-ASCII letter may appear), ASCII letters with combining
    /// marks, LIKE wildcards and backslashes alone and followed by a combining mark, and
    /// multi-scalar emoji.
    static let strings: [String] = [
        "", "e\u{301}", "E\u{301}", "a\u{301}b", "%\u{301}", "_\u{301}", "\\\u{301}", "%", "_", "\\", "\\%", "a_b%", "\u{D55C}",
        "\u{1112}\u{1161}\u{11AB}", "\u{304C}", "\u{304B}\u{3099}", "\u{6771}\u{4EAC}", "\u{1F44D}\u{1F3FD}", "x", "X", "ab",
    ]

    /// Tens of kilobytes each (below SQLite's 50,000-byte LIKE pattern limit, with no wildcard
    /// but a leading `%`, so that no LIKE over them backtracks).
    static let hugeStrings: [String] = [
        String(repeating: "ab", count: 20_000), String(repeating: "ab", count: 20_000) + "c",
        String(repeating: "\u{304C}", count: 12_000), "%" + String(repeating: "x", count: 30_000),
        String(repeating: "e\u{301}", count: 10_000),
    ]

    /// Date and timestamp literals, and SQLite's own computation of their epoch milliseconds
    /// (`unixepoch` is SQLite's calendar, independent of GeoSieve's).
    static let dateLiterals: [(geo: String, lite: String)] = [
        ("DATE '1970-01-01'", "(unixepoch('1970-01-01') * 1000)"),
        ("DATE '0000-01-01'", "(unixepoch('0000-01-01') * 1000)"),
        ("DATE '9999-12-31'", "(unixepoch('9999-12-31') * 1000)"),
        ("DATE '2024-02-29'", "(unixepoch('2024-02-29') * 1000)"),
        ("DATE '1969-12-31'", "(unixepoch('1969-12-31') * 1000)"),
        ("DATE '0001-01-01'", "(unixepoch('0001-01-01') * 1000)"),
        ("DATE '1600-02-29'", "(unixepoch('1600-02-29') * 1000)"),
        ("DATE '1900-02-28'", "(unixepoch('1900-02-28') * 1000)"),
        ("TIMESTAMP '9999-12-31 23:59:59.999'", "(unixepoch('9999-12-31 23:59:59') * 1000 + 999)"),
        ("TIMESTAMP '0000-01-01 00:00:00'", "(unixepoch('0000-01-01 00:00:00') * 1000)"),
        ("TIMESTAMP '1969-12-31 23:59:59.999'", "(unixepoch('1969-12-31 23:59:59') * 1000 + 999)"),
        ("TIMESTAMP '2024-02-29 12:30:00.250'", "(unixepoch('2024-02-29 12:30:00') * 1000 + 250)"),
        ("TIMESTAMP '2024-02-29 12:30:00+02:00'", "(unixepoch('2024-02-29 12:30:00+02:00') * 1000)"),
        ("TIMESTAMP '2024-02-29T12:30:00Z'", "(unixepoch('2024-02-29T12:30:00Z') * 1000)"),
    ]

    /// Date texts compared with dates (GeoSieve reads them as dates).
    static let dateTexts: [(geo: String, lite: String)] = [
        ("'2024-02-29'", "(unixepoch('2024-02-29') * 1000)"),
        ("'1970-01-01 00:00:00'", "(unixepoch('1970-01-01 00:00:00') * 1000)"),
        ("'0000-01-01'", "(unixepoch('0000-01-01') * 1000)"),
    ]
}

/// Random, well-typed where clauses over the differential test's table (OBJECTID, A, B, C
/// integers; D double; CATEGORY, NAME strings; the extreme columns X integer, Y double, T and
/// U dates, S strings). Every choice is rendered in both dialects at once; the reasons for each
/// difference between the two texts are listed on ``SQLiteDifferentialTests``.
///
/// SQLite's side maps GeoSieve's overflow rules explicitly: every integer `+ - * / %`,
/// negation and `ABS` is wrapped in `gs_int(…)` (NULL unless SQLite kept an INTEGER, i.e.
/// where it overflowed into a REAL), every double `+ - * /` in `gs_real(…)` (NULL for ±Inf);
/// see ``SQLiteDatabase/registerOverflowMappings()``.
struct ClauseGenerator {
    var random: KernelConsistencyTests.Generator
    /// The nocase pass: string comparisons get an explicit `COLLATE NOCASE` in SQLite.
    let nocase: Bool

    // MARK: Helpers

    mutating func chance(_ percent: Int) -> Bool { random.chance(percent) }
    mutating func int(_ range: ClosedRange<Int>) -> Int { random.int(range) }
    mutating func pick<T>(_ values: [T]) -> T { values[random.int(0...values.count - 1)] }

    /// A field name, sometimes in another case (names resolve case-insensitively in both).
    mutating func field(_ name: String) -> String {
        switch int(0...9) {
        case 0: return name.lowercased()
        case 1: return "\"\(name)\""
        default: return name
        }
    }

    static func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "''") + "'" }

    /// A number as SQL text in both dialects; negative ones in parentheses (`x - -1` would read
    /// as a comment in both).
    static func literal(_ value: Int64) -> String { value < 0 ? "(\(value))" : "\(value)" }
    static func literal(_ value: Double) -> String { value < 0 ? "(\(value))" : "\(value)" }

    /// SQLite's side of a string comparison's left operand: under nocase, an explicit collation,
    /// because SQLite takes none from function results or literals (see the test's notes).
    func collated(_ e: DualExpression) -> String { nocase ? "(\(e.lite)) COLLATE NOCASE" : "(\(e.lite))" }

    // MARK: Conditions

    /// A condition: AND/OR/NOT nested up to `depth` levels over predicates whose operands are
    /// at most `valueDepth` deep.
    mutating func condition(depth: Int, valueDepth: Int = 2) -> DualExpression {
        if depth > 0 && chance(40) {
            switch int(0...4) {
            case 0, 1, 2:
                let and = chance(50)
                let parts = (0..<int(2...3)).map { _ in condition(depth: depth - 1, valueDepth: valueDepth) }
                let word = and ? " AND " : " OR "
                return DualExpression(
                    "(" + parts.map(\.geo).joined(separator: word) + ")", "(" + parts.map(\.lite).joined(separator: word) + ")",
                    .boolean)
            default:
                let inner = condition(depth: depth - 1, valueDepth: valueDepth)
                return DualExpression("(NOT \(inner.geo))", "(NOT \(inner.lite))", .boolean)
            }
        }
        return predicate(valueDepth: valueDepth)
    }

    static let comparisonOperators = ["=", "<>", "!=", "<", "<=", ">", ">="]

    mutating func predicate(valueDepth: Int) -> DualExpression {
        switch int(0...27) {
        case 0, 1, 2, 3:
            let l = number(depth: valueDepth), r = number(depth: valueDepth)
            let op = pick(Self.comparisonOperators)
            return DualExpression("(\(l.geo) \(op) \(r.geo))", "(\(l.lite) \(op) \(r.lite))", .boolean)
        case 4:
            // Column against column or constant, the kernels' fast paths.
            let l = numericLeaf(), r = numericLeaf()
            let op = pick(Self.comparisonOperators)
            return DualExpression("(\(l.geo) \(op) \(r.geo))", "(\(l.lite) \(op) \(r.lite))", .boolean)
        case 5, 6, 7:
            let l = string(depth: valueDepth), r = chance(60) ? stringConstant() : string(depth: valueDepth)
            let op = pick(Self.comparisonOperators)
            return DualExpression("(\(l.geo) \(op) \(r.geo))", "(\(collated(l)) \(op) \(r.lite))", .boolean)
        case 8, 9:
            let e = anyValue(depth: valueDepth)
            let not = chance(50) ? " NOT" : ""
            return DualExpression("(\(e.geo) IS\(not) NULL)", "(\(e.lite) IS\(not) NULL)", .boolean)
        case 10:
            let e = number(depth: valueDepth)
            let items = (0..<int(1...5)).map { _ in chance(12) ? DualExpression(both: "NULL", .integer) : (chance(80) ? numberConstant() : number(depth: 1)) }
            let not = chance(40) ? " NOT" : ""
            return DualExpression(
                "(\(e.geo)\(not) IN (\(items.map(\.geo).joined(separator: ", "))))",
                "(\(e.lite)\(not) IN (\(items.map(\.lite).joined(separator: ", "))))", .boolean)
        case 11, 12:
            let e = string(depth: valueDepth)
            let items = (0..<int(1...5)).map { _ in chance(12) ? DualExpression(both: "NULL", .string) : (chance(85) ? stringConstant() : string(depth: 1)) }
            let not = chance(40) ? " NOT" : ""
            return DualExpression(
                "(\(e.geo)\(not) IN (\(items.map(\.geo).joined(separator: ", "))))",
                "(\(collated(e))\(not) IN (\(items.map(\.lite).joined(separator: ", "))))", .boolean)
        case 13:
            let e = number(depth: valueDepth)
            let low = chance(85) ? numberConstant() : number(depth: 1)
            let high = chance(85) ? numberConstant() : number(depth: 1)
            let not = chance(40) ? " NOT" : ""
            return DualExpression(
                "(\(e.geo)\(not) BETWEEN \(low.geo) AND \(high.geo))", "(\(e.lite)\(not) BETWEEN \(low.lite) AND \(high.lite))",
                .boolean)
        case 14:
            let e = string(depth: valueDepth)
            let low = chance(85) ? stringConstant() : string(depth: 1)
            let high = chance(85) ? stringConstant() : string(depth: 1)
            let not = chance(40) ? " NOT" : ""
            return DualExpression(
                "(\(e.geo)\(not) BETWEEN \(low.geo) AND \(high.geo))",
                "(\(collated(e))\(not) BETWEEN \(low.lite) AND \(high.lite))", .boolean)
        case 15, 16, 17, 18:
            return like()
        case 19:
            // LIKE with a pattern computed per row.
            let e = string(depth: 1)
            let pattern: DualExpression
            switch int(0...2) {
            case 0: pattern = stringColumn()
            case 1:
                let c = stringColumn()
                pattern = DualExpression("CONCAT(\(c.geo), '%')", "(\(c.lite) || '%')", .string)
            default:
                let c = stringColumn()
                pattern = DualExpression("CONCAT('%', SUBSTRING(\(c.geo), 2, 3), '%')", "('%' || substr(\(c.lite), 2, 3) || '%')", .string)
            }
            let not = chance(40) ? " NOT" : ""
            return DualExpression("(\(e.geo)\(not) LIKE \(pattern.geo))", "(\(e.lite)\(not) LIKE \(pattern.lite))", .boolean)
        case 20:
            // A condition compared as a value would be a GeoSieve extension; keep to constants.
            return DualExpression(both: pick(["TRUE", "FALSE", "(NULL = 1)", "(1 = 1)", "(NULL IS NULL)"]), .boolean)
        case 21:
            // IS NULL of a condition: three-valued logic made visible.
            let inner = predicate(valueDepth: valueDepth)
            let not = chance(50) ? " NOT" : ""
            return DualExpression("(\(inner.geo) IS\(not) NULL)", "(\(inner.lite) IS\(not) NULL)", .boolean)
        case 22, 23:
            let l = date(depth: valueDepth), r = chance(20) ? dateText() : date(depth: valueDepth)
            let op = pick(Self.comparisonOperators)
            return DualExpression("(\(l.geo) \(op) \(r.geo))", "(\(l.lite) \(op) \(r.lite))", .boolean)
        case 24:
            let e = date(depth: valueDepth)
            let not = chance(40) ? " NOT" : ""
            if chance(50) {
                let items = (0..<int(1...4)).map { _ in chance(10) ? DualExpression(both: "NULL", .date) : dateLeaf() }
                return DualExpression(
                    "(\(e.geo)\(not) IN (\(items.map(\.geo).joined(separator: ", "))))",
                    "(\(e.lite)\(not) IN (\(items.map(\.lite).joined(separator: ", "))))", .boolean)
            }
            let low = dateLeaf(), high = dateLeaf()
            return DualExpression(
                "(\(e.geo)\(not) BETWEEN \(low.geo) AND \(high.geo))", "(\(e.lite)\(not) BETWEEN \(low.lite) AND \(high.lite))",
                .boolean)
        case 25:
            // date - date is a number of days (a double). Near the ends the difference leaves
            // Int64 ms: GeoSieve subtracts days and milliseconds apart, SQLite in REALs; the two
            // differ by far less than the distance to any constant here.
            let l = date(depth: 1), r = date(depth: 1)
            let constant = pick(["0", "0.5", "1", "(-1)", "1.5", "106751991167", "(-106751991167)", "213503982334", "(-213503982335)"])
            let op = pick(Self.comparisonOperators)
            return DualExpression(
                "((\(l.geo) - \(r.geo)) \(op) \(constant))", "(((\(l.lite) - \(r.lite)) / 86400000.0) \(op) \(constant))", .boolean)
        case 26:
            let l = interval(depth: 1), r = interval(depth: 1)
            let op = pick(Self.comparisonOperators)
            return DualExpression("(\(l.geo) \(op) \(r.geo))", "(\(l.lite) \(op) \(r.lite))", .boolean)
        default:
            // An extreme column against an extreme constant: the kernels' bounds at the ends.
            let op = pick(Self.comparisonOperators)
            switch int(0...2) {
            case 0:
                let c = chance(70) ? integerConstant(extreme: true) : doubleConstant(extreme: true)
                return DualExpression(both: "(\(field("X")) \(op) \(c.geo))", .boolean)
            case 1:
                let c = chance(60) ? doubleConstant(extreme: true) : integerConstant(extreme: true)
                return DualExpression(both: "(\(field("Y")) \(op) \(c.geo))", .boolean)
            default:
                let c = dateLeaf()
                return DualExpression("(\(field("T")) \(op) \(c.geo))", "(T \(op) \(c.lite))", .boolean)
            }
        }
    }

    /// Pieces of LIKE patterns; the backslash pieces are only used with `ESCAPE '\'`.
    static let likePieces = [
        "%", "%", "_", "San", "an", "a", "Park", "park", "PARK", "%%", "", "100", "Tree", " ", "s", "O''", "_b", "0", "\u{301}",
        "e\u{301}", "%\u{301}", "_\u{301}", "\u{304C}", "\u{304B}", "ab",
    ]
    static let escapedPieces = ["\\%", "\\_", "\\\\", "\\a", "\\%\u{301}", "\\\u{301}", "\\_\u{301}"]

    mutating func like() -> DualExpression {
        let e = string(depth: 1)
        let escape = chance(30)
        var pattern = ""
        for _ in 0..<int(1...4) {
            pattern += escape && chance(35) ? pick(Self.escapedPieces) : pick(Self.likePieces)
        }
        let not = chance(40) ? " NOT" : ""
        let tail = escape ? " ESCAPE '\\'" : ""
        return DualExpression("(\(e.geo)\(not) LIKE '\(pattern)'\(tail))", "(\(e.lite)\(not) LIKE '\(pattern)'\(tail))", .boolean)
    }

    // MARK: Values

    mutating func anyValue(depth: Int) -> DualExpression {
        switch int(0...3) {
        case 0: return string(depth: depth)
        case 1: return date(depth: depth)
        default: return number(depth: depth)
        }
    }

    mutating func number(depth: Int) -> DualExpression {
        chance(60) ? integer(depth: depth) : double(depth: depth)
    }

    mutating func numericLeaf() -> DualExpression {
        switch int(0...7) {
        case 0: return DualExpression(both: field("A"), .integer)
        case 1: return DualExpression(both: field("B"), .integer)
        case 2: return DualExpression(both: field("D"), .double)
        case 3: return DualExpression(both: field("C"), .integer)
        case 4: return DualExpression(both: field("X"), .integer)
        case 5: return DualExpression(both: field("Y"), .double)
        default: return numberConstant()
        }
    }

    mutating func numberConstant() -> DualExpression {
        chance(65) ? integerConstant() : doubleConstant()
    }

    mutating func integerConstant(extreme: Bool = false) -> DualExpression {
        let value = extreme || chance(12) ? pick(Extremes.integers) : Int64(int(-12...12))
        return DualExpression(both: Self.literal(value), .integer)
    }

    /// Quarters, or (rarely) an extreme double. Swift prints the shortest text that reads back
    /// as the same double; SQLite reads these texts as the same doubles
    /// (``SQLiteConfigurationTests`` checks each).
    mutating func doubleConstant(extreme: Bool = false) -> DualExpression {
        let value = extreme || chance(12) ? pick(Extremes.doubles) : Double(int(-48...48)) / 4
        return DualExpression(both: Self.literal(value), .double)
    }

    mutating func integer(depth: Int) -> DualExpression {
        if depth <= 0 || chance(35) {
            switch int(0...21) {
            case 0, 1, 2, 3: return DualExpression(both: field("A"), .integer)
            case 4, 5, 6: return DualExpression(both: field("B"), .integer)
            case 7, 8: return DualExpression(both: field("C"), .integer)
            case 9: return DualExpression(both: field("OBJECTID"), .integer)
            case 10: return DualExpression(both: "NULL", .integer)
            case 11, 12: return DualExpression(both: field("X"), .integer)
            default: return integerConstant()
            }
        }
        switch int(0...17) {
        case 0, 1, 2, 3:
            let l = integer(depth: depth - 1), r = integer(depth: depth - 1)
            let op = pick(["+", "-", "*", "/", "/"])
            return DualExpression("(\(l.geo) \(op) \(r.geo))", "gs_int(\(l.lite) \(op) \(r.lite))", .integer)
        case 4:
            let x = integer(depth: depth - 1)
            return DualExpression("(-\(x.geo))", "gs_int(-(\(x.lite)))", .integer)
        case 5:
            // SQLite's abs(-2^63) is an error, not a REAL: max(x, -x) is the same value otherwise.
            let x = integer(depth: depth - 1)
            return DualExpression("ABS(\(x.geo))", "gs_int(max(\(x.lite), -(\(x.lite))))", .integer)
        case 6:
            // MOD on integers only (SQLite's % truncates REAL operands to integers first).
            let l = integer(depth: depth - 1), r = integer(depth: depth - 1)
            return DualExpression("MOD(\(l.geo), \(r.geo))", "gs_int(\(l.lite) % \(r.lite))", .integer)
        case 7:
            let s = string(depth: depth - 1)
            return DualExpression("CHAR_LENGTH(\(s.geo))", "length(\(s.lite))", .integer)
        case 8:
            let needle = chance(70) ? stringConstant(allowHuge: false) : string(depth: depth - 1)
            let haystack = string(depth: depth - 1)
            let geo = chance(50) ? "POSITION(\(needle.geo) IN \(haystack.geo))" : "POSITION(\(needle.geo), \(haystack.geo))"
            return DualExpression(geo, "instr(\(haystack.lite), \(needle.lite))", .integer)
        case 9:
            let parts = (0..<int(2...3)).map { _ in integer(depth: depth - 1) }
            return DualExpression(
                "COALESCE(\(parts.map(\.geo).joined(separator: ", ")))", "coalesce(\(parts.map(\.lite).joined(separator: ", ")))",
                .integer)
        case 10:
            let l = integer(depth: depth - 1), r = integer(depth: depth - 1)
            return DualExpression("NULLIF(\(l.geo), \(r.geo))", "nullif(\(l.lite), \(r.lite))", .integer)
        case 11, 12:
            return caseExpression(depth: depth, result: { g in g.integer(depth: depth - 1) }, kind: .integer)
        case 13:
            let x = number(depth: depth - 1)
            return DualExpression("SIGN(\(x.geo))", "sign(\(x.lite))", .integer)
        case 14:
            // ROUND of an integer with digits ≥ 0 is the integer itself here; SQLite rounds a
            // REAL copy, which loses the digits beyond 2^53: SQLite's text is the operand.
            let x = integer(depth: depth - 1)
            let digits = chance(50) ? "" : ", \(int(0...2))"
            return DualExpression("ROUND(\(x.geo)\(digits))", "(\(x.lite))", .integer)
        case 15:
            let x = integer(depth: depth - 1)
            let (geo, lite) = chance(50) ? ("CEILING", "ceiling") : ("FLOOR", "floor")
            return DualExpression("\(geo)(\(x.geo))", "\(lite)(\(x.lite))", .integer)
        case 16:
            return extract(seconds: false)
        default:
            return castToInteger()
        }
    }

    mutating func double(depth: Int) -> DualExpression {
        if depth <= 0 || chance(35) {
            switch int(0...6) {
            case 0, 1, 2: return DualExpression(both: field("D"), .double)
            case 3: return DualExpression(both: field("Y"), .double)
            default: return doubleConstant()
            }
        }
        switch int(0...13) {
        case 0, 1, 2, 3:
            var l = double(depth: depth - 1), r = number(depth: depth - 1)
            if chance(50) { swap(&l, &r) }
            let op = pick(["+", "-", "*", "/"])
            return DualExpression("(\(l.geo) \(op) \(r.geo))", "gs_real(\(l.lite) \(op) \(r.lite))", .double)
        case 4:
            let x = double(depth: depth - 1)
            return DualExpression("(-\(x.geo))", "(-\(x.lite))", .double)
        case 5:
            let x = double(depth: depth - 1)
            return DualExpression("ABS(\(x.geo))", "abs(\(x.lite))", .double)
        case 6:
            // d >= 0 only: SQLite takes a negative d as 0.
            let x = double(depth: depth - 1)
            let digits = chance(40) ? "" : ", \(int(0...2))"
            return DualExpression("ROUND(\(x.geo)\(digits))", "round(\(x.lite)\(digits))", .double)
        case 7:
            let x = double(depth: depth - 1)
            let (geo, lite) = chance(50) ? ("CEILING", "ceiling") : ("FLOOR", "floor")
            return DualExpression("\(geo)(\(x.geo))", "\(lite)(\(x.lite))", .double)
        case 8:
            // Mixed integer/double COALESCE has type double here, and so has its value; SQLite
            // would keep a chosen integer an integer, so cast.
            var parts = (0..<int(2...3)).map { _ in number(depth: depth - 1) }
            parts[int(0...parts.count - 1)] = double(depth: depth - 1)
            return DualExpression(
                "COALESCE(\(parts.map(\.geo).joined(separator: ", ")))",
                "CAST(coalesce(\(parts.map(\.lite).joined(separator: ", "))) AS REAL)", .double)
        case 9:
            let l = double(depth: depth - 1), r = number(depth: depth - 1)
            return DualExpression("NULLIF(\(l.geo), \(r.geo))", "nullif(\(l.lite), \(r.lite))", .double)
        case 10:
            return extract(seconds: true)
        case 11:
            let x = integer(depth: depth - 1)
            return DualExpression("CAST(\(x.geo) AS FLOAT)", "CAST(\(x.lite) AS REAL)", .double)
        default:
            // A CASE with at least one double result: type double, cast in SQLite as for COALESCE.
            var e = caseExpression(depth: depth, result: { g in g.number(depth: depth - 1) }, kind: .double, forceDouble: true)
            e.lite = "CAST(\(e.lite) AS REAL)"
            return e
        }
    }

    /// `CAST(x AS INTEGER)` of a column or constant. GeoSieve: NULL outside -2^63 ..< 2^63;
    /// SQLite saturates, so its text tests the range first (the operand is repeated, hence
    /// leaves only).
    mutating func castToInteger() -> DualExpression {
        let x: DualExpression
        switch int(0...4) {
        case 0: x = DualExpression(both: field("D"), .double)
        case 1: x = DualExpression(both: field("Y"), .double)
        case 2: x = DualExpression(both: field("X"), .integer)
        default: x = numberConstant()
        }
        return DualExpression(
            "CAST(\(x.geo) AS INTEGER)",
            "(CASE WHEN \(x.lite) >= -9223372036854775808.0 AND \(x.lite) < 9223372036854775808.0 THEN CAST(\(x.lite) AS INTEGER) END)",
            .integer)
    }

    static let trimSets = [" ", "S", "Sa", "k", "%_", "", "ak ", "sP", "'", "\u{301}", "e\u{301}", "\\"]

    mutating func stringConstant(allowHuge: Bool = true) -> DualExpression {
        if allowHuge && int(0...999) < 3 {
            // A huge literal: one of the column's huge values, or one differing at its end.
            // Rare: under nocase each row's comparison folds the literal again (debug builds
            // take most of a second per such clause).
            var text = pick(Extremes.hugeStrings)
            if chance(30) { text += "!" }
            return DualExpression(both: Self.quoted(text), .string)
        }
        if chance(20) { return DualExpression(both: Self.quoted(pick(Extremes.strings)), .string) }
        return DualExpression(both: Self.quoted(pick(Self.stringConstants)), .string)
    }

    static let stringConstants = SQLiteDifferentialTests.categories + [
        "San", "SAN", "san jose", "Oak", "Park", "park", "Parks ", "x", "a", "A", "St", "Santa Clara 1", "O'", " ",
    ]

    mutating func stringColumn() -> DualExpression {
        switch int(0...9) {
        case 0, 1, 2, 3: return DualExpression(both: field("CATEGORY"), .string)
        case 4, 5, 6, 7: return DualExpression(both: field("NAME"), .string)
        default: return DualExpression(both: field("S"), .string)
        }
    }

    mutating func string(depth: Int) -> DualExpression {
        if depth <= 0 || chance(40) {
            switch int(0...21) {
            case 0...11: return stringColumn()
            case 12: return DualExpression(both: "NULL", .string)
            case 13:
                // A moderate date as text: yyyy-mm-dd at midnight, else yyyy-mm-ddThh:mm:ss.fffZ.
                let u = field("U")
                return DualExpression(
                    "CAST(\(u) AS VARCHAR)",
                    "(CASE WHEN U % 86400000 = 0 THEN strftime('%Y-%m-%d', U / 1000.0, 'unixepoch') "
                        + "ELSE strftime('%Y-%m-%dT%H:%M:%fZ', U / 1000.0, 'unixepoch') END)", .string)
            case 14:
                let x = integer(depth: 0)
                return DualExpression("CAST(\(x.geo) AS VARCHAR)", "CAST(\(x.lite) AS TEXT)", .string)
            default: return stringConstant()
            }
        }
        switch int(0...12) {
        case 0, 1:
            let s = string(depth: depth - 1)
            let f = chance(50) ? "UPPER" : "LOWER"
            return DualExpression("\(f)(\(s.geo))", "\(f.lowercased())(\(s.lite))", .string)
        case 2, 3:
            // Non-negative constant start and length: SQLite's substr counts negative ones from
            // the end (and misreads huge ones).
            let s = string(depth: depth - 1)
            let start = int(0...6)
            if chance(30) {
                let geo = chance(50) ? "SUBSTRING(\(s.geo), \(start))" : "SUBSTRING(\(s.geo) FROM \(start))"
                return DualExpression(geo, "substr(\(s.lite), \(start))", .string)
            }
            let length = int(0...5)
            let geo = chance(50) ? "SUBSTRING(\(s.geo), \(start), \(length))" : "SUBSTRING(\(s.geo) FROM \(start) FOR \(length))"
            return DualExpression(geo, "substr(\(s.lite), \(start), \(length))", .string)
        case 4, 5:
            let s = string(depth: depth - 1)
            let set = Self.quoted(pick(Self.trimSets))
            switch int(0...4) {
            case 0: return DualExpression("TRIM(\(s.geo))", "trim(\(s.lite))", .string)
            case 1: return DualExpression("TRIM(BOTH \(set) FROM \(s.geo))", "trim(\(s.lite), \(set))", .string)
            case 2: return DualExpression("TRIM(LEADING \(set) FROM \(s.geo))", "ltrim(\(s.lite), \(set))", .string)
            case 3: return DualExpression("TRIM(TRAILING \(set) FROM \(s.geo))", "rtrim(\(s.lite), \(set))", .string)
            default: return DualExpression("TRIM(\(set) FROM \(s.geo))", "trim(\(s.lite), \(set))", .string)
            }
        case 6, 7:
            // CONCAT ↔ ||: both NULL when any part is NULL. Numbers: integers and column D
            // itself (quarters print alike), never computed doubles.
            let parts = (0..<int(2...3)).map { _ -> DualExpression in
                switch int(0...5) {
                case 0: return integer(depth: 0)
                case 1: return DualExpression(both: field("D"), .double)
                default: return string(depth: depth - 1)
                }
            }
            return DualExpression(
                "CONCAT(\(parts.map(\.geo).joined(separator: ", ")))", "(\(parts.map(\.lite).joined(separator: " || ")))", .string)
        case 8:
            let parts = (0..<int(2...3)).map { _ in string(depth: depth - 1) }
            return DualExpression(
                "COALESCE(\(parts.map(\.geo).joined(separator: ", ")))", "coalesce(\(parts.map(\.lite).joined(separator: ", ")))",
                .string)
        case 9:
            // NULLIF compares under the collation: explicit in SQLite under nocase.
            let l = string(depth: depth - 1), r = chance(60) ? stringConstant() : string(depth: depth - 1)
            return DualExpression("NULLIF(\(l.geo), \(r.geo))", "nullif(\(collated(l)), \(r.lite))", .string)
        default:
            return caseExpression(depth: depth, result: { g in g.string(depth: depth - 1) }, kind: .string)
        }
    }

    // MARK: Dates and intervals

    /// A date column or literal. SQLite holds dates as INTEGER epoch milliseconds.
    mutating func dateLeaf() -> DualExpression {
        switch int(0...9) {
        case 0, 1, 2: return DualExpression(field("T"), "T", .date)
        case 3, 4, 5: return DualExpression(field("U"), "U", .date)
        default:
            let literal = pick(Extremes.dateLiterals)
            return DualExpression(literal.geo, literal.lite, .date)
        }
    }

    /// A date text that GeoSieve reads as a date when compared with one.
    mutating func dateText() -> DualExpression {
        let text = pick(Extremes.dateTexts)
        return DualExpression(text.geo, text.lite, .string)
    }

    /// A date expression, anywhere in the Int64 millisecond range: NULL once it leaves it.
    mutating func date(depth: Int) -> DualExpression {
        if depth <= 0 || chance(35) { return dateLeaf() }
        let d = date(depth: depth - 1)
        switch int(0...5) {
        case 0, 1:
            let i = intervalLiteral()
            let op = chance(50) ? "+" : "-"
            return DualExpression("(\(d.geo) \(op) \(i.geo))", "gs_int(\(d.lite) \(op) \(i.lite))", .date)
        case 2:
            // date ± whole days: the days are multiplied out first, each step NULL on overflow.
            let n = chance(70) ? integerConstant() : integer(depth: 0)
            let op = chance(50) ? "+" : "-"
            return DualExpression("(\(d.geo) \(op) \(n.geo))", "gs_int(\(d.lite) \(op) gs_int(\(n.lite) * 86400000))", .date)
        case 3:
            // date ± fractional days (quarters: whole milliseconds, nothing to round).
            let days = Double(int(-12...12)) / 4
            let op = chance(50) ? "+" : "-"
            return DualExpression(
                "(\(d.geo) \(op) \(Self.literal(days)))", "gs_int(\(d.lite) \(op) CAST(\(Self.literal(days)) * 86400000.0 AS INTEGER))",
                .date)
        default:
            // CAST(… AS DATE): midnight of the day, NULL when before Int64.min. SQLite floors
            // with its own arithmetic (the operand is repeated, hence a column).
            let c = chance(50) ? "T" : "U"
            return DualExpression("CAST(\(field(c)) AS DATE)", "gs_int(\(c) - ((\(c) % 86400000) + 86400000) % 86400000)", .date)
        }
    }

    /// A date within years 0000…9999, where SQLite's calendar functions work: for EXTRACT and
    /// CAST to text.
    mutating func moderateDate() -> DualExpression {
        switch int(0...5) {
        case 0, 1, 2: return DualExpression(field("U"), "U", .date)
        case 3:
            let literal = pick(Extremes.dateLiterals)
            return DualExpression(literal.geo, literal.lite, .date)
        default:
            // U is within 0001…9998: a year either way stays within 0000…9999.
            let days = int(-366...366), milliseconds = int(0...86_399_999)
            let geo = "(\(field("U")) + INTERVAL '\(days < 0 ? "-" : "")\(abs(days)) 00:00:00.\(String(milliseconds % 1000).leftPadded(3))' DAY TO SECOND)"
            let total = Int64(days) * 86_400_000 + (days < 0 ? -1 : 1) * Int64(milliseconds % 1000)
            return DualExpression(geo, "(U + \(Self.literal(total)))", .date)
        }
    }

    /// `EXTRACT(field FROM date)` of a moderate date; SQLite's `strftime` gives the fields.
    mutating func extract(seconds: Bool) -> DualExpression {
        let d = moderateDate()
        let source = "(\(d.lite)) / 1000.0, 'unixepoch'"
        if seconds {
            return DualExpression("EXTRACT(SECOND FROM \(d.geo))", "CAST(strftime('%f', \(source)) AS REAL)", .double)
        }
        let (field, format) = pick([("YEAR", "%Y"), ("MONTH", "%m"), ("DAY", "%d"), ("HOUR", "%H"), ("MINUTE", "%M")])
        return DualExpression("EXTRACT(\(field) FROM \(d.geo))", "CAST(strftime('\(format)', \(source)) AS INTEGER)", .integer)
    }

    /// An INTERVAL literal and its milliseconds.
    mutating func intervalLiteral() -> DualExpression {
        let ms = pick(Extremes.intervals)
        return DualExpression(intervalText(ms), Self.literal(ms), .interval)
    }

    /// An interval expression: a literal, a sum or difference of two, or a negation.
    mutating func interval(depth: Int) -> DualExpression {
        if depth <= 0 || chance(50) { return intervalLiteral() }
        let l = interval(depth: depth - 1), r = interval(depth: depth - 1)
        switch int(0...2) {
        case 0: return DualExpression("(\(l.geo) + \(r.geo))", "gs_int(\(l.lite) + \(r.lite))", .interval)
        case 1: return DualExpression("(\(l.geo) - \(r.geo))", "gs_int(\(l.lite) - \(r.lite))", .interval)
        default: return DualExpression("(-\(l.geo))", "gs_int(-(\(l.lite)))", .interval)
        }
    }

    /// `INTERVAL '…' qualifier` for `ms`, in one of the qualifiers it fits, the sign inside or
    /// before the string.
    mutating func intervalText(_ ms: Int64) -> String {
        let magnitude = ms.magnitude
        let days = magnitude / 86_400_000, hours = magnitude / 3_600_000 % 24, minutes = magnitude / 60_000 % 60
        let seconds = magnitude / 1000 % 60, milliseconds = magnitude % 1000
        func two(_ x: UInt64) -> String { String(x).leftPadded(2) }
        var forms: [(String, String)] = [
            ("\(days) \(two(hours)):\(two(minutes)):\(two(seconds)).\(String(milliseconds).leftPadded(3))", "DAY TO SECOND"),
            ("\(magnitude / 1000)" + (milliseconds == 0 ? "" : ".\(String(milliseconds).leftPadded(3))"), "SECOND"),
        ]
        if magnitude % 86_400_000 == 0 { forms.append(("\(days)", "DAY")) }
        if magnitude % 3_600_000 == 0 { forms.append(("\(magnitude / 3_600_000)", "HOUR")) }
        if magnitude % 60_000 == 0 {
            forms.append(("\(magnitude / 60_000)", "MINUTE"))
            forms.append(("\(magnitude / 3_600_000):\(two(minutes))", "HOUR TO MINUTE"))
        }
        let (text, qualifier) = pick(forms)
        if ms >= 0 { return "INTERVAL '\(chance(20) ? "+" : "")\(text)' \(qualifier)" }
        return chance(50) ? "INTERVAL '-\(text)' \(qualifier)" : "INTERVAL -'\(text)' \(qualifier)"
    }

    // MARK: CASE

    /// A searched or simple CASE whose results come from `result`. With `forceDouble`, the first
    /// result is a double so that the CASE's type is double.
    mutating func caseExpression(
        depth: Int, result: (inout ClauseGenerator) -> DualExpression, kind: DualExpression.Kind, forceDouble: Bool = false
    ) -> DualExpression {
        var geo = "CASE", lite = "CASE"
        let simple = chance(35)
        var simpleOperandIsString = false
        if simple {
            simpleOperandIsString = chance(50)
            if simpleOperandIsString {
                let operand = string(depth: depth - 1)
                geo += " \(operand.geo)"
                lite += " \(collated(operand))"
            } else {
                let operand = integer(depth: depth - 1)
                geo += " \(operand.geo)"
                lite += " \(operand.lite)"
            }
        }
        for branch in 0..<int(1...3) {
            let when: DualExpression
            if simple {
                when = simpleOperandIsString ? stringConstant() : (chance(80) ? integerConstant() : numberConstant())
            } else {
                when = condition(depth: 1, valueDepth: depth - 1)
            }
            let then = branch == 0 && forceDouble ? double(depth: depth - 1) : result(&self)
            geo += " WHEN \(when.geo) THEN \(then.geo)"
            lite += " WHEN \(when.lite) THEN \(then.lite)"
        }
        if chance(75) {
            let otherwise = result(&self)
            geo += " ELSE \(otherwise.geo)"
            lite += " ELSE \(otherwise.lite)"
        }
        return DualExpression("(\(geo) END)", "(\(lite) END)", kind)
    }
}

extension String {
    /// The string with zeros in front up to `width` characters.
    fileprivate func leftPadded(_ width: Int) -> String {
        String(repeating: "0", count: Swift.max(0, width - count)) + self
    }
}
