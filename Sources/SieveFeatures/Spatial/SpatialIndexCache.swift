#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import SieveGeometry
import SieveIndex

/// The quadtree of a ``FeatureTable`` and of every snapshot edited from it: built on the first
/// spatial query or identify, then kept up to date by inserting the rows each later snapshot
/// appended, and shared by every snapshot and copy of the table value
/// (``FeatureTable/with(collation:)`` included).
///
/// Rows are appended and never rewritten (an update appends the new version and deletes the old
/// one), so one tree can serve every snapshot: it holds every row up to the largest snapshot
/// that asked, and a snapshot keeps only the rows it has and has not deleted
/// (``FeatureTable/visibleRows(_:)``). Compaction renumbers the rows and starts a new cache.
///
/// `@unchecked Sendable` because the mutable state (`tree`, `indexedRows`) is read only under
/// the read lock and written only under the write lock: searches run concurrently, and an
/// insert waits for the searches in progress.
final class SpatialIndexCache: @unchecked Sendable {
    private let lock = ReadWriteLock()
    private var tree: QuadTree?
    /// The tree holds rows `0 ..< indexedRows`.
    private var indexedRows = 0

    init() {}

    /// A cache holding `seed`'s tree when it is built over exactly `rowCount` rows (a copy: the
    /// first insert copies its arrays once), else empty.
    init(seed: SpatialIndexCache, rowCount: Int) {
        seed.lock.lockForReading()
        defer { seed.lock.unlock() }
        if seed.indexedRows == rowCount, let tree = seed.tree {
            self.tree = tree
            indexedRows = rowCount
        }
    }

    /// Calls `body` with the tree, which holds at least the rows of `table` (building it, or
    /// inserting the rows appended since, first). Rows without geometry are not in it.
    func withTree<R, E: Error>(for table: FeatureTable, _ body: (QuadTree) throws(E) -> R) throws(E) -> R {
        lock.lockForReading()
        if let tree, indexedRows >= table.count {
            defer { lock.unlock() }
            return try body(tree)
        }
        lock.unlock()
        lock.lockForWriting()
        defer { lock.unlock() }
        if tree == nil {
            tree = QuadTree(xmin: table.xmin, ymin: table.ymin, xmax: table.xmax, ymax: table.ymax)
            indexedRows = table.count
        } else if indexedRows < table.count, var updated = tree {
            tree = nil  // unique while inserting: no copy of the tree's arrays
            for row in indexedRows..<table.count {
                if let envelope = table.envelope(row: row) { updated.insert(UInt32(row), envelope: envelope) }
            }
            tree = updated
            indexedRows = table.count
        }
        // Unwrapping cannot fail: the tree was set just above.
        guard let tree else { return try body(QuadTree()) }
        return try body(tree)
    }

    /// Whether the tree has been built.
    var isBuilt: Bool {
        lock.lockForReading()
        defer { lock.unlock() }
        return tree != nil
    }

    /// The number of rows the tree covers (0 before it is built).
    var coveredRows: Int {
        lock.lockForReading()
        defer { lock.unlock() }
        return indexedRows
    }
}

/// A POSIX read-write lock: any number of readers, or one writer.
final class ReadWriteLock: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    init() {
        lock = UnsafeMutablePointer.allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    func lockForReading() { pthread_rwlock_rdlock(lock) }
    func lockForWriting() { pthread_rwlock_wrlock(lock) }
    func unlock() { pthread_rwlock_unlock(lock) }
}

extension FeatureTable {
    /// The quadtree over the rows' envelopes (rows without geometry left out), keyed by row
    /// number. Built once per table on first use — O(n log n) — and shared afterwards; safe to
    /// call from several threads at once.
    ///
    /// For a snapshot of an edited table the tree may also hold rows this snapshot does not
    /// have (appended by later edits) or has deleted: keep only the ids below ``count`` that
    /// ``isDeleted(row:)`` does not report (``visibleRows(_:)`` does both).
    public var spatialIndex: QuadTree {
        spatialIndexCache.withTree(for: self) { $0 }
    }

    /// Calls `body` with the spatial index (see ``spatialIndex``) without copying it, so that
    /// edits never have to copy the tree a search is reading.
    func withSpatialIndex<R, E: Error>(_ body: (QuadTree) throws(E) -> R) throws(E) -> R {
        try spatialIndexCache.withTree(for: self, body)
    }

    /// `rows` (ids from the spatial index) without those this snapshot does not have or has
    /// deleted, in the same order.
    func visibleRows(_ rows: [UInt32]) -> [UInt32] {
        guard tombstones.deletedCount > 0 || spatialIndexCache.coveredRows > count else { return rows }
        return rows.filter { Int($0) < count && !tombstones.isDeleted(Int($0)) }
    }
}
