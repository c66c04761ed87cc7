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
        guard root != NodeRef.none else {
            precondition(count == 0, "an empty tree counts \(count) items")
            return
        }
        let slots = itemIDs.count
        precondition(itemLow.count == 2 * slots && itemHigh.count == 2 * slots, "item columns differ in length")
        precondition(slotOfID.count == leafOfID.count, "id tables differ in length")
        precondition(inner.count * 3 == innerCells.count && leaves.count * 3 == leafCells.count, "cell tables differ in length")
        var seen = 0
        var owned = [Bool](repeating: false, count: slots)
        var usedSlots = 0
        var leafSeen = [Bool](repeating: false, count: leaves.count)
        let tolerance = size * 0x1p-40
        func sameCell(_ a: (x: Double, y: Double, side: Double), _ b: (x: Double, y: Double, side: Double)) -> Bool {
            abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance && abs(a.side - b.side) <= tolerance
        }
        // Each entry: a node, its box as its parent stores it, and the cell it must have.
        var stack: [(ref: Int32, box: Box, cell: (x: Double, y: Double, side: Double))] = [(root, rootBox, (originX, originY, size))]
        while let (ref, box, cell) = stack.popLast() {
            if NodeRef.isLeaf(ref) {
                let leaf = NodeRef.leafIndex(ref)
                precondition(!leafSeen[Int(leaf)] && !freeLeaves.contains(leaf), "leaf \(leaf) is reachable twice or marked free")
                leafSeen[Int(leaf)] = true
                // The stored cell is the quadrant, up to rounding when the root grew.
                precondition(sameCell(leafCell(leaf), cell), "leaf \(leaf)'s cell is not its quadrant")
                let range = leaves[Int(leaf)]
                precondition(
                    range.count >= 0 && range.count <= range.capacity && Int(range.start) + Int(range.capacity) <= slots,
                    "leaf \(leaf)'s range is outside the item arrays")
                for slot in Int(range.start)..<(Int(range.start) + Int(range.capacity)) {
                    precondition(!owned[slot], "slot \(slot) belongs to two leaves")
                    owned[slot] = true
                }
                usedSlots += Int(range.capacity)
                let (x, y, side) = leafCell(leaf)
                for slot in range.slots {
                    let id = itemIDs[slot]
                    precondition(Int(id) < slotOfID.count && slotOfID[Int(id)] == Int32(slot), "slot table wrong for \(id)")
                    precondition(leafOfID[Int(id)] == leaf, "leaf table wrong for \(id)")
                    let (x0, y0, x1, y1) = (itemLow[slot * 2], itemLow[slot * 2 + 1], itemHigh[slot * 2], itemHigh[slot * 2 + 1])
                    precondition(x0 >= box.x0 && y0 >= box.y0 && x1 <= box.x1 && y1 <= box.y1, "item \(id) outside leaf \(leaf)'s box")
                    precondition(range.hasBoxes || (x0 == x1 && y0 == y1), "leaf \(leaf) holds a box but is marked points-only")
                    let cx = x0 / 2 + x1 / 2, cy = y0 / 2 + y1 / 2
                    precondition(cx >= x && cx <= x + side && cy >= y && cy <= y + side, "item \(id) centre outside its leaf cell")
                    seen += 1
                }
                continue
            }
            precondition(ref >= 0 && Int(ref) < inner.count, "reference \(ref) is neither a leaf nor an inner node")
            precondition(sameCell(innerCell(ref), cell), "inner node \(ref)'s cell is not its quadrant")
            let node = inner[Int(ref)]
            for k in 0..<4 {
                let child = node.box(k)
                guard node.children[k] != NodeRef.none else {
                    precondition(child == .empty, "inner node \(ref) has a box for a missing child \(k)")
                    continue
                }
                precondition(
                    child.x0 >= box.x0 && child.y0 >= box.y0 && child.x1 <= box.x1 && child.y1 <= box.y1 || child.x0 > child.x1,
                    "child \(k)'s box outside inner node \(ref)'s box")
                stack.append((node.children[k], child, Self.quadrantCell(k, of: innerCell(ref))))
            }
        }
        precondition(seen == count, "the tree holds \(seen) items but counts \(count)")
        precondition(slots - usedSlots == garbageSlots, "\(slots - usedSlots) slots are free but the garbage count is \(garbageSlots)")
        precondition(slotOfID.filter { $0 >= 0 }.count == count, "the slot table holds a different number of items")
    }
}
