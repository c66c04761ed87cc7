extension QuadTree {
    /// An item during a bulk load: its Z-order key on the root cell's grid, its id, and its
    /// lower corner, which is all of a point's box: the sort carries points' coordinates along,
    /// so filling the leaves reads the input arrays again only for items with a real box.
    struct BuildEntry {
        var key: UInt64
        var x: Double
        var y: Double
        var id: UInt32
        var isPoint: Bool

        static let zero = BuildEntry(key: 0, x: 0, y: 0, id: 0, isPoint: true)
    }

    /// A node made by a bulk load: its parent and its quadrant there, and the slots of its
    /// items (`lower ..< upper` of the sorted entries).
    private struct BuiltNode {
        var parent: Int32
        var quadrant: Int
        var lower = 0
        var upper = 0
    }

    /// Replaces the contents with the items `ids` (all of `0 ..< xmin.count` when `nil`), whose
    /// envelopes are `xmin[id] … ymax[id]`; items whose box is not indexable are left out.
    mutating func bulkLoad<C: RandomAccessCollection<Double>>(ids: [UInt32]?, xmin: C, ymin: C, xmax: C, ymax: C)
    where C.Index == Int {
        Self.withBuffer(xmin) { x0s in
            Self.withBuffer(ymin) { y0s in
                Self.withBuffer(xmax) { x1s in
                    Self.withBuffer(ymax) { y1s in bulkLoad(ids: ids, xmin: x0s, ymin: y0s, xmax: x1s, ymax: y1s) }
                }
            }
        }
    }

    /// Calls `body` with the elements of `values` in one buffer: in place when they are
    /// contiguous (arrays, column buffers), else copied into an array.
    private static func withBuffer<C: RandomAccessCollection<Double>>(_ values: C, _ body: (UnsafeBufferPointer<Double>) -> Void) {
        if values.withContiguousStorageIfAvailable(body) == nil { Array(values).withUnsafeBufferPointer(body) }
    }

    /// The bulk load itself, on buffers.
    mutating func bulkLoad(
        ids: [UInt32]?, xmin: UnsafeBufferPointer<Double>, ymin: UnsafeBufferPointer<Double>,
        xmax: UnsafeBufferPointer<Double>, ymax: UnsafeBufferPointer<Double>
    ) {
        self = QuadTree()
        precondition(ids != nil || xmin.count <= Int(UInt32.max) + 1, "too many items for 32-bit ids")
        let candidates = ids?.count ?? xmin.count
        @inline(__always) func id(_ k: Int) -> UInt32 { ids?[k] ?? UInt32(truncatingIfNeeded: k) }

        // The bounds of the indexable items' centres.
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        var kept = 0
        var largestID: UInt32 = 0
        for k in 0..<candidates {
            let i = Int(id(k))
            let x0 = xmin[i], y0 = ymin[i], x1 = xmax[i], y1 = ymax[i]
            guard Self.isIndexable(x0, y0, x1, y1) else { continue }
            let cx = x0 / 2 + x1 / 2, cy = y0 / 2 + y1 / 2
            minX = Swift.min(minX, cx)
            maxX = Swift.max(maxX, cx)
            minY = Swift.min(minY, cy)
            maxY = Swift.max(maxY, cy)
            kept += 1
            largestID = Swift.max(largestID, UInt32(i))
        }
        guard kept > 0 else { return }
        let grid: (x: Double, y: Double, side: Double, keyBits: Int)
        precondition(kept < Self.maximumCount, "a quadtree holds at most \(Self.maximumCount - 1) items")
        if let cell = Self.gridRootCell(minX: minX, minY: minY, maxX: maxX, maxY: maxY) {
            grid = cell
        } else {
            grid = (-.infinity, -.infinity, .infinity, 0)  // one leaf: no keys, no cells
            self.unbounded = true
        }
        setRootCell(x: grid.x, y: grid.y, side: grid.side)

        // Every item's key, then the keys in Z order.
        let unit = grid.keyBits > 0 ? grid.side / Double(1 << grid.keyBits) : 0
        let limit = Int64(1 << grid.keyBits) - 1
        var entries = [BuildEntry](repeating: .zero, count: kept)
        entries.withUnsafeMutableBufferPointer { entries in
            var next = 0
            for k in 0..<candidates {
                let i = Int(id(k))
                let x0 = xmin[i], y0 = ymin[i], x1 = xmax[i], y1 = ymax[i]
                guard Self.isIndexable(x0, y0, x1, y1) else { continue }
                let gx = Self.gridIndex(x0 / 2 + x1 / 2, origin: grid.x, unit: unit, limit: limit)
                let gy = Self.gridIndex(y0 / 2 + y1 / 2, origin: grid.y, unit: unit, limit: limit)
                entries[next] = BuildEntry(
                    key: Self.spreadBits(gx) | Self.spreadBits(gy) << 1, x: x0, y: y0, id: UInt32(i), isPoint: x0 == x1 && y0 == y1)
                next += 1
            }
        }
        Self.sortByKey(&entries, keyBits: 2 * grid.keyBits)

        let (builtLeaves, builtInner) = buildNodes(entries, keyBits: grid.keyBits)
        let leafBoxes = fillLeaves(builtLeaves, entries, largestID: Int(largestID), xmax: xmax, ymax: ymax)
        for (leaf, box) in zip(builtLeaves, leafBoxes) { inner[Int(leaf.parent)].setBox(leaf.quadrant, box) }
        // Inner nodes come after their parents, so one backward pass sets every box from below
        // (node 0, the sentinel, has no parent).
        for node in stride(from: inner.count - 1, through: 1, by: -1) {
            let built = builtInner[node]
            inner[Int(built.parent)].setBox(built.quadrant, inner[node].bounds)
        }
        setPackedSpans()
        count = kept
    }

    /// The nodes over the sorted entries: a range splits by the next two key bits (its items'
    /// quadrants) while it holds more than a leaf's worth and key bits remain; a leaf's range is
    /// its slice of the entries, exactly full.
    /// - Returns: the leaves, in Z order, and every inner node's parent by index.
    private mutating func buildNodes(_ entries: [BuildEntry], keyBits: Int) -> (leaves: [BuiltNode], inner: [BuiltNode]) {
        let estimate = entries.count / 12 + 16
        inner.reserveCapacity(estimate / 3)
        innerCells.reserveCapacity(estimate)
        leafCapacities.reserveCapacity(estimate / 3)
        parents.reserveCapacity(estimate / 3)
        spans.reserveCapacity(estimate / 3)
        var builtLeaves: [BuiltNode] = []
        var builtInner = [BuiltNode(parent: -1, quadrant: 0)]  // the sentinel
        builtLeaves.reserveCapacity(estimate)
        struct Work {
            var node: BuiltNode
            var depth: Int
            var cell: (x: Double, y: Double, side: Double)
        }
        var stack = [Work(node: BuiltNode(parent: 0, quadrant: 0, lower: 0, upper: entries.count), depth: 0, cell: (originX, originY, size))]
        entries.withUnsafeBufferPointer { entries in
            while let work = stack.popLast() {
                let (lower, upper) = (work.node.lower, work.node.upper)
                let (parent, quadrant) = (Int(work.node.parent), work.node.quadrant)
                if upper - lower <= Self.leafCapacity || work.depth >= keyBits {
                    inner[parent].children[quadrant] = NodeRef.leaf(start: lower)
                    inner[parent].leafCounts[quadrant] = Int32(upper - lower)
                    leafCapacities[parent][quadrant] = Int32(upper - lower)
                    builtLeaves.append(work.node)
                    continue
                }
                let node = newInner(parent: Int32(parent), x: work.cell.x, y: work.cell.y, side: work.cell.side)
                inner[parent].children[quadrant] = node
                builtInner.append(work.node)
                // All keys of the range agree above this level, so its quadrant digit ascends.
                let shift = UInt64(2 * (keyBits - 1 - work.depth))
                func firstIndex(from start: Int, withDigitAtLeast digit: UInt64) -> Int {
                    var low = start, high = upper
                    while low < high {
                        let middle = (low + high) / 2
                        if (entries[middle].key >> shift) & 3 < digit { low = middle + 1 } else { high = middle }
                    }
                    return low
                }
                // Quadrant q's entries are edges[q] ..< edges[q + 1] (a SIMD vector: no allocation).
                var edges = SIMD8<Int>(lower, 0, 0, 0, upper, 0, 0, 0)
                for digit in 1...3 { edges[digit] = firstIndex(from: edges[digit - 1], withDigitAtLeast: UInt64(digit)) }
                for quadrant in (0..<4).reversed() where edges[quadrant + 1] > edges[quadrant] {
                    stack.append(
                        Work(
                            node: BuiltNode(parent: node, quadrant: quadrant, lower: edges[quadrant], upper: edges[quadrant + 1]),
                            depth: work.depth + 1, cell: Self.quadrantCell(quadrant, of: work.cell)))
                }
            }
        }
        return (builtLeaves, builtInner)
    }

    /// Writes the sorted items into the item arrays, slot `k` for entry `k` (so the leaves are
    /// packed in Z order), fills the id tables, and flags the leaves holding boxes.
    /// - Returns: each leaf's box.
    private mutating func fillLeaves(
        _ built: [BuiltNode], _ entries: [BuildEntry], largestID: Int, xmax: UnsafeBufferPointer<Double>, ymax: UnsafeBufferPointer<Double>
    ) -> [Box] {
        let n = entries.count
        var ids = [UInt32](repeating: 0, count: n)
        var low = [Double](repeating: 0, count: 2 * n)
        var high = [Double](repeating: 0, count: 2 * n)
        var slots = [Int32](repeating: -1, count: largestID + 1)
        var owners = [Int32](repeating: -1, count: largestID + 1)
        var boxes: [Box] = []
        boxes.reserveCapacity(built.count)
        var withBoxes: [BuiltNode] = []
        ids.withUnsafeMutableBufferPointer { ids in
            low.withUnsafeMutableBufferPointer { low in
                high.withUnsafeMutableBufferPointer { high in
                    slots.withUnsafeMutableBufferPointer { slots in
                        owners.withUnsafeMutableBufferPointer { owners in
                            entries.withUnsafeBufferPointer { entries in
                                for leaf in built {
                                    let leafID = LeafID.make(leaf.parent, leaf.quadrant)
                                    var box = Box.empty
                                    var hasBoxes = false
                                    for k in leaf.lower..<leaf.upper {
                                        let entry = entries[k]
                                        let i = Int(entry.id)
                                        let x0 = entry.x, y0 = entry.y
                                        let (x1, y1) = entry.isPoint ? (x0, y0) : (xmax[i], ymax[i])
                                        ids[k] = entry.id
                                        low[2 * k] = x0
                                        low[2 * k + 1] = y0
                                        high[2 * k] = x1
                                        high[2 * k + 1] = y1
                                        precondition(slots[i] < 0, "id \(i) is given twice")
                                        slots[i] = Int32(k)
                                        owners[i] = leafID
                                        hasBoxes = hasBoxes || !entry.isPoint
                                        box.expand(x0, y0, x1, y1)
                                    }
                                    if hasBoxes { withBoxes.append(leaf) }
                                    boxes.append(box)
                                }
                            }
                        }
                    }
                }
            }
        }
        (itemIDs, itemLow, itemHigh, slotOfID, leafOfID) = (ids, low, high, slots, owners)
        for leaf in withBoxes { inner[Int(leaf.parent)].leafCounts[leaf.quadrant] |= InnerNode.hasBoxesFlag }
        return boxes
    }

    /// The grid column (or row) of a centre: `⌊(c − origin) / unit⌋` clamped to `0 … limit`,
    /// corrected by one where the subtraction rounded across a grid line. The grid lines are
    /// exact (see ``gridRootCell(minX:minY:maxX:maxY:)``), so the result is exactly the cell
    /// that comparing `c` with the lines gives, which is what the tree's quadrant tests do.
    @inline(__always)
    static func gridIndex(_ c: Double, origin: Double, unit: Double, limit: Int64) -> UInt64 {
        guard limit > 0 else { return 0 }  // a single cell (whose unit may not even be finite)
        var k = Swift.min(Swift.max(Int64(((c - origin) / unit).rounded(.down)), 0), limit)
        if k > 0 && c < origin + Double(k) * unit {
            k -= 1
        } else if k < limit && c >= origin + Double(k + 1) * unit {
            k += 1
        }
        return UInt64(k)
    }

    /// Spreads the low 32 bits of `v` to the even bits of the result (a Morton code's half).
    @inline(__always)
    static func spreadBits(_ v: UInt64) -> UInt64 {
        var x = v & 0xFFFF_FFFF
        x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF
        x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF
        x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F
        x = (x | (x << 2)) & 0x3333_3333_3333_3333
        x = (x | (x << 1)) & 0x5555_5555_5555_5555
        return x
    }

    /// Sorts the entries by the top `keyBits` bits of their keys, most significant byte first,
    /// leaving a range unsorted once it holds at most a leaf's worth of items (the tree never
    /// splits such a range, so its order does not matter).
    static func sortByKey(_ entries: inout [BuildEntry], keyBits: Int) {
        let n = entries.count
        var scratch = [BuildEntry](repeating: .zero, count: n)
        var work: [(lower: Int, upper: Int, top: Int)] = [(0, n, keyBits)]
        var counts = [Int](repeating: 0, count: 256)
        entries.withUnsafeMutableBufferPointer { entries in
            scratch.withUnsafeMutableBufferPointer { scratch in
                counts.withUnsafeMutableBufferPointer { counts in
                    while let (lower, upper, top) = work.popLast() {
                        guard upper - lower > leafCapacity, top > 0 else { continue }
                        let width = Swift.min(8, top)
                        let shift = UInt64(top - width)
                        let mask = UInt64(1 << width - 1)
                        for d in 0..<256 { counts[d] = 0 }
                        for k in lower..<upper { counts[Int((entries[k].key >> shift) & mask)] += 1 }
                        if counts[Int((entries[lower].key >> shift) & mask)] == upper - lower {
                            work.append((lower, upper, top - width))  // one digit: nothing to move
                            continue
                        }
                        var offset = lower
                        for d in 0..<256 {
                            let size = counts[d]
                            counts[d] = offset
                            if size > leafCapacity { work.append((offset, offset + size, top - width)) }
                            offset += size
                        }
                        for k in lower..<upper {
                            let d = Int((entries[k].key >> shift) & mask)
                            scratch[counts[d]] = entries[k]
                            counts[d] += 1
                        }
                        for k in lower..<upper { entries[k] = scratch[k] }
                    }
                }
            }
        }
    }

    /// Rebuilds the tree from its current items: tight boxes, no garbage, balanced leaves.
    public mutating func rebuild() {
        rebuild(adding: nil)
    }

    /// Rebuilds the tree from its current items and, if given, one more (an id not in the tree
    /// and an indexable box).
    mutating func rebuild(adding extra: (id: UInt32, x0: Double, y0: Double, x1: Double, y1: Double)?) {
        let n = Swift.max(slotOfID.count, extra.map { Int($0.id) + 1 } ?? 0)
        var ids: [UInt32] = []
        ids.reserveCapacity(count + 1)
        var xmin = [Double](repeating: .nan, count: n), ymin = xmin, xmax = xmin, ymax = xmin
        for (id, slot) in slotOfID.enumerated() where slot >= 0 {
            ids.append(UInt32(id))
            let s = Int(slot) * 2
            (xmin[id], ymin[id], xmax[id], ymax[id]) = (itemLow[s], itemLow[s + 1], itemHigh[s], itemHigh[s + 1])
        }
        if let extra {
            ids.append(extra.id)
            let i = Int(extra.id)
            (xmin[i], ymin[i], xmax[i], ymax[i]) = (extra.x0, extra.y0, extra.x1, extra.y1)
        }
        bulkLoad(ids: ids, xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
    }
}
