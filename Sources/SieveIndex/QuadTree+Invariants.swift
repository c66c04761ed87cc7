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
        guard root >= 0 else {
            precondition(count == 0, "an empty tree counts \(count) items")
            return
        }
        let slots = itemIDs.count
        precondition(itemLow.count == 2 * slots && itemHigh.count == 2 * slots, "item columns differ in length")
        precondition(slotOfID.count == leafOfID.count, "id tables differ in length")
        var seen = 0
        var owned = [Bool](repeating: false, count: slots)
        var usedSlots = 0
        precondition(cell(of: root) == (originX, originY, size), "the root's cell is not the tree's root cell")
        var stack: [Int32] = [root]
        while let node = stack.popLast() {
            let (x, y, side) = cell(of: node)
            let b = Int(node) * 4
            let box = (nodeBoxes[b], nodeBoxes[b + 1], nodeBoxes[b + 2], nodeBoxes[b + 3])
            let range = nodeItems[Int(node)]
            if range.isLeaf {
                precondition(nodeChildren[b..<(b + 4)].allSatisfy { $0 < 0 }, "leaf \(node) has children")
                precondition(
                    range.count >= 0 && range.count <= range.capacity && Int(range.start) + Int(range.capacity) <= slots,
                    "leaf \(node)'s range is outside the item arrays")
                for slot in Int(range.start)..<(Int(range.start) + Int(range.capacity)) {
                    precondition(!owned[slot], "slot \(slot) belongs to two leaves")
                    owned[slot] = true
                }
                usedSlots += Int(range.capacity)
                for slot in range.slots {
                    let id = itemIDs[slot]
                    precondition(Int(id) < slotOfID.count && slotOfID[Int(id)] == Int32(slot), "slot table wrong for \(id)")
                    precondition(leafOfID[Int(id)] == node, "leaf table wrong for \(id)")
                    let (x0, y0, x1, y1) = (itemLow[slot * 2], itemLow[slot * 2 + 1], itemHigh[slot * 2], itemHigh[slot * 2 + 1])
                    precondition(x0 >= box.0 && y0 >= box.1 && x1 <= box.2 && y1 <= box.3, "item \(id) outside node \(node)'s box")
                    precondition(range.hasBoxes || (x0 == x1 && y0 == y1), "leaf \(node) holds a box but is marked points-only")
                    let cx = x0 / 2 + x1 / 2, cy = y0 / 2 + y1 / 2
                    precondition(cx >= x && cx <= x + side && cy >= y && cy <= y + side, "item \(id) centre outside its leaf cell")
                    seen += 1
                }
            } else {
                for k in 0..<4 {
                    let child = nodeChildren[b + k]
                    guard child >= 0 else { continue }
                    let c = Int(child) * 4
                    precondition(
                        nodeBoxes[c] >= box.0 && nodeBoxes[c + 1] >= box.1 && nodeBoxes[c + 2] <= box.2 && nodeBoxes[c + 3] <= box.3
                            || nodeBoxes[c] > nodeBoxes[c + 2],
                        "child \(child)'s box outside node \(node)'s box")
                    let expected = Self.quadrantCell(k, of: (x, y, side))
                    let actual = cell(of: child)
                    // The stored cell is the quadrant, up to rounding when the root grew.
                    let tolerance = side * 0x1p-40
                    precondition(
                        abs(actual.x - expected.x) <= tolerance && abs(actual.y - expected.y) <= tolerance
                            && abs(actual.side - expected.side) <= tolerance,
                        "child \(child)'s cell is not quadrant \(k) of node \(node)'s cell")
                    stack.append(child)
                }
            }
        }
        precondition(seen == count, "the tree holds \(seen) items but counts \(count)")
        precondition(slots - usedSlots == garbageSlots, "\(slots - usedSlots) slots are free but the garbage count is \(garbageSlots)")
        precondition(slotOfID.filter { $0 >= 0 }.count == count, "the slot table holds a different number of items")
    }
}
