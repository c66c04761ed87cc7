import SieveColumns
import Testing

@testable import SieveSQL

/// (SQL, row) → TRUE / FALSE / NULL, every expected value derived by hand from the SQL rules.
@Suite("Where-clause evaluation")
struct EvaluationTests {
    /// One table, three rows:
    /// row 0: POP 1500, NAME 'San Jose', CATEGORY 'Parks', SCORE 0.5, CREATED 2024-02-29, FLAG 1
    /// row 1: POP 250000, NAME 'Oakland', CATEGORY 'Tree Maintenance or Damage', SCORE NULL,
    ///        CREATED 2015-01-01 12:30:00, FLAG 0
    /// row 2: POP NULL, NAME NULL, CATEGORY NULL, SCORE -2.25, CREATED NULL, FLAG NULL
    static let schema = SimpleSchema([
        ("OBJECTID", .integer), ("POP", .integer), ("NAME", .string), ("CATEGORY", .string), ("SCORE", .double),
        ("CREATED", .date), ("FLAG", .integer),
    ])

    static func columns() -> [Column] {
        var popValid = ValidityBitmap(count: 3, allValid: true)
        popValid.set(2, valid: false)
        var scoreValid = ValidityBitmap(count: 3, allValid: true)
        scoreValid.set(1, valid: false)
        var createdValid = ValidityBitmap(count: 3, allValid: true)
        createdValid.set(2, valid: false)
        return [
            .integer(Int64Column(values: [1, 2, 3])),
            .integer(Int64Column(values: [1500, 250_000, 0], validity: popValid)),
            .string(StringColumn(["San Jose", "Oakland", nil], dictionaryLimit: 0)),
            .string(StringColumn(["Parks", "Tree Maintenance or Damage", nil])),
            .double(DoubleColumn(values: [0.5, 0, -2.25], validity: scoreValid)),
            .date(Int64Column(values: [1_709_164_800_000, 1_420_115_400_000, 0], validity: createdValid)),
            .integer(Int64Column(values: [1, 0, 0], validity: popValid)),
        ]
    }

    /// `nil` = NULL (unknown). Three expected values per clause: rows 0, 1, 2.
    static let cases: [(String, [Bool?])] = [
        ("POP > 100000", [false, true, nil]),
        ("pop > 100000", [false, true, nil]),                      // case-insensitive field names
        ("\"Pop\" <= 1500", [true, false, nil]),
        ("POP = 1500.0", [true, false, nil]),
        ("POP < 1500.5", [true, false, nil]),
        ("POP <> 1500", [false, true, nil]),
        ("POP != 1500", [false, true, nil]),
        ("NOT POP > 100000", [true, false, nil]),                  // NOT unknown is unknown
        ("SCORE >= 0.5", [true, nil, false]),
        ("SCORE IS NULL", [false, true, false]),
        ("SCORE IS NOT NULL", [true, false, true]),
        ("POP > 100000 OR SCORE < 0", [false, true, true]),        // unknown OR true = true
        ("POP > 100000 AND SCORE < 0", [false, nil, nil]),          // true AND unknown = unknown
        ("POP < 100000 AND SCORE < 0", [false, false, nil]),   // false AND unknown = false
        ("POP > 1 OR SCORE > 100", [true, true, nil]),
        ("CATEGORY = 'Parks'", [true, false, nil]),
        ("CATEGORY = 'parks'", [false, false, nil]),                // binary collation
        ("CATEGORY IN ('Parks', 'Graffiti')", [true, false, nil]),
        ("CATEGORY NOT IN ('Parks', 'Graffiti')", [false, true, nil]),
        ("CATEGORY IN ('Parks', NULL)", [true, nil, nil]),          // no match but NULL in list
        ("CATEGORY NOT IN ('Parks', NULL)", [false, nil, nil]),
        ("POP IN (1500, 3)", [true, false, nil]),
        ("POP BETWEEN 1000 AND 5000", [true, false, nil]),
        ("POP NOT BETWEEN 1000 AND 5000", [false, true, nil]),
        ("POP BETWEEN 1500 AND 1500", [true, false, nil]),          // inclusive
        ("POP BETWEEN NULL AND 1000", [false, false, nil]),         // x > 1000 decides FALSE
        ("NAME LIKE 'San%'", [true, false, nil]),
        ("NAME LIKE 'san%'", [false, false, nil]),
        ("NAME NOT LIKE '%land'", [true, false, nil]),
        ("NAME LIKE 'Oak_and'", [false, true, nil]),
        ("CATEGORY LIKE '%Tree%'", [false, true, nil]),
        ("NOT CATEGORY LIKE '%Tree%'", [true, false, nil]),
        ("UPPER(CATEGORY) IN ('PARKS', 'GRAFFITI')", [true, false, nil]),
        ("LOWER(NAME) = 'san jose'", [true, false, nil]),
        ("CHAR_LENGTH(NAME) = 7", [false, true, nil]),
        ("SUBSTRING(NAME FROM 1 FOR 3) = 'San'", [true, false, nil]),
        ("SUBSTRING(NAME, 5) = 'Jose'", [true, false, nil]),
        ("POSITION('Jose' IN NAME) = 5", [true, false, nil]),
        ("POSITION('x', NAME) = 0", [true, true, nil]),
        ("TRIM(BOTH 'S' FROM NAME) = 'an Jose'", [true, false, nil]),
        ("CONCAT(NAME, '-', CATEGORY) = 'San Jose-Parks'", [true, false, nil]),
        ("COALESCE(SCORE, 9) = 9", [false, true, false]),
        ("NULLIF(POP, 1500) IS NULL", [true, false, true]),
        ("POP / 1000 = 1", [true, false, nil]),                     // integer division truncates
        ("POP / 0 IS NULL", [true, true, true]),                    // division by zero is NULL
        ("POP * 2 - 3000 = 0", [true, false, nil]),
        ("-POP < 0", [true, true, nil]),
        ("MOD(POP, 7) = 2", [true, true, nil]),                     // 1500 = 214*7 + 2, 250000 = 35714*7 + 2
        ("MOD(-7, 3) = -1", [true, true, true]),                    // sign of the dividend
        ("ABS(SCORE) = 2.25", [false, nil, true]),
        ("ROUND(SCORE) = -2", [false, nil, true]),                  // -2.25 rounds to -2
        ("ROUND(2.5) = 3", [true, true, true]),                     // half away from zero
        ("TRUNCATE(SCORE, 1) = -2.2", [false, nil, true]),
        ("CEILING(SCORE) = -2", [false, nil, true]),
        ("FLOOR(SCORE) = -3", [false, nil, true]),
        ("POWER(2, 10) = 1024", [true, true, true]),
        ("SIGN(SCORE) = -1", [false, nil, true]),
        ("LOG10(POP) > 5", [false, true, nil]),
        ("CAST(SCORE AS INTEGER) = -2", [false, nil, true]),        // truncation toward zero
        ("CAST(POP AS VARCHAR) = '1500'", [true, false, nil]),
        ("CAST('42' AS INTEGER) = 42", [true, true, true]),
        ("CREATED > DATE '2020-01-01'", [true, false, nil]),
        ("CREATED = '2024-02-29'", [true, false, nil]),             // date field vs date text
        ("CREATED = '2015-01-01 12:30:00'", [false, true, nil]),
        ("CREATED >= TIMESTAMP '2015-01-01 13:30:00+01:00'", [true, true, nil]),
        ("EXTRACT(YEAR FROM CREATED) = 2024", [true, false, nil]),
        ("EXTRACT(MONTH FROM CREATED) = 2", [true, false, nil]),
        ("EXTRACT(HOUR FROM CREATED) = 12", [false, true, nil]),
        ("CREATED + 1 = DATE '2024-03-01'", [true, false, nil]),    // + days
        ("CREATED - INTERVAL '0 12:30:00' DAY TO SECOND = DATE '2015-01-01'", [false, true, nil]),
        ("CASE WHEN POP > 100000 THEN 'big' ELSE 'small' END = 'small'", [true, false, true]),
        ("CASE CATEGORY WHEN 'Parks' THEN 1 WHEN 'Graffiti' THEN 2 END = 1", [true, nil, nil]),
        ("FLAG = 1", [true, false, nil]),
        ("1 = 1", [true, true, true]),
        ("NULL = NULL", [nil, nil, nil]),
        ("NULL IS NULL", [true, true, true]),
        ("TRUE", [true, true, true]),
        ("NOT (POP IS NULL)", [true, true, false]),
        ("OBJECTID IN (1, 3) AND NOT OBJECTID = 3", [true, false, false]),
    ]

    @Test(arguments: cases)
    func rowByRow(sql: String, expected: [Bool?]) throws {
        let clause = try CompiledWhereClause(sql, schema: Self.schema)
        let columns = Self.columns()
        let actual = (0..<3).map { clause.evaluate(row: $0, in: columns) }
        #expect(actual == expected, "\(sql)")
        // The vectorized scan selects exactly the TRUE rows.
        let selected = clause.matchingRows(in: columns, rowCount: 3)
        #expect(selected == expected.enumerated().filter { $0.element == true }.map { UInt32($0.offset) }, "\(sql) vectorized")
    }

    static let nocaseCases: [(String, [Bool?])] = [
        ("CATEGORY = 'parks'", [true, false, nil]),
        ("NAME LIKE 'san%'", [true, false, nil]),
        ("CATEGORY IN ('PARKS')", [true, false, nil]),
        ("NAME > 'oakland'", [true, false, nil]),
        ("NAME = 'OAKLAND'", [false, true, nil]),
    ]

    @Test(arguments: nocaseCases)
    func caseInsensitiveCollation(sql: String, expected: [Bool?]) throws {
        let clause = try CompiledWhereClause(sql, schema: Self.schema, collation: .nocase)
        let columns = Self.columns()
        #expect((0..<3).map { clause.evaluate(row: $0, in: columns) } == expected, "\(sql)")
        #expect(clause.matchingRows(in: columns, rowCount: 3) == expected.enumerated().filter { $0.element == true }.map { UInt32($0.offset) })
    }

    @Test func currentDateIsFixedAtCompileTime() throws {
        // now = 2024-03-01T10:00:00Z
        let clause = try CompiledWhereClause(
            "CREATED >= CURRENT_DATE - 1 AND CREATED < CURRENT_TIMESTAMP", schema: Self.schema, now: 1_709_287_200_000)
        #expect((0..<3).map { clause.evaluate(row: $0, in: Self.columns()) } == [true, false, nil])
    }

    @Test func emptyClauseSelectsEverything() throws {
        let clause = try CompiledWhereClause("  ", schema: Self.schema)
        #expect(clause.count(in: Self.columns(), rowCount: 3) == 3)
    }

    static let errorCases: [(String, WhereClauseError.Kind, String)] = [
        ("popu > 1", .unknownField, "where clause error at 1:1: unknown field \"popu\" (did you mean \"POP\"?)"),
        ("NAME > 5", .typeMismatch, "cannot compare string field \"NAME\" with a number"),
        ("POP = 'x'", .typeMismatch, "cannot compare integer field \"POP\" with a string"),
        ("CREATED > 5", .typeMismatch, "cannot compare date field \"CREATED\" with a number"),
        ("CREATED > 'yesterday'", .badLiteral, "'yesterday' is not a date"),
        ("POP", .typeMismatch, "must be a condition"),
        ("POP AND NAME = 'a'", .typeMismatch, "AND needs a condition"),
        ("UPPER(POP) = 'A'", .typeMismatch, "UPPER expects a string"),
        ("UPPER(NAME, NAME) = 'A'", .wrongArgumentCount, "UPPER takes 1 argument, got 2"),
        ("FROB(NAME) = 1", .unknownFunction, "unknown function FROB"),
        ("NAME LIKE 'a' ESCAPE 'ab'", .badLiteral, "ESCAPE needs a string of exactly one character"),
        ("NAME LIKE 'a!' ESCAPE '!'", .badLiteral, "ends with its escape character"),
        ("NAME + 1 = 2", .typeMismatch, "cannot add string field \"NAME\" and a number"),
        ("CASE WHEN POP > 1 THEN 'a' ELSE 2 END = 'a'", .typeMismatch, "CASE mixes string and integer results"),
        ("POP IN ()", .emptyInList, ""),
        ("POP > ", .syntaxError, ""),
    ]

    @Test(arguments: errorCases)
    func bindErrors(sql: String, kind: WhereClauseError.Kind, fragment: String) {
        #expect {
            _ = try CompiledWhereClause(sql, schema: Self.schema)
        } throws: { error in
            guard let error = error as? WhereClauseError else { return false }
            return error.kind == kind && (fragment.isEmpty || error.description.contains(fragment))
        }
    }

    @Test func unknownFieldRendering() {
        do {
            _ = try CompiledWhereClause("OBJECTID > 1 AND popu > 100000", schema: Self.schema)
            Issue.record("no error")
        } catch {
            #expect(error.description == "where clause error at 1:18: unknown field \"popu\" (did you mean \"POP\"?)")
        }
    }
}
