import Testing

@testable import SieveSQL

/// SQL → s-expression for every construct and precedence rule.
@Suite("Where-clause parser")
struct ParserTests {
    @Test("the fields an expression reads, in every construct, quoted names included, no keywords")
    func fieldNames() throws {
        let cases: [(String, Set<String>)] = [
            ("POP > 100000", ["POP"]),
            ("\"DATE\" = DATE '2020-01-01' AND name LIKE 'S%' ESCAPE '!'", ["DATE", "name"]),
            ("CASE WHEN a > 1 THEN b ELSE c END = d", ["a", "b", "c", "d"]),
            ("UPPER(TRIM(x)) IN ('A', y) OR z BETWEEN lo AND hi OR w IS NULL", ["x", "y", "z", "lo", "hi", "w"]),
            ("EXTRACT(YEAR FROM t) + CAST(n AS INTEGER) * -m > CURRENT_DATE - 1", ["t", "n", "m"]),
            ("1 = 1", []),
        ]
        for (clause, expected) in cases {
            #expect(try WhereClause.parse(clause).fieldNames == expected, "\(clause)")
        }
    }

    static let benchmarkCases: [(String, String)] = [
        ("POP > 100000", "(> POP 100000)"),
        (
            "CATEGORY = 'Tree Maintenance or Damage' AND SCORE >= 0.5",
            "(and (= CATEGORY 'Tree Maintenance or Damage') (>= SCORE 0.5))"
        ),
        (
            "NAME LIKE 'San%' OR UPPER(CATEGORY) IN ('PARKS','GRAFFITI')",
            "(or (like NAME 'San%') (in (UPPER CATEGORY) 'PARKS' 'GRAFFITI'))"
        ),
        (
            "SCORE IS NULL OR (POP BETWEEN 1000 AND 5000 AND NOT CATEGORY LIKE '%Tree%')",
            "(or (is-null SCORE) (and (between POP 1000 5000) (not (like CATEGORY '%Tree%'))))"
        ),
    ]

    @Test("Benchmark queries", arguments: benchmarkCases)
    func benchmark(sql: String, expected: String) throws {
        #expect(try WhereClause.parse(sql).sexpr == expected)
    }

    static let precedenceCases: [(String, String)] = [
        ("a OR b AND c", "(or a (and b c))"),
        ("a AND b OR c", "(or (and a b) c)"),
        ("(a OR b) AND c", "(and (or a b) c)"),
        ("a AND b AND c", "(and a b c)"),
        ("(a AND b) AND c", "(and (and a b) c)"),
        ("a OR b OR c AND d", "(or a b (and c d))"),
        ("a OR (b OR c)", "(or a (or b c))"),
        ("NOT a = b", "(not (= a b))"),
        ("NOT a AND b", "(and (not a) b)"),
        ("NOT a OR NOT b", "(or (not a) (not b))"),
        ("NOT NOT a", "(not (not a))"),
        ("NOT (a OR b)", "(not (or a b))"),
        ("NOT a IN (1)", "(not (in a 1))"),
        ("a BETWEEN x AND y AND z", "(and (between a x y) z)"),
        ("a BETWEEN 1 AND 2 OR b BETWEEN 3 AND 4", "(or (between a 1 2) (between b 3 4))"),
        ("a NOT BETWEEN 1 + 1 AND 2 * 3", "(not-between a (+ 1 1) (* 2 3))"),
        ("1 + 2 * 3", "(+ 1 (* 2 3))"),
        ("1 * 2 + 3", "(+ (* 1 2) 3)"),
        ("(1 + 2) * 3", "(* (+ 1 2) 3)"),
        ("1 - 2 - 3", "(- (- 1 2) 3)"),
        ("8 / 4 / 2", "(/ (/ 8 4) 2)"),
        ("8 / 4 * 2", "(* (/ 8 4) 2)"),
        ("-a * b", "(* (neg a) b)"),
        ("-(a + b)", "(neg (+ a b))"),
        ("- -a", "(neg (neg a))"),
        ("+a", "(pos a)"),
        ("-5", "-5"),
        ("+5", "5"),
        ("a - -5", "(- a -5)"),
        ("a--5", "(- a -5)"),
        ("-2 * 3", "(* -2 3)"),
        ("a + b = c * d", "(= (+ a b) (* c d))"),
        ("a = b AND c <> d", "(and (= a b) (<> c d))"),
        ("a + 1 IS NULL", "(is-null (+ a 1))"),
        ("a + 1 IN (2, 3)", "(in (+ a 1) 2 3)"),
        ("NAME LIKE 'a' AND b", "(and (like NAME 'a') b)"),
        ("x = 1 AND (y = 2 OR z = 3)", "(and (= x 1) (or (= y 2) (= z 3)))"),
        ("((((a))))", "a"),
    ]

    @Test("Precedence and associativity", arguments: precedenceCases)
    func precedence(sql: String, expected: String) throws {
        #expect(try WhereClause.parse(sql).sexpr == expected)
    }

    static let constructCases: [(String, String)] = [
        // Comparisons
        ("a = b", "(= a b)"),
        ("a <> b", "(<> a b)"),
        ("a != b", "(<> a b)"),
        ("a < b", "(< a b)"),
        ("a <= b", "(<= a b)"),
        ("a > b", "(> a b)"),
        ("a >= b", "(>= a b)"),
        ("a>=1", "(>= a 1)"),
        // IS, IN, BETWEEN, LIKE
        ("a IS NULL", "(is-null a)"),
        ("a IS NOT NULL", "(is-not-null a)"),
        ("a IN (1)", "(in a 1)"),
        ("a IN (1, 2, NULL)", "(in a 1 2 null)"),
        ("a NOT IN ('x', 'y')", "(not-in a 'x' 'y')"),
        ("a IN (b + 1, (c), -2)", "(in a (+ b 1) c -2)"),
        ("a BETWEEN 1 AND 10", "(between a 1 10)"),
        ("a NOT BETWEEN 1 AND 10", "(not-between a 1 10)"),
        ("NAME LIKE 'San%'", "(like NAME 'San%')"),
        ("NAME NOT LIKE '%x_'", "(not-like NAME '%x_')"),
        (#"NAME LIKE '50\%' ESCAPE '\'"#, #"(like NAME '50\%' (escape '\'))"#),
        ("NAME NOT LIKE '!_%' ESCAPE '!'", "(not-like NAME '!_%' (escape '!'))"),
        ("NAME LIKE ''", "(like NAME '')"),
        // Literals
        ("TRUE", "true"),
        ("a = FALSE", "(= a false)"),
        ("NULL", "null"),
        ("a = 'it''s'", "(= a 'it''s')"),
        ("N'abc' = NAME", "(= 'abc' NAME)"),
        ("a = 1.0", "(= a 1.0)"),
        ("a = 1e20", "(= a 1e+20)"),
        ("d = DATE '1970-01-02'", "(= d (date 86400000))"),
        ("d < TIMESTAMP '1970-01-01 00:00:01'", "(< d (timestamp 1000))"),
        ("INTERVAL '1' SECOND", "(interval 1000)"),
        // CASE
        (
            "CASE WHEN a > 1 THEN 'big' WHEN a > 0 THEN 'small' ELSE 'none' END",
            "(case (when (> a 1) 'big') (when (> a 0) 'small') (else 'none'))"
        ),
        ("CASE a WHEN 1 THEN 'one' END", "(case a (when 1 'one'))"),
        ("CASE a + 1 WHEN 2 THEN x ELSE NULL END = 'y'", "(= (case (+ a 1) (when 2 x) (else null)) 'y')"),
        ("case when a is null then 0 else a end > 3", "(> (case (when (is-null a) 0) (else a)) 3)"),
        // CAST
        ("CAST(a AS INTEGER)", "(cast a integer)"),
        ("CAST(a AS INT)", "(cast a integer)"),
        ("CAST(a AS SMALLINT)", "(cast a integer)"),
        ("CAST(a AS BIGINT)", "(cast a integer)"),
        ("CAST(a AS FLOAT)", "(cast a float)"),
        ("CAST(a AS DOUBLE)", "(cast a float)"),
        ("CAST(a AS DOUBLE PRECISION)", "(cast a float)"),
        ("CAST(a AS REAL)", "(cast a float)"),
        ("CAST(a AS VARCHAR)", "(cast a varchar)"),
        ("CAST(a AS VARCHAR(20))", "(cast a varchar)"),
        ("CAST(a AS CHAR(3))", "(cast a varchar)"),
        ("CAST('2020-01-01' AS DATE)", "(cast '2020-01-01' date)"),
        ("cast(a + 1 as timestamp)", "(cast (+ a 1) date)"),
        // EXTRACT
        ("EXTRACT(YEAR FROM CREATED)", "(extract year CREATED)"),
        ("EXTRACT(MONTH FROM CREATED)", "(extract month CREATED)"),
        ("EXTRACT(DAY FROM CREATED)", "(extract day CREATED)"),
        ("EXTRACT(HOUR FROM CREATED)", "(extract hour CREATED)"),
        ("EXTRACT(MINUTE FROM CREATED)", "(extract minute CREATED)"),
        ("extract(second from CURRENT_TIMESTAMP)", "(extract second (current-timestamp))"),
        ("EXTRACT(MONTH FROM Datefield) = 11", "(= (extract month Datefield) 11)"),
        // CURRENT_*
        ("CURRENT_DATE", "(current-date)"),
        ("current_date()", "(current-date)"),
        ("CURRENT_TIMESTAMP()", "(current-timestamp)"),
        (
            "CREATED >= CURRENT_TIMESTAMP - INTERVAL '3 05:32:28' DAY TO SECOND",
            "(>= CREATED (- (current-timestamp) (interval 279148000)))"
        ),
        ("CREATED > CURRENT_DATE - 7", "(> CREATED (- (current-date) 7))"),
        // POSITION, SUBSTRING, TRIM
        ("POSITION('a' IN NAME)", "(POSITION 'a' NAME)"),
        ("POSITION('a', NAME)", "(POSITION 'a' NAME)"),
        ("POSITION(a + 1 IN b) > 0", "(> (POSITION (+ a 1) b) 0)"),
        ("POSITION(a = b, c)", "(POSITION (= a b) c)"),
        ("SUBSTRING(NAME FROM 2 FOR 3)", "(SUBSTRING NAME 2 3)"),
        ("SUBSTRING(NAME FROM 2)", "(SUBSTRING NAME 2)"),
        ("SUBSTRING(NAME, 2, 3)", "(SUBSTRING NAME 2 3)"),
        ("substring(NAME from a + 1 for 2 * b)", "(SUBSTRING NAME (+ a 1) (* 2 b))"),
        ("TRIM(NAME)", "(trim both NAME)"),
        ("TRIM(BOTH FROM NAME)", "(trim both NAME)"),
        ("TRIM(LEADING FROM NAME)", "(trim leading NAME)"),
        ("TRIM(TRAILING 'x' FROM NAME)", "(trim trailing 'x' NAME)"),
        ("TRIM('x' FROM NAME)", "(trim both 'x' NAME)"),
        ("TRIM(LEADING NAME)", "(trim leading NAME)"),
        ("TRIM(FROM NAME)", "(trim both NAME)"),
        ("trim(both ' ' from upper(NAME)) = 'X'", "(= (trim both ' ' (UPPER NAME)) 'X')"),
        // Function calls
        ("UPPER(NAME) = 'X'", "(= (UPPER NAME) 'X')"),
        ("upper(lower(NAME))", "(UPPER (LOWER NAME))"),
        ("CONCAT(a, 'b', 1)", "(CONCAT a 'b' 1)"),
        ("pi()", "(PI)"),
        ("ROUND(SCORE, 2) > 0.5", "(> (ROUND SCORE 2) 0.5)"),
        ("COALESCE(a, b, 0) = NULLIF(c, 0)", "(= (COALESCE a b 0) (NULLIF c 0))"),
        ("MOD(POP, 2) = 1 AND CHAR_LENGTH(NAME) < 5", "(and (= (MOD POP 2) 1) (< (CHAR_LENGTH NAME) 5))"),
        ("ABS(-x)", "(ABS (neg x))"),
    ]

    @Test("Constructs", arguments: constructCases)
    func construct(sql: String, expected: String) throws {
        #expect(try WhereClause.parse(sql).sexpr == expected)
    }

    static let identifierCases: [(String, String)] = [
        ("pop > 1 aNd Name like 'a%'", "(and (> pop 1) (like Name 'a%'))"),
        ("x iS nOt NuLl Or y NoT iN (1)", "(or (is-not-null x) (not-in y 1))"),
        ("a BeTwEeN 1 aNd 2", "(between a 1 2)"),
        ("DAY = 3 AND YEAR > 2000", "(and (= DAY 3) (> YEAR 2000))"),
        ("MONTH + HOUR + MINUTE + SECOND = 0", "(= (+ (+ (+ MONTH HOUR) MINUTE) SECOND) 0)"),
        ("\"DAY\" = 3", "(= \"DAY\" 3)"),
        ("EXTRACT(YEAR FROM \"YEAR\") = YEAR", "(= (extract year \"YEAR\") YEAR)"),
        ("\"AND\" = 1 AND \"NULL\" IS NULL", "(and (= \"AND\" 1) (is-null \"NULL\"))"),
        ("\"my \"\"odd\"\" field\" = 1", "(= \"my \"\"odd\"\" field\" 1)"),
        ("\"with space\" <> 'x'", "(<> \"with space\" 'x')"),
        ("`POP` > 1", "(> \"POP\" 1)"),
        ("`a``b` = 1", "(= \"a`b\" 1)"),
        ("date = 1", "(= date 1)"),
        ("DATE(x) = 1", "(= (DATE x) 1)"),
        ("timestamp > 5", "(> timestamp 5)"),
        ("interval - 5 = 0", "(= (- interval 5) 0)"),
        ("CAST = 1", "(= CAST 1)"),
        ("TRIM + POSITION", "(+ TRIM POSITION)"),
        ("FROM = TO", "(= FROM TO)"),
        ("TRIM(LEADING)", "(trim both LEADING)"),
        ("Parcels.OWNER = 'x'", "(= Parcels.OWNER 'x')"),
        ("straße = 'Ä'", "(= straße 'Ä')"),
        ("名前 = '東京'", "(= 名前 '東京')"),
        ("_private1 = 1", "(= _private1 1)"),
        ("\u{00A0}POP\u{3000}>\t1\r\n", "(> POP 1)"),
    ]

    @Test("Identifiers and keywords", arguments: identifierCases)
    func identifiers(sql: String, expected: String) throws {
        #expect(try WhereClause.parse(sql).sexpr == expected)
    }

    @Test func fieldReferenceRecordsQuoting() throws {
        let plain = try WhereClause.parse("Pop")
        #expect(plain.kind == .field(FieldReference(name: "Pop", isQuoted: false)))
        let quoted = try WhereClause.parse("\"Pop\"")
        #expect(quoted.kind == .field(FieldReference(name: "Pop", isQuoted: true)))
        let backticked = try WhereClause.parse("`Pop`")
        #expect(backticked.kind == .field(FieldReference(name: "Pop", isQuoted: true)))
    }

    @Test func functionCallKeepsNameAsWritten() throws {
        let expression = try WhereClause.parse("  uPPer(NAME)")
        guard case .function(let call) = expression.kind else {
            Issue.record("not a call: \(expression)")
            return
        }
        #expect(call.name == "uPPer")
        #expect(call.normalizedName == "UPPER")
        #expect(call.nameRange == SourceRange(lower: 2, upper: 7))
        #expect(expression.range == SourceRange(lower: 2, upper: 13))
        #expect(call.arguments.map(\.sexpr) == ["NAME"])
    }

    @Test func sourceRanges() throws {
        let sql = "POP > (1 + 2) AND NAME = 'é'"
        let root = try WhereClause.parse(sql)
        #expect(root.range == SourceRange(lower: 0, upper: sql.utf8.count))
        guard case .and(let operands) = root.kind, operands.count == 2,
            case .comparison(.greater, let pop, let sum) = operands[0].kind,
            case .comparison(.equal, _, let string) = operands[1].kind
        else {
            Issue.record("unexpected shape \(root)")
            return
        }
        #expect(pop.range.text(in: sql) == "POP")
        #expect(sum.range.text(in: sql) == "(1 + 2)", "parentheses belong to the node")
        #expect(operands[0].range.text(in: sql) == "POP > (1 + 2)")
        #expect(string.range == SourceRange(lower: 25, upper: 29), "byte offsets: é is two bytes")
        #expect(string.range.text(in: sql) == "'é'")
        #expect(try WhereClause.parse("-5").range == SourceRange(lower: 0, upper: 2))
        #expect(try WhereClause.parse("INTERVAL '1 2' DAY TO HOUR").range == SourceRange(lower: 0, upper: 26))
    }

    @Test func childrenAndHeight() throws {
        let expression = try WhereClause.parse("a = 1 AND NOT (b IN (1, 2) OR c LIKE 'x' ESCAPE '!')")
        #expect(expression.children.count == 2)
        #expect(expression.height == 5)
        let caseExpression = try WhereClause.parse("CASE a WHEN 1 THEN 2 ELSE 3 END")
        #expect(caseExpression.children.map(\.sexpr) == ["a", "1", "2", "3"])
        let trim = try WhereClause.parse("TRIM(LEADING 'x' FROM y)")
        #expect(trim.children.map(\.sexpr) == ["'x'", "y"])
    }

    @Test func structureOfTypedNodes() throws {
        let expression = try WhereClause.parse("x NOT LIKE 'a%' ESCAPE '\\'")
        guard case .like(let subject, let pattern, let escape?, negated: true) = expression.kind else {
            Issue.record("unexpected \(expression)")
            return
        }
        #expect(subject.kind == .field(FieldReference(name: "x", isQuoted: false)))
        #expect(pattern.kind == .literal(.string("a%")))
        #expect(escape.kind == .literal(.string("\\")))

        let cast = try WhereClause.parse("CAST(x AS VARCHAR(10))")
        #expect(cast.kind == .cast(SQLExpression(.field(FieldReference(name: "x", isQuoted: false)), range: SourceRange(lower: 5, upper: 6)), to: .varchar))
    }

    /// The depth limit counts nesting, not length: long flat chains are fine.
    @Test func longFlatChainsParse() throws {
        let ors = (1...5000).map { "OBJECTID = \($0)" }.joined(separator: " OR ")
        let expression = try WhereClause.parse(ors)
        guard case .or(let operands) = expression.kind else {
            Issue.record("not an OR")
            return
        }
        #expect(operands.count == 5000)
        #expect(expression.height == 3)

        let list = "OBJECTID IN (" + (1...10_000).map(String.init).joined(separator: ",") + ")"
        #expect(try WhereClause.parse(list).height == 2)
    }

    @Test func nestingJustBelowTheLimitParses() throws {
        let depth = 150
        let parenthesized = String(repeating: "(", count: depth) + "1" + String(repeating: ")", count: depth)
        #expect(try WhereClause.parse(parenthesized).sexpr == "1")
        let nots = String(repeating: "NOT ", count: depth) + "a"
        #expect(try WhereClause.parse(nots).height == depth + 1)
        let custom = String(repeating: "(", count: 20) + "1" + String(repeating: ")", count: 20)
        #expect(throws: WhereClauseError.self) { try WhereClause.parse(custom, maximumDepth: 10) }
    }
}
