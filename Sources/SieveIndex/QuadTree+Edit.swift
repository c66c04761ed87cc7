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
        guard root != NodeRef.none, unbounded || growRoot(toContain: cx, cy) else {
            // An empty tree, or a centre the root cannot grow to exactly: a bulk load of every
            // item and this one picks a fresh exact grid (or one unbounded leaf).
            precondition(count + 1 < Self.maximumCount, "a quadtree holds at most \(Self.maximumCount - 1) items")
            rebuild(adding: (id, x0, y0, x1, y1))
            checkInvariantsInDebug()
            return true
        }
        precondition(count + 1 < Self.maximumCount, "a quadtree holds at most \(Self.maximumCount - 1) items")
        if unbounded {
            inner[0].expandBox(0, x0, y0, x1, y1)
            appendToLeaf(parent: 0, quadrant: 0, id: id, x0, y0, x1, y1)
            count += 1
            compactItemsIfWorthIt()
            checkInvariantsInDebug()
            return true
        }
        // Descend from the sentinel's quadrant 0 (the root), growing each box on the way.
        var parent: Int32 = 0
        var quadrant = 0
        var depth = 0
        while true {
            spans[Int(parent)] = Self.brokenSpan
            inner[Int(parent)].expandBox(quadrant, x0, y0, x1, y1)
            var child = inner[Int(parent)].children[quadrant]
            if NodeRef.isLeaf(child) {
                if depth >= Self.maximumDepth || inner[Int(parent)].leafCount(quadrant) < Self.leafCapacity {
                    appendToLeaf(parent: parent, quadrant: quadrant, id: id, x0, y0, x1, y1)
                    break
                }
                child = split(parent: parent, quadrant: quadrant)
            }
            let cell = innerCell(child)
            let half = cell.side / 2
            quadrant = Self.quadrant(cx, cy, midX: cell.x + half, midY: cell.y + half)
            parent = child
            if inner[Int(parent)].children[quadrant] == NodeRef.none { newLeaf(parent: parent, quadrant: quadrant, capacity: 0) }
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
        let (parent, q) = (Int(LeafID.parent(leaf)), LeafID.quadrant(leaf))
        let last = inner[parent].leafSlots(q).upperBound - 1
        if slot != last { copyItem(from: last, to: slot, leaf: leaf) }
        inner[parent].leafCounts[q] -= 1
        breakSpans(from: Int32(parent))
        slotOfID[Int(id)] = -1
        leafOfID[Int(id)] = -1
        count -= 1
        if count == 0 { self = QuadTree() }  // an empty tree keeps no cells or garbage behind
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
    /// quadrant of the new one. Sides stay powers of two, and each step checks that the new
    /// corner is exact, so the old root's cell is exactly a quadrant of the new one.
    /// - Returns: `false`, with the tree's items unchanged, when the cell would have to grow past
    ///   ``largestSide`` or a corner would round (the caller then rebuilds the tree).
    private mutating func growRoot(toContain cx: Double, _ cy: Double) -> Bool {
        while cx < originX || cx > originX + size || cy < originY || cy > originY + size {
            let growWest = cx < originX, growSouth = cy < originY
            guard size < Self.largestSide / 2,
                !growWest || Self.isExactDifference(originX, size),
                !growSouth || Self.isExactDifference(originY, size)
            else { return false }
            let quadrant = (growWest ? 1 : 0) | (growSouth ? 2 : 0)
            setRootCell(x: growWest ? originX - size : originX, y: growSouth ? originY - size : originY, side: size * 2)
            rootGrowth += 1
            let newRoot = newInner(parent: 0, x: originX, y: originY, side: size)
            if NodeRef.isInner(inner[0].children[0]) { parents[Int(inner[0].children[0])] = newRoot }
            // Move the sentinel's lane 0 (the old root) into the new root's quadrant.
            let sentinel = inner[0]
            inner[Int(newRoot)].children[quadrant] = sentinel.children[0]
            inner[Int(newRoot)].leafCounts[quadrant] = sentinel.leafCounts[0]
            inner[Int(newRoot)].setBox(quadrant, sentinel.box(0))
            leafCapacities[Int(newRoot)][quadrant] = leafCapacities[0][0]
            if NodeRef.isLeaf(sentinel.children[0]) {
                let moved = LeafID.make(newRoot, quadrant)
                for slot in sentinel.leafSlots(0) { leafOfID[Int(itemIDs[slot])] = moved }
            }
            inner[0].children[0] = newRoot
            inner[0].leafCounts[0] = 0
            leafCapacities[0][0] = 0
        }
        return true
    }

    /// Whether `a − b` is computed without rounding (the error term of Knuth's two-sum is 0).
    static func isExactDifference(_ a: Double, _ b: Double) -> Bool {
        let difference = a - b
        let bVirtual = a - difference
        return (a - (difference + bVirtual)) + (bVirtual - b) == 0 && difference.isFinite
    }

    /// Turns the leaf in quadrant `q` of `parent` into an inner node over the same cell, its
    /// items spread over new leaf children by centre; the leaf's slots become garbage.
    /// - Returns: the new inner node.
    private mutating func split(parent: Int32, quadrant q: Int) -> Int32 {
        let slots = inner[Int(parent)].leafSlots(q)
        garbageSlots += Int(leafCapacities[Int(parent)][q])
        let cell = Self.quadrantCell(q, of: innerCell(parent))
        let node = newInner(parent: parent, x: cell.x, y: cell.y, side: cell.side)
        inner[Int(parent)].children[q] = node
        inner[Int(parent)].leafCounts[q] = 0
        leafCapacities[Int(parent)][q] = 0
        let half = cell.side / 2
        for slot in slots {
            let id = itemIDs[slot]
            let (x0, y0, x1, y1) = (itemLow[slot * 2], itemLow[slot * 2 + 1], itemHigh[slot * 2], itemHigh[slot * 2 + 1])
            let quadrant = Self.quadrant(x0 / 2 + x1 / 2, y0 / 2 + y1 / 2, midX: cell.x + half, midY: cell.y + half)
            if inner[Int(node)].children[quadrant] == NodeRef.none {
                newLeaf(parent: node, quadrant: quadrant, capacity: Self.leafCapacity)
            }
            appendToLeaf(parent: node, quadrant: quadrant, id: id, x0, y0, x1, y1)
            inner[Int(node)].expandBox(quadrant, x0, y0, x1, y1)
        }
        return node
    }
}
