#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import SieveBase
import SieveGeometry
import SieveIndex
import Synchronization

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
/// **Searches never wait for inserts.** The cache keeps the tree in two slots (the *left-right*
/// technique): searches read the active slot, counting themselves in and out; the one thread
/// maintaining the tree (the table's writer, or a search that found the tree behind its
/// snapshot) inserts the new rows into the other slot, makes it the active one, waits for the
/// searches still reading the old slot to finish, and brings that slot up to date too. A table
/// that is never edited has one tree (the second slot shares its arrays and is never written);
/// an edited one pays a second copy of the tree, made on the first insert.
///
/// `@unchecked Sendable`: a slot's tree is written only by the maintainer (one at a time, under
/// `maintenance`) while the slot is inactive and no search counts itself in it; searches read
/// only the active slot, after counting themselves in and checking it is still the active one
/// (sequentially consistent atomics order the two protocols).
package final class SpatialIndexCache: @unchecked Sendable {
    /// One copy of the tree and the rows it holds (`0 ..< indexedRows`).
    private final class Slot: @unchecked Sendable {
        var tree: QuadTree?
        var indexedRows = 0
        let readers = Atomic<Int>(0)
    }

    private let slots = [Slot(), Slot()]
    private let active = Atomic<Int>(0)
    private let maintenance = Locked(())

    package init() {}

    /// A cache holding `seed`'s tree when it is built over exactly `rowCount` rows (shared: the
    /// first insert copies its arrays once), else empty.
    package init(seed: SpatialIndexCache, rowCount: Int) {
        seed.withActiveSlot { slot in
            if slot.indexedRows == rowCount, let tree = slot.tree {
                slots[0].tree = tree
                slots[0].indexedRows = rowCount
            }
        }
    }

    /// Runs `body` with the active slot, counted in it (so that the maintainer does not write
    /// it meanwhile).
    private func withActiveSlot<R, E: Error>(_ body: (Slot) throws(E) -> R) throws(E) -> R {
        while true {
            let index = active.load(ordering: .sequentiallyConsistent)
            let slot = slots[index]
            slot.readers.add(1, ordering: .sequentiallyConsistent)
            guard active.load(ordering: .sequentiallyConsistent) == index else {
                // The maintainer switched slots in between: it may be writing this one.
                slot.readers.subtract(1, ordering: .sequentiallyConsistent)
                continue
            }
            defer { slot.readers.subtract(1, ordering: .sequentiallyConsistent) }
            return try body(slot)
        }
    }

    /// Calls `body` with the tree, which holds at least the rows of `table` (building it, or
    /// inserting the rows appended since, first). Rows without geometry are not in it.
    func withTree<R, E: Error>(for table: FeatureTable, _ body: (QuadTree) throws(E) -> R) throws(E) -> R {
        while true {
            let answer: R? = try withActiveSlot { slot throws(E) -> R? in
                guard let tree = slot.tree, slot.indexedRows >= table.count else { return nil }
                return try body(tree)
            }
            if let answer { return answer }
            catchUp(to: table)
        }
    }

    /// Builds the tree over `table`'s rows, or inserts the rows it does not hold yet: into the
    /// inactive slot, which then becomes the active one; then, once no search reads the
    /// formerly active slot, into that one too.
    private func catchUp(to table: FeatureTable) {
        maintenance.withLock { _ in
            let index = active.load(ordering: .sequentiallyConsistent)
            let current = slots[index], other = slots[1 - index]
            if current.tree != nil, current.indexedRows >= table.count { return }
            Self.bringUp(other, from: current, to: table)
            active.store(1 - index, ordering: .sequentiallyConsistent)
            while current.readers.load(ordering: .sequentiallyConsistent) != 0 { sched_yield() }
            Self.bringUp(current, from: other, to: table)
        }
    }

    /// Makes `slot` (which no search reads) hold rows `0 ..< table.count`: a bulk load when
    /// neither slot has a tree, a share of `source`'s tree when `slot` has none, then inserts.
    private static func bringUp(_ slot: Slot, from source: Slot, to table: FeatureTable) {
        if slot.tree == nil {
            if let tree = source.tree {
                slot.tree = tree
                slot.indexedRows = source.indexedRows
            } else {
                slot.tree = QuadTree(xmin: table.xmin, ymin: table.ymin, xmax: table.xmax, ymax: table.ymax)
                slot.indexedRows = table.count
                return
            }
        }
        guard slot.indexedRows < table.count, var tree = slot.tree else { return }
        slot.tree = nil  // unique while inserting: no copy of the tree's arrays
        for row in slot.indexedRows..<table.count {
            if let envelope = table.envelope(row: row) { tree.insert(UInt32(row), envelope: envelope) }
        }
        slot.tree = tree
        slot.indexedRows = table.count
    }

    /// Whether the tree has been built.
    package var isBuilt: Bool { withActiveSlot { $0.tree != nil } }
}

extension FeatureTable {
    /// The quadtree over the rows' envelopes (rows without geometry left out), keyed by row
    /// number. Built once per table on first use — O(n log n) — and shared afterwards; safe to
    /// call from several threads at once.
    ///
    /// For a snapshot of an edited table the tree may also hold rows this snapshot does not
    /// have (appended by later edits) or has deleted: keep only the ids below ``count`` that
    /// ``isDeleted(row:)`` does not report (`visibleRows(_:)` does both).
    public var spatialIndex: QuadTree {
        spatialIndexCache.withTree(for: self) { $0 }
    }

    /// Calls `body` with the spatial index (see ``spatialIndex``) without copying it, so that
    /// edits never have to copy the tree a search is reading.
    package func withSpatialIndex<R, E: Error>(_ body: (QuadTree) throws(E) -> R) throws(E) -> R {
        try spatialIndexCache.withTree(for: self, body)
    }

    /// `rows` (ids from the spatial index) without those this snapshot does not have or has
    /// deleted, in the same order.
    package func visibleRows(_ rows: [UInt32]) -> [UInt32] {
        // Only an edited table's tree holds rows beyond a snapshot's.
        guard tombstones.deletedCount > 0 || lineage != nil else { return rows }
        return rows.filter { Int($0) < count && !tombstones.isDeleted(Int($0)) }
    }
}
