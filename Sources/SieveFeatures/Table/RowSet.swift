/// A set of rows of one table snapshot, as a bitmap: what a selection or a display filter holds
/// when it is resolved against the rows a table has now.
///
/// Built from row numbers (``init(rows:in:)``), it never holds a deleted row of that table, so
/// iterating it visits live features only, in ascending row order. Set operations combine sets
/// of the same table (the larger row count wins). Membership and insertion are O(1); union,
/// intersection and subtraction run over 64 rows per step.
///
/// ```swift
/// let shown = RowSet(rows: try prepared.matchingRows(in: table), in: table)
/// shown.contains(42)      // whether row 42 is shown
/// shown.count             // how many
/// ```
public struct RowSet: Hashable, Sendable, Sequence {
    /// One bit per row, row r in word r / 64, bit r % 64.
    private var words: [UInt64]
    /// The number of rows the set ranges over (the table's row slots when it was built).
    public private(set) var rowCount: Int
    /// How many rows are in the set.
    public private(set) var count: Int

    /// The empty set over `rowCount` rows.
    public init(rowCount: Int = 0) {
        self.rowCount = Swift.max(0, rowCount)
        words = [UInt64](repeating: 0, count: (self.rowCount + 63) / 64)
        count = 0
    }

    /// The set of `rows` of `table` (any order, repeats allowed), leaving out rows the table
    /// does not have and deleted rows.
    public init<Rows: Sequence>(rows: Rows, in table: FeatureTable) where Rows.Element: BinaryInteger {
        self.init(rowCount: table.count)
        let tombstones = table.tombstones
        let checkDeleted = tombstones.deletedCount > 0
        for row in rows {
            guard let r = Int(exactly: row), r >= 0, r < rowCount else { continue }
            if checkDeleted, tombstones.isDeleted(r) { continue }
            insert(r)
        }
    }

    /// Every live row of `table`.
    public init(allRowsOf table: FeatureTable) {
        self.init(rowCount: table.count)
        let full = table.count / 64
        for w in 0..<full { words[w] = ~0 }
        let rest = table.count % 64
        if rest > 0 { words[full] = (1 << UInt64(rest)) - 1 }
        count = table.count
        if table.tombstones.deletedCount > 0 {
            for row in table.tombstones.deletedRows(below: table.count) { remove(Int(row)) }
        }
    }

    /// Whether the set is empty.
    public var isEmpty: Bool { count == 0 }

    /// Whether `row` is in the set.
    @inline(__always)
    public func contains(_ row: Int) -> Bool {
        guard row >= 0, row < rowCount else { return false }
        return words[row >> 6] & (1 << UInt64(row & 63)) != 0
    }

    /// Adds `row` (growing the range when it lies past it). Negative rows are ignored.
    public mutating func insert(_ row: Int) {
        guard row >= 0 else { return }
        if row >= rowCount { grow(to: row + 1) }
        let mask: UInt64 = 1 << UInt64(row & 63)
        if words[row >> 6] & mask == 0 {
            words[row >> 6] |= mask
            count += 1
        }
    }

    /// Removes `row` when present.
    public mutating func remove(_ row: Int) {
        guard row >= 0, row < rowCount else { return }
        let mask: UInt64 = 1 << UInt64(row & 63)
        if words[row >> 6] & mask != 0 {
            words[row >> 6] &= ~mask
            count -= 1
        }
    }

    private mutating func grow(to rows: Int) {
        rowCount = rows
        let needed = (rows + 63) / 64
        if needed > words.count { words += [UInt64](repeating: 0, count: needed - words.count) }
    }

    /// The rows in either set.
    public func union(_ other: RowSet) -> RowSet { combined(other) { $0 | $1 } }
    /// The rows in both sets.
    public func intersection(_ other: RowSet) -> RowSet { combined(other) { $0 & $1 } }
    /// The rows of this set that are not in `other`.
    public func subtracting(_ other: RowSet) -> RowSet { combined(other) { $0 & ~$1 } }

    private func combined(_ other: RowSet, _ op: (UInt64, UInt64) -> UInt64) -> RowSet {
        var result = RowSet(rowCount: Swift.max(rowCount, other.rowCount))
        var total = 0
        for w in result.words.indices {
            let a = w < words.count ? words[w] : 0
            let b = w < other.words.count ? other.words[w] : 0
            let word = op(a, b)
            result.words[w] = word
            total += word.nonzeroBitCount
        }
        result.count = total
        return result
    }

    /// The rows, ascending.
    public var rows: [UInt32] {
        var result: [UInt32] = []
        result.reserveCapacity(count)
        for (w, word) in words.enumerated() where word != 0 {
            var bits = word
            while bits != 0 {
                result.append(UInt32(w * 64 + bits.trailingZeroBitCount))
                bits &= bits - 1
            }
        }
        return result
    }

    /// The rows in ascending order.
    public func makeIterator() -> IndexingIterator<[Int]> { rows.map(Int.init).makeIterator() }

    /// The rows of this set still live in `table` (a later snapshot of the same table): rows
    /// deleted since are left out.
    public func removingDeleted(in table: FeatureTable) -> RowSet {
        guard table.tombstones.deletedCount > 0 else { return self }
        var result = self
        for row in table.tombstones.deletedRows(below: Swift.min(rowCount, table.count)) { result.remove(Int(row)) }
        return result
    }
}
