import SieveGeometry

extension QuadTree {
    /// Adds `id` with its envelope (replacing the entry already there for `id`).
    ///
    /// The item descends to the leaf whose cell holds its centre, growing every box on the way;
    /// a full leaf splits into quadrants first. A centre outside the root cell grows the root
    /// (doubling it towards the point) until it fits.
    /// - Returns: `false`, and indexes nothing, when the envelope is empty or not finite (a
    ///   feature without geometry).
    @discardableResult
    public mutating func insert(_ id: UInt32, envelope: Envelope) -> Bool {
        if contains(id) { remove(id) }
        let x0 = envelope.xmin, y0 = envelope.ymin, x1 = envelope.xmax, y1 = envelope.ymax
        guard Self.isIndexable(x0, y0, x1, y1) else { return false }
        let cx = x0 / 2 + x1 / 2, cy = y0 / 2 + y1 / 2
        if root == NodeRef.none {
            let cell = Self.gridRootCell(minX: cx, minY: cy, maxX: cx, maxY: cy)
            (originX, originY, size) = (cell.x, cell.y, cell.side)
            root = NodeRef.leaf(newLeaf(x: originX, y: originY, side: size, capacity: Self.grownCapacity(for: 0)))
            rootBox = .empty
        }
        growRoot(toContain: cx, cy)
        rootBox.expand(x0, y0, x1, y1)
        var ref = root
        var parent: Int32 = -1
        var quadrant = 0
        var depth = 0
        while true {
            if NodeRef.isLeaf(ref) {
                let leaf = NodeRef.leafIndex(ref)
                if depth >= Self.maximumDepth || leaves[Int(leaf)].count < Int32(Self.leafCapacity) {
                    appendToLeaf(leaf, id: id, x0, y0, x1, y1)
                    break
                }
                ref = split(leaf)
                link(ref, parent: parent, quadrant: quadrant)
            }
            let node = ref
            let cell = innerCell(node)
            let half = cell.side / 2
            quadrant = Self.quadrant(cx, cy, midX: cell.x + half, midY: cell.y + half)
            inner[Int(node)].expandBox(quadrant, x0, y0, x1, y1)
            ref = inner[Int(node)].children[quadrant]
            if ref == NodeRef.none {
                let childCell = Self.quadrantCell(quadrant, of: cell)
                ref = NodeRef.leaf(newLeaf(x: childCell.x, y: childCell.y, side: childCell.side, capacity: 0))
                inner[Int(node)].children[quadrant] = ref
            }
            parent = node
            depth += 1
        }
        count += 1
        compactItemsIfWorthIt()
        checkInvariantsInDebug()
        return true
    }

    /// Removes `id`.
    /// - Returns: whether it was there.
    /// - Complexity: O(1): the item's slot is looked up and the leaf's last item moves into it.
    @discardableResult
    public mutating func remove(_ id: UInt32) -> Bool {
        guard contains(id) else { return false }
        let slot = Int(slotOfID[Int(id)])
        let leaf = leafOfID[Int(id)]
        let range = leaves[Int(leaf)]
        let last = Int(range.start) + Int(range.count) - 1
        if slot != last {
            let moved = itemIDs[last]
            storeItem(slot, leaf: leaf, id: moved, itemLow[last * 2], itemLow[last * 2 + 1], itemHigh[last * 2], itemHigh[last * 2 + 1])
        }
        leaves[Int(leaf)].count -= 1
        slotOfID[Int(id)] = -1
        leafOfID[Int(id)] = -1
        count -= 1
        checkInvariantsInDebug()
        return true
    }

    /// Moves `id` to a new envelope (an edit of its geometry): a remove and an insert.
    /// - Returns: whether the item is indexed afterwards.
    @discardableResult
    public mutating func move(_ id: UInt32, to envelope: Envelope) -> Bool {
        remove(id)
        return insert(id, envelope: envelope)
    }

    /// Doubles the root cell towards `(cx, cy)` until the cell holds it; the old root becomes a
    /// quadrant of the new one. Sides stay powers of two and corners on the root's grid, so the
    /// corner arithmetic stays exact.
    private mutating func growRoot(toContain cx: Double, _ cy: Double) {
        while cx < originX || cx > originX + size || cy < originY || cy > originY + size {
            let growWest = cx < originX, growSouth = cy < originY
            if growWest { originX -= size }
            if growSouth { originY -= size }
            size *= 2
            rootGrowth += 1
            let quadrant = (growWest ? 1 : 0) | (growSouth ? 2 : 0)
            let newRoot = newInner(x: originX, y: originY, side: size)
            inner[Int(newRoot)].children[quadrant] = root
            inner[Int(newRoot)].setBox(quadrant, rootBox)
            root = newRoot
        }
    }

    /// Turns leaf `leaf` into an inner node over the same cell, its items spread over new leaf
    /// children by centre; the leaf's slots become garbage and its index is kept for reuse.
    /// - Returns: the new inner node (the caller links it where the leaf was).
    private mutating func split(_ leaf: Int32) -> Int32 {
        let range = leaves[Int(leaf)]
        let cell = leafCell(leaf)
        let node = newInner(x: cell.x, y: cell.y, side: cell.side)
        let half = cell.side / 2
        garbageSlots += Int(range.capacity)
        leaves[Int(leaf)] = .unused
        freeLeaves.append(leaf)
        for slot in range.slots {
            let id = itemIDs[slot]
            let (x0, y0, x1, y1) = (itemLow[slot * 2], itemLow[slot * 2 + 1], itemHigh[slot * 2], itemHigh[slot * 2 + 1])
            let quadrant = Self.quadrant(x0 / 2 + x1 / 2, y0 / 2 + y1 / 2, midX: cell.x + half, midY: cell.y + half)
            var child = inner[Int(node)].children[quadrant]
            if child == NodeRef.none {
                let childCell = Self.quadrantCell(quadrant, of: cell)
                child = NodeRef.leaf(newLeaf(x: childCell.x, y: childCell.y, side: childCell.side, capacity: Self.leafCapacity))
                inner[Int(node)].children[quadrant] = child
            }
            appendToLeaf(NodeRef.leafIndex(child), id: id, x0, y0, x1, y1)
            inner[Int(node)].expandBox(quadrant, x0, y0, x1, y1)
        }
        return node
    }
}
