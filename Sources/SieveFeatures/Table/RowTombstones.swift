/// Which rows of a table snapshot are deleted: a bitmap with one bit per row, set for a deleted
/// row (an update deletes the row it replaces too).
///
/// Bits are kept in chunks of 32,768 rows, each its own buffer shared by every snapshot that has
/// not changed it: a batch that deletes rows copies only the chunks those rows fall in (4 KiB
/// each) and the list of chunks (one reference per 32,768 rows), never the whole bitmap. Rows
/// appended after the last chunk are live without any bit being written (new chunks start
/// zeroed).
public struct RowTombstones: Sendable, Equatable {
    /// Rows per chunk.
    static let rowsPerChunk = 1 << 15
    static let wordsPerChunk = rowsPerChunk / 64

    /// One chunk's words. A class so that snapshots share it; written only while uniquely
    /// referenced (see ``RowTombstones/delete(_:)``).
    final class Chunk: @unchecked Sendable {
        var words: [UInt64]
        init() { words = Array(repeating: 0, count: RowTombstones.wordsPerChunk) }
        init(copying other: Chunk) { words = other.words }
    }

    private var chunks: [Chunk] = []
    /// The number of deleted rows.
    public private(set) var deletedCount = 0

    /// No row deleted.
    public init() {}

    /// Whether row `row` is deleted.
    @inline(__always)
    public func isDeleted(_ row: Int) -> Bool {
        let chunk = row >> 15
        guard chunk < chunks.count else { return false }
        return chunks[chunk].words[(row >> 6) & (Self.wordsPerChunk - 1)] & (1 << UInt64(row & 63)) != 0
    }

    /// Marks `row` deleted.
    /// - Returns: `false` when it already was.
    @discardableResult
    public mutating func delete(_ row: Int) -> Bool {
        precondition(row >= 0, "negative row")
        let c = row >> 15
        while chunks.count <= c { chunks.append(Chunk()) }
        let word = (row >> 6) & (Self.wordsPerChunk - 1)
        let bit: UInt64 = 1 << UInt64(row & 63)
        guard chunks[c].words[word] & bit == 0 else { return false }
        if !isKnownUniquelyReferenced(&chunks[c]) { chunks[c] = Chunk(copying: chunks[c]) }
        chunks[c].words[word] |= bit
        deletedCount += 1
        return true
    }

    /// The deleted rows below `rowCount`, in increasing order.
    public func deletedRows(below rowCount: Int) -> [UInt32] {
        var rows: [UInt32] = []
        rows.reserveCapacity(deletedCount)
        for (c, chunk) in chunks.enumerated() {
            for (w, word) in chunk.words.enumerated() where word != 0 {
                var bits = word
                while bits != 0 {
                    let row = c << 15 + w << 6 + bits.trailingZeroBitCount
                    if row >= rowCount { return rows }
                    rows.append(UInt32(row))
                    bits &= bits - 1
                }
            }
        }
        return rows
    }

    /// The rows of `rows` (sorted) that are not deleted.
    public func removingDeleted(from rows: [UInt32]) -> [UInt32] {
        guard deletedCount > 0 else { return rows }
        return rows.filter { !isDeleted(Int($0)) }
    }

    /// The bytes the bitmap holds.
    public var byteCount: Int { chunks.count * Self.wordsPerChunk * 8 }

    public static func == (a: RowTombstones, b: RowTombstones) -> Bool {
        guard a.deletedCount == b.deletedCount else { return false }
        let chunks = max(a.chunks.count, b.chunks.count)
        for c in 0..<chunks {
            let x = c < a.chunks.count ? a.chunks[c].words : nil
            let y = c < b.chunks.count ? b.chunks[c].words : nil
            if x == y { continue }
            if (x ?? []).allSatisfy({ $0 == 0 }) && (y ?? []).allSatisfy({ $0 == 0 }) { continue }
            return false
        }
        return true
    }
}
