import Foundation
import SieveIndex

/// The lazily built quadtree of a ``FeatureTable``: built on the first spatial query or
/// identify, then shared by every later one and by every copy of the table value
/// (``FeatureTable/with(collation:)`` included — the geometries are the same).
///
/// `@unchecked Sendable` because the only mutable state, `tree`, is read and written only while
/// `lock` is held; the tree itself is an immutable `Sendable` value once built, handed out by
/// copy (its arrays are copy-on-write and never written again).
final class SpatialIndexCache: @unchecked Sendable {
    private let lock = NSLock()
    private var tree: QuadTree?

    init() {}

    /// The tree, building it with `build` the first time (once, even when threads race).
    func tree(_ build: () -> QuadTree) -> QuadTree {
        lock.lock()
        defer { lock.unlock() }
        if let tree { return tree }
        let built = build()
        tree = built
        return built
    }

    /// Whether the tree has been built.
    var isBuilt: Bool {
        lock.lock()
        defer { lock.unlock() }
        return tree != nil
    }
}

extension FeatureTable {
    /// The quadtree over the rows' envelopes (rows without geometry left out), keyed by row
    /// number. Built once per table on first use — O(n log n) — and shared afterwards; safe to
    /// call from several threads at once.
    public var spatialIndex: QuadTree {
        spatialIndexCache.tree { QuadTree(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax) }
    }
}
