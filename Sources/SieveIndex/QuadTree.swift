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
/// **Storage.** Nodes and items live in flat arrays — node boxes four `Double`s a node, child
/// indices four `Int32`s a node, items in fixed-size blocks of ids and boxes chained per leaf — so
/// there is no object per node and searches walk contiguous memory with an explicit stack.
///
/// **Edits.** ``insert(_:envelope:)``, ``remove(_:)`` and ``move(_:to:)`` update the tree in
/// place: an insert descends to its leaf (splitting it when full), a remove takes the item out of
/// its block in constant time through an id-to-slot table. Node boxes grow on insert and are not
/// shrunk on remove (they stay correct, only looser); ``rebuild()`` tightens everything.
///
/// `QuadTree` is a value type (copy-on-write arrays) and `Sendable`: readers may share one tree
/// across threads; an edit makes the editor's copy unique.
public struct QuadTree: Sendable {
    /// Items per block (a leaf splits when it holds more than this many items, unless it is at
    /// the maximum depth, where further items chain more blocks).
    public static let blockCapacity = 32
    /// Levels below the root at most; deeper cells would be smaller than the coordinates can
    /// tell apart for any sane data, and identical points must stop somewhere.
    public static let maximumDepth = 40

    // Root cell: [originX, originX + size] × [originY, originY + size].
    var originX = 0.0
    var originY = 0.0
    var size = 0.0
    var root: Int32 = -1

    // Nodes: four box values, four children (-1 = none), the first item block (-1 = not a leaf),
    // and the node's cell (x, y, side), stored so that no cell is ever recomputed differently.
    var nodeBoxes: [Double] = []
    var nodeCells: [Double] = []
    var nodeChildren: [Int32] = []
    var nodeFirstBlock: [Int32] = []

    // Item blocks: count, next block in the leaf's chain (-1 = last), ids and boxes of the slots.
    var blockCounts: [Int32] = []
    var blockNext: [Int32] = []
    var slotIDs: [UInt32] = []
    var slotBoxes: [Double] = []
    var freeBlocks: [Int32] = []

    /// For every id, the slot (block × capacity + position) holding it, or -1.
    var slotOfID: [Int32] = []

    /// Number of items.
    public internal(set) var count = 0
    /// How many times the root grew (each adds a level above the bulk-built tree), which bounds
    /// the search stack together with ``maximumDepth``.
    var rootGrowth = 0

    /// Room for a depth-first search's stack: at most three pending siblings per level.
    var searchStackCapacity: Int { 4 * (Self.maximumDepth + rootGrowth + 2) }

    /// An empty tree.
    public init() {}

    /// Builds a tree over the envelopes `xmin[i] … ymax[i]` with ids `i`; rows whose bounds are
    /// NaN (no geometry) are left out.
    /// - Complexity: O(n log n) in the worst case, O(n · depth) in general: items are
    ///   partitioned in place quadrant by quadrant, no sort.
    public init(xmin: [Double], ymin: [Double], xmax: [Double], ymax: [Double]) {
        precondition(xmin.count == ymin.count && xmin.count == xmax.count && xmin.count == ymax.count, "bounds arrays differ in length")
        var ids: [UInt32] = []
        ids.reserveCapacity(xmin.count)
        for i in xmin.indices where !(xmin[i].isNaN || ymin[i].isNaN || xmax[i].isNaN || ymax[i].isNaN) {
            ids.append(UInt32(i))
        }
        self.init(ids: ids, xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
    }

    /// Builds a tree over the given ids, whose envelopes are `xmin[id] … ymax[id]`. Ids whose
    /// bounds are NaN or infinite are left out.
    public init(ids: [UInt32], xmin: [Double], ymin: [Double], xmax: [Double], ymax: [Double]) {
        var kept: [UInt32] = []
        var boxes: [Double] = []
        kept.reserveCapacity(ids.count)
        boxes.reserveCapacity(ids.count * 4)
        for id in ids {
            let i = Int(id)
            let box = (xmin[i], ymin[i], xmax[i], ymax[i])
            guard Self.isIndexable(box.0, box.1, box.2, box.3) else { continue }
            kept.append(id)
            boxes.append(box.0)
            boxes.append(box.1)
            boxes.append(box.2)
            boxes.append(box.3)
        }
        bulkLoad(ids: kept, boxes: boxes)
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
        let s = Int(slotOfID[Int(id)]) * 4
        return Envelope(xmin: slotBoxes[s], ymin: slotBoxes[s + 1], xmax: slotBoxes[s + 2], ymax: slotBoxes[s + 3])
    }

    // MARK: - Storage helpers

    mutating func newNode(x: Double, y: Double, side: Double) -> Int32 {
        let node = Int32(nodeFirstBlock.count)
        nodeCells.append(x)
        nodeCells.append(y)
        nodeCells.append(side)
        nodeBoxes.append(.infinity)
        nodeBoxes.append(.infinity)
        nodeBoxes.append(-.infinity)
        nodeBoxes.append(-.infinity)
        for _ in 0..<4 { nodeChildren.append(-1) }
        nodeFirstBlock.append(-1)
        return node
    }

    mutating func newBlock() -> Int32 {
        if let block = freeBlocks.popLast() {
            blockCounts[Int(block)] = 0
            blockNext[Int(block)] = -1
            return block
        }
        let block = Int32(blockCounts.count)
        blockCounts.append(0)
        blockNext.append(-1)
        slotIDs.append(contentsOf: repeatElement(0, count: Self.blockCapacity))
        slotBoxes.append(contentsOf: repeatElement(0, count: Self.blockCapacity * 4))
        return block
    }

    mutating func setSlot(of id: UInt32, _ slot: Int32) {
        let index = Int(id)
        if index >= slotOfID.count {
            slotOfID.append(contentsOf: repeatElement(-1, count: index + 1 - slotOfID.count))
        }
        slotOfID[index] = slot
    }

    /// Grows node `n`'s box to include the box.
    @inline(__always)
    mutating func expandNode(_ n: Int32, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        let b = Int(n) * 4
        if x0 < nodeBoxes[b] { nodeBoxes[b] = x0 }
        if y0 < nodeBoxes[b + 1] { nodeBoxes[b + 1] = y0 }
        if x1 > nodeBoxes[b + 2] { nodeBoxes[b + 2] = x1 }
        if y1 > nodeBoxes[b + 3] { nodeBoxes[b + 3] = y1 }
    }

    /// Appends an item to leaf `n`'s block chain (a new block when the last is full).
    mutating func appendToLeaf(_ n: Int32, id: UInt32, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        var block = nodeFirstBlock[Int(n)]
        while blockCounts[Int(block)] == Int32(Self.blockCapacity) {
            let next = blockNext[Int(block)]
            if next < 0 {
                let fresh = newBlock()
                blockNext[Int(block)] = fresh
                block = fresh
                break
            }
            block = next
        }
        let position = Int(blockCounts[Int(block)])
        let slot = Int(block) * Self.blockCapacity + position
        slotIDs[slot] = id
        slotBoxes[slot * 4] = x0
        slotBoxes[slot * 4 + 1] = y0
        slotBoxes[slot * 4 + 2] = x1
        slotBoxes[slot * 4 + 3] = y1
        blockCounts[Int(block)] += 1
        setSlot(of: id, Int32(slot))
        expandNode(n, x0, y0, x1, y1)
    }

    /// Number of items in leaf `n` (all blocks of its chain).
    func leafCount(_ n: Int32) -> Int {
        var total = 0
        var block = nodeFirstBlock[Int(n)]
        while block >= 0 {
            total += Int(blockCounts[Int(block)])
            block = blockNext[Int(block)]
        }
        return total
    }

    /// A square cell holding the box `minX…maxX × minY…maxY` (its lower-left corner at the
    /// box's), with a side a little larger than the box's larger extent so that rounding cannot
    /// leave the box's far edge outside.
    static func rootCell(minX: Double, minY: Double, maxX: Double, maxY: Double) -> (x: Double, y: Double, side: Double) {
        var side = Swift.max(maxX - minX, maxY - minY)
        side = side > 0 ? side * (1 + 0x1p-40) : Swift.max(1, Swift.max(abs(minX), abs(minY)) * 0x1p-40)
        while minX + side < maxX || minY + side < maxY { side *= 2 }
        return (minX, minY, side)
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
