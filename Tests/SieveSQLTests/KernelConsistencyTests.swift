import SieveColumns
import SieveTestSupport
import Testing

@testable import SieveSQL

/// The vectorized kernels against the row evaluator, which defines the semantics: random
/// tables, random conditions, same rows.
@Suite("Kernels agree with the row evaluator", .tags(.slow), .timeLimit(.minutes(10)))
struct KernelConsistencyTests {
    typealias Generator = SeededGenerator

    static let words = ["Parks", "Graffiti", "Tree Maintenance", "tree", "San Jose", "Santa", "", "ünïcode", "100%", "a_b"]

    /// Columns: 0 int (nulls), 1 double (nulls), 2 dictionary string (nulls), 3 plain string,
    /// 4 date (nulls), 5 int without nulls.
    static func table(rows: Int, generator: inout Generator) -> [Column] {
        var ints: [Int64] = [], intValid = ValidityBitmap(count: 0, allValid: true)
        var doubles: [Double] = [], doubleValid = ValidityBitmap(count: 0, allValid: true)
        var categories: [String?] = [], names: [String?] = []
        var dates: [Int64] = [], dateValid = ValidityBitmap(count: 0, allValid: true)
        var dense: [Int64] = []
        for i in 0..<rows {
            let intNull = generator.chance(10)
            // Now and then a value at the ends of Int64, where bounds arithmetic could trap.
            ints.append(intNull ? 0 : generator.chance(3) ? extremeIntegers[generator.int(0...extremeIntegers.count - 1)] : Int64(generator.int(-50...50)))
            intValid.append(valid: !intNull)
            let doubleNull = generator.chance(10)
            doubles.append(doubleNull ? 0 : Double(generator.int(-200...200)) / 4)
            doubleValid.append(valid: !doubleNull)
            categories.append(generator.chance(10) ? nil : words[generator.int(0...words.count - 1)])
            names.append("\(words[generator.int(0...words.count - 1)]) \(i)")
            let dateNull = generator.chance(10)
            dates.append(dateNull ? 0 : generator.chance(3) ? extremeIntegers[generator.int(0...extremeIntegers.count - 1)] : Int64(generator.int(-5...5)) * 86_400_000)
            dateValid.append(valid: !dateNull)
            dense.append(Int64(generator.int(0...9)))
        }
        return [
            .integer(Int64Column(values: ints, validity: intValid)),
            .double(DoubleColumn(values: doubles, validity: doubleValid)),
            .string(StringColumn(categories)),
            .string(StringColumn(names, dictionaryLimit: 0)),
            .date(Int64Column(values: dates, validity: dateValid)),
            .integer(Int64Column(values: dense)),
        ]
    }

    static let extremeIntegers: [Int64] = [.min, .min + 1, .max, .max - 1, 9_210_000_000_000_000_000, -9_007_199_254_740_993]
    static let extremeDoubles: [Double] = [
        9_223_372_036_854_775_808.0, -9_223_372_036_854_775_808.0, 9_223_372_036_854_774_784.0, 9.3e18, -9.3e18, 9.21e18,
        .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .infinity, -.infinity,
    ]

    static func numberConstant(_ generator: inout Generator) -> BoundExpression {
        if generator.chance(8) {
            return generator.chance(50)
                ? .constant(.integer(extremeIntegers[generator.int(0...extremeIntegers.count - 1)]), .integer)
                : .constant(.double(extremeDoubles[generator.int(0...extremeDoubles.count - 1)]), .double)
        }
        switch generator.int(0...3) {
        case 0: return .constant(.double(Double(generator.int(-60...60)) / 2), .double)
        case 1: return .constant(.null, .null)
        default: return .constant(.integer(Int64(generator.int(-60...60))), .integer)
        }
    }

    static func condition(_ generator: inout Generator, depth: Int) -> BoundExpression {
        let ops: [ComparisonOperator] = [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]
        if depth > 0 && generator.chance(40) {
            let count = generator.int(2...3)
            let children = (0..<count).map { _ in condition(&generator, depth: depth - 1) }
            switch generator.int(0...2) {
            case 0: return .and(children)
            case 1: return .or(children)
            default: return .not(children[0])
            }
        }
        let op = ops[generator.int(0...ops.count - 1)]
        switch generator.int(0...11) {
        case 0:
            let column = [0, 1, 5][generator.int(0...2)]
            return .compare(op, .column(index: column, type: column == 1 ? .double : .integer), numberConstant(&generator))
        case 1:
            let column = [0, 1, 5][generator.int(0...2)]
            return .compare(op, numberConstant(&generator), .column(index: column, type: column == 1 ? .double : .integer))
        case 2:
            return .between(
                .column(index: [0, 1][generator.int(0...1)], type: .integer), numberConstant(&generator),
                numberConstant(&generator), negated: generator.chance(50))
        case 3:
            let list = (0..<generator.int(1...4)).map { _ in numberConstant(&generator) }
            return .inList(.column(index: [0, 5][generator.int(0...1)], type: .integer), list, negated: generator.chance(50))
        case 4:
            return .isNull(.column(index: generator.int(0...4), type: .integer), negated: generator.chance(50))
        case 5, 6:
            let patterns = ["San%", "%Tree%", "%e", "_a%", "%", "", "100\\%", "%\\_%", "Parks"]
            let pattern = patterns[generator.int(0...patterns.count - 1)]
            let compiled = (try? LikePattern(pattern, escape: "\\")) ?? (try? LikePattern("%"))
            guard let compiled else { return .constant(.null, .null) }
            return .like(.column(index: [2, 3][generator.int(0...1)], type: .string), compiled, negated: generator.chance(50))
        case 7:
            let word = words[generator.int(0...words.count - 1)]
            return .compare(op, .column(index: [2, 3][generator.int(0...1)], type: .string), .constant(.string(word), .string))
        case 8:
            let day = generator.chance(10) ? extremeIntegers[generator.int(0...extremeIntegers.count - 1)] : Int64(generator.int(-6...6)) * 86_400_000
            return .compare(op, .column(index: 4, type: .date), .constant(.date(day), .date))
        case 9:
            // Arithmetic: only the row evaluator can do this.
            return .compare(
                op, .arithmetic(.add, .column(index: 0, type: .integer), .column(index: 5, type: .integer), .integer),
                numberConstant(&generator))
        case 10:
            return .compare(op, .column(index: 0, type: .integer), .column(index: 5, type: .integer))
        default:
            let list = (0..<generator.int(1...3)).map { _ in
                generator.chance(20) ? BoundExpression.constant(.null, .null) : .constant(.string(words[generator.int(0...words.count - 1)]), .string)
            }
            return .inList(.function(.upper, [.column(index: 2, type: .string)], .string), list, negated: generator.chance(50))
        }
    }

    /// A short account of how two row lists differ.
    static func difference(_ actual: [UInt32], _ expected: [UInt32]) -> String {
        let extra = Set(actual).subtracting(expected).sorted().prefix(5)
        let missing = Set(expected).subtracting(actual).sorted().prefix(5)
        return "\(actual.count) rows vs \(expected.count) expected; extra \(Array(extra)), missing \(Array(missing))"
    }

    @Test(arguments: [Collation.binary, .nocase])
    func randomConditions(collation: Collation) {
        var generator = Generator(state: collation == .binary ? 7 : 11)
        let rows = 5000
        let columns = Self.table(rows: rows, generator: &generator)
        let evaluator = RowEvaluator(columns: columns, collation: collation)
        for round in 0..<400 {
            let condition = Self.condition(&generator, depth: 3)
            let expected = (0..<rows).filter { evaluator.passes(condition, row: $0) }.map { UInt32($0) }
            // Small batches exercise the batch seams; candidates exercise the list path.
            let program = FilterProgram(condition, columns: columns, collation: collation, batchSize: 1 + (round % 3) * 700)
            let actual = program.rows(rowCount: rows)
            #expect(actual == expected, "round \(round): \(Self.difference(actual, expected)) for \(condition)")
            let candidates = (0..<UInt32(rows)).filter { $0 % 3 != 1 }
            let fromCandidates = program.rows(rowCount: rows, candidates: candidates)
            let expectedFromCandidates = expected.filter { $0 % 3 != 1 }
            #expect(
                fromCandidates == expectedFromCandidates,
                "round \(round) candidates: \(Self.difference(fromCandidates, expectedFromCandidates))")
        }
    }
}

extension KernelConsistencyTests {
    /// Counting (which skips listing rows at the root) agrees with listing.
    @Test func countsAgreeWithRows() {
        var generator = Generator(state: 23)
        let rows = 3000
        let columns = Self.table(rows: rows, generator: &generator)
        for round in 0..<200 {
            let condition = Self.condition(&generator, depth: 2)
            let program = FilterProgram(condition, columns: columns, collation: .binary, batchSize: 1 + (round % 2) * 1000)
            #expect(program.count(rowCount: rows) == program.rows(rowCount: rows).count, "\(condition)")
        }
    }
}
