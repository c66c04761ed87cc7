import Foundation
import SieveColumns
import Testing

@testable import SieveSQL

/// Where clauses of hundreds of thousands of terms go through the whole pipeline — lexing,
/// parsing, binding, constant folding, kernel compilation, evaluation, printing — in linear
/// time and without deep recursion; deep nesting is refused by the nesting limit however it
/// is written. The sizes are chosen so that a quadratic step (the lexer used to copy the whole
/// clause for every number: 100,000 × 700 KB) or a recursion per term would hang or crash the
/// test, while the linear pipeline takes about a second in a debug build.
@Suite("Huge where clauses")
struct HugeInputTests {
    static let terms = 100_000

    /// 1,000 rows: `f` = row number (an integer), `d` = row number / 2 (a double), `s` = "s<row>"
    /// (plain strings), `c` = one of four categories (dictionary-encoded), `t` = row number in
    /// days (a date); every 10th `f` and `s` is NULL.
    static let rows = 1_000
    static let schema = SimpleSchema([("f", .integer), ("d", .double), ("s", .string), ("c", .string), ("t", .date)])
    static let columns: [Column] = {
        var valid = ValidityBitmap(count: rows, allValid: true)
        for row in stride(from: 0, to: rows, by: 10) { valid.set(row, valid: false) }
        return [
            .integer(Int64Column(values: (0..<rows).map { Int64($0) }, validity: valid)),
            .double(DoubleColumn(values: (0..<rows).map { Double($0) / 2 })),
            .string(StringColumn((0..<rows).map { $0 % 10 == 0 ? nil : "s\($0)" }, dictionaryLimit: 0)),
            .string(StringColumn((0..<rows).map { ["north", "south", "east", "west"][$0 % 4] })),
            .date(Int64Column(values: (0..<rows).map { Int64($0) * 86_400_000 })),
        ]
    }()

    /// Rows whose `f` is not NULL (every 10th is).
    static func fIsSet(_ row: Int) -> Bool { row % 10 != 0 }

    /// Compiles `sql`, then checks the vectorized count, the row list and the row evaluator
    /// against `expected` (the rows that must pass).
    static func check(_ sql: String, expected: [Int], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let clause = try CompiledWhereClause(sql, schema: schema)
        let rows = clause.matchingRows(in: columns, rowCount: Self.rows)
        #expect(rows == expected.map { UInt32($0) }, sourceLocation: sourceLocation)
        #expect(clause.count(in: columns, rowCount: Self.rows) == expected.count, sourceLocation: sourceLocation)
        let evaluated = (0..<Self.rows).filter { clause.evaluate(row: $0, in: columns) == true }
        #expect(evaluated == expected, sourceLocation: sourceLocation)
    }

    @Test func integerInList() throws {
        // Odd numbers from 1 up: the listed rows are the odd ones below 1,000 whose f is set.
        let list = (0..<Self.terms).map { String(2 * $0 + 1) }.joined(separator: ",")
        let odd = (0..<Self.rows).filter { $0 % 2 == 1 && Self.fIsSet($0) }
        try Self.check("f IN (" + list + ")", expected: odd)
        let even = (0..<Self.rows).filter { $0 % 2 == 0 && Self.fIsSet($0) }
        try Self.check("f NOT IN (" + list + ")", expected: even)
        // One item that is not a constant is scanned beside the hashed ones: d * 2 = f in every
        // row, d * 4 = 2f equals f nowhere (f is NULL where it is 0).
        let all = (0..<Self.rows).filter { Self.fIsSet($0) }
        try Self.check("f IN (" + list + ", d * 2)", expected: all)
        try Self.check("f NOT IN (" + list + ", d * 4)", expected: even)
    }

    @Test func mixedNumberInListOnDoubles() throws {
        // d = row / 2: the integers 0…499 (even rows) and the halves (odd rows). The list holds
        // every multiple of 3 as an integer and 1.5, 7.5, 13.5, … (3k + 1.5) as doubles.
        var items: [String] = []
        for k in 0..<(Self.terms / 2) {
            items.append(String(3 * k))
            items.append(String(3 * k + 1) + ".5")
        }
        let expected = (0..<Self.rows).filter { row in
            row % 2 == 0 ? (row / 2) % 3 == 0 : (row / 2) % 3 == 1
        }
        try Self.check("d IN (" + items.joined(separator: ", ") + ")", expected: expected)
    }

    @Test func stringInLists() throws {
        let list = (0..<Self.terms).map { "'s\(3 * $0)'" }.joined(separator: ",")
        try Self.check("s IN (" + list + ")", expected: (0..<Self.rows).filter { $0 % 3 == 0 && $0 % 10 != 0 })
        let categories = (0..<Self.terms).map { "'x\($0)'" }.joined(separator: ",") + ", 'east'"
        try Self.check("c IN (" + categories + ")", expected: (0..<Self.rows).filter { $0 % 4 == 2 })
    }

    @Test func orChainOfEqualities() throws {
        let chain = (0..<Self.terms).map { "f = \(5 * $0)" }.joined(separator: " OR ")
        try Self.check(chain, expected: (0..<Self.rows).filter { $0 % 5 == 0 && Self.fIsSet($0) })
        let reversed = (0..<Self.terms).map { "'s\(7 * $0)' = s" }.joined(separator: " OR ")
        try Self.check(reversed, expected: (0..<Self.rows).filter { $0 % 7 == 0 && $0 % 10 != 0 })
    }

    @Test func andChainOfInequalities() throws {
        let chain = (0..<Self.terms).map { "f <> \(5 * $0)" }.joined(separator: " AND ")
        try Self.check(chain, expected: (0..<Self.rows).filter { $0 % 5 != 0 && Self.fIsSet($0) })
    }

    /// A chain that cannot become an IN list: every term stays a node of its own, through the
    /// binder, the kernels and the row evaluator, none of which may recurse per term.
    @Test func longChainOfOtherTerms() throws {
        // f + k = 1,000 for some k < 500 ⇔ 501 ≤ f ≤ 1,000. (Every row is tested against
        // every term, so the evaluated chain is shorter than the parsed one below.)
        let evaluated = (0..<500).map { "f + \($0) = 1000" }.joined(separator: " OR ")
        try Self.check(evaluated, expected: (0..<Self.rows).filter { $0 >= 501 && Self.fIsSet($0) })
        let chain = (0..<Self.terms).map { "f + \($0) = 0" }.joined(separator: " OR ")
        let tree = try WhereClause.parse(chain)
        #expect(tree.height == 4)
        #expect(tree.children.count == Self.terms)
        #expect(tree == (try WhereClause.parse(chain)))
        #expect(tree.sexpr.hasPrefix("(or (= (+ f 0) 0) (= (+ f 1) 0)"))
        let clause = try CompiledWhereClause(chain, schema: Self.schema)
        // f + k = 0 only for f = 0 and k = 0, and f is NULL in row 0.
        #expect(clause.evaluate(row: 0, in: Self.columns) == nil)
        #expect(clause.evaluate(row: 1, in: Self.columns) == false)
    }

    @Test func parsedTreesOfHugeLists() throws {
        let list = (0..<Self.terms).map(String.init).joined(separator: ", ")
        let tree = try WhereClause.parse("f IN (" + list + ")")
        #expect(tree.height == 2)
        #expect(tree.children.count == Self.terms + 1)
        let sexpr = tree.sexpr
        #expect(sexpr.hasPrefix("(in f 0 1 2 3"))
        #expect(sexpr.hasSuffix(" 99998 99999)"))
        var hasher = Hasher()
        tree.hash(into: &hasher)
        _ = hasher.finalize()
    }

    // MARK: Deep nesting

    /// One million levels of each way to nest, including the unparenthesized prefix chains.
    static let deep: [(String, String)] = {
        let n = 1_000_000
        return [
            ("parentheses", String(repeating: "(", count: n) + "1 = 1" + String(repeating: ")", count: n)),
            ("NOT", String(repeating: "NOT ", count: n) + "f = 1"),
            ("unary minus", "f = " + String(repeating: "- ", count: n) + "1"),
            ("unary minus without spaces", "f = " + String(repeating: "-", count: n) + "f"),
            ("unary plus", "f = " + String(repeating: "+", count: n) + "f"),
            ("NOT and minus", String(repeating: "NOT -(", count: n) + "f = 1" + String(repeating: ")", count: n)),
            ("function calls", "f = " + String(repeating: "ABS(", count: n) + "1" + String(repeating: ")", count: n)),
            ("CASE", String(repeating: "CASE WHEN ", count: n) + "TRUE" + String(repeating: " THEN TRUE END", count: n)),
            ("CAST", "f = " + String(repeating: "CAST(", count: n) + "1" + String(repeating: " AS INTEGER)", count: n)),
            ("IN lists", "f IN (" + String(repeating: "f IN (", count: n)),
            ("arithmetic chain", "f = " + Array(repeating: "1", count: n).joined(separator: " + ")),
            ("parenthesized AND", String(repeating: "(f = 1 AND ", count: n) + "TRUE" + String(repeating: ")", count: n)),
        ]
    }()

    /// Runs `body` on a thread with a stack of `stackSize` bytes.
    static func onThread<T: Sendable>(stackSize: Int, _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.stackSize = stackSize
            thread.start()
        }
    }

    /// Clauses of 50,000 terms are flat all the way: compiled, run, printed, compared and
    /// dropped on a 512 KiB stack, where a recursion per term would overflow.
    @Test func hugeFlatClausesOnASmallStack() async {
        let outcomes = await Self.onThread(stackSize: 512 << 10) { () -> [String] in
            let terms = 50_000
            let list = "f IN (" + (0..<terms).map { String(2 * $0 + 1) }.joined(separator: ",") + ")"
            let chain = (0..<terms).map { "f = \(5 * $0)" }.joined(separator: " OR ")
            let others = (0..<terms).map { "f + \($0) = 0" }.joined(separator: " OR ")
            var outcomes: [String] = []
            for sql in [list, chain, others] {
                do throws(WhereClauseError) {
                    let tree = try WhereClause.parse(sql)
                    let clause = try CompiledWhereClause(sql, schema: Self.schema)
                    let count = clause.count(in: Self.columns, rowCount: 20)
                    let evaluated = (0..<20).filter { clause.evaluate(row: $0, in: Self.columns) == true }.count
                    outcomes.append("\(count == evaluated) \(tree == tree) \(tree.sexpr.count > sql.count / 2)")
                } catch {
                    outcomes.append("\(error)")
                }
            }
            return outcomes
        }
        #expect(outcomes == ["true true true", "true true true", "true true true"])
    }

    /// Clauses combined one by one (as definition expressions limit queries) stay one flat AND.
    @Test func combinedClausesStayFlat() async throws {
        var combined = try CompiledWhereClause("f IS NOT NULL", schema: Self.schema)
        for k in 0..<2_000 { combined = combined.and(try CompiledWhereClause("f <> \(k * 1_000 + 1)", schema: Self.schema)) }
        guard case .and(let operands) = combined.expression else {
            Issue.record("not an AND")
            return
        }
        #expect(operands.count == 2_001)
        let clause = combined
        let counts = await Self.onThread(stackSize: 512 << 10) { () -> [Int] in
            let rows = (0..<Self.rows).filter { clause.evaluate(row: $0, in: Self.columns) == true }
            return [clause.count(in: Self.columns, rowCount: Self.rows), rows.count]
        }
        // f <> 1, 1001, …: only row 1 is excluded besides the NULL rows.
        let expected = (0..<Self.rows).filter { Self.fIsSet($0) && $0 != 1 }.count
        #expect(counts == [expected, expected])
    }

    /// Every deep input is refused with the nesting error and a short message. The 200 levels
    /// parsed before the refusal take up to 2 MiB of stack in a debug build (a few hundred KiB
    /// in release); a recursion per level of the million would need hundreds of MiB. Dropping
    /// what was parsed does not recurse deeply either.
    @Test func deepNestingIsRefused() async {
        let outcomes = await Self.onThread(stackSize: 8 << 20) { () -> [String] in
            var outcomes: [String] = []
            for (name, sql) in Self.deep {
                do throws(WhereClauseError) {
                    _ = try CompiledWhereClause(sql, schema: Self.schema)
                    outcomes.append("\(name): accepted")
                } catch {
                    let ok = error.kind == .nestingTooDeep && error.message == "expression nested too deeply (more than 200 levels)"
                    outcomes.append(ok ? "\(name): refused" : "\(name): \(error.kind) \(error.message.prefix(200))")
                }
            }
            return outcomes
        }
        #expect(outcomes == Self.deep.map { "\($0.0): refused" })
    }

    /// Trees at the nesting limit are bound, folded, compiled, evaluated, printed, compared and
    /// dropped. (Binding 200 nested function calls takes up to 4 MiB of stack in a debug build,
    /// under 400 KiB in release.)
    @Test func deepestAcceptedTreesRunOnASmallStack() async {
        let limit = WhereClause.defaultMaximumDepth
        let clauses = [
            String(repeating: "NOT ", count: limit - 2) + "f = 1",
            String(repeating: "(f = 1 OR ", count: limit / 2 - 1) + "TRUE" + String(repeating: ")", count: limit / 2 - 1),
            "f = " + String(repeating: "- ", count: limit - 2) + "f",
            "f = " + String(repeating: "ABS(", count: limit - 2) + "f" + String(repeating: ")", count: limit - 2),
        ]
        let outcomes = await Self.onThread(stackSize: 8 << 20) { () -> [String] in
            var outcomes: [String] = []
            for sql in clauses {
                do throws(WhereClauseError) {
                    let tree = try WhereClause.parse(sql)
                    let clause = try CompiledWhereClause(sql, schema: Self.schema)
                    let count = clause.count(in: Self.columns, rowCount: Self.rows)
                    let evaluated = (0..<Self.rows).filter { clause.evaluate(row: $0, in: Self.columns) == true }.count
                    outcomes.append("\(tree.height) \(count == evaluated) \(tree == tree) \(tree.sexpr.count > 0)")
                } catch {
                    outcomes.append("\(error)")
                }
            }
            return outcomes
        }
        #expect(outcomes.count == clauses.count)
        for outcome in outcomes { #expect(outcome.hasSuffix(" true true true"), "\(outcome)") }
    }
}
