import SieveColumns
import SieveTestSupport
import Testing

@testable import SieveSQL

/// Value expressions against SQLite: random arithmetic (`+ - * /`, unary minus, `CAST` to
/// FLOAT and INTEGER) over random rows with NULLs and the ends of `Int64` and of the doubles;
/// every row's value, vectorized and per row, must be SQLite's, value and type.
///
/// The semantics are mapped as ``SQLiteDifferentialTests`` maps them: integer overflow gives a
/// REAL in SQLite and NULL here, so every integer operation is wrapped in `gs_int(…)` (NULL for
/// anything but an INTEGER); a double overflow gives ±Inf in SQLite and NULL here, so every
/// double operation is wrapped in `gs_real(…)`; `CAST(x AS INTEGER)` saturates in SQLite and is
/// NULL outside `-2^63 ..< 2^63` here, so the SQLite text tests the range first (generated on
/// columns and constants only, since the operand is repeated). Left alone because they agree:
/// integer `/` truncates toward zero, division by zero is NULL, an integer meets a double as
/// the nearest double, NaN is NULL (no column holds a NaN, which SQLite cannot store).
@Suite("ValueExpression values against SQLite")
struct ValueExpressionSQLiteTests {
    static let schema = SimpleSchema([("A", .integer), ("B", .integer), ("X", .integer), ("D", .double), ("Y", .double)])
    static let integerEnds: [Int64] = [.min, .min + 1, -3_037_000_500, -1, 0, 1, 3_037_000_500, .max - 1, .max]
    static let doubleEnds: [Double] = [
        1.7e308, -1.7e308, 5e-324, 9_223_372_036_854_775_808.0, -9_223_372_036_854_775_808.0, 9_223_372_036_854_774_784.0,
        0, 0.1, -2.5,
    ]

    /// One expression, in both dialects.
    struct Expression {
        var geo: String
        var lite: String
        var isInteger: Bool
        var isLeaf: Bool
    }

    static func leaf(_ generator: inout SeededGenerator) -> Expression {
        switch generator.int(12) {
        case 0...2:
            let name = ["A", "B", "X"][generator.int(3)]
            return Expression(geo: name, lite: name, isInteger: true, isLeaf: true)
        case 3, 4:
            let name = ["D", "Y"][generator.int(2)]
            return Expression(geo: name, lite: name, isInteger: false, isLeaf: true)
        case 5...7:
            let value = generator.chance(50) ? integerEnds[generator.int(integerEnds.count)] : Int64(generator.int(-9...9))
            let text = value == .min ? "(-9223372036854775807 - 1)" : "(\(value))"
            return Expression(geo: text, lite: value == .min ? "gs_int\(text)" : text, isInteger: true, isLeaf: true)
        case 8...10:
            let text = ["0.5", "(-2.25)", "1e308", "0.0", "3.0", "1e-300", "(-0.1)"][generator.int(7)]
            return Expression(geo: text, lite: text, isInteger: false, isLeaf: true)
        default:
            return Expression(geo: "NULL", lite: "NULL", isInteger: true, isLeaf: true)
        }
    }

    static func expression(depth: Int, _ generator: inout SeededGenerator) -> Expression {
        if depth == 0 || generator.chance(20) { return leaf(&generator) }
        let a = expression(depth: depth - 1, &generator)
        switch generator.int(10) {
        case 0...5:
            let b = expression(depth: depth - 1, &generator)
            let op = ["+", "-", "*", "/"][generator.int(4)]
            let integer = a.isInteger && b.isInteger
            let geo = "(\(a.geo) \(op) \(b.geo))"
            return Expression(geo: geo, lite: "\(integer ? "gs_int" : "gs_real")((\(a.lite) \(op) \(b.lite)))", isInteger: integer, isLeaf: false)
        case 6:
            return Expression(
                geo: "(-\(a.geo))", lite: a.isInteger ? "gs_int(-(\(a.lite)))" : "(-(\(a.lite)))", isInteger: a.isInteger, isLeaf: false)
        case 7:
            return Expression(geo: "CAST(\(a.geo) AS FLOAT)", lite: "CAST(\(a.lite) AS REAL)", isInteger: false, isLeaf: false)
        default:
            guard a.isLeaf else { return Expression(geo: "(\(a.geo))", lite: "(\(a.lite))", isInteger: a.isInteger, isLeaf: false) }
            let lite =
                a.isInteger
                ? "CAST(\(a.lite) AS INTEGER)"
                : "(CASE WHEN \(a.lite) >= -9223372036854775808.0 AND \(a.lite) < 9223372036854775808.0 THEN CAST(\(a.lite) AS INTEGER) END)"
            return Expression(geo: "CAST(\(a.geo) AS INTEGER)", lite: lite, isInteger: true, isLeaf: false)
        }
    }

    @Test("Random arithmetic equals SQLite's, per row and vectorized", arguments: [11, 12])
    func randomArithmetic(seed: UInt64) throws {
        var generator = SeededGenerator(seed: 0xA17E_0000 + seed)
        let rows = 400
        func integers(_ extremes: Int, _ small: ClosedRange<Int>) -> [Int64?] {
            (0..<rows).map { _ in
                if generator.chance(12) { return nil }
                return generator.chance(extremes) ? Self.integerEnds[generator.int(Self.integerEnds.count)] : Int64(generator.int(small))
            }
        }
        func doubles(_ extremes: Int) -> [Double?] {
            (0..<rows).map { _ in
                if generator.chance(12) { return nil }
                return generator.chance(extremes) ? Self.doubleEnds[generator.int(Self.doubleEnds.count)] : Double(generator.int(-40...40)) / 4
            }
        }
        let a = integers(0, -10...10), b = integers(0, -3...3), x = integers(60, -5...5)
        let d = doubles(0), y = doubles(60)
        func column(_ values: [Int64?]) -> Column {
            var validity = ValidityBitmap(count: 0, allValid: true)
            for value in values { validity.append(valid: value != nil) }
            return .integer(Int64Column(values: values.map { $0 ?? 0 }, validity: validity))
        }
        func column(_ values: [Double?]) -> Column {
            var validity = ValidityBitmap(count: 0, allValid: true)
            for value in values { validity.append(valid: value != nil) }
            return .double(DoubleColumn(values: values.map { $0 ?? 0 }, validity: validity))
        }
        let columns = [column(a), column(b), column(x), column(d), column(y)]

        let database = try SQLiteDatabase()
        try database.registerOverflowMappings()
        try database.execute("CREATE TABLE t (ID INTEGER PRIMARY KEY, A INTEGER, B INTEGER, X INTEGER, D REAL, Y REAL)")
        // GeoSieve's values, one expression at a time; V has no type affinity, so it keeps
        // INTEGER and REAL apart.
        try database.execute("CREATE TABLE r (ID INTEGER PRIMARY KEY, V)")
        try database.execute("BEGIN")
        try database.withStatement("INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5, ?6)") { insert in
            for i in 0..<rows {
                try insert.bind(1, .integer(Int64(i)))
                try insert.bind(2, a[i].map(SQLiteValue.integer) ?? .null)
                try insert.bind(3, b[i].map(SQLiteValue.integer) ?? .null)
                try insert.bind(4, x[i].map(SQLiteValue.integer) ?? .null)
                try insert.bind(5, d[i].map(SQLiteValue.double) ?? .null)
                try insert.bind(6, y[i].map(SQLiteValue.double) ?? .null)
                #expect(try !insert.step())
                try insert.reset()
            }
        }
        try database.execute("COMMIT")

        var compared = 0
        var nonNull = 0
        for _ in 0..<200 {
            let generated = Self.expression(depth: generator.int(1...4), &generator)
            let expression = try CompiledValueExpression(generated.geo, schema: Self.schema)
            let values = expression.scalarValues(rowCount: rows, in: columns)
            try database.execute("BEGIN; DELETE FROM r")
            try database.withStatement("INSERT INTO r VALUES (?1, ?2)") { insert in
                for (i, value) in values.enumerated() {
                    #expect(ValueExpressionKernelTests.same(value, expression.value(row: i, in: columns)), "\(generated.geo) at row \(i)")
                    let bound: SQLiteValue
                    switch value {
                    case .integer(let v): bound = .integer(v)
                    case .double(let v): bound = .double(v)
                    case .null: bound = .null
                    default:
                        Issue.record("\(generated.geo) at row \(i) is not a number: \(value)")
                        bound = .null
                    }
                    if !value.isNull { nonNull += 1 }
                    try insert.bind(1, .integer(Int64(i)))
                    try insert.bind(2, bound)
                    #expect(try !insert.step())
                    try insert.reset()
                }
            }
            try database.execute("COMMIT")
            let lite = generated.lite
            let differing = try database.integers(
                "SELECT t.ID FROM t JOIN r ON r.ID = t.ID WHERE NOT ((\(lite)) IS r.V) OR typeof(\(lite)) <> typeof(r.V) ORDER BY t.ID LIMIT 3")
            if let row = differing.first {
                Issue.record("\(generated.geo) differs from SQLite's \(lite) at rows \(differing) (ours at row \(row): \(values[Int(row)]))")
            }
            compared += 1
        }
        #expect(compared == 200)
        // Most values must be numbers, or the comparison says little.
        #expect(nonNull > 200 * rows / 4, "only \(nonNull) non-NULL values")
    }
}
