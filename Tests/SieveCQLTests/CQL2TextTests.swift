import SieveCQL
import SieveGeometry
import SieveTestSupport
import Testing

private func p(_ name: String) -> CQL2Expression { .property(name) }
private func s(_ value: String) -> CQL2Expression { .string(value) }
private func i(_ value: Int64) -> CQL2Expression { .integer(value) }
private func wkt(_ text: String) throws -> CQL2Expression { .geometry(try Geometry(wkt: text)) }

/// Asserts that `text` parses to `expected`, that the tree writes to text that parses back to
/// the same tree, and that writing is stable.
private func check(_ text: String, _ expected: CQL2Expression, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let tree = try CQL2Text.parse(text)
    #expect(tree == expected, "parsed \(text)", sourceLocation: sourceLocation)
    let written = CQL2Text.write(tree)
    let reread = try CQL2Text.parse(written)
    #expect(reread == tree, "round trip through \(written)", sourceLocation: sourceLocation)
    #expect(CQL2Text.write(reread) == written, "stable writing of \(written)", sourceLocation: sourceLocation)
}

/// The error of parsing `text`.
private func failure(_ text: String, maximumDepth: Int = CQL2Text.defaultMaximumDepth) -> CQL2Error? {
    do {
        _ = try CQL2Text.parse(text, maximumDepth: maximumDepth)
        return nil
    } catch {
        return error
    }
}

struct CQL2TextBasicTests {
    @Test func comparisonsAndLogic() throws {
        try check("a = 1", .comparison(.equal, p("a"), i(1)))
        try check("a<>'x'", .comparison(.notEqual, p("a"), s("x")))
        try check("a < 1.5", .comparison(.lessThan, p("a"), .real(1.5)))
        try check("a <= -2", .comparison(.lessThanOrEqual, p("a"), i(-2)))
        try check("a > 2e3", .comparison(.greaterThan, p("a"), .real(2000)))
        try check("a >= .5", .comparison(.greaterThanOrEqual, p("a"), .real(0.5)))
        try check(
            "a = 1 and b = 2 AND c = 3 or NOT d = 4",
            .or([
                .and([.comparison(.equal, p("a"), i(1)), .comparison(.equal, p("b"), i(2)), .comparison(.equal, p("c"), i(3))]),
                .not(.comparison(.equal, p("d"), i(4))),
            ]))
        try check(
            "(a OR b) AND (c OR d)",
            .and([.or([p("a"), p("b")]), .or([p("c"), p("d")])]))
        try check("(a AND b) AND c", .and([.and([p("a"), p("b")]), p("c")]))
        try check("NOT NOT TRUE", .not(.not(.boolean(true))))
        try check("flag = false", .comparison(.equal, p("flag"), .boolean(false)))
        try check("TRUE", .boolean(true))
        try check("((a = 1))", .comparison(.equal, p("a"), i(1)))
    }

    @Test func advancedComparisons() throws {
        try check("name LIKE 'Ber%'", .like(p("name"), pattern: s("Ber%"), negated: false))
        try check("name not like 'a\\_b'", .like(p("name"), pattern: s("a\\_b"), negated: true))
        try check(
            "CASEI(name) LIKE CASEI('zü%')",
            .like(.caseInsensitive(p("name")), pattern: .caseInsensitive(s("zü%")), negated: false))
        try check(
            "ACCENTI(CASEI(name)) = accenti('Zurich')",
            .comparison(.equal, .accentInsensitive(.caseInsensitive(p("name"))), .accentInsensitive(s("Zurich"))))
        try check("depth BETWEEN 10 AND 20.5", .between(p("depth"), lower: i(10), upper: .real(20.5), negated: false))
        try check(
            "depth NOT BETWEEN -1 AND x + 1 AND ok",
            .and([
                .between(p("depth"), lower: i(-1), upper: .arithmetic(.add, p("x"), i(1)), negated: true),
                p("ok"),
            ]))
        try check("kind IN ('a', 'b')", .inList(p("kind"), [s("a"), s("b")], negated: false))
        try check("n NOT IN (1, 2, -3)", .inList(p("n"), [i(1), i(2), i(-3)], negated: true))
        try check("x IS NULL", .isNull(p("x"), negated: false))
        try check("x is not null OR y IS NULL", .or([.isNull(p("x"), negated: true), .isNull(p("y"), negated: false)]))
        try check("(a = b) = TRUE", .comparison(.equal, .comparison(.equal, p("a"), p("b")), .boolean(true)))
    }

    @Test func literals() throws {
        try check("s = 'it''s'", .comparison(.equal, p("s"), s("it's")))
        try check("s = 'it\\'s'", .comparison(.equal, p("s"), s("it's")))
        try check("s = ''", .comparison(.equal, p("s"), s("")))
        try check("n = 9223372036854775807", .comparison(.equal, p("n"), i(.max)))
        try check("n = -9223372036854775808", .comparison(.equal, p("n"), i(.min)))
        try check("n = 9223372036854775808", .comparison(.equal, p("n"), .real(9_223_372_036_854_775_808)))
        try check("n = +7", .comparison(.equal, p("n"), i(7)))
        try check("n = 3.", .comparison(.equal, p("n"), .real(3)))
        try check("n = 1E-7", .comparison(.equal, p("n"), .real(1e-7)))
        try check("n = -2.5e+10", .comparison(.equal, p("n"), .real(-2.5e10)))
        try check("n = 0.1", .comparison(.equal, p("n"), .real(0.1)))
        try check("d = DATE('2024-02-29')", .comparison(.equal, p("d"), .date("2024-02-29")))
        try check(
            "t > timestamp('2020-01-01T12:30:00.25Z')",
            .comparison(.greaterThan, p("t"), .timestamp("2020-01-01T12:30:00.25Z")))
        #expect(CQL2Text.write(.real(0.1)) == "0.1")
        #expect(CQL2Text.write(.real(2)) == "2.0")
        #expect(CQL2Text.write(s("o'k")) == "'o''k'")
    }

    @Test func propertyNames() throws {
        try check("\"date\" = 1", .comparison(.equal, p("date"), i(1)))
        try check("\"a \"\"b\"\"\" = 1", .comparison(.equal, p("a \"b\""), i(1)))
        try check("ns:attr.sub_1 = 1", .comparison(.equal, p("ns:attr.sub_1"), i(1)))
        try check("größe > 1", .comparison(.greaterThan, p("größe"), i(1)))
        #expect(CQL2Text.write(p("point")) == "\"point\"")
        #expect(CQL2Text.write(p("Div")) == "\"Div\"")
        #expect(CQL2Text.write(p("has space")) == "\"has space\"")
        #expect(CQL2Text.write(p("plain")) == "plain")
    }

    @Test func arithmetic() throws {
        try check(
            "a + b * c - d / e % f div g",
            .arithmetic(
                .subtract,
                .arithmetic(.add, p("a"), .arithmetic(.multiply, p("b"), p("c"))),
                .arithmetic(.integerDivide, .arithmetic(.remainder, .arithmetic(.divide, p("d"), p("e")), p("f")), p("g"))))
        try check("a - (b - c) = 0", .comparison(.equal, .arithmetic(.subtract, p("a"), .arithmetic(.subtract, p("b"), p("c"))), i(0)))
        try check("(a + b) * c > 1", .comparison(.greaterThan, .arithmetic(.multiply, .arithmetic(.add, p("a"), p("b")), p("c")), i(1)))
        try check("2 ^ 3 ^ 2 = x", .comparison(.equal, .arithmetic(.power, i(2), .arithmetic(.power, i(3), i(2))), p("x")))
        try check("(2 ^ 3) ^ 2 = x", .comparison(.equal, .arithmetic(.power, .arithmetic(.power, i(2), i(3)), i(2)), p("x")))
        try check("-a ^ 2 = -5 ^ 2", .comparison(.equal, .arithmetic(.power, .negate(p("a")), i(2)), .arithmetic(.power, i(-5), i(2))))
        try check("a - -5 = - - b", .comparison(.equal, .arithmetic(.subtract, p("a"), i(-5)), .negate(.negate(p("b")))))
        try check("-(a + 1) < f(x)", .comparison(.lessThan, .negate(.arithmetic(.add, p("a"), i(1))), .function(name: "f", arguments: [p("x")])))
        try check("- -5 = x", .comparison(.equal, .negate(i(-5)), p("x")))
        try check("-(5) = x", .comparison(.equal, .negate(i(5)), p("x")))
        try check("a-1=0", .comparison(.equal, .arithmetic(.subtract, p("a"), i(1)), i(0)))
    }

    @Test func functions() throws {
        try check("now() > t", .comparison(.greaterThan, .function(name: "now", arguments: []), p("t")))
        try check(
            "Buffer(geom, 10 * 2, 'round') IS NOT NULL",
            .isNull(.function(name: "Buffer", arguments: [p("geom"), .arithmetic(.multiply, i(10), i(2)), s("round")]), negated: true))
        try check("isOk(a = 1, NOT b)", .function(name: "isOk", arguments: [.comparison(.equal, p("a"), i(1)), .not(p("b"))]))
        try check("f((a + 1) * 2)", .function(name: "f", arguments: [.arithmetic(.multiply, .arithmetic(.add, p("a"), i(1)), i(2))]))
        try check("f((1, 2), (3), ())", .function(name: "f", arguments: [.array([i(1), i(2)]), .array([i(3)]), .array([])]))
    }
}

struct CQL2TextSpatialTemporalArrayTests {
    @Test func spatial() throws {
        for function in CQL2SpatialFunction.allCases {
            try check("\(function.rawValue.lowercased())(geom, POINT(1 2))", .spatial(function, p("geom"), try wkt("POINT (1 2)")))
        }
        try check("S_WITHIN(LINESTRING Z (0 0 1, 1 1 2), geom)", .spatial(.within, try wkt("LINESTRING Z (0 0 1, 1 1 2)"), p("geom")))
        try check(
            "S_INTERSECTS(geom, POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 2 1, 2 2, 1 1)))",
            .spatial(.intersects, p("geom"), try wkt("POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 2 1, 2 2, 1 1))")))
        try check(
            "S_CROSSES(MULTILINESTRING((0 0, 1 1), (2 2, 3 3)), MULTIPOINT((1 1), (2 2)))",
            .spatial(.crosses, try wkt("MULTILINESTRING ((0 0, 1 1), (2 2, 3 3))"), try wkt("MULTIPOINT ((1 1), (2 2))")))
        try check(
            "S_CONTAINS(MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5))), geom)",
            .spatial(.contains, try wkt("MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5)))"), p("geom")))
        try check(
            "S_DISJOINT(geom, GEOMETRYCOLLECTION(POINT(1 2), LINESTRING(0 0, -1.5 2e2)))",
            .spatial(.disjoint, p("geom"), try wkt("GEOMETRYCOLLECTION (POINT (1 2), LINESTRING (0 0, -1.5 200))")))
        try check("S_INTERSECTS(geom, POINT Z (1 2 3))", .spatial(.intersects, p("geom"), try wkt("POINT Z (1 2 3)")))
        try check("S_EQUALS(geom, POINT EMPTY)", .spatial(.equals, p("geom"), try wkt("POINT EMPTY")))
        try check("S_INTERSECTS(geom, BBOX(-180, -90, 180, 90))", .spatial(.intersects, p("geom"), .bbox([-180, -90, 180, 90])))
        try check("S_INTERSECTS(geom, bbox(0.5, 1, -2, 3, 4.25, +5))", .spatial(.intersects, p("geom"), .bbox([0.5, 1, -2, 3, 4.25, 5])))
        try check("S_TOUCHES(buffer(geom, 1), geom2)", .spatial(.touches, .function(name: "buffer", arguments: [p("geom"), i(1)]), p("geom2")))
    }

    @Test func temporal() throws {
        for function in CQL2TemporalFunction.allCases {
            try check("\(function.rawValue)(t, DATE('2021-05-01'))", .temporal(function, p("t"), .date("2021-05-01")))
        }
        try check(
            "T_DURING(INTERVAL(start, \"end\"), INTERVAL('2020-01-01', '..'))",
            .temporal(.during, .interval(.expression(p("start")), .expression(p("end"))), .interval(.date("2020-01-01"), .unbounded)))
        try check(
            "T_INTERSECTS(t, INTERVAL('..', '2020-01-01T00:00:00Z'))",
            .temporal(.intersects, p("t"), .interval(.unbounded, .timestamp("2020-01-01T00:00:00Z"))))
        try check(
            "T_AFTER(INTERVAL(DATE('2020-01-01'), now()), t)",
            .temporal(.after, .interval(.date("2020-01-01"), .expression(.function(name: "now", arguments: []))), p("t")))
    }

    @Test func arrays() throws {
        for function in CQL2ArrayFunction.allCases {
            try check("\(function.rawValue)(tags, ('a', 'b'))", .arrayComparison(function, p("tags"), .array([s("a"), s("b")])))
        }
        try check("A_CONTAINS(tags, ('a'))", .arrayComparison(.contains, p("tags"), .array([s("a")])))
        try check("A_EQUALS((), tags)", .arrayComparison(.equals, .array([]), p("tags")))
        try check(
            "A_OVERLAPS(((1, 2), ('x'), DATE('2020-01-01'), POINT(1 1), TRUE, a + 1), list)",
            .arrayComparison(
                .overlaps,
                .array([.array([i(1), i(2)]), .array([s("x")]), .date("2020-01-01"), try wkt("POINT (1 1)"), .boolean(true), .arithmetic(.add, p("a"), i(1))]),
                p("list")))
        try check("x IN ((1, 2), 3)", .inList(p("x"), [.array([i(1), i(2)]), i(3)], negated: false))
    }

    @Test func whitespaceAndCase() throws {
        try check("\ta\n=\r\n1\u{3000}and\u{2003}B\u{00A0}LIKE 'x'", .and([.comparison(.equal, p("a"), i(1)), .like(p("B"), pattern: s("x"), negated: false)]))
    }
}

struct CQL2TextErrorTests {
    private func expectError(_ text: String, _ line: Int, _ column: Int, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error = failure(text) else {
            Issue.record("\(text) parsed", sourceLocation: sourceLocation)
            return
        }
        #expect(error.line == line && error.column == column, "\(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains(fragment), "\(error)", sourceLocation: sourceLocation)
        #expect(error.description.hasPrefix("cql2-text error at \(line):\(column): "), sourceLocation: sourceLocation)
    }

    @Test func errorsWithPositions() {
        expectError("name = 'abc", 1, 8, "unterminated character literal")
        expectError("\"abc = 1", 1, 1, "unterminated quoted property name")
        expectError("S_INTERSECTS(geom, geom2, x)", 1, 25, "expected ')' after the arguments of S_INTERSECTS")
        expectError("S_INTERSECTS(geom geom2)", 1, 19, "expected ',' after argument 1 of S_INTERSECTS")
        expectError("S_WITHIN(geom)", 1, 14, "S_WITHIN takes 2 arguments, not 1")
        expectError("CASEI(a, b) = 'x'", 1, 8, "expected ')' after the arguments of CASEI")
        expectError("(a = 1", 1, 7, "expected ')' to close the '(' at 1:1")
        expectError("f(a, b", 1, 7, "expected ')' after the arguments of f")
        expectError("date > 3", 1, 1, "'date' is a keyword; write \"date\"")
        expectError("a = 1 AND in = 2", 1, 11, "'in' is a keyword; write \"in\"")
        expectError("point = 1", 1, 1, "'point' is a keyword")
        expectError("a = 1 b", 1, 7, "unexpected 'b' after a complete expression")
        expectError("a = 1)", 1, 6, "unexpected ')'")
        expectError("a = b = c", 1, 7, "cannot be compared again")
        expectError("x\n  AND y LIKE", 2, 13, "expected an operand")
        expectError("", 1, 1, "empty")
        expectError("a = #", 1, 5, "unexpected character '#'")
        expectError("x IN ()", 1, 7, "the list after IN is empty")
        expectError("x BETWEEN 1 OR 2", 1, 13, "expected AND between the bounds of BETWEEN")
        expectError("x IS NOT 3", 1, 10, "expected NULL after IS NOT")
        expectError("d = DATE('2023-02-29')", 1, 10, "not a date")
        expectError("d = TIMESTAMP('2023-02-01 10:00:00')", 1, 15, "not a timestamp")
        expectError("T_AFTER(t, INTERVAL('2020', '..'))", 1, 21, "not a date, a timestamp or '..'")
        expectError("S_INTERSECTS(g, BBOX(1, 2, 3))", 1, 17, "BBOX takes 4 or 6 numbers, not 3")
        expectError("S_INTERSECTS(g, POINT(1 2)", 1, 27, "expected ')' after the arguments of S_INTERSECTS")
        expectError("S_INTERSECTS(g, LINESTRING(0 0, 1 1)", 1, 37, "expected ')' after the arguments")
        expectError("S_INTERSECTS(g, POINT(1 2 3 4 5))", 1, 31, "invalid POINT literal")
        expectError("S_INTERSECTS(g, POINT(1 2), 3)", 1, 27, "it takes 2")
        expectError("n = 1e999", 1, 5, "out of range")
        expectError("n = +a", 1, 6, "expected a number after '+'")
    }

    @Test func nestingLimit() {
        let deep = String(repeating: "(", count: 500) + "a" + String(repeating: ")", count: 500)
        #expect(failure(deep)?.message.contains("nests deeper than 200 levels") == true)
        let nots = String(repeating: "NOT ", count: 10_000) + "a"
        #expect(failure(nots)?.message.contains("nests deeper") == true)
        let sum = "x = " + Array(repeating: "a", count: 10_000).joined(separator: " + ")
        #expect(failure(sum)?.message.contains("nests deeper") == true)
        let minus = "x = " + String(repeating: "-", count: 10_000) + "a"
        #expect(failure(minus)?.message.contains("nests deeper") == true)
        let calls = String(repeating: "f(", count: 10_000) + String(repeating: ")", count: 10_000)
        #expect(failure(calls)?.message.contains("nests deeper") == true)
        let ok = String(repeating: "(", count: 150) + "a" + String(repeating: ")", count: 150)
        #expect((try? CQL2Text.parse(ok)) == p("a"))
        #expect(failure("((a))", maximumDepth: 2) != nil)
        #expect(failure("((a))", maximumDepth: 3) == nil)
        let longAnd = Array(repeating: "a = 1", count: 5_000).joined(separator: " AND ")
        #expect(failure(longAnd) == nil)
    }
}

struct CQL2TextRandomTests {
    @Test(arguments: [1, 2, 3, 42, 2024])
    func seededRoundTrips(seed: UInt64) throws {
        var trees = RandomTrees(random: SeededGenerator(seed: seed))
        for _ in 0..<300 {
            let tree = trees.boolean(5)
            let text = CQL2Text.write(tree)
            let reread = try CQL2Text.parse(text)
            #expect(reread == tree, "\(text)")
            #expect(CQL2Text.write(reread) == text)
        }
    }
}
