import SieveGeometry

/// An in-memory quadtree over envelopes, keyed by row ids: the primary filter of spatial
/// queries and identify. It answers which ids have an envelope that intersects a rectangle,
/// lies within a radius of a point, or is nearest to a point; exact geometry tests (GEOS) are a
/// second step done by the caller.
///
/// **Structure.** The tree partitions a square root cell into quadrants. Every item lives in the
/// leaf whose cell holds its envelope's centre, so points (zero-size envelopes) and small
/// features sit exactly where they are. Every node keeps the bounding box of everything below it,
/// which may extend beyond its cell for large features; queries test these boxes, so the answer
/// is exact for envelopes of any size. A node whose box lies inside a query window is swept whole,
/// without testing its items one by one.
///
/// **Storage.** Nodes and items live in flat arrays, with no object per node. A node is four box
/// values, four child indices and, for a leaf, a contiguous range of item slots. Items are stored
/// column-wise: ids, lower corners and upper corners in three arrays, so a leaf that holds only
/// points is scanned reading 16 bytes per item. A bulk load lays the leaves out in Z order with
/// no gaps, so neighbouring cells are neighbours in memory. Searches walk these arrays with an
/// explicit stack and no allocation.
///
/// **Bulk load.** Each centre is snapped to a 2³⁰ × 2³⁰ grid over the root cell, whose lines are
/// exact binary fractions of it, so the grid cell of a centre is exactly the quadrant path the
/// tree's midpoint comparisons give. The Z-order (Morton) keys are sorted by a most-significant-
/// digit radix sort that stops refining a range once it fits a leaf, and the tree is read off the
/// sorted keys. No comparison sort, no recursion on the thread's stack.
///
/// **Edits.** ``insert(_:envelope:)``, ``remove(_:)`` and ``move(_:to:)`` update the tree in
/// place: an insert descends to its leaf (splitting it when full, or moving the leaf's items to
/// a larger range at the end of the item arrays when its range is full); a remove moves the
/// leaf's last item into the freed slot, in constant time through an id-to-slot table. Ranges
/// left behind are reclaimed by compacting the item arrays once they make up half of them. Node
/// boxes grow on insert and are not shrunk on remove (they stay correct, only looser);
/// ``rebuild()`` tightens everything.
///
/// `QuadTree` is a value type (copy-on-write arrays) and `Sendable`: readers may share one tree
/// across threads; an edit makes the editor's copy unique.
public struct QuadTree: Sendable {
    /// Most items a leaf takes before an insert splits it (unless it is at the maximum depth,
    /// where it keeps growing).
    public static let leafCapacity = 32
    /// Levels below the root at most; deeper cells would be smaller than the coordinates can
    /// tell apart for any sane data, and identical points must stop somewhere.
    public static let maximumDepth = 40

    // Root cell: [originX, originX + size] × [originY, originY + size].
    var originX = 0.0
    var originY = 0.0
    var size = 0.0
    var root: Int32 = -1

    // Nodes: four box values, four children (-1 = none), the item range (leaves only), and the
    // node's cell (x, y, side), stored so that no cell is ever recomputed differently.
    var nodeBoxes: [Double] = []
    var nodeCells: [Double] = []
    var nodeChildren: [Int32] = []
    var nodeItems: [ItemRange] = []

    // Item slots, column-wise: id, lower corner (x0, y0), upper corner (x1, y1).
    var itemIDs: [UInt32] = []
    var itemLow: [Double] = []
    var itemHigh: [Double] = []
    /// Slots that belong to no leaf (left behind when a leaf moved or split).
    var garbageSlots = 0

    /// For every id, the slot holding it, or -1; and the leaf holding it.
    var slotOfID: [Int32] = []
    var leafOfID: [Int32] = []

    /// Number of items.
    public internal(set) var count = 0
    /// How many times the root grew (each adds a level above the bulk-built tree), which bounds
    /// the search stack together with ``maximumDepth``.
    var rootGrowth = 0

    /// Room for a depth-first search's stack: at most three pending siblings per level.
    var searchStackCapacity: Int { 4 * (Self.maximumDepth + rootGrowth + 2) }

    /// A leaf's slots: `start ..< start + count` are items, up to `start + capacity` are free.
    /// An inner node has `start == -1`.
    struct ItemRange: Sendable {
        var start: Int32
        var count: Int32
        var capacity: Int32
        /// Whether any item of the leaf has a non-zero-size box (when not, scans read only the
        /// lower corners). Set when such an item arrives; not cleared when it leaves.
        var hasBoxes: Bool

        static let inner = ItemRange(start: -1, count: 0, capacity: 0, hasBoxes: false)

        @inline(__always) var isLeaf: Bool { start >= 0 }
        @inline(__always) var slots: Range<Int> { Int(start)..<(Int(start) + Int(count)) }
    }

    /// An empty tree.
    public init() {}

    /// Builds a tree over the envelopes `xmin[i] … ymax[i]` with ids `i`; rows whose bounds are
    /// NaN (no geometry) or infinite are left out.
    /// - Complexity: O(n) for the keys and the tree, plus a radix sort that stops once ranges fit
    ///   a leaf (a few passes over the keys for any realistic distribution).
    public init(xmin: [Double], ymin: [Double], xmax: [Double], ymax: [Double]) {
        precondition(xmin.count == ymin.count && xmin.count == xmax.count && xmin.count == ymax.count, "bounds arrays differ in length")
        bulkLoad(ids: nil, xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
    }

    /// Builds a tree over the given ids, whose envelopes are `xmin[id] … ymax[id]`. Ids whose
    /// bounds are NaN or infinite are left out.
    public init(ids: [UInt32], xmin: [Double], ymin: [Double], xmax: [Double], ymax: [Double]) {
        precondition(xmin.count == ymin.count && xmin.count == xmax.count && xmin.count == ymax.count, "bounds arrays differ in length")
        bulkLoad(ids: ids, xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
    }

    /// Whether a box can be indexed: finite and not inverted.
    @inline(__always)
    static func isIndexable(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Bool {
        x0.isFinite && y0.isFinite && x1.isFinite && y1.isFinite && x0 <= x1 && y0 <= y1
    }

    /// The root cell (the square the quadrants subdivide); empty for an empty tree.
    public var rootCell: Envelope {
        root < 0 ? .empty : Envelope(xmin: originX, ymin: originY, xmax: originX + size, ymax: originY + size)
    }

    /// The bounding box of all items (possibly loose after removals).
    public var bounds: Envelope {
        guard root >= 0, count > 0 else { return .empty }
        let b = Int(root) * 4
        return Envelope(xmin: nodeBoxes[b], ymin: nodeBoxes[b + 1], xmax: nodeBoxes[b + 2], ymax: nodeBoxes[b + 3])
    }

    /// Whether the tree holds `id`.
    public func contains(_ id: UInt32) -> Bool {
        Int(id) < slotOfID.count && slotOfID[Int(id)] >= 0
    }

    /// The envelope stored for `id`, if present.
    public func envelope(of id: UInt32) -> Envelope? {
        guard contains(id) else { return nil }
        let s = Int(slotOfID[Int(id)]) * 2
        return Envelope(xmin: itemLow[s], ymin: itemLow[s + 1], xmax: itemHigh[s], ymax: itemHigh[s + 1])
    }

    // MARK: - Storage helpers

    mutating func newNode(x: Double, y: Double, side: Double) -> Int32 {
        let node = Int32(nodeItems.count)
        nodeCells.append(x)
        nodeCells.append(y)
        nodeCells.append(side)
        nodeBoxes.append(.infinity)
        nodeBoxes.append(.infinity)
        nodeBoxes.append(-.infinity)
        nodeBoxes.append(-.infinity)
        for _ in 0..<4 { nodeChildren.append(-1) }
        nodeItems.append(.inner)
        return node
    }

    /// Makes node `n` an empty leaf with room for `capacity` items at the end of the item arrays.
    mutating func makeLeaf(_ n: Int32, capacity: Int) {
        nodeItems[Int(n)] = ItemRange(start: Int32(itemIDs.count), count: 0, capacity: Int32(capacity), hasBoxes: false)
        itemIDs.append(contentsOf: repeatElement(0, count: capacity))
        itemLow.append(contentsOf: repeatElement(0, count: capacity * 2))
        itemHigh.append(contentsOf: repeatElement(0, count: capacity * 2))
    }

    /// The capacity a leaf gets when it is created or outgrows its range: room to double.
    static func grownCapacity(for count: Int) -> Int { Swift.max(8, 2 * count) }

    /// Grows node `n`'s box to include the box.
    @inline(__always)
    mutating func expandNode(_ n: Int32, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        let b = Int(n) * 4
        if x0 < nodeBoxes[b] { nodeBoxes[b] = x0 }
        if y0 < nodeBoxes[b + 1] { nodeBoxes[b + 1] = y0 }
        if x1 > nodeBoxes[b + 2] { nodeBoxes[b + 2] = x1 }
        if y1 > nodeBoxes[b + 3] { nodeBoxes[b + 3] = y1 }
    }

    /// Writes an item into `slot` and points the id tables at it.
    @inline(__always)
    mutating func storeItem(_ slot: Int, leaf: Int32, id: UInt32, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        itemIDs[slot] = id
        itemLow[slot * 2] = x0
        itemLow[slot * 2 + 1] = y0
        itemHigh[slot * 2] = x1
        itemHigh[slot * 2 + 1] = y1
        let index = Int(id)
        if index >= slotOfID.count {
            let grow = index + 1 - slotOfID.count
            slotOfID.append(contentsOf: repeatElement(-1, count: grow))
            leafOfID.append(contentsOf: repeatElement(-1, count: grow))
        }
        slotOfID[index] = Int32(slot)
        leafOfID[index] = leaf
    }

    /// Appends an item to leaf `n` (moving the leaf to a larger range when its range is full)
    /// and grows the leaf's box.
    mutating func appendToLeaf(_ n: Int32, id: UInt32, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        if nodeItems[Int(n)].count == nodeItems[Int(n)].capacity {
            relocateLeaf(n, capacity: Self.grownCapacity(for: Int(nodeItems[Int(n)].count)))
        }
        let range = nodeItems[Int(n)]
        storeItem(Int(range.start) + Int(range.count), leaf: n, id: id, x0, y0, x1, y1)
        nodeItems[Int(n)].count += 1
        if x0 != x1 || y0 != y1 { nodeItems[Int(n)].hasBoxes = true }
        expandNode(n, x0, y0, x1, y1)
    }

    /// Moves leaf `n`'s items to a fresh range of `capacity` slots at the end of the item arrays;
    /// the old range becomes garbage (reclaimed by ``compactItemsIfWorthIt()``).
    private mutating func relocateLeaf(_ n: Int32, capacity: Int) {
        let old = nodeItems[Int(n)]
        makeLeaf(n, capacity: capacity)
        nodeItems[Int(n)].hasBoxes = old.hasBoxes
        let start = Int(nodeItems[Int(n)].start)
        for (offset, slot) in old.slots.enumerated() {
            let id = itemIDs[slot]
            storeItem(
                start + offset, leaf: n, id: id, itemLow[slot * 2], itemLow[slot * 2 + 1], itemHigh[slot * 2], itemHigh[slot * 2 + 1])
        }
        nodeItems[Int(n)].count = old.count
        garbageSlots += Int(old.capacity)
    }

    /// Compacts the item arrays (every leaf's items packed in tree order, each range exactly
    /// full) once garbage makes up more than half of them; leaves the nodes alone.
    mutating func compactItemsIfWorthIt() {
        guard garbageSlots >= Self.leafCapacity, garbageSlots * 2 > itemIDs.count, root >= 0 else { return }
        let live = itemIDs.count - garbageSlots
        var ids: [UInt32] = []
        var low: [Double] = []
        var high: [Double] = []
        ids.reserveCapacity(live)
        low.reserveCapacity(live * 2)
        high.reserveCapacity(live * 2)
        var stack: [Int32] = [root]
        while let node = stack.popLast() {
            let range = nodeItems[Int(node)]
            guard range.isLeaf else {
                for k in (0..<4).reversed() where nodeChildren[Int(node) * 4 + k] >= 0 { stack.append(nodeChildren[Int(node) * 4 + k]) }
                continue
            }
            let start = ids.count
            for slot in range.slots {
                slotOfID[Int(itemIDs[slot])] = Int32(ids.count)
                ids.append(itemIDs[slot])
                low.append(itemLow[slot * 2])
                low.append(itemLow[slot * 2 + 1])
                high.append(itemHigh[slot * 2])
                high.append(itemHigh[slot * 2 + 1])
            }
            nodeItems[Int(node)].start = Int32(start)
            nodeItems[Int(node)].capacity = range.count
        }
        itemIDs = ids
        itemLow = low
        itemHigh = high
        garbageSlots = 0
    }

    /// A square cell holding the box `minX…maxX × minY…maxY`, whose side is a power of two and
    /// whose corner lies on a grid of `side / 2^keyBits`, so that every cell corner down to depth
    /// `keyBits` is exactly representable: halving a cell never rounds, and a centre's quadrant
    /// path is exactly its grid cell (what the bulk load's keys rely on). `keyBits` is 30 unless
    /// the cell is tiny next to its distance from zero, where fewer grid lines are representable.
    static func gridRootCell(minX: Double, minY: Double, maxX: Double, maxY: Double)
        -> (x: Double, y: Double, side: Double, keyBits: Int)
    {
        let extent = Swift.max(maxX - minX, maxY - minY)
        let floor = Swift.max(1, Swift.max(abs(minX), abs(minY)) * 0x1p-40)
        guard extent.isFinite, extent < 0x1p1000 else {
            // Coordinates near the limits of Double: one cell, no keys.
            return (minX, minY, extent.isFinite ? extent : .greatestFiniteMagnitude, 0)
        }
        var side = Self.powerOfTwo(atLeast: extent > 0 ? extent : floor)
        while true {
            var keyBits = 30
            while keyBits > 0 {
                let unit = side / Double(1 << keyBits)
                let x = (minX / unit).rounded(.down) * unit, y = (minY / unit).rounded(.down) * unit
                let largest = Swift.max(abs(x), abs(x + side), abs(y), abs(y + side))
                if largest < 0x1p53 * unit && unit >= 0x1p-1000 {
                    if x + side >= maxX && y + side >= maxY { return (x, y, side, keyBits) }
                    break
                }
                keyBits -= 1
            }
            if keyBits == 0 && minX + side >= maxX && minY + side >= maxY { return (minX, minY, side, 0) }
            side *= 2
        }
    }

    /// The smallest power of two at least `value` (positive, finite).
    static func powerOfTwo(atLeast value: Double) -> Double {
        let candidate = Double(sign: .plus, exponent: value.exponent, significand: 1)
        return candidate >= value ? candidate : candidate * 2
    }

    /// The cell (x, y, side) of node `n`.
    @inline(__always)
    func cell(of n: Int32) -> (x: Double, y: Double, side: Double) {
        let c = Int(n) * 3
        return (nodeCells[c], nodeCells[c + 1], nodeCells[c + 2])
    }

    /// The cell of quadrant `q` of a cell.
    @inline(__always)
    static func quadrantCell(_ q: Int, of cell: (x: Double, y: Double, side: Double)) -> (x: Double, y: Double, side: Double) {
        let half = cell.side / 2
        return (q & 1 == 0 ? cell.x : cell.x + half, q & 2 == 0 ? cell.y : cell.y + half, half)
    }

    /// The quadrant (0 SW, 1 SE, 2 NW, 3 NE) of a centre within a cell.
    @inline(__always)
    static func quadrant(_ cx: Double, _ cy: Double, midX: Double, midY: Double) -> Int {
        (cx >= midX ? 1 : 0) | (cy >= midY ? 2 : 0)
    }
}
