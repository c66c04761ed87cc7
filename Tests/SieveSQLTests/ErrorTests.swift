import Testing

@testable import SieveSQL

/// Every error is a `WhereClauseError` with a kind, a message and the position it points at.
@Suite("Where-clause errors")
struct ErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var sql: String
        var kind: WhereClauseError.Kind
        var line: Int
        var column: Int
        var message: String
        var testDescription: String { sql.debugDescription }

        init(_ sql: String, _ kind: WhereClauseError.Kind, _ line: Int, _ column: Int, _ message: String) {
            self.sql = sql
            self.kind = kind
            self.line = line
            self.column = column
            self.message = message
        }
    }

    static let cases: [Case] = [
        Case("NAME = 'abc", .unterminatedString, 1, 8, "unterminated string; a closing ' is missing"),
        Case("NAME = 'it''s", .unterminatedString, 1, 8, "unterminated string"),
        Case("\"NAME = 1", .unterminatedString, 1, 1, "unterminated quoted identifier"),
        Case("`NAME = 1", .unterminatedString, 1, 1, "unterminated quoted identifier"),
        Case("POP >", .syntaxError, 1, 6, "expected an expression after \">\", found end of input"),
        Case("POP > 1 2", .syntaxError, 1, 9, "unexpected \"2\" after a complete expression"),
        Case("POP > 1 OR", .syntaxError, 1, 11, "expected an expression after keyword OR, found end of input"),
        Case("POP IN ()", .emptyInList, 1, 8, "IN () needs at least one value"),
        Case("POP NOT IN ( )", .emptyInList, 1, 12, "IN () needs at least one value"),
        Case("POP IN 1", .syntaxError, 1, 8, "expected \"(\" after IN, found \"1\""),
        Case("POP IN (1, 2", .syntaxError, 1, 13, "expected \",\" or \")\" in the IN list, found end of input"),
        Case("POP BETWEEN 1", .syntaxError, 1, 14, "expected AND after the lower bound of BETWEEN, found end of input"),
        Case("POP BETWEEN 1 OR 2", .syntaxError, 1, 15, "expected AND after the lower bound of BETWEEN, found keyword OR"),
        Case("CREATED > DATE '2023-02-29'", .badLiteral, 1, 11, "invalid DATE literal '2023-02-29'"),
        Case("CREATED > DATE '2023-1-5'", .badLiteral, 1, 11, "expected an existing date as 'yyyy-mm-dd'"),
        Case("CREATED > DATE '2023-01-05 10:00'", .badLiteral, 1, 11, "invalid DATE literal"),
        Case("t < TIMESTAMP '2024-01-01 25:00'", .badLiteral, 1, 5, "invalid TIMESTAMP literal '2024-01-01 25:00'"),
        Case("NAME LIKE", .syntaxError, 1, 10, "expected an expression after keyword LIKE, found end of input"),
        Case("NAME LIKE 'a' ESCAPE", .syntaxError, 1, 21, "expected an expression after keyword ESCAPE"),
        Case("POP # 3", .syntaxError, 1, 5, "unexpected character \"#\""),
        Case("POP > 1 AND\n    # = 2", .syntaxError, 2, 5, "unexpected character \"#\""),
        Case("POP > 1\r\nAND X = 'y' AND\r\n  ;", .syntaxError, 3, 3, "unexpected character \";\""),
        Case("NAME = 'e\u{301}' AND ü = #", .syntaxError, 1, 20, "unexpected character \"#\""),
        Case("NAME = '👍🏽' AND\tx = ?", .syntaxError, 1, 20, "unexpected character \"?\""),
        Case("POP ! 3", .syntaxError, 1, 5, "unexpected character \"!\""),
        Case("POP = 1 | 2", .syntaxError, 1, 9, "unexpected character \"|\""),
        Case("a = [b]", .syntaxError, 1, 5, "unexpected character \"[\""),
        Case("a = \u{1}", .syntaxError, 1, 5, "unexpected character \"U+0001\""),
        Case("", .syntaxError, 1, 1, "empty where clause"),
        Case("  \n ", .syntaxError, 2, 2, "empty where clause"),
        Case("POP = = 1", .syntaxError, 1, 7, "expected an expression after \"=\", found \"=\""),
        Case("(POP > 1", .syntaxError, 1, 9, "expected \")\" to close the \"(\" at 1:1, found end of input"),
        Case("POP > 1)", .syntaxError, 1, 8, "unbalanced \")\" with no matching \"(\""),
        Case("()", .syntaxError, 1, 2, "expected an expression after \"(\", found \")\""),
        Case("POP = 1 = 2", .syntaxError, 1, 9, "\"=\" cannot follow a comparison; add parentheses"),
        Case("a IS NULL IS NULL", .syntaxError, 1, 11, "cannot follow a comparison"),
        Case("a NOT b", .syntaxError, 1, 7, "expected IN, BETWEEN or LIKE after NOT, found \"b\""),
        Case("POP IS 5", .syntaxError, 1, 8, "expected NULL or NOT NULL after IS, found \"5\""),
        Case("POP IS NOT TRUE", .syntaxError, 1, 12, "expected NULL after IS NOT, found keyword TRUE"),
        Case("AND = 1", .syntaxError, 1, 1, "expected an expression, found keyword AND (write \"AND\" in double quotes to use it as a field name)"),
        Case("x = end", .syntaxError, 1, 5, "found keyword END"),
        Case("1 + NOT x", .syntaxError, 1, 5, "NOT cannot appear here; put the NOT expression in parentheses"),
        Case("a = NOT b", .syntaxError, 1, 5, "NOT cannot appear here"),
        Case("x = 12abc", .badLiteral, 1, 5, "malformed number \"12abc\""),
        Case("x = 1e", .badLiteral, 1, 5, "the exponent has no digits"),
        Case("x = 1.2.3", .badLiteral, 1, 5, "malformed number \"1.2.3\""),
        Case("\"\" = 1", .syntaxError, 1, 1, "empty quoted identifier"),
        Case("CASE END", .syntaxError, 1, 6, "expected WHEN in CASE, found keyword END"),
        Case("CASE WHEN a THEN 1", .syntaxError, 1, 19, "expected WHEN, ELSE or END in CASE, found end of input"),
        Case("CASE WHEN a 1 END", .syntaxError, 1, 13, "expected THEN after the WHEN expression, found \"1\""),
        Case("CASE WHEN a THEN 1 ELSE 2", .syntaxError, 1, 26, "expected END to close the CASE"),
        Case("CAST(a AS BLOB)", .syntaxError, 1, 11, "unknown type \"BLOB\" in CAST; expected INTEGER, FLOAT, VARCHAR or DATE"),
        Case("CAST(a INTEGER)", .syntaxError, 1, 8, "expected AS in CAST, found \"INTEGER\""),
        Case("CAST(a AS INTEGER", .syntaxError, 1, 18, "expected \")\" to close the CAST"),
        Case("EXTRACT(WEEK FROM d)", .syntaxError, 1, 9, "expected YEAR, MONTH, DAY, HOUR, MINUTE or SECOND in EXTRACT, found \"WEEK\""),
        Case("EXTRACT(YEAR d)", .syntaxError, 1, 14, "expected FROM after EXTRACT(YEAR, found \"d\""),
        Case("UPPER(NAME", .syntaxError, 1, 11, "expected \",\" or \")\" in the arguments of UPPER, found end of input"),
        Case("UPPER(NAME,)", .syntaxError, 1, 12, "expected an expression after \",\", found \")\""),
        Case("POSITION('a' IN)", .syntaxError, 1, 16, "expected an expression after keyword IN, found \")\""),
        Case("POSITION('a' IN NAME, 3)", .syntaxError, 1, 21, "expected \")\" to close the POSITION"),
        Case("SUBSTRING(NAME FROM 1 2)", .syntaxError, 1, 23, "expected FOR or \")\" in SUBSTRING, found \"2\""),
        Case("SUBSTRING(NAME 1)", .syntaxError, 1, 16, "expected FROM, \",\" or \")\" in SUBSTRING"),
        Case("TRIM(LEADING 'x' NAME)", .syntaxError, 1, 18, "expected FROM or \")\" in TRIM, found \"NAME\""),
        Case("INTERVAL '1' YEAR", .badLiteral, 1, 14, "year-month intervals are not supported"),
        Case("INTERVAL '1' WEEK", .syntaxError, 1, 14, "expected DAY, HOUR, MINUTE or SECOND after the INTERVAL string, found \"WEEK\""),
        Case("INTERVAL '1 24' DAY TO HOUR", .badLiteral, 1, 1, "invalid INTERVAL literal '1 24' for DAY TO HOUR; expected '[-]d hh'"),
        Case("INTERVAL '1:2' DAY TO SECOND", .badLiteral, 1, 1, "expected '[-]d hh:mi:ss[.fff]'"),
        Case("INTERVAL 'x' SECOND", .badLiteral, 1, 1, "invalid INTERVAL literal 'x' for SECOND"),
        Case("INTERVAL '1' SECOND TO MINUTE", .syntaxError, 1, 24, "invalid interval qualifier SECOND TO \"MINUTE\""),
        Case("INTERVAL '1' DAY TO MONTH", .syntaxError, 1, 21, "invalid interval qualifier DAY TO \"MONTH\""),
        Case("x IN (SELECT y FROM t)", .syntaxError, 1, 14, "expected \",\" or \")\" in the IN list, found \"y\""),
        Case("POP > 1 ORDER BY POP", .syntaxError, 1, 9, "unexpected \"ORDER\" after a complete expression"),
        Case("'abc' 'def'", .syntaxError, 1, 7, "unexpected \"'def'\" after a complete expression"),
        Case("x = 'a very long string literal indeed' 'b'", .syntaxError, 1, 41, "unexpected \"'b'\" after a complete expression"),
        Case("x = 1 'a very long string literal indeed'", .syntaxError, 1, 7, "unexpected \"'a very long string l…\" after a complete expression"),
    ]

    @Test("Error kind, position and message", arguments: cases)
    func error(_ testCase: Case) {
        do {
            let expression = try WhereClause.parse(testCase.sql)
            Issue.record("parsed as \(expression)")
        } catch {
            #expect(error.kind == testCase.kind)
            #expect(error.sql == testCase.sql)
            let location = error.location
            #expect(location?.line == testCase.line, "\(error)")
            #expect(location?.column == testCase.column, "\(error)")
            #expect(error.message.contains(testCase.message), "\(error)")
        }
    }

    @Test func descriptionRendering() {
        do {
            _ = try WhereClause.parse("POP > 100 AND NAME = 'x")
            Issue.record("no error")
        } catch {
            #expect(error.description == "where clause error at 1:22: unterminated string; a closing ' is missing")
            #expect(error.range == SourceRange(lower: 21, upper: 23))
        }
    }

    /// The binder's rendering, built the way the binder will build it.
    @Test func unknownFieldRendering() {
        let sql = "NAME = 'xy' AND popu > 100000"
        let lower = 16
        let name = SourceRange(lower: lower, upper: lower + 4).text(in: sql)
        let error = WhereClauseError(
            .unknownField,
            "unknown field \"\(name)\"" + WhereClauseError.didYouMean(name, among: ["OBJECTID", "NAME", "POP"]),
            sql: sql,
            range: SourceRange(lower: lower, upper: lower + 4))
        #expect(error.description == #"where clause error at 1:17: unknown field "popu" (did you mean "POP"?)"#)
        #expect("\(error)" == error.description)
        let unplaced = WhereClauseError(.typeMismatch, "cannot compare", sql: sql, range: nil)
        #expect(unplaced.description == "where clause error: cannot compare")
    }

    @Test func catchByKind() {
        do {
            _ = try WhereClause.parse("x IN ()")
            Issue.record("no error")
        } catch WhereClauseError.unterminatedString {
            Issue.record("wrong kind")
        } catch WhereClauseError.emptyInList {
            // expected
        } catch {
            Issue.record("wrong kind \(error.kind)")
        }

        func untyped() throws {
            _ = try WhereClause.parse("'abc")
        }
        do {
            try untyped()
            Issue.record("no error")
        } catch WhereClauseError.unterminatedString {
            // expected
        } catch {
            Issue.record("wrong error \(error)")
        }

        let error = WhereClauseError(.nestingTooDeep, "x", sql: "", range: nil)
        switch error {
        case WhereClauseError.syntaxError: Issue.record("wrong kind")
        case WhereClauseError.nestingTooDeep: break
        default: Issue.record("no match")
        }
        #expect(WhereClauseError.Kind(rawValue: "custom").description == "custom")
        #expect(WhereClauseError.Kind.unknownFunction == WhereClauseError.unknownFunction)
    }

    /// 100,000 repetitions of `unit` then `tail`; the error points at the first token beyond
    /// the 200-level limit.
    @Test("Deep nesting fails cleanly", arguments: [
        ("(", "", 201),
        ("(", "1" + String(repeating: ")", count: 100_000), 201),
        ("NOT ", "a", 801),
        ("- ", "a", 401),
        ("+(", "a", 201),
        ("ABS(", "1", 801),
        ("CASE WHEN ", "", 2001),
        ("a IN (", "", 1201),
        ("x BETWEEN (", "", 1101),
    ])
    func deepNesting(unit: String, tail: String, column: Int) {
        let sql = String(repeating: unit, count: 100_000) + tail
        do {
            _ = try WhereClause.parse(sql)
            Issue.record("no error")
        } catch {
            #expect(error.kind == .nestingTooDeep)
            #expect(error.location?.column == column)
            #expect(error.message == "expression nested too deeply (more than 200 levels)")
        }
    }

    /// Left-deep chains are built without recursion; their height is capped too, so walkers of
    /// the tree never recurse deeper than the limit.
    @Test func tallChainsFailCleanly() {
        let sum = "x = " + Array(repeating: "1", count: 100_000).joined(separator: " + ")
        #expect(throws: WhereClauseError.self) { try WhereClause.parse(sum) }
        do {
            _ = try WhereClause.parse(sum)
        } catch {
            #expect(error.kind == .nestingTooDeep)
        }
        let fine = "x = " + Array(repeating: "1", count: 150).joined(separator: " + ")
        #expect(throws: Never.self) { try WhereClause.parse(fine) }
    }

    @Test("Did-you-mean suggestions", arguments: [
        ("popu", ["OBJECTID", "POP", "NAME"], "POP" as String?),
        ("nmae", ["OBJECTID", "POP", "NAME"], "NAME"),
        ("name", ["OBJECTID", "POP", "NAME"], "NAME"),
        ("CATEGROY", ["CATEGORY", "CREATED"], "CATEGORY"),
        ("SCOREE", ["SCORE", "CORE"], "SCORE"),
        ("x", ["y", "POP"], nil),
        ("PP", ["POP", "OBJECTID"], "POP"),
        ("Q", ["POP", "Z"], nil),
        ("AB", ["XY"], nil),
        ("ZZZZZZ", ["POP", "NAME"], nil),
        ("créé", ["CRÉÉ", "CREE"], "CRÉÉ"),
        ("", ["A"], nil),
        ("pop", ["OBJECTID", "pop_est", "pop_rank"], "pop_est"),
        ("ISO", ["name", "iso_a3"], "iso_a3"),
        ("po", ["pop_est"], nil),
        ("est", ["pop_est"], nil),
    ])
    func suggestions(name: String, candidates: [String], expected: String?) {
        #expect(WhereClauseError.suggestion(for: name, among: candidates) == expected)
        let suffix = WhereClauseError.didYouMean(name, among: candidates)
        #expect(suffix == (expected.map { " (did you mean \"\($0)\"?)" } ?? ""))
    }

    @Test func sourceRangeLocations() {
        let sql = "ab\ncd\r\nef\rgh 👍🏽e\u{301}x"
        func location(_ offset: Int) -> String {
            let (line, column) = SourceRange(at: offset).location(in: sql)
            return "\(line):\(column)"
        }
        #expect(location(0) == "1:1")
        #expect(location(2) == "1:3")
        #expect(location(3) == "2:1")
        #expect(location(5) == "2:3")
        #expect(location(7) == "3:1")
        #expect(location(10) == "4:1")
        #expect(location(13) == "4:4", "the emoji starts at column 4")
        #expect(location(15) == "4:4", "inside the emoji counts as the emoji")
        let afterEmoji = 13 + "👍🏽".utf8.count
        #expect(location(afterEmoji) == "4:5")
        #expect(location(afterEmoji + 3) == "4:6", "e + combining accent is one column")
        #expect(location(10_000) == "4:7", "past the end clamps to the end")
        #expect(SourceRange(lower: 3, upper: 5).text(in: sql) == "cd")
        #expect(SourceRange(lower: 5, upper: 3) == SourceRange(lower: 5, upper: 5))
        #expect(SourceRange(lower: 1, upper: 2).union(SourceRange(lower: 4, upper: 6)) == SourceRange(lower: 1, upper: 6))
    }
}
