/// The rows a filter node looks at: a dense range, or a sorted list of row ids.
enum Rows {
    /// Rows `lower ..< upper`.
    case range(Int, Int)
    /// `count` sorted row ids at `ids`.
    case list(UnsafePointer<UInt32>, Int)

    var count: Int {
        switch self {
        case .range(let lower, let upper): upper - lower
        case .list(_, let count): count
        }
    }
}

/// Fixed-capacity scratch space for one batch of row ids.
final class RowBuffer {
    let pointer: UnsafeMutablePointer<UInt32>
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        pointer = .allocate(capacity: capacity)
    }

    deinit { pointer.deallocate() }
}

/// Set operations on sorted lists of row ids.
enum SortedRows {
    /// Merges two disjoint sorted lists into `output`; returns the count.
    static func union(
        _ a: UnsafePointer<UInt32>, _ aCount: Int, _ b: UnsafePointer<UInt32>, _ bCount: Int,
        into output: UnsafeMutablePointer<UInt32>
    ) -> Int {
        var i = 0, j = 0, n = 0
        while i < aCount && j < bCount {
            if a[i] < b[j] {
                output[n] = a[i]
                i += 1
            } else {
                output[n] = b[j]
                j += 1
            }
            n += 1
        }
        while i < aCount {
            output[n] = a[i]
            i += 1
            n += 1
        }
        while j < bCount {
            output[n] = b[j]
            j += 1
            n += 1
        }
        return n
    }

    /// Writes `rows` minus the sorted subset `remove` into `output`; returns the count.
    static func subtract(
        _ rows: Rows, _ remove: UnsafePointer<UInt32>, _ removeCount: Int, into output: UnsafeMutablePointer<UInt32>
    ) -> Int {
        var j = 0, n = 0
        @inline(__always) func visit(_ row: UInt32) {
            if j < removeCount && remove[j] == row {
                j += 1
            } else {
                output[n] = row
                n += 1
            }
        }
        switch rows {
        case .range(let lower, let upper):
            for row in lower..<upper { visit(UInt32(truncatingIfNeeded: row)) }
        case .list(let ids, let count):
            for k in 0..<count { visit(ids[k]) }
        }
        return n
    }

    /// Copies `rows` into `output`; returns the count.
    static func copy(_ rows: Rows, into output: UnsafeMutablePointer<UInt32>) -> Int {
        switch rows {
        case .range(let lower, let upper):
            for (k, row) in (lower..<upper).enumerated() { output[k] = UInt32(truncatingIfNeeded: row) }
            return upper - lower
        case .list(let ids, let count):
            output.update(from: ids, count: count)
            return count
        }
    }
}
