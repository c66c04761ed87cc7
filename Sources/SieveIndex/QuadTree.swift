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
/// without testing its items one by one, and with a single copy of their ids while its subtree's
/// items are packed together (after a bulk load or a compaction, until an edit below it).
///
/// **Storage.** Nodes and items live in flat arrays, with no object per node. An inner node holds,
/// one SIMD lane per quadrant, its four children's boxes and what each child is: an inner node,
/// or a leaf given by its range of item slots and its item count. A search therefore decides all
/// four children from one node's memory and goes from a node straight to its leaves' items. Items
/// are stored column-wise: ids, lower corners and upper corners in three arrays, so a leaf that
/// holds only points is scanned reading 16 bytes per item. A bulk load lays the leaves out in Z order with
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
/// left behind are reclaimed by compacting the item arrays once they outnumber the items. Node
/// boxes grow on insert and are not shrunk on remove (they stay correct, only looser);
/// ``rebuild()`` tightens everything.
///
/// **Ids** index the id-to-slot tables directly, so memory grows with the largest id as well as
/// with the item count: ids are meant to be row numbers (dense from 0). A tree holds fewer than
/// ``maximumCount`` items.
///
/// `QuadTree` is a value type (copy-on-write arrays) and `Sendable`: readers may share one tree
/// across threads; an edit makes the editor's copy unique.
public struct QuadTree: Sendable {
    /// Most items a leaf takes before an insert splits it (unless it is at the maximum depth,
    /// where it keeps growing), and the most a bulk load puts in one.
    ///
    /// Large leaves pay: a leaf of points is one branch-free streaming scan, while every level of
    /// nodes is another dependent cache miss. Measured on 1,000,000 points (`geosieve-bench
    /// spatial`), 128 beat 16, 32, 64, 256 and 512 on windows, identify and the region filter.
    public static let leafCapacity = 128
    /// Levels below the root at most; deeper cells would be smaller than the coordinates can
    /// tell apart for any sane data, and identical points must stop somewhere.
    public static let maximumDepth = 40

    // Root cell: [originX, originX + size] × [originY, originY + size].
    var originX = 0.0
    var originY = 0.0
    var size = 0.0

    /// Inner nodes. Node 0 is a sentinel above the root: its quadrant 0 holds the root (an inner
    /// node, a leaf, or nothing for an empty tree) and the root's box, and its cell is twice the
    /// root cell, so that every node and every leaf has a parent and the same code handles all.
    var inner: [InnerNode] = [InnerNode()]
    /// Each inner node's cell (x, y, side), stored so that no cell is ever recomputed
    /// differently; a leaf's cell is its quadrant of its parent's.
    var innerCells: [Double] = [0, 0, 0]
    /// Each inner node's leaf capacities, by quadrant (edits only; searches never read them).
    var leafCapacities: [SIMD4<Int32>] = [.zero]
    /// Each inner node's parent (the sentinel's: -1).
    var parents: [Int32] = [-1]
    /// Each inner node's packed span: the slots `x ..< y` hold exactly the items below it, with
    /// no gaps (as after a bulk load or a compaction), so a sweep copies their ids at once;
    /// `x == -1` when edits below have broken that. A node whose span is broken has every
    /// ancestor's broken too.
    var spans: [SIMD2<Int32>] = [Self.brokenSpan]
    static let brokenSpan = SIMD2<Int32>(-1, -1)

    // Item slots, column-wise: id, lower corner (x0, y0), upper corner (x1, y1).
    var itemIDs: [UInt32] = []
    var itemLow: [Double] = []
    var itemHigh: [Double] = []
    /// Slots that belong to no leaf (left behind when a leaf moved or split).
    var garbageSlots = 0

    /// For every id, the slot holding it, or -1; and its leaf (``LeafID``).
    var slotOfID: [Int32] = []
    var leafOfID: [Int32] = []

    /// Number of items.
    public internal(set) var count = 0
    /// How many times the root grew (each adds a level above the bulk-built tree), which bounds
    /// the search stack together with ``maximumDepth``.
    var rootGrowth = 0
    /// Whether the items' centres spread too far for any cell (a bulk load over centres more
    /// than 2⁹⁹⁹ apart, or an insert that would grow the root past ``largestSide``, where
    /// halving and doubling cells stops being exact or finite): then the whole tree is one leaf
    /// under the sentinel, searched by a scan. Answers stay exact; only the speed degrades, and
    /// only for such data.
    var unbounded = false
    /// The largest side a root cell may reach before the tree turns ``unbounded``.
    static let largestSide = 0x1p1000
    /// One more than the most items a tree holds: a leaf's count shares its 32-bit lane with two
    /// flags, and slots (garbage included) must stay below 2³¹.
    public static let maximumCount = 1 << 28

    /// Room for a depth-first search's stack: at most three pending siblings per level, plus a
    /// sweep's.
    var searchStackCapacity: Int { 8 * (Self.maximumDepth + rootGrowth + 3) }

    /// What a child lane holds, in one `Int32`: an inner node's index (≥ 1), nothing (-1), or a
    /// leaf (≤ -2), whose items start at slot `-2 - ref`.
    enum NodeRef {
        static let none: Int32 = -1
        @inline(__always) static func leaf(start: Int) -> Int32 { Int32(-2 - start) }
        @inline(__always) static func isInner(_ ref: Int32) -> Bool { ref >= 0 }
        @inline(__always) static func isLeaf(_ ref: Int32) -> Bool { ref <= -2 }
        @inline(__always) static func leafStart(_ ref: Int32) -> Int { Int(-2 - ref) }
    }

    /// A leaf's identity: its parent inner node × 4 + its quadrant there.
    enum LeafID {
        @inline(__always) static func make(_ parent: Int32, _ quadrant: Int) -> Int32 { parent &* 4 &+ Int32(quadrant) }
        @inline(__always) static func parent(_ leaf: Int32) -> Int32 { leaf >> 2 }
        @inline(__always) static func quadrant(_ leaf: Int32) -> Int { Int(leaf & 3) }
    }

    /// An axis-aligned box; empty as (+∞, +∞, −∞, −∞), which intersects nothing and grows to
    /// whatever it is expanded by.
    struct Box: Equatable, Sendable {
        var x0: Double
        var y0: Double
        var x1: Double
        var y1: Double

        static let empty = Box(x0: .infinity, y0: .infinity, x1: -.infinity, y1: -.infinity)

        @inline(__always) mutating func expand(_ a: Double, _ b: Double, _ c: Double, _ d: Double) {
            x0 = Swift.min(x0, a)
            y0 = Swift.min(y0, b)
            x1 = Swift.max(x1, c)
            y1 = Swift.max(y1, d)
        }

        var envelope: Envelope { Envelope(xmin: x0, ymin: y0, xmax: x1, ymax: y1) }
    }

    /// An inner node: one SIMD lane per quadrant (0 SW, 1 SE, 2 NW, 3 NE) for its children's
    /// boxes, what each child is (a ``NodeRef``), and, for leaf children, the item count (with
    /// ``hasBoxesFlag``). A missing child has an empty box.
    struct InnerNode: Sendable {
        var minX = SIMD4<Double>(repeating: .infinity)
        var minY = SIMD4<Double>(repeating: .infinity)
        var maxX = SIMD4<Double>(repeating: -.infinity)
        var maxY = SIMD4<Double>(repeating: -.infinity)
        var children = SIMD4<Int32>(repeating: NodeRef.none)
        var leafCounts = SIMD4<Int32>.zero

        /// Set in a leaf's count lane once any of its items has a non-zero-size box (scans of
        /// leaves without it read only the lower corners); not cleared when the item leaves.
        static let hasBoxesFlag: Int32 = 1 << 30

        @inline(__always) func box(_ k: Int) -> Box { Box(x0: minX[k], y0: minY[k], x1: maxX[k], y1: maxY[k]) }

        @inline(__always) mutating func setBox(_ k: Int, _ box: Box) {
            minX[k] = box.x0
            minY[k] = box.y0
            maxX[k] = box.x1
            maxY[k] = box.y1
        }

        @inline(__always) mutating func expandBox(_ k: Int, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
            var b = box(k)
            b.expand(x0, y0, x1, y1)
            setBox(k, b)
        }

        /// The union of the children's boxes.
        var bounds: Box { Box(x0: minX.min(), y0: minY.min(), x1: maxX.max(), y1: maxY.max()) }

        /// The item count of the leaf in lane `k`.
        @inline(__always) func leafCount(_ k: Int) -> Int { Int(leafCounts[k] & (Self.hasBoxesFlag - 1)) }

        /// Whether the leaf in lane `k` may hold non-point boxes.
        @inline(__always) func leafHasBoxes(_ k: Int) -> Bool { leafCounts[k] & Self.hasBoxesFlag != 0 }

        /// The slots of the leaf in lane `k`.
        @inline(__always) func leafSlots(_ k: Int) -> Range<Int> {
            let start = NodeRef.leafStart(children[k])
            return start..<(start + leafCount(k))
        }
    }

    /// An empty tree.
    public init() {}

    /// Builds a tree over the envelopes `xmin[i] … ymax[i]` with ids `i`; rows whose bounds are
    /// NaN (no geometry) or infinite are left out.
    /// - Complexity: O(n) for the keys and the tree, plus a radix sort that stops once ranges fit
    ///   a leaf (a few passes over the keys for any realistic distribution).
    public init<C: RandomAccessCollection<Double>>(xmin: C, ymin: C, xmax: C, ymax: C) where C.Index == Int {
        precondition(xmin.count == ymin.count && xmin.count == xmax.count && xmin.count == ymax.count, "bounds arrays differ in length")
        bulkLoad(ids: nil, xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
    }

    /// Builds a tree over the given ids, whose envelopes are `xmin[id] … ymax[id]`. Ids whose
    /// bounds are NaN or infinite are left out.
    public init<C: RandomAccessCollection<Double>>(ids: [UInt32], xmin: C, ymin: C, xmax: C, ymax: C) where C.Index == Int {
        precondition(xmin.count == ymin.count && xmin.count == xmax.count && xmin.count == ymax.count, "bounds arrays differ in length")
        bulkLoad(ids: ids, xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
    }

    /// Whether a box can be indexed: finite and not inverted.
    @inline(__always)
    static func isIndexable(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Bool {
        x0.isFinite && y0.isFinite && x1.isFinite && y1.isFinite && x0 <= x1 && y0 <= y1
    }

    /// The root: the sentinel's quadrant 0.
    var root: Int32 { inner[0].children[0] }

    /// The root cell (the square the quadrants subdivide); empty for an empty tree.
    public var rootCell: Envelope {
        if root == NodeRef.none { return .empty }
        if unbounded { return Envelope(xmin: -.infinity, ymin: -.infinity, xmax: .infinity, ymax: .infinity) }
        return Envelope(xmin: originX, ymin: originY, xmax: originX + size, ymax: originY + size)
    }

    /// The bounding box of all items (possibly loose after removals).
    public var bounds: Envelope {
        guard root != NodeRef.none, count > 0 else { return .empty }
        return inner[0].box(0).envelope
    }

    /// The bytes the tree's arrays hold (their elements, not spare capacity): nodes, cells,
    /// item slots (garbage included) and the id tables.
    public var byteCount: Int {
        inner.count * MemoryLayout<InnerNode>.stride + innerCells.count * 8 + leafCapacities.count * 16
            + parents.count * 4 + spans.count * 8 + itemIDs.count * 4 + itemLow.count * 8 + itemHigh.count * 8
            + slotOfID.count * 4 + leafOfID.count * 4
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

    /// Sets the root cell, and the sentinel's cell (twice as large, with the root as its
    /// quadrant 0).
    mutating func setRootCell(x: Double, y: Double, side: Double) {
        (originX, originY, size) = (x, y, side)
        (innerCells[0], innerCells[1], innerCells[2]) = (x, y, 2 * side)
    }

    /// A new inner node below `parent` with no children, for the cell (x, y, side); its span is
    /// broken until a bulk load or compaction sets it.
    mutating func newInner(parent: Int32, x: Double, y: Double, side: Double) -> Int32 {
        inner.append(InnerNode())
        innerCells.append(x)
        innerCells.append(y)
        innerCells.append(side)
        leafCapacities.append(.zero)
        parents.append(parent)
        spans.append(Self.brokenSpan)
        return Int32(inner.count - 1)
    }

    /// Marks the spans of `node` and its ancestors broken (stopping at the first that already
    /// is: its ancestors are too).
    mutating func breakSpans(from node: Int32) {
        var current = node
        while current >= 0 && spans[Int(current)].x >= 0 {
            spans[Int(current)] = Self.brokenSpan
            current = parents[Int(current)]
        }
    }

    /// Sets every inner node's span from its leaves, for item arrays packed in Z order with no
    /// gaps (after a bulk load or a compaction). Children come after their parents in the node
    /// arrays except where the root grew, so the spans are merged child-first by depth.
    mutating func setPackedSpans() {
        var first = [Int32](repeating: .max, count: inner.count)
        var end = [Int32](repeating: .min, count: inner.count)
        for (index, node) in inner.enumerated() {
            for k in 0..<4 where NodeRef.isLeaf(node.children[k]) {
                let slots = node.leafSlots(k)
                first[index] = Swift.min(first[index], Int32(slots.lowerBound))
                end[index] = Swift.max(end[index], Int32(slots.upperBound))
            }
        }
        for node in nodesChildrenFirst() where node > 0 {
            let parent = Int(parents[Int(node)])
            first[parent] = Swift.min(first[parent], first[Int(node)])
            end[parent] = Swift.max(end[parent], end[Int(node)])
        }
        for index in inner.indices {
            spans[index] = first[index] <= end[index] ? SIMD2(first[index], end[index]) : SIMD2(0, 0)
        }
    }

    /// The reachable inner nodes, every node before its parent.
    func nodesChildrenFirst() -> [Int32] {
        var order: [Int32] = []
        var stack: [Int32] = [0]
        while let node = stack.popLast() {
            order.append(node)
            let children = inner[Int(node)].children
            for k in 0..<4 where NodeRef.isInner(children[k]) { stack.append(children[k]) }
        }
        return order.reversed()
    }

    /// Makes quadrant `q` of inner node `parent` an empty leaf with room for `capacity` items at
    /// the end of the item arrays.
    mutating func newLeaf(parent: Int32, quadrant q: Int, capacity: Int) {
        inner[Int(parent)].children[q] = NodeRef.leaf(start: itemIDs.count)
        inner[Int(parent)].leafCounts[q] = 0
        leafCapacities[Int(parent)][q] = Int32(capacity)
        appendFreeSlots(capacity)
    }

    /// Appends `n` unused slots to the item arrays.
    private mutating func appendFreeSlots(_ n: Int) {
        itemIDs.append(contentsOf: repeatElement(0, count: n))
        itemLow.append(contentsOf: repeatElement(0, count: n * 2))
        itemHigh.append(contentsOf: repeatElement(0, count: n * 2))
    }

    /// The capacity a leaf gets when it outgrows its range: room to double while it is small
    /// (under 32 items), then for a quarter more. Geometric, so a leaf that keeps growing moves
    /// O(1) times per insert, amortized; a quarter rather than a double for larger leaves,
    /// because the first insert into each leaf of a bulk-loaded
    /// tree (packed, no room) moves it, and a batch of inserts spread over a large tree touches
    /// thousands of leaves: doubling each made every batch allocate (and page in) twice the
    /// items it touched. Measured with `geosieve-bench edit` on 1M points: see Benchmarks.
    static func grownCapacity(for count: Int) -> Int { count < 32 ? Swift.max(8, 2 * count) : count + count / 4 }

    /// The cell (x, y, side) of inner node `n`.
    @inline(__always)
    func innerCell(_ n: Int32) -> (x: Double, y: Double, side: Double) {
        let c = Int(n) * 3
        return (innerCells[c], innerCells[c + 1], innerCells[c + 2])
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

    /// Copies slot `from` into slot `to` (which now belongs to `leaf`).
    @inline(__always)
    mutating func copyItem(from: Int, to: Int, leaf: Int32) {
        storeItem(to, leaf: leaf, id: itemIDs[from], itemLow[from * 2], itemLow[from * 2 + 1], itemHigh[from * 2], itemHigh[from * 2 + 1])
    }

    /// Appends an item to the leaf in quadrant `q` of `parent`, moving the leaf's items to a
    /// larger range at the end of the item arrays when its range is full (the old range becomes
    /// garbage, reclaimed by ``compactItemsIfWorthIt()``). Does not touch boxes.
    mutating func appendToLeaf(parent: Int32, quadrant q: Int, id: UInt32, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        let leaf = LeafID.make(parent, q)
        let slots = inner[Int(parent)].leafSlots(q)
        let capacity = Int(leafCapacities[Int(parent)][q])
        var start = slots.lowerBound
        if slots.count == capacity {
            let grown = Self.grownCapacity(for: capacity)
            start = itemIDs.count
            appendFreeSlots(grown)
            for (offset, slot) in slots.enumerated() { copyItem(from: slot, to: start + offset, leaf: leaf) }
            inner[Int(parent)].children[q] = NodeRef.leaf(start: start)
            leafCapacities[Int(parent)][q] = Int32(grown)
            garbageSlots += capacity
        }
        storeItem(start + slots.count, leaf: leaf, id: id, x0, y0, x1, y1)
        var lane = inner[Int(parent)].leafCounts[q] + 1
        if x0 != x1 || y0 != y1 { lane |= InnerNode.hasBoxesFlag }
        inner[Int(parent)].leafCounts[q] = lane
    }

    /// Compacts the item arrays (every leaf's items packed in Z order, each range exactly full)
    /// once the garbage slots outnumber the items; leaves the nodes' shape alone. Each
    /// compaction costs O(n) and follows at least n slots' worth of moved leaves, so edits stay
    /// O(1) amortized, and the arrays stay within a small multiple of the items.
    mutating func compactItemsIfWorthIt() {
        guard garbageSlots >= Self.leafCapacity, garbageSlots > count else { return }
        let live = itemIDs.count - garbageSlots
        var ids: [UInt32] = []
        var low: [Double] = []
        var high: [Double] = []
        ids.reserveCapacity(live)
        low.reserveCapacity(live * 2)
        high.reserveCapacity(live * 2)
        for leaf in leavesInZOrder() {
            let (parent, q) = (Int(LeafID.parent(leaf)), LeafID.quadrant(leaf))
            let slots = inner[parent].leafSlots(q)
            inner[parent].children[q] = NodeRef.leaf(start: ids.count)
            leafCapacities[parent][q] = Int32(slots.count)
            for slot in slots {
                slotOfID[Int(itemIDs[slot])] = Int32(ids.count)
                ids.append(itemIDs[slot])
                low.append(contentsOf: itemLow[(slot * 2)..<(slot * 2 + 2)])
                high.append(contentsOf: itemHigh[(slot * 2)..<(slot * 2 + 2)])
            }
        }
        itemIDs = ids
        itemLow = low
        itemHigh = high
        garbageSlots = 0
        setPackedSpans()
    }

    /// The tree's leaves (``LeafID``s) in Z order: quadrants SW, SE, NW, NE, depth first.
    func leavesInZOrder() -> [Int32] {
        var order: [Int32] = []
        var stack: [(isLeaf: Bool, value: Int32)] = [(false, 0)]
        while let (isLeaf, value) = stack.popLast() {
            if isLeaf {
                order.append(value)
                continue
            }
            let children = inner[Int(value)].children
            for k in (0..<4).reversed() {
                if NodeRef.isLeaf(children[k]) {
                    stack.append((true, LeafID.make(value, k)))
                } else if NodeRef.isInner(children[k]) {
                    stack.append((false, children[k]))
                }
            }
        }
        return order
    }

    /// A square cell holding the box `minX…maxX × minY…maxY`, whose side is a power of two and
    /// whose corner lies on a grid of `side / 2^keyBits`, so that every cell corner down to depth
    /// `keyBits` is exactly representable: halving a cell never rounds, and a centre's quadrant
    /// path is exactly its grid cell (what the bulk load's keys rely on). `keyBits` is 30 unless
    /// the cell is tiny next to its distance from zero, where fewer grid lines are representable.
    /// `nil` when the box is too large for a cell (see ``unbounded``).
    static func gridRootCell(minX: Double, minY: Double, maxX: Double, maxY: Double)
        -> (x: Double, y: Double, side: Double, keyBits: Int)?
    {
        let extent = Swift.max(maxX - minX, maxY - minY)
        let floor = Swift.max(1, Swift.max(abs(minX), abs(minY)) * 0x1p-40)
        guard extent < largestSide / 2 else { return nil }
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
