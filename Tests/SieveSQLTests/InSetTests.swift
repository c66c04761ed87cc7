import SieveColumns
import SieveTestSupport
import Testing

@testable import SieveSQL

/// Long `IN` lists are hashed (``ConstantSet``), and long chains `x = c OR x = c …` /
/// `x <> c AND x <> c …` become such lists. The reference for both is the list scanned item by
/// item with `ScalarSemantics.compare`, i.e. the row evaluator on a plain `.inList` or on the
/// chain as written.
@Suite("Hashed IN lists")
struct InSetTests {
    typealias Generator = SeededGenerator

    /// Values chosen to meet at the edges of the comparison rules: integers and doubles that
    /// are equal or differ by less than one, ±0, integers beyond 2⁵³, doubles at and beyond
    /// 2⁶³, dates that equal integers by value, strings equal only after case folding or only
    /// canonically (precomposed and decomposed é), booleans and NULL.
    static let values: [ScalarValue] = [
        .null,
        .integer(0), .integer(1), .integer(-1), .integer(2), .integer(Int64.max), .integer(Int64.min),
        .integer(9_007_199_254_740_993), .integer(9_007_199_254_740_992),
        .double(0), .double(-0.0), .double(1), .double(1.5), .double(2), .double(-1), .double(0.1),
        .double(9_007_199_254_740_992), .double(9_223_372_036_854_775_808.0), .double(-9_223_372_036_854_775_808.0),
        .double(1e300), .double(-1e-300), .double(.nan),
        .date(0), .date(1), .date(86_400_000),
        .string(""), .string("a"), .string("A"), .string("é"), .string("e\u{301}"), .string("É"), .string("ß"),
        .string("SS"), .string("ss"), .string("a\u{0}b"), .string("日本"),
        .boolean(true), .boolean(false),
    ]

    static func constant(_ value: ScalarValue) -> BoundExpression {
        let type: SQLType
        switch value {
        case .null: type = .null
        case .integer: type = .integer
        case .double: type = .double
        case .date: type = .date
        case .string: type = .string
        case .boolean: type = .boolean
        }
        return .constant(value, type)
    }

    /// The answer of scanning the list, as the row evaluator defines it.
    static func scanned(_ value: ScalarValue, _ items: [ScalarValue], negated: Bool, collation: Collation) -> ScalarValue {
        let evaluator = RowEvaluator(columns: [], collation: collation)
        return evaluator.evaluate(.inList(constant(value), items.map(constant), negated: negated), row: 0)
    }

    /// An item that evaluates to `value` but is not a constant, so it is scanned, not hashed.
    static func wrapped(_ value: ScalarValue) -> BoundExpression {
        let item = constant(value)
        return .function(.coalesce, [item], item.type)
    }

    @Test(arguments: [Collation.binary, .nocase])
    func hashedListsAnswerAsTheScan(collation: Collation) throws {
        var generator = Generator(state: collation == .binary ? 101 : 202)
        let evaluator = RowEvaluator(columns: [], collation: collation)
        var checked = 0
        for _ in 0..<400 {
            let count = generator.int(ConstantSet.minimumCount...(ConstantSet.minimumCount + 12))
            // Mostly one family, sometimes mixed, sometimes with NULL or NaN.
            let pool = generator.chance(70) ? Self.values.filter { Self.sameFamily($0, Self.values[generator.int(1...Self.values.count - 1)]) } : Self.values
            var items: [ScalarValue] = []
            for _ in 0..<count { items.append(pool[generator.int(0...pool.count - 1)]) }
            // Sometimes a few items that are not constants, among the constants.
            var bound = items.map(Self.constant)
            var scanned: [ScalarValue] = []
            if generator.chance(30) {
                for _ in 0..<generator.int(1...3) {
                    let value = pool[generator.int(0...pool.count - 1)]
                    bound.insert(Self.wrapped(value), at: generator.int(0...bound.count))
                    scanned.append(value)
                }
            }
            for value in Self.values {
                for negated in [false, true] {
                    let expected = Self.scanned(value, items + scanned, negated: negated, collation: collation)
                    let membership = BoundExpression.membership(Self.constant(value), bound, negated: negated, collation: collation)
                    guard case .inSet(_, _, let others, _) = membership, others.count == scanned.count else {
                        Issue.record("not hashed: \(items)")
                        continue
                    }
                    let actual = evaluator.evaluate(membership, row: 0)
                    #expect(actual == expected, "\(value) \(negated ? "NOT IN" : "IN") \(items) and \(scanned)")
                    checked += 1
                }
            }
        }
        #expect(checked == 400 * Self.values.count * 2)
    }

    static func sameFamily(_ a: ScalarValue, _ b: ScalarValue) -> Bool {
        switch (a, b) {
        case (.integer, .integer), (.integer, .double), (.double, .integer), (.double, .double), (.date, .date),
            (.string, .string), (.boolean, .boolean):
            return true
        default:
            return false
        }
    }

    /// Strings are matched by their bytes: canonically equivalent spellings stay different, as
    /// `=` keeps them (Swift's `String` equality would merge them).
    @Test func stringsMatchByBytes() throws {
        let items: [ScalarValue] = ["é", "x1", "x2", "x3", "x4", "x5", "x6", "x7"].map { .string($0) }
        let set = ConstantSet(items.map(Self.constant), collation: .binary)
        #expect(set.contains(.string("é")) == true)
        #expect(set.contains(.string("e\u{301}")) == false)
        #expect(set.contains(.string("É")) == false)
        let folded = ConstantSet(items.map(Self.constant), collation: .nocase)
        #expect(folded.contains(.string("É")) == true)
        #expect(folded.contains(.string("E\u{301}")) == false)
    }

    @Test func shortListsStayLists() {
        let short = (0..<(ConstantSet.minimumCount - 1)).map { BoundExpression.constant(.integer(Int64($0)), .integer) }
        if case .inSet = BoundExpression.membership(.column(index: 0, type: .integer), short, negated: false, collation: .binary) {
            Issue.record("a short list was hashed")
        }
        let fewConstants = short + [.column(index: 1, type: .integer)]
        if case .inSet = BoundExpression.membership(.column(index: 0, type: .integer), fewConstants, negated: false, collation: .binary) {
            Issue.record("a list with too few constants was hashed")
        }
        let long = fewConstants + [.constant(.integer(99), .integer)]
        guard case .inSet(_, _, let others, _) = BoundExpression.membership(.column(index: 0, type: .integer), long, negated: false, collation: .binary),
            others.count == 1
        else {
            Issue.record("a long list was not hashed")
            return
        }
    }

    /// Columns: 0 integer (NULLs), 1 double (NULLs), 2 plain string (NULLs), 3 date (NULLs),
    /// 4 dictionary string.
    static func table(rows: Int, generator: inout Generator) -> [Column] {
        var ints: [Int64] = [], intValid = ValidityBitmap(count: 0, allValid: true)
        var doubles: [Double] = [], doubleValid = ValidityBitmap(count: 0, allValid: true)
        var strings: [String?] = [], categories: [String?] = []
        var dates: [Int64] = [], dateValid = ValidityBitmap(count: 0, allValid: true)
        let words = ["a", "A", "é", "e\u{301}", "ß", "SS", "", "x"]
        for _ in 0..<rows {
            let intNull = generator.chance(10)
            ints.append(intNull ? 0 : Int64(generator.int(-20...20)))
            intValid.append(valid: !intNull)
            let doubleNull = generator.chance(10)
            doubles.append(doubleNull ? 0 : Double(generator.int(-40...40)) / 2)
            doubleValid.append(valid: !doubleNull)
            strings.append(generator.chance(10) ? nil : words[generator.int(0...words.count - 1)])
            categories.append(words[generator.int(0...words.count - 1)])
            let dateNull = generator.chance(10)
            dates.append(dateNull ? 0 : Int64(generator.int(-20...20)))
            dateValid.append(valid: !dateNull)
        }
        return [
            .integer(Int64Column(values: ints, validity: intValid)),
            .double(DoubleColumn(values: doubles, validity: doubleValid)),
            .string(StringColumn(strings, dictionaryLimit: 0)),
            .date(Int64Column(values: dates, validity: dateValid)),
            .string(StringColumn(categories)),
        ]
    }

    static let columnTypes: [SQLType] = [.integer, .double, .string, .date, .string]

    static func randomConstant(forColumn column: Int, _ generator: inout Generator) -> BoundExpression {
        if generator.chance(3) { return .constant(.null, .null) }
        switch column {
        case 0, 1:
            if generator.chance(50) { return .constant(.integer(Int64(generator.int(-25...25))), .integer) }
            return .constant(.double(Double(generator.int(-50...50)) / 2), .double)
        case 3:
            return .constant(.date(Int64(generator.int(-25...25))), .date)
        default:
            let words = ["a", "A", "é", "e\u{301}", "É", "ss", "SS", "", "y"]
            return .constant(.string(words[generator.int(0...words.count - 1)]), .string)
        }
    }

    /// Chains of comparisons with constants, merged into hashed lists by the binder's rule,
    /// select the same rows as the chains evaluated term by term, through every kernel.
    @Test(arguments: [Collation.binary, .nocase])
    func mergedChainsSelectTheSameRows(collation: Collation) {
        var generator = Generator(state: collation == .binary ? 31 : 37)
        let rows = 600
        let columns = Self.table(rows: rows, generator: &generator)
        let evaluator = RowEvaluator(columns: columns, collation: collation)
        for round in 0..<120 {
            let isOr = generator.chance(50)
            var terms: [BoundExpression] = []
            for _ in 0..<generator.int(1...40) {
                let column = generator.int(0...4)
                let reference = BoundExpression.column(index: column, type: Self.columnTypes[column])
                let constant = Self.randomConstant(forColumn: column, &generator)
                let op: ComparisonOperator = generator.chance(85) ? (isOr ? .equal : .notEqual) : (isOr ? .notEqual : .less)
                terms.append(generator.chance(50) ? .compare(op, reference, constant) : .compare(op, constant, reference))
                if generator.chance(5) { terms.append(.isNull(reference, negated: generator.chance(50))) }
            }
            let chain: BoundExpression = isOr ? .or(terms) : .and(terms)
            let mergedTerms = BoundExpression.mergingComparisons(terms, isOr: isOr, collation: collation)
            let merged: BoundExpression = isOr ? .or(mergedTerms) : .and(mergedTerms)
            let expected = (0..<rows).map { evaluator.evaluate(chain, row: $0) }
            let actual = (0..<rows).map { evaluator.evaluate(merged, row: $0) }
            #expect(actual == expected, "round \(round): \(chain)")
            let passing = (0..<rows).filter { expected[$0] == .boolean(true) }.map { UInt32($0) }
            let program = FilterProgram(merged, columns: columns, collation: collation, batchSize: 1 + (round % 3) * 300)
            #expect(program.rows(rowCount: rows) == passing, "round \(round) kernels: \(chain)")
            #expect(program.count(rowCount: rows) == passing.count)
        }
    }

    /// The binder merges only long runs, and only of one operator with a column and a constant.
    @Test func whatTheBinderMerges() throws {
        let schema = SimpleSchema([("f", .integer), ("g", .integer)])
        func bound(_ sql: String) throws -> BoundExpression { try CompiledWhereClause(sql, schema: schema).expression }
        let long = (1...ConstantSet.minimumCount).map { "f = \($0)" }.joined(separator: " OR ")
        guard case .or(let terms) = try bound(long + " OR g > 1"), terms.count == 2, case .inSet(.column(0, _), _, let others, false) = terms[0],
            others.isEmpty
        else {
            Issue.record("not merged: \(try bound(long + " OR g > 1"))")
            return
        }
        let short = (1..<ConstantSet.minimumCount).map { "f = \($0)" }.joined(separator: " OR ")
        guard case .or(let kept) = try bound(short), kept.count == ConstantSet.minimumCount - 1 else {
            Issue.record("a short chain was merged")
            return
        }
        let notEqual = (1...ConstantSet.minimumCount).map { "\($0) <> f" }.joined(separator: " AND ")
        guard case .and(let anded) = try bound(notEqual), anded.count == 1, case .inSet(.column(0, _), _, let others, true) = anded[0],
            others.isEmpty
        else {
            Issue.record("<> chain not merged into NOT IN")
            return
        }
        // `=` under AND and `<>` under OR are not IN lists.
        let wrongWay = (1...ConstantSet.minimumCount).map { "f = \($0)" }.joined(separator: " AND ")
        guard case .and(let same) = try bound(wrongWay), same.count == ConstantSet.minimumCount else {
            Issue.record("= chain under AND was merged")
            return
        }
    }
}
