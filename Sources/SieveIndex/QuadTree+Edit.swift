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
        if root < 0 {
            let cell = Self.gridRootCell(minX: cx, minY: cy, maxX: cx, maxY: cy)
            (originX, originY, size) = (cell.x, cell.y, cell.side)
            root = newNode(x: originX, y: originY, side: size)
            makeLeaf(root, capacity: Self.grownCapacity(for: 0))
        }
        growRoot(toContain: cx, cy)
        var node = root
        var depth = 0
        while true {
            expandNode(node, x0, y0, x1, y1)
            if nodeItems[Int(node)].isLeaf {
                if depth >= Self.maximumDepth || nodeItems[Int(node)].count < Int32(Self.leafCapacity) {
                    appendToLeaf(node, id: id, x0, y0, x1, y1)
                    break
                }
                split(node)
            }
            node = childForInsert(node, cx, cy)
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
        let range = nodeItems[Int(leaf)]
        let last = Int(range.start) + Int(range.count) - 1
        if slot != last {
            let moved = itemIDs[last]
            storeItem(slot, leaf: leaf, id: moved, itemLow[last * 2], itemLow[last * 2 + 1], itemHigh[last * 2], itemHigh[last * 2 + 1])
        }
        nodeItems[Int(leaf)].count -= 1
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
    /// quadrant of the new one. Sides stay powers of two and corners multiples of the first
    /// side, so the corner arithmetic stays exact.
    private mutating func growRoot(toContain cx: Double, _ cy: Double) {
        while cx < originX || cx > originX + size || cy < originY || cy > originY + size {
            let growWest = cx < originX, growSouth = cy < originY
            if growWest { originX -= size }
            if growSouth { originY -= size }
            size *= 2
            rootGrowth += 1
            let quadrant = (growWest ? 1 : 0) | (growSouth ? 2 : 0)
            let newRoot = newNode(x: originX, y: originY, side: size)
            nodeChildren[Int(newRoot) * 4 + quadrant] = root
            let b = Int(root) * 4
            expandNode(newRoot, nodeBoxes[b], nodeBoxes[b + 1], nodeBoxes[b + 2], nodeBoxes[b + 3])
            root = newRoot
        }
    }

    /// The child of inner node `node` whose cell holds the centre, created as an empty leaf when
    /// missing.
    private mutating func childForInsert(_ node: Int32, _ cx: Double, _ cy: Double) -> Int32 {
        let cell = cell(of: node)
        let half = cell.side / 2
        let quadrant = Self.quadrant(cx, cy, midX: cell.x + half, midY: cell.y + half)
        var child = nodeChildren[Int(node) * 4 + quadrant]
        if child < 0 {
            let childCell = Self.quadrantCell(quadrant, of: cell)
            child = newNode(x: childCell.x, y: childCell.y, side: childCell.side)
            makeLeaf(child, capacity: 0)
            nodeChildren[Int(node) * 4 + quadrant] = child
        }
        return child
    }

    /// Turns leaf `node` into an inner node, its items spread over leaf children by centre; its
    /// range becomes garbage.
    private mutating func split(_ node: Int32) {
        let range = nodeItems[Int(node)]
        let items = range.slots.map { slot in
            (itemIDs[slot], itemLow[slot * 2], itemLow[slot * 2 + 1], itemHigh[slot * 2], itemHigh[slot * 2 + 1])
        }
        nodeItems[Int(node)] = .inner
        garbageSlots += Int(range.capacity)
        for (id, x0, y0, x1, y1) in items {
            appendToLeaf(childForInsert(node, x0 / 2 + x1 / 2, y0 / 2 + y1 / 2), id: id, x0, y0, x1, y1)
        }
    }
}
