import SieveColumns
import SieveTestSupport
import Testing

@testable import SieveSQL

/// The vectorized value paths against the row evaluator: random numeric expressions over
/// seeded random columns holding NULLs, NaN, infinities, signed zeros and the ends of `Int64`;
/// every value of ``CompiledValueExpression/scalarValues(rowCount:in:)``,
/// ``CompiledValueExpression/scalarValues(rows:in:)`` and
/// ``CompiledValueExpression/values(rowCount:in:)`` must be ``CompiledValueExpression/value(row:in:)``'s.
@Suite("ValueExpression kernels against the row evaluator")
struct ValueExpressionKernelTests {
    static let schema = SimpleSchema([
        ("I", .integer), ("J", .integer), ("D", .double), ("E", .double), ("S", .string), ("T", .date), ("K", .integer),
    ])

    static let extremeIntegers: [Int64] = [
        .min, .min + 1, -4_611_686_018_427_387_904, -3_037_000_500, -1, 0, 1, 2, 3_037_000_499, 4_611_686_018_427_387_904,
        .max - 1, .max,
    ]
    static let extremeDoubles: [Double] = [
        .nan, .infinity, -.infinity, 0, -0.0, 1.7e308, -1.7e308, 5e-324, 9_223_372_036_854_775_808.0,
        -9_223_372_036_854_775_808.0, 9_223_372_036_854_774_784.0, 0.5, -2.5, 1e15 + 0.5,
    ]

    /// Seven columns of `rows` rows: I (extreme and small integers), J (small, zero-heavy:
    /// divisors), D and E (extreme and quarter doubles), S (numeric and other text), T (dates),
    /// K (integers without NULLs); all but K about 15% NULL.
    static func columns(rows: Int, generator: inout SeededGenerator) -> [Column] {
        func validity(_ generator: inout SeededGenerator) -> ValidityBitmap {
            var bitmap = ValidityBitmap(count: 0, allValid: true)
            for _ in 0..<rows { bitmap.append(valid: !generator.chance(15)) }
            return bitmap
        }
        func integers(_ generator: inout SeededGenerator, extremes: Int) -> [Int64] {
            (0..<rows).map { _ in
                generator.chance(extremes)
                    ? extremeIntegers[generator.int(extremeIntegers.count)] : Int64(generator.int(-20...20))
            }
        }
        func doubles(_ generator: inout SeededGenerator) -> [Double] {
            (0..<rows).map { _ in
                generator.chance(30) ? extremeDoubles[generator.int(extremeDoubles.count)] : Double(generator.int(-80...80)) / 4
            }
        }
        let texts = ["1", " 2.5 ", "-7", "abc", "", "1e400", "9223372036854775808", "0x10", "3."]
        var strings: [String?] = []
        for _ in 0..<rows { strings.append(generator.chance(15) ? nil : texts[generator.int(texts.count)]) }
        return [
            .integer(Int64Column(values: integers(&generator, extremes: 35), validity: validity(&generator))),
            .integer(Int64Column(values: (0..<rows).map { _ in Int64(generator.int(-3...3)) }, validity: validity(&generator))),
            .double(DoubleColumn(values: doubles(&generator), validity: validity(&generator))),
            .double(DoubleColumn(values: doubles(&generator), validity: validity(&generator))),
            .string(StringColumn(strings)),
            .date(Int64Column(values: (0..<rows).map { _ in Int64(generator.int(-1000...1000)) * 86_400_000 }, validity: validity(&generator))),
            .integer(Int64Column(values: integers(&generator, extremes: 20))),
        ]
    }

    /// A random numeric expression: mostly the shapes the kernels compute, with some that fall
    /// back to the row evaluator (functions, `CASE`, `COALESCE`, casts of text) inside them.
    static func expression(depth: Int, _ generator: inout SeededGenerator) -> String {
        if depth == 0 || generator.chance(25) {
            switch generator.int(10) {
            case 0...4: return ["I", "J", "D", "E", "K"][generator.int(5)]
            case 5, 6:
                let value = extremeIntegers[generator.int(extremeIntegers.count)]
                // -2^63 has no literal: it is written as a difference.
                return value == .min ? "(-9223372036854775807 - 1)" : "(\(value))"
            case 7: return ["0.5", "(-2.25)", "1e308", "0.0", "3.0"][generator.int(5)]
            case 8: return "NULL"
            default: return "CAST(S AS \(generator.chance(50) ? "FLOAT" : "INTEGER"))"
            }
        }
        let a = expression(depth: depth - 1, &generator)
        switch generator.int(14) {
        case 0...7:
            let b = expression(depth: depth - 1, &generator)
            return "(\(a) \(["+", "-", "*", "/"][generator.int(4)]) \(b))"
        case 8: return "(-\(a))"
        case 9: return "CAST(\(a) AS \(generator.chance(50) ? "FLOAT" : "INTEGER"))"
        case 10: return "ABS(\(a))"
        case 11: return "COALESCE(\(a), \(expression(depth: depth - 1, &generator)))"
        case 12: return "CASE WHEN \(a) > 0 THEN \(a) ELSE \(expression(depth: depth - 1, &generator)) END"
        default: return "(T - DATE '1970-01-01' + \(a))"
        }
    }

    /// Whether a kernel value is the row evaluator's value: doubles bit for bit, except that
    /// any NaN matches any NaN.
    static func same(_ a: ScalarValue, _ b: ScalarValue) -> Bool {
        if case .double(let x) = a, case .double(let y) = b { return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN) }
        return a == b
    }

    @Test("Vectorized values equal the row evaluator's on random expressions and columns", arguments: [1, 2, 3, 4])
    func randomExpressions(seed: UInt64) throws {
        var generator = SeededGenerator(seed: 0x5EED_0000 + seed)
        let rows = 300
        let columns = Self.columns(rows: rows, generator: &generator)
        var kernelShapes = 0
        for _ in 0..<150 {
            let sql = Self.expression(depth: generator.int(1...4), &generator)
            let expression = try CompiledValueExpression(sql, schema: Self.schema)
            if case .arithmetic = expression.expression { kernelShapes += 1 }
            let expected = (0..<rows).map { expression.value(row: $0, in: columns) }
            let scalars = expression.scalarValues(rowCount: rows, in: columns)
            let numbers = expression.values(rowCount: rows, in: columns)
            #expect(scalars.count == rows && numbers.count == rows)
            var mismatches = 0
            for row in 0..<rows where mismatches < 3 {
                let reading = NumericValues.numericReading(expected[row])
                let sameNumber =
                    numbers.isNull[row] == (reading == nil)
                    && (numbers.doubles[row].bitPattern == (reading ?? .nan).bitPattern
                        || (numbers.doubles[row].isNaN && (reading ?? .nan).isNaN))
                if !Self.same(scalars[row], expected[row]) || !sameNumber {
                    mismatches += 1
                    Issue.record("\(sql) at row \(row): kernel \(scalars[row]) / \(numbers.doubles[row]), row evaluator \(expected[row])")
                }
            }
            // A shuffled selection with repeats, through the row-id path.
            let ids = (0..<64).map { _ in UInt32(generator.int(rows)) }
            let picked = expression.scalarValues(rows: ids, in: columns)
            let pickedNumbers = expression.doubles(rows: ids, in: columns)
            for (k, id) in ids.enumerated() where !Self.same(picked[k], expected[Int(id)]) {
                Issue.record("\(sql) at row \(id) (position \(k)): kernel \(picked[k]), row evaluator \(expected[Int(id)])")
                break
            }
            for (k, id) in ids.enumerated() {
                let reading = NumericValues.numericReading(expected[Int(id)]) ?? .nan
                if !(pickedNumbers[k].bitPattern == reading.bitPattern || (pickedNumbers[k].isNaN && reading.isNaN)) {
                    Issue.record("\(sql) as doubles at row \(id): \(pickedNumbers[k]), expected \(reading)")
                    break
                }
            }
        }
        // The generator must exercise the kernels, not only constants folded by the binder.
        #expect(kernelShapes > 30, "only \(kernelShapes) expressions with arithmetic at the top")
    }

    @Test("Integer kernels: overflow at the ends of Int64 and division by zero give NULL")
    func integerEdges() throws {
        let schema = SimpleSchema([("A", .integer), ("B", .integer)])
        let a: [Int64] = [.max, .min, .min, 7, -7, 7, 0, .min, 3_037_000_500]
        let b: [Int64] = [1, -1, 1, 2, 2, 0, 0, -1, 3_037_000_500]
        let columns: [Column] = [.integer(Int64Column(values: a)), .integer(Int64Column(values: b))]
        let cases: [(String, [Int64?])] = [
            ("A + B", [nil, nil, -9_223_372_036_854_775_807, 9, -5, 7, 0, nil, 6_074_001_000]),
            ("A - B", [9_223_372_036_854_775_806, -9_223_372_036_854_775_807, nil, 5, -9, 7, 0, -9_223_372_036_854_775_807, 0]),
            ("A * B", [.max, nil, .min, 14, -14, 0, 0, nil, nil]),
            ("A / B", [.max, nil, .min, 3, -3, nil, nil, nil, 1]),
            ("-A", [-9_223_372_036_854_775_807, nil, nil, -7, 7, -7, 0, nil, -3_037_000_500]),
        ]
        for (sql, expected) in cases {
            let expression = try CompiledValueExpression(sql, schema: schema)
            let vectorized = expression.scalarValues(rowCount: a.count, in: columns)
            for row in a.indices {
                let value = expression.value(row: row, in: columns)
                #expect(Self.same(vectorized[row], value), "\(sql) at row \(row): \(vectorized[row]) vs \(value)")
                #expect(value == (expected[row].map(ScalarValue.integer) ?? .null), "\(sql) at row \(row): \(value)")
            }
        }
        // Doubles: 7.0 / 2 is 3.5; 2^63 (from Int64.max) divided by 1 stays 2^63 and casts back to NULL.
        let halves = try CompiledValueExpression("CAST(A AS FLOAT) / B", schema: schema).scalarValues(rows: [3, 0, 5], in: columns)
        #expect(halves == [.double(3.5), .double(9_223_372_036_854_775_808.0), .null])
        let back = try CompiledValueExpression("CAST(CAST(A AS FLOAT) AS INTEGER)", schema: schema)
        #expect(back.scalarValues(rows: [0, 1, 3], in: columns) == [.null, .integer(.min), .integer(7)])
    }
}
