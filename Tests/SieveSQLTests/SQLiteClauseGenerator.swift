@testable import SieveSQL

/// One random expression in two dialects: GeoSieve's where-clause SQL and SQLite's.
struct DualExpression {
    enum Kind { case integer, double, string, boolean }

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

/// Random, well-typed where clauses over the differential test's table (OBJECTID, A, B, C
/// integers; D double; CATEGORY, NAME strings). Every choice is rendered in both dialects at once;
/// the reasons for each difference between the two texts are listed on
/// ``SQLiteDifferentialTests``.
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
        switch int(0...21) {
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
        default:
            // IS NULL of a condition: three-valued logic made visible.
            let inner = predicate(valueDepth: valueDepth)
            let not = chance(50) ? " NOT" : ""
            return DualExpression("(\(inner.geo) IS\(not) NULL)", "(\(inner.lite) IS\(not) NULL)", .boolean)
        }
    }

    /// Pieces of LIKE patterns; the backslash pieces are only used with `ESCAPE '\'`.
    static let likePieces = ["%", "%", "_", "San", "an", "a", "Park", "park", "PARK", "%%", "", "100", "Tree", " ", "s", "O''", "_b", "0"]
    static let escapedPieces = ["\\%", "\\_", "\\\\", "\\a"]

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
        switch int(0...2) {
        case 0: return string(depth: depth)
        default: return number(depth: depth)
        }
    }

    mutating func number(depth: Int) -> DualExpression {
        chance(60) ? integer(depth: depth) : double(depth: depth)
    }

    mutating func numericLeaf() -> DualExpression {
        switch int(0...5) {
        case 0: return DualExpression(both: field("A"), .integer)
        case 1: return DualExpression(both: field("B"), .integer)
        case 2: return DualExpression(both: field("D"), .double)
        case 3: return DualExpression(both: field("C"), .integer)
        default: return numberConstant()
        }
    }

    mutating func numberConstant() -> DualExpression {
        chance(65) ? integerConstant() : doubleConstant()
    }

    mutating func integerConstant() -> DualExpression {
        let value = int(-12...12)
        // Negative literals in parentheses: `x - -1` would read as a comment in both dialects.
        return DualExpression(both: value < 0 ? "(\(value))" : "\(value)", .integer)
    }

    mutating func doubleConstant() -> DualExpression {
        let value = Double(int(-48...48)) / 4
        return DualExpression(both: value < 0 ? "(\(value))" : "\(value)", .double)
    }

    mutating func integer(depth: Int) -> DualExpression {
        if depth <= 0 || chance(35) {
            switch int(0...19) {
            case 0, 1, 2, 3: return DualExpression(both: field("A"), .integer)
            case 4, 5, 6: return DualExpression(both: field("B"), .integer)
            case 7, 8: return DualExpression(both: field("C"), .integer)
            case 9: return DualExpression(both: field("OBJECTID"), .integer)
            case 10: return DualExpression(both: "NULL", .integer)
            default: return integerConstant()
            }
        }
        switch int(0...15) {
        case 0, 1, 2, 3:
            let l = integer(depth: depth - 1), r = integer(depth: depth - 1)
            let op = pick(["+", "-", "*", "/", "/"])
            return DualExpression("(\(l.geo) \(op) \(r.geo))", "(\(l.lite) \(op) \(r.lite))", .integer)
        case 4:
            let x = integer(depth: depth - 1)
            return DualExpression("(-\(x.geo))", "(-\(x.lite))", .integer)
        case 5:
            let x = integer(depth: depth - 1)
            return DualExpression("ABS(\(x.geo))", "abs(\(x.lite))", .integer)
        case 6:
            // MOD on integers only (SQLite's % truncates REAL operands to integers first).
            let l = integer(depth: depth - 1), r = integer(depth: depth - 1)
            return DualExpression("MOD(\(l.geo), \(r.geo))", "(\(l.lite) % \(r.lite))", .integer)
        case 7:
            let s = string(depth: depth - 1)
            return DualExpression("CHAR_LENGTH(\(s.geo))", "length(\(s.lite))", .integer)
        case 8:
            let needle = chance(70) ? stringConstant() : string(depth: depth - 1)
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
            // ROUND of an integer is an integer here, a REAL in SQLite: cast back (exact).
            let x = integer(depth: depth - 1)
            let digits = chance(50) ? "" : ", \(int(0...2))"
            return DualExpression("ROUND(\(x.geo)\(digits))", "CAST(round(\(x.lite)\(digits)) AS INTEGER)", .integer)
        default:
            let x = integer(depth: depth - 1)
            let (geo, lite) = chance(50) ? ("CEILING", "ceiling") : ("FLOOR", "floor")
            return DualExpression("\(geo)(\(x.geo))", "\(lite)(\(x.lite))", .integer)
        }
    }

    mutating func double(depth: Int) -> DualExpression {
        if depth <= 0 || chance(35) {
            switch int(0...4) {
            case 0, 1, 2: return DualExpression(both: field("D"), .double)
            default: return doubleConstant()
            }
        }
        switch int(0...11) {
        case 0, 1, 2, 3:
            var l = double(depth: depth - 1), r = number(depth: depth - 1)
            if chance(50) { swap(&l, &r) }
            let op = pick(["+", "-", "*", "/"])
            return DualExpression("(\(l.geo) \(op) \(r.geo))", "(\(l.lite) \(op) \(r.lite))", .double)
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
            // Mixed integer/double COALESCE has type double here; SQLite would keep a chosen
            // integer an integer, so cast.
            var parts = (0..<int(2...3)).map { _ in number(depth: depth - 1) }
            parts[int(0...parts.count - 1)] = double(depth: depth - 1)
            return DualExpression(
                "COALESCE(\(parts.map(\.geo).joined(separator: ", ")))",
                "CAST(coalesce(\(parts.map(\.lite).joined(separator: ", "))) AS REAL)", .double)
        case 9:
            let l = double(depth: depth - 1), r = number(depth: depth - 1)
            return DualExpression("NULLIF(\(l.geo), \(r.geo))", "nullif(\(l.lite), \(r.lite))", .double)
        default:
            // A CASE with at least one double result: type double, cast in SQLite as for COALESCE.
            var e = caseExpression(depth: depth, result: { g in g.number(depth: depth - 1) }, kind: .double, forceDouble: true)
            e.lite = "CAST(\(e.lite) AS REAL)"
            return e
        }
    }

    static let stringConstants = SQLiteDifferentialTests.categories + [
        "San", "SAN", "san jose", "Oak", "Park", "park", "Parks ", "x", "a", "A", "St", "Santa Clara 1", "O'", " ",
    ]

    mutating func stringConstant() -> DualExpression {
        DualExpression(both: Self.quoted(pick(Self.stringConstants)), .string)
    }

    mutating func stringColumn() -> DualExpression {
        DualExpression(both: field(chance(50) ? "CATEGORY" : "NAME"), .string)
    }

    static let trimSets = [" ", "S", "Sa", "k", "%_", "", "ak ", "sP", "'"]

    mutating func string(depth: Int) -> DualExpression {
        if depth <= 0 || chance(40) {
            switch int(0...19) {
            case 0...11: return stringColumn()
            case 12: return DualExpression(both: "NULL", .string)
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
            // the end.
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
