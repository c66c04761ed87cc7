extension QuadTree {
    /// Checks the tree's invariants after a mutation, in builds with `SPATIAL_INTERNAL_CHECKS`
    /// (debug builds); does nothing otherwise.
    @inline(__always)
    func checkInvariantsInDebug() {
        #if SPATIAL_INTERNAL_CHECKS
        if count <= 20_000 { _checkInvariants() }
        #endif
    }

    /// Checks every invariant, stopping the process with a message when one fails:
    /// each item is in a leaf whose cell (closed) holds its centre; each node's box holds its
    /// items' and children's boxes; leaves' ranges lie in the item arrays without overlapping,
    /// and the garbage count is what they leave free; the id tables and the item count agree
    /// with the leaves; a leaf marked as holding only points does.
    /// - Complexity: O(n). For tests; not for production paths.
    public func _checkInvariants() {
        precondition(!inner.isEmpty && (1..<4).allSatisfy { inner[0].children[$0] == NodeRef.none }, "the sentinel is damaged")
        guard root != NodeRef.none else {
            precondition(count == 0, "an empty tree counts \(count) items")
            return
        }
        let slots = itemIDs.count
        precondition(itemLow.count == 2 * slots && itemHigh.count == 2 * slots, "item columns differ in length")
        precondition(slotOfID.count == leafOfID.count, "id tables differ in length")
        precondition(
            inner.count * 3 == innerCells.count && inner.count == leafCapacities.count && inner.count == parents.count
                && inner.count == spans.count, "node tables differ in length")
        checkSpans()
        precondition(innerCell(0) == (originX, originY, 2 * size), "the sentinel's cell is not twice the root cell")
        precondition(!unbounded || (NodeRef.isLeaf(root) && inner.count == 1), "an unbounded tree is not a single leaf")
        var seen = 0
        var owned = [Bool](repeating: false, count: slots)
        var usedSlots = 0
        var reached = [Bool](repeating: false, count: inner.count)
        let tolerance = size * 0x1p-40
        // Each entry: an inner node and its box as its parent stores it (the sentinel: everything).
        var stack: [(node: Int32, box: Box)] = [(0, Box(x0: -.infinity, y0: -.infinity, x1: .infinity, y1: .infinity))]
        while let (index, box) = stack.popLast() {
            precondition(!reached[Int(index)], "inner node \(index) is reachable twice")
            reached[Int(index)] = true
            let node = inner[Int(index)]
            let cell = innerCell(index)
            for k in 0..<4 {
                let child = node.children[k], childBox = node.box(k)
                let capacity = Int(leafCapacities[Int(index)][k])
                guard child != NodeRef.none else {
                    precondition(childBox == .empty && node.leafCounts[k] == 0 && capacity == 0, "inner node \(index) has data for a missing child \(k)")
                    continue
                }
                precondition(
                    childBox.x0 >= box.x0 && childBox.y0 >= box.y0 && childBox.x1 <= box.x1 && childBox.y1 <= box.y1
                        || childBox.x0 > childBox.x1,
                    "child \(k)'s box outside inner node \(index)'s box")
                let quadrantCell = Self.quadrantCell(k, of: cell)
                if NodeRef.isInner(child) {
                    precondition(Int(child) < inner.count && child > 0, "inner node \(index) refers to a missing node \(child)")
                    precondition(parents[Int(child)] == index, "inner node \(child)'s parent is not \(index)")
                    let actual = innerCell(child)
                    // The stored cell is the quadrant, up to rounding when the root grew.
                    precondition(
                        abs(actual.x - quadrantCell.x) <= tolerance && abs(actual.y - quadrantCell.y) <= tolerance
                            && abs(actual.side - quadrantCell.side) <= tolerance,
                        "inner node \(child)'s cell is not quadrant \(k) of node \(index)'s cell")
                    precondition(node.leafCounts[k] == 0 && capacity == 0, "inner node \(index) has leaf data for an inner child")
                    stack.append((child, childBox))
                    continue
                }
                let leaf = LeafID.make(index, k)
                let range = node.leafSlots(k)
                precondition(range.count <= capacity && range.lowerBound + capacity <= slots, "leaf \(leaf)'s range is outside the item arrays")
                for slot in range.lowerBound..<(range.lowerBound + capacity) {
                    precondition(!owned[slot], "slot \(slot) belongs to two leaves")
                    owned[slot] = true
                }
                usedSlots += capacity
                let (x, y, side) = quadrantCell
                for slot in range {
                    let id = itemIDs[slot]
                    precondition(Int(id) < slotOfID.count && slotOfID[Int(id)] == Int32(slot), "slot table wrong for \(id)")
                    precondition(leafOfID[Int(id)] == leaf, "leaf table wrong for \(id)")
                    let (x0, y0, x1, y1) = (itemLow[slot * 2], itemLow[slot * 2 + 1], itemHigh[slot * 2], itemHigh[slot * 2 + 1])
                    precondition(
                        x0 >= childBox.x0 && y0 >= childBox.y0 && x1 <= childBox.x1 && y1 <= childBox.y1, "item \(id) outside leaf \(leaf)'s box")
                    precondition(node.leafHasBoxes(k) || (x0 == x1 && y0 == y1), "leaf \(leaf) holds a box but is marked points-only")
                    let cx = x0 / 2 + x1 / 2, cy = y0 / 2 + y1 / 2
                    precondition(
                        unbounded || (cx >= x && cx <= x + side && cy >= y && cy <= y + side), "item \(id) centre outside its leaf cell")
                    seen += 1
                }
            }
        }
        precondition(seen == count, "the tree holds \(seen) items but counts \(count)")
        precondition(slots - usedSlots == garbageSlots, "\(slots - usedSlots) slots are free but the garbage count is \(garbageSlots)")
        precondition(slotOfID.filter { $0 >= 0 }.count == count, "the slot table holds a different number of items")
    }

    /// Checks that every packed span holds exactly its node's leaves, tiled without gaps, and
    /// that a broken span's ancestors are broken too.
    private func checkSpans() {
        for node in nodesChildrenFirst() where node > 0 {
            let span = spans[Int(node)]
            if span.x < 0 {
                let parent = parents[Int(node)]
                precondition(parent == 0 || spans[Int(parent)].x < 0, "inner node \(node)'s span is broken but its parent's is not")
                continue
            }
            var ranges: [Range<Int>] = []
            var stack: [Int32] = [node]
            while let current = stack.popLast() {
                let children = inner[Int(current)].children
                for k in 0..<4 {
                    if NodeRef.isLeaf(children[k]) {
                        ranges.append(inner[Int(current)].leafSlots(k))
                    } else if NodeRef.isInner(children[k]) {
                        stack.append(children[k])
                    }
                }
            }
            var next = Int(span.x)
            for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) where !range.isEmpty {
                precondition(range.lowerBound == next, "inner node \(node)'s span has a gap or an overlap at slot \(next)")
                next = range.upperBound
            }
            precondition(next == Int(span.y), "inner node \(node)'s span ends at \(span.y), its items at \(next)")
        }
    }
}
