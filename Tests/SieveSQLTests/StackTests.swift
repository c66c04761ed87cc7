import Foundation
import Testing

@testable import SieveSQL

/// The nesting limit keeps parsing within a small stack: the deepest accepted inputs and the
/// rejected 100,000-level ones all parse on a thread with a 1 MiB stack, even in debug builds,
/// where one nesting level costs about 2 KB (parentheses) to 4.5 KB (`CASE`) of stack; optimized
/// builds need a fraction of that.
@Suite("Where-clause parser stack use")
struct StackTests {
    static let deepestAccepted: [String] = [
        String(repeating: "(", count: 199) + "1" + String(repeating: ")", count: 199),
        String(repeating: "NOT ", count: 199) + "a",
        String(repeating: "- ", count: 199) + "a",
        String(repeating: "ABS(", count: 199) + "1" + String(repeating: ")", count: 199),
        String(repeating: "CASE WHEN ", count: 99) + "a" + String(repeating: " THEN 1 END", count: 99),
        String(repeating: "x BETWEEN (", count: 99) + "1" + String(repeating: ") AND 2", count: 99),
        String(repeating: "TRIM(LEADING 'x' FROM ", count: 199) + "a" + String(repeating: ")", count: 199),
        String(repeating: "(", count: 100_000),
        String(repeating: "NOT ", count: 100_000),
    ]

    @Test func parsesOnASmallStack() async {
        let results = await withCheckedContinuation { (continuation: CheckedContinuation<[String], Never>) in
            let thread = Thread {
                var results: [String] = []
                for sql in Self.deepestAccepted {
                    do {
                        let expression = try WhereClause.parse(sql)
                        results.append("ok \(expression.height)")
                    } catch {
                        results.append((error as? WhereClauseError)?.kind.rawValue ?? "\(error)")
                    }
                }
                continuation.resume(returning: results)
            }
            thread.stackSize = 1024 * 1024
            thread.start()
        }
        #expect(results == [
            "ok 1", "ok 200", "ok 200", "ok 200", "ok 100", "ok 100", "ok 200",
            "nestingTooDeep", "nestingTooDeep",
        ])
    }
}
