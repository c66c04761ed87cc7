import Foundation
import SieveCQL
import SieveColumns
import SieveGeometry
import SieveSQL
import Testing

/// A small table for binding tests: each test row is a dictionary of optional values, NULL when
/// absent.
struct BindingTable {
    /// name (string), n (integer), x (double), d, s, e (dates, epoch ms), flag (0/1 integer).
    static let schema = SimpleSchema([
        ("name", .string), ("n", .integer), ("x", .double), ("d", .date), ("s", .date), ("e", .date), ("flag", .integer),
    ])

    enum Value {
        case string(String)
        case integer(Int64)
        case double(Double)
        case date(Int64)
    }

    let columns: [Column]
    let count: Int

    init(_ rows: [[String: Value]]) {
        count = rows.count
        var columns: [Column] = []
        for (name, type) in Self.schema.fields {
            var validity = ValidityBitmap(count: rows.count, allValid: true)
            var integers: [Int64] = [], doubles: [Double] = [], strings: [String?] = []
            for (i, row) in rows.enumerated() {
                let value = row[name]
                if value == nil { validity.set(i, valid: false) }
                switch value {
                case .integer(let v)?, .date(let v)?: integers.append(v)
                default: integers.append(0)
                }
                if case .double(let v)? = value { doubles.append(v) } else { doubles.append(0) }
                if case .string(let v)? = value { strings.append(v) } else { strings.append(nil) }
            }
            switch type {
            case .integer: columns.append(.integer(Int64Column(values: integers, validity: validity)))
            case .date: columns.append(.date(Int64Column(values: integers, validity: validity)))
            case .double: columns.append(.double(DoubleColumn(values: doubles, validity: validity)))
            case .string: columns.append(.string(StringColumn(strings)))
            }
        }
        self.columns = columns
    }

    /// The filter's value at each row, bound through the CQL2 lowering (no geometry property).
    func values(_ text: String) throws -> [Bool?] {
        let clause = try CQL2Filter(text).lowered(geometryPropertyNames: []).compile(schema: Self.schema)
        return (0..<count).map { clause.evaluate(row: $0, in: columns) }
    }

    /// The rows the vectorized evaluator selects.
    func rows(_ text: String) throws -> [UInt32] {
        let clause = try CQL2Filter(text).lowered(geometryPropertyNames: []).compile(schema: Self.schema)
        return clause.matchingRows(in: columns, rowCount: count)
    }
}

/// The epoch milliseconds of a UTC date and time.
func instant(_ text: String) -> Int64 {
    CivilTime.parse(text, syntax: .iso8601) ?? Int64.min
}

/// The error binding `text` gives, or `nil` when it binds.
func bindingError(_ text: String, geometry: Set<String> = ["geometry"]) -> CQL2Error? {
    do throws(CQL2Error) {
        _ = try CQL2Filter(text).lowered(geometryPropertyNames: geometry).compile(schema: BindingTable.schema)
        return nil
    } catch {
        return error
    }
}

@Suite("CQL2 binding: comparisons, text, arithmetic")
struct CQL2BindingTests {
    @Test func comparisonsAndThreeValuedLogic() throws {
        let table = BindingTable([["n": .integer(5), "name": .string("a")], ["n": .integer(7)], [:]])
        #expect(try table.values("n > 6") == [false, true, nil])
        #expect(try table.values("NOT n > 6") == [true, false, nil])
        #expect(try table.values("n > 6 OR name = 'a'") == [true, true, nil])
        #expect(try table.values("n > 6 AND name = 'a'") == [false, nil, nil])
        #expect(try table.values("n IS NULL") == [false, false, true])
        #expect(try table.values("name IS NOT NULL") == [true, false, false])
        #expect(try table.values("n BETWEEN 5 AND 6") == [true, false, nil])
        #expect(try table.values("n NOT IN (7, 8)") == [true, false, nil])
        #expect(try table.rows("n > 6 OR name = 'a'") == [0, 1])
    }

    @Test func arithmeticFollowsCQL2() throws {
        let table = BindingTable([["n": .integer(7), "x": .double(-7.5)]])
        // `/` divides as real numbers; `div` truncates toward zero; `%` keeps the dividend's sign.
        #expect(try table.values("n / 2 = 3.5") == [true])
        #expect(try table.values("n div 2 = 3") == [true])
        #expect(try table.values("-n div 2 = -3") == [true])
        #expect(try table.values("-n % 2 = -1") == [true])
        #expect(try table.values("x div 2 = -3") == [true])
        #expect(try table.values("2 ^ n = 128") == [true])
        #expect(try table.values("2 ^ 3 ^ 2 = 512") == [true])
        #expect(try table.values("n + x * 2 = -8") == [true])
        // Division by zero and overflow are NULL, never a crash.
        #expect(try table.values("n / 0 = 1") == [nil])
        #expect(try table.values("n div 0 = 1") == [nil])
        #expect(try table.values("n * 9223372036854775807 > 0") == [nil])
    }

    @Test func likeIsCaseSensitiveWithBackslashEscape() throws {
        let table = BindingTable([["name": .string("Chicago")], ["name": .string("a%b")], ["name": .string("a_b")]])
        #expect(try table.values("name LIKE 'ch%'") == [false, false, false])
        #expect(try table.values("name LIKE 'Ch%'") == [true, false, false])
        #expect(try table.values("CASEI(name) LIKE CASEI('ch%')") == [true, false, false])
        #expect(try table.values("name LIKE 'a\\%b'") == [false, true, false])
        #expect(try table.values("name LIKE 'a_b'") == [false, true, true])
        #expect(try table.values("name LIKE 'a\\_b'") == [false, false, true])
        #expect(try table.values("name NOT LIKE '%b'") == [true, false, false])
    }

    @Test func caseAndAccentInsensitiveComparisons() throws {
        let table = BindingTable([
            ["name": .string("straße")], ["name": .string("Chișinău")], ["name": .string("ΣΊΣΥΦΟΣ")], [:],
        ])
        // Full case folding: ß folds to ss, final sigma to sigma.
        #expect(try table.values("CASEI(name) = CASEI('STRASSE')") == [true, false, false, nil])
        #expect(try table.values("CASEI(name) = CASEI('σίσυφος')") == [false, false, true, nil])
        #expect(try table.values("ACCENTI(name) = ACCENTI('Chisinau')") == [false, true, false, nil])
        #expect(try table.values("ACCENTI(name) = 'Chisinau'") == [false, true, false, nil])
        #expect(try table.values("CASEI(ACCENTI(name)) = CASEI(ACCENTI('CHISINAU'))") == [false, true, false, nil])
        #expect(try table.values("ACCENTI(name) LIKE ACCENTI('Chiș%')") == [false, true, false, nil])
        #expect(try table.values("CASEI(name) IN (CASEI('x'), CASEI('Straße'))") == [true, false, false, nil])
        // Without them, comparisons are exact.
        #expect(try table.values("name = 'Chisinau'") == [false, false, false, nil])
    }

    @Test func booleansCompareWithZeroOneFields() throws {
        let table = BindingTable([["flag": .integer(1)], ["flag": .integer(0)], [:]])
        #expect(try table.values("flag = TRUE") == [true, false, nil])
        #expect(try table.values("flag <> true") == [false, true, nil])
        #expect(try table.values("FALSE = flag") == [false, true, nil])
    }

    @Test func datesCompareAsInstants() throws {
        let table = BindingTable([
            ["d": .date(instant("2020-01-01T00:00:00Z"))], ["d": .date(instant("2020-01-01T10:00:00Z"))],
        ])
        #expect(try table.values("d = DATE('2020-01-01')") == [true, false])
        #expect(try table.values("d > DATE('2020-01-01')") == [false, true])
        #expect(try table.values("d = TIMESTAMP('2020-01-01T10:00:00Z')") == [false, true])
        #expect(try table.values("d IN (DATE('2019-12-31'), DATE('2020-01-01'))") == [true, false])
        #expect(try table.values("d BETWEEN DATE('2020-01-01') AND TIMESTAMP('2020-01-01T09:59:59Z')") == [true, false])
    }

    @Test func arrayFunctionsCompareArrayLiterals() throws {
        let table = BindingTable([["name": .string("b")], ["name": .string("z")], [:]])
        #expect(try table.values("A_CONTAINS(('a', 'b', 'c'), (name))") == [true, false, nil])
        #expect(try table.values("A_CONTAINS(('a', 'b', 'c'), ('a', name))") == [true, false, nil])
        #expect(try table.values("A_CONTAINEDBY((name, 'a'), ('a', 'b'))") == [true, false, nil])
        #expect(try table.values("A_OVERLAPS(('x', name), ('b', 'y'))") == [true, false, nil])
        // Arrays compare as sets: order and repetition do not matter.
        #expect(try table.values("A_EQUALS(('a', 'b'), ('b', 'a', 'a'))") == [true, true, true])
        #expect(try table.values("A_EQUALS(('a', 'b'), ('b'))") == [false, false, false])
        #expect(try table.values("A_CONTAINS(('a'), ())") == [true, true, true])
        #expect(try table.values("A_OVERLAPS(('a'), ())") == [false, false, false])
    }

    @Test func typeErrorsNameThePartAtFault() throws {
        let cases: [(String, String)] = [
            ("d = '2020-01-01'", "cannot compare date field \"d\" with a string (in d = '2020-01-01')"),
            ("name = 1", "cannot compare string field \"name\" with a number (in name = 1)"),
            ("nam = 'x'", "unknown field \"nam\" (did you mean \"name\"?) (in nam)"),
            ("n > 1 AND UPPR(name) = 'X'", "unknown function UPPR (did you mean \"UPPER\"?) (in UPPR(name))"),
            ("T_AFTER(name, DATE('2020-01-01'))", "cannot compare string field \"name\" with a date (in T_AFTER(name, DATE('2020-01-01')))"),
            ("CASEI(n) = 'x'", "CASEI expects a string as argument 1, got an integer value (in n)"),
        ]
        for (text, message) in cases {
            let error = bindingError(text)
            #expect(error?.message == message, "\(text)")
            #expect(error?.description == "cql2-text error: \(message)", "\(text)")
        }
    }

    @Test func whatOnlyBindingRejects() throws {
        // Parsed by the grammar's leniency, rejected by types (Tests/Fixtures/cql2/invalid.jsonl
        // 045, 046, 076, 077).
        #expect(bindingError("flag")?.message.hasPrefix("the where clause must be a condition, not an integer value") == true)
        #expect(bindingError("flag AND n > 1")?.message.hasPrefix("AND needs a condition, not an integer value") == true)
        let string = try CQL2Filter("\"n\"", encoding: .json)
        #expect(throws: CQL2Error.self) { try string.lowered(geometryPropertyNames: []).compile(schema: BindingTable.schema) }
        let negation = try CQL2Filter("{\"op\": \"-\", \"args\": [{\"property\": \"n\"}]}", encoding: .json)
        #expect(throws: CQL2Error.self) { try negation.lowered(geometryPropertyNames: []).compile(schema: BindingTable.schema) }
        // Constructs the where-clause tree cannot hold are refused while lowering.
        #expect(bindingError("n = INTERVAL('2020-01-01', '..')")?.message.hasPrefix("an INTERVAL can only be") == true)
        #expect(bindingError("n = POINT(1 2)")?.message.hasPrefix("a geometry can only be") == true)
        #expect(bindingError("n IN (('a', 'b'))")?.message.hasPrefix("an array can only be") == true)
        #expect(bindingError("A_CONTAINS(name, ('a'))")?.message.hasPrefix("\"name\" is not an array") == true)
        #expect(bindingError("geometry IS NULL OR geometry = 1")?.message.hasPrefix("the geometry property \"geometry\" can only be") == true)
        #expect(bindingError("S_INTERSECTS(name, POINT(1 2))")?.message.hasPrefix("\"name\" is not the geometry property") == true)
        #expect(bindingError("S_INTERSECTS(geometry, geometry)") != nil)
        #expect(bindingError("S_INTERSECTS(geometry, BBOX(0, 10, 1, 5))")?.message.hasPrefix("BBOX south (10.0) is greater than north (5.0)") == true)
        #expect(bindingError("d = DATE('2021-02-29')")?.message.hasPrefix("'2021-02-29' is not a date") == true)
        // Each spatial function is a column of the table's length while the filter runs: 64 at most.
        let many = (0..<65).map { "S_INTERSECTS(geometry, POINT(\($0) 0))" }.joined(separator: " OR ")
        #expect(bindingError(many)?.message.hasPrefix("the filter holds more than 64 spatial functions") == true)
        #expect(bindingError((0..<64).map { "S_INTERSECTS(geometry, POINT(\($0) 0))" }.joined(separator: " OR ")) == nil)
        #expect(bindingError("T_DURING(d, INTERVAL('2020-02-01', '2020-01-01'))")?.message.hasPrefix("the interval ends before it starts") == true)
        // CQL2's own functions are not the where clause's.
        #expect(throws: WhereClauseError.self) { try CompiledWhereClause("CASEI(name) = 'x'", schema: BindingTable.schema) }
    }
}

@Suite("CQL2 binding: geometry tests")
struct CQL2GeometryLoweringTests {
    func tests(_ text: String) throws -> [CQL2GeometryTest.Kind] {
        try CQL2Filter(text).lowered(geometryPropertyNames: ["geometry", "geom"]).geometryTests.map(\.kind)
    }

    func box(_ parts: [(Double, Double, Double, Double)]) throws -> Geometry {
        .polygon(
            try Polygon(
                parts: parts.map { w, s, e, n in
                    [[Point(x: w, y: s), Point(x: w, y: n), Point(x: e, y: n), Point(x: e, y: s), Point(x: w, y: s)]]
                }))
    }

    @Test func spatialFunctionsReadFeatureFirst() throws {
        let point = Geometry.point(Point(x: 1, y: 2))
        #expect(try tests("S_WITHIN(geometry, POINT(1 2))") == [.relationship(.within, point)])
        #expect(try tests("S_WITHIN(POINT(1 2), GEOM)") == [.relationship(.contains, point)])
        #expect(try tests("S_CONTAINS(POINT(1 2), geometry)") == [.relationship(.within, point)])
        #expect(try tests("S_CONTAINS(geometry, POINT(1 2))") == [.relationship(.contains, point)])
        for function in ["INTERSECTS", "EQUALS", "DISJOINT", "TOUCHES", "OVERLAPS", "CROSSES"] {
            #expect(try tests("S_\(function)(geometry, POINT(1 2))") == tests("S_\(function)(POINT(1 2), geometry)"), "\(function)")
        }
        #expect(try tests("geometry IS NULL AND NOT S_DISJOINT(POINT(0 0), POINT(0 0))") == [
            .present, .literals(.disjoint, .point(Point(x: 0, y: 0)), .point(Point(x: 0, y: 0))),
        ])
    }

    @Test func boxesAcrossTheAntimeridianAreSplit() throws {
        #expect(try tests("S_INTERSECTS(geometry, BBOX(-10, -5, 10, 5))") == [.relationship(.intersects, box([(-10, -5, 10, 5)]))])
        #expect(
            try tests("S_INTERSECTS(geometry, BBOX(170, -20, -170, 0))")
                == [.relationship(.intersects, box([(170, -20, 180, 0), (-180, -20, -170, 0)]))])
        // Six numbers: the elevations are left out.
        #expect(
            try tests("S_INTERSECTS(geometry, BBOX(170, -20, 0, -170, 0, 100))")
                == [.relationship(.intersects, box([(170, -20, 180, 0), (-180, -20, -170, 0)]))])
    }
}

@Suite("CQL2 text: strings with backslashes")
struct CQL2BackslashTests {
    /// A quote right after a backslash is written `\'`: the reader takes `\'` for a quote and would
    /// end the string at `''` (found by fuzzing: the written text did not read back).
    /// (A string ending with a backslash has no text form: the reader always takes `\'` for a
    /// quote, so it never reads one.)
    @Test(arguments: ["\\'", "a\\'b", "\\\\'", "\\''", "x\\'\\'y", "\\x", "''"])
    func quotesAfterBackslashesReadBack(_ value: String) throws {
        let tree = CQL2Expression.comparison(.equal, .property("name"), .string(value))
        let text = CQL2Text.write(tree)
        #expect(try CQL2Text.parse(text) == tree, "\(value) written \(text)")
    }

    /// `((a)) * b` as a function argument: the inner `(a)` is no one-element array once the outer
    /// parentheses turn out not to make an array (found by fuzzing: it read as an array operand,
    /// which writes back as `(a) * b` and reads back as `a * b`).
    @Test(arguments: ["f(((b)) * c)", "f((((b))) + 1, 2)", "f(((b)))", "f(((b), (c)) * d)", "A_CONTAINS(((x)), ('a'))"])
    func nestedParenthesesInArgumentsReadBack(_ text: String) throws {
        let tree = try CQL2Text.parse(text)
        #expect(try CQL2Text.parse(CQL2Text.write(tree)) == tree, "\(text) written \(CQL2Text.write(tree))")
    }

    @Test func textReadWithBackslashesWritesBack() throws {
        // Three backslashes and an escaped quote: the value holds `\\\'`.
        let tree = try CQL2Text.parse("name = 'a\\\\\\\\'b'")
        #expect(try CQL2Text.parse(CQL2Text.write(tree)) == tree)
    }
}
