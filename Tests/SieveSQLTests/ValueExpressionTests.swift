import SieveColumns
import Testing

@testable import SieveSQL

/// (SQL, row) → value for ``CompiledValueExpression``, every expected value worked out by hand
/// from the SQL rules, on ``EvaluationTests``' three-row table:
///
/// - row 0: POP 1500, NAME 'San Jose', CATEGORY 'Parks', SCORE 0.5, CREATED 2024-02-29, FLAG 1
/// - row 1: POP 250000, NAME 'Oakland', CATEGORY 'Tree Maintenance or Damage', SCORE NULL,
///   CREATED 2015-01-01 12:30:00, FLAG 0
/// - row 2: POP NULL, NAME NULL, CATEGORY NULL, SCORE -2.25, CREATED NULL, FLAG NULL
@Suite("ValueExpression values")
struct ValueExpressionTests {
    static let schema = EvaluationTests.schema
    static let columns = EvaluationTests.columns()
    static let day: Int64 = 86_400_000
    static let created0: Int64 = 1_709_164_800_000
    static let created1: Int64 = 1_420_115_400_000

    /// Whether two values are the same value: doubles bit for bit (so NaN equals NaN and 0.0
    /// differs from -0.0), everything else as `==`.
    static func same(_ a: ScalarValue, _ b: ScalarValue) -> Bool {
        if case .double(let x) = a, case .double(let y) = b { return x.bitPattern == y.bitPattern }
        return a == b
    }

    static let cases: [(sql: String, type: SQLType, values: [ScalarValue])] = [
        // Arithmetic: integers stay integral, 7 / 2 truncates toward zero.
        ("POP / 1000", .integer, [.integer(1), .integer(250), .null]),
        ("7 / 2", .integer, [.integer(3), .integer(3), .integer(3)]),
        ("-7 / 2", .integer, [.integer(-3), .integer(-3), .integer(-3)]),
        ("7.0 / 2", .double, [.double(3.5), .double(3.5), .double(3.5)]),
        ("POP / SCORE", .double, [.double(3000), .null, .null]),
        ("POP * 1.5 - 1", .double, [.double(2249), .double(374_999), .null]),
        ("POP + OBJECTID * 2", .integer, [.integer(1502), .integer(250_004), .null]),
        ("-POP", .integer, [.integer(-1500), .integer(-250_000), .null]),
        ("-SCORE", .double, [.double(-0.5), .null, .double(2.25)]),
        // Division by zero and overflow are NULL.
        ("POP / 0", .integer, [.null, .null, .null]),
        ("SCORE / 0.0", .double, [.null, .null, .null]),
        ("POP / (FLAG - FLAG)", .integer, [.null, .null, .null]),
        ("9223372036854775807 + POP", .integer, [.null, .null, .null]),
        ("(-9223372036854775807 - OBJECTID) * 1", .integer, [.integer(.min), .null, .null]),
        ("-(-9223372036854775807 - OBJECTID)", .integer, [.null, .null, .null]),
        ("SCORE * 1e308 * 10", .double, [.null, .null, .null]),
        // Functions.
        ("UPPER(NAME)", .string, [.string("SAN JOSE"), .string("OAKLAND"), .null]),
        ("CHAR_LENGTH(NAME)", .integer, [.integer(8), .integer(7), .null]),
        ("CONCAT(NAME, '-', POP)", .string, [.string("San Jose-1500"), .string("Oakland-250000"), .null]),
        ("SUBSTRING(NAME FROM 1 FOR 3)", .string, [.string("San"), .string("Oak"), .null]),
        ("TRIM(LEADING 'S' FROM NAME)", .string, [.string("an Jose"), .string("Oakland"), .null]),
        ("MOD(POP, 7)", .integer, [.integer(2), .integer(2), .null]),
        ("ABS(SCORE)", .double, [.double(0.5), .null, .double(2.25)]),
        ("ROUND(SCORE * 3, 1)", .double, [.double(1.5), .null, .double(-6.8)]),
        ("COALESCE(POP, -1)", .integer, [.integer(1500), .integer(250_000), .integer(-1)]),
        ("COALESCE(SCORE, POP)", .double, [.double(0.5), .double(250_000), .double(-2.25)]),
        ("NULLIF(FLAG, 0)", .integer, [.integer(1), .null, .null]),
        // CASE: the result type unifies integers and doubles.
        (
            "CASE WHEN POP > 100000 THEN 'large' WHEN POP > 1000 THEN 'medium' ELSE 'unknown' END", .string,
            [.string("medium"), .string("large"), .string("unknown")]
        ),
        ("CASE WHEN POP > 100000 THEN 1 ELSE 2.5 END", .double, [.double(2.5), .double(1), .double(2.5)]),
        ("CASE CATEGORY WHEN 'Parks' THEN 10 END", .integer, [.integer(10), .null, .null]),
        // CAST.
        ("CAST(SCORE AS INTEGER)", .integer, [.integer(0), .null, .integer(-2)]),
        ("CAST(POP AS FLOAT) / 1000", .double, [.double(1.5), .double(250), .null]),
        ("CAST(NAME AS INTEGER)", .integer, [.null, .null, .null]),
        ("CAST('  42 ' AS INTEGER) + POP", .integer, [.integer(1542), .integer(250_042), .null]),
        ("CAST(POP AS VARCHAR)", .string, [.string("1500"), .string("250000"), .null]),
        // Dates.
        ("EXTRACT(YEAR FROM CREATED)", .integer, [.integer(2024), .integer(2015), .null]),
        ("EXTRACT(MONTH FROM CREATED)", .integer, [.integer(2), .integer(1), .null]),
        ("EXTRACT(HOUR FROM CREATED)", .integer, [.integer(0), .integer(12), .null]),
        ("CREATED + 1", .date, [.date(created0 + day), .date(created1 + day), .null]),
        ("CREATED + INTERVAL '1' HOUR", .date, [.date(created0 + 3_600_000), .date(created1 + 3_600_000), .null]),
        ("CREATED - DATE '2015-01-01'", .double, [.double(3346), .double(45_000_000.0 / 86_400_000), .null]),
        ("CAST(CREATED AS DATE)", .date, [.date(created0), .date(1_420_070_400_000), .null]),
        ("INTERVAL '2' HOUR", .interval, [.integer(7_200_000), .integer(7_200_000), .integer(7_200_000)]),
        // Conditions are truth values, NULL when unknown.
        ("POP > 1000", .boolean, [.boolean(true), .boolean(true), .null]),
        ("SCORE IS NULL", .boolean, [.boolean(false), .boolean(true), .boolean(false)]),
        ("NAME LIKE 'San%' OR SCORE < 0", .boolean, [.boolean(true), .null, .boolean(true)]),
        // Always NULL.
        ("NULL", .null, [.null, .null, .null]),
        ("NULL + POP", .integer, [.null, .null, .null]),
    ]

    @Test("Values, result types and the vectorized paths agree with the worked values", arguments: cases)
    func values(sql: String, type: SQLType, expected: [ScalarValue]) throws {
        let expression = try CompiledValueExpression(sql, schema: Self.schema)
        #expect(expression.resultType == type, "\(sql)")
        #expect(expression.sql == sql)
        for row in 0..<3 {
            let value = expression.value(row: row, in: Self.columns)
            #expect(Self.same(value, expected[row]), "\(sql) at row \(row): \(value), expected \(expected[row])")
        }
        let all = expression.scalarValues(rowCount: 3, in: Self.columns)
        #expect(all.count == 3)
        for row in 0..<3 { #expect(Self.same(all[row], expected[row]), "\(sql) vectorized at row \(row): \(all[row])") }
        let picked = expression.scalarValues(rows: [2, 0, 2], in: Self.columns)
        #expect(zip(picked, [expected[2], expected[0], expected[2]]).allSatisfy(Self.same), "\(sql) at rows 2, 0, 2: \(picked)")
        let numbers = expression.values(rowCount: 3, in: Self.columns)
        for row in 0..<3 {
            let reading = NumericValues.numericReading(expected[row])
            #expect(numbers.isNull[row] == (reading == nil), "\(sql) NULL flag at row \(row)")
            #expect(numbers.doubles[row].bitPattern == (reading ?? .nan).bitPattern, "\(sql) as a double at row \(row)")
        }
    }

    @Test("Numeric readings of values that are not numbers")
    func numericReadings() throws {
        let dates = try CompiledValueExpression("CREATED", schema: Self.schema).values(rowCount: 3, in: Self.columns)
        #expect(dates.doubles[0] == Double(Self.created0) && dates.isNull == [false, false, true])
        let truths = try CompiledValueExpression("POP > 1000 AND SCORE > 0", schema: Self.schema).doubles(rowCount: 3, in: Self.columns)
        #expect(truths[0] == 1 && truths[1].isNaN && truths[2] == 0)
        let text = try CompiledValueExpression("CASE WHEN POP > 2000 THEN ' 2.5' ELSE NAME END", schema: Self.schema)
        let readings = text.values(rowCount: 3, in: Self.columns)
        #expect(readings.isNull == [true, false, true])
        #expect(readings.doubles[1] == 2.5 && readings.doubles[0].isNaN)
        #expect(readings.count == 3 && readings.nanForNull.count == 3)
    }

    @Test("A double column's NaN is a value, not NULL; arithmetic on it is NULL")
    func nanIsNotNull() throws {
        let columns: [Column] = [.double(DoubleColumn(values: [.nan, 1]))]
        let schema = SimpleSchema([("V", .double)])
        let bare = try CompiledValueExpression("V", schema: schema)
        let values = bare.values(rowCount: 2, in: columns)
        #expect(values.doubles[0].isNaN && values.isNull == [false, false])
        let sum = try CompiledValueExpression("V + 1", schema: schema)
        #expect(sum.value(row: 0, in: columns) == .null)
        #expect(sum.values(rowCount: 2, in: columns).isNull == [true, false])
        let negated = try CompiledValueExpression("-V", schema: schema).values(rowCount: 1, in: columns)
        #expect(negated.doubles[0].isNaN && negated.isNull == [false])
        #expect(try CompiledValueExpression("CAST(V AS INTEGER)", schema: schema).value(row: 0, in: columns) == .null)
    }

    @Test("Referenced columns, constants and the fixed clock")
    func metadata() throws {
        let ratio = try CompiledValueExpression("POP / SCORE + pop", schema: Self.schema)
        #expect(ratio.referencedColumns == [1, 4])
        #expect(ratio.isNumeric && ratio.description == "POP / SCORE + pop")
        let constant = try CompiledValueExpression("1 + 2", schema: Self.schema)
        #expect(constant.referencedColumns.isEmpty)
        #expect(constant.value(row: 0, in: []) == .integer(3))
        #expect(constant.scalarValues(rowCount: 2, in: []) == [.integer(3), .integer(3)])
        let today = try CompiledValueExpression("CURRENT_DATE", schema: Self.schema, now: Self.created1)
        #expect(today.value(row: 0, in: Self.columns) == .date(1_420_070_400_000))
        #expect(today.resultType == .date && !today.isNumeric)
        let folded = try CompiledValueExpression("UPPER(NAME) = 'san jose'", schema: Self.schema, collation: .nocase)
        #expect(folded.collation == .nocase)
        #expect(folded.value(row: 0, in: Self.columns) == .boolean(true))
    }

    @Test("Rows beyond the columns, and missing columns, read as NULL")
    func rowsOutOfRange() throws {
        let expression = try CompiledValueExpression("POP + 1", schema: Self.schema)
        #expect(expression.value(row: 3, in: Self.columns) == .null)
        #expect(expression.value(row: -1, in: Self.columns) == .null)
        #expect(expression.value(row: 0, in: Array(Self.columns.prefix(1))) == .null)
        #expect(expression.scalarValues(rows: [1, 9, 0], in: Self.columns) == [.integer(250_001), .null, .integer(1501)])
        #expect(expression.scalarValues(rowCount: 4, in: Self.columns) == [.integer(1501), .integer(250_001), .null, .null])
        #expect(expression.values(rowCount: -5, in: Self.columns).count == 0)
        let numbers = expression.values(rows: [7, 0], in: Self.columns)
        #expect(numbers.isNull == [true, false] && numbers.doubles[1] == 1501)
    }

    @Test("Errors say what is wrong and where")
    func errors() {
        for empty in ["", "   ", "\n\t"] {
            let error = #expect(throws: WhereClauseError.self) { try CompiledValueExpression(empty, schema: Self.schema) }
            #expect(error?.kind == .syntaxError && error?.message.contains("empty") == true, "\(String(describing: error))")
        }
        let unknown = #expect(throws: WhereClauseError.self) { try CompiledValueExpression("popu + 1", schema: Self.schema) }
        #expect(unknown?.kind == .unknownField)
        #expect(unknown?.message.contains("\"POP\"") == true, "\(String(describing: unknown))")
        #expect(unknown?.range == SourceRange(lower: 0, upper: 4))
        let failures: [(String, WhereClauseError.Kind)] = [
            ("POP +", .syntaxError), ("POP POP", .syntaxError), ("(POP", .syntaxError), ("NAME + 1", .typeMismatch),
            ("FOO(POP)", .unknownFunction), ("UPPER(NAME, NAME)", .wrongArgumentCount), ("'abc", .unterminatedString),
            ("CASE WHEN POP > 1 THEN 'a' ELSE 2 END", .typeMismatch), ("EXTRACT(YEAR FROM POP)", .typeMismatch),
        ]
        for (sql, kind) in failures {
            let error = #expect(throws: WhereClauseError.self) { try CompiledValueExpression(sql, schema: Self.schema) }
            #expect(error?.kind == kind, "\(sql): \(String(describing: error))")
        }
    }
}
