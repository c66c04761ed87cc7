import SieveColumns

/// A compiled condition bound to a table's columns, run batch by batch.
///
/// Not thread-safe (its nodes own scratch buffers): compile one per query and thread.
final class FilterProgram {
    let root: FilterNode
    let batchSize: Int
    private let output: RowBuffer
    private let input: RowBuffer

    init(_ expression: BoundExpression, columns: [Column], collation: Collation, batchSize: Int = 2048) {
        self.batchSize = batchSize
        root = FilterCompiler(columns: columns, collation: collation, batchSize: batchSize).compile(expression)
        output = RowBuffer(capacity: batchSize)
        input = RowBuffer(capacity: batchSize)
    }

    /// Calls `body` with the passing rows of each batch, in ascending order: rows
    /// `0 ..< rowCount`, or only `candidates` (sorted ascending) when given.
    func forEachBatch(rowCount: Int, candidates: [UInt32]?, _ body: (UnsafeBufferPointer<UInt32>) -> Void) {
        if let candidates {
            var start = 0
            while start < candidates.count {
                let end = min(start + batchSize, candidates.count)
                for k in start..<end { input.pointer[k - start] = candidates[k] }
                let count = root.select(.list(UnsafePointer(input.pointer), end - start), wantTrue: true, into: output.pointer)
                body(UnsafeBufferPointer(start: output.pointer, count: count))
                start = end
            }
            return
        }
        var start = 0
        while start < rowCount {
            let end = min(start + batchSize, rowCount)
            let count = root.select(.range(start, end), wantTrue: true, into: output.pointer)
            body(UnsafeBufferPointer(start: output.pointer, count: count))
            start = end
        }
    }

    /// How many rows pass. The root node counts without listing rows where it can.
    func count(rowCount: Int, candidates: [UInt32]? = nil) -> Int {
        var total = 0
        if candidates == nil {
            var start = 0
            while start < rowCount {
                let end = min(start + batchSize, rowCount)
                total += root.countTrue(.range(start, end), scratch: output.pointer)
                start = end
            }
            return total
        }
        forEachBatch(rowCount: rowCount, candidates: candidates) { total += $0.count }
        return total
    }

    /// The passing rows, ascending.
    func rows(rowCount: Int, candidates: [UInt32]? = nil) -> [UInt32] {
        var result: [UInt32] = []
        forEachBatch(rowCount: rowCount, candidates: candidates) { result.append(contentsOf: $0) }
        return result
    }
}
