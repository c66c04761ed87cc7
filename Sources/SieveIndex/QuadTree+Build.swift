extension QuadTree {
    /// Replaces the contents with the given items (`boxes` holds four values per id, aligned
    /// with `ids`; every box indexable).
    mutating func bulkLoad(ids: [UInt32], boxes: [Double]) {
        self = QuadTree()
        guard !ids.isEmpty else { return }
        let n = ids.count
        var order = ids
        var centerX = [Double](repeating: 0, count: n)
        var centerY = [Double](repeating: 0, count: n)
        // Where each item's box is in `boxes`, or -1 for a point (its box is its centre, so
        // filling the leaves needs no random access into `boxes`).
        var boxOf = [Int32](repeating: 0, count: n)
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for i in 0..<n {
            let x0 = boxes[i * 4], y0 = boxes[i * 4 + 1], x1 = boxes[i * 4 + 2], y1 = boxes[i * 4 + 3]
            let isPoint = x0 == x1 && y0 == y1
            let cx = isPoint ? x0 : x0 / 2 + x1 / 2
            let cy = isPoint ? y0 : y0 / 2 + y1 / 2
            centerX[i] = cx
            centerY[i] = cy
            boxOf[i] = isPoint ? -1 : Int32(i)
            minX = Swift.min(minX, cx)
            maxX = Swift.max(maxX, cx)
            minY = Swift.min(minY, cy)
            maxY = Swift.max(maxY, cy)
        }
        let cell = Self.rootCell(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
        let side = cell.side
        originX = cell.x
        originY = cell.y
        size = side
        let blocksNeeded = n / (Self.blockCapacity / 2) + 16
        blockCounts.reserveCapacity(blocksNeeded)
        blockNext.reserveCapacity(blocksNeeded)
        slotIDs.reserveCapacity(blocksNeeded * Self.blockCapacity)
        slotBoxes.reserveCapacity(blocksNeeded * Self.blockCapacity * 4)
        nodeFirstBlock.reserveCapacity(blocksNeeded * 2)
        nodeCells.reserveCapacity(blocksNeeded * 6)
        nodeBoxes.reserveCapacity(blocksNeeded * 8)
        nodeChildren.reserveCapacity(blocksNeeded * 8)
        slotOfID = [Int32](repeating: -1, count: Int(ids.max() ?? 0) + 1)

        struct Work {
            var node: Int32
            var lower: Int
            var upper: Int
            var x: Double
            var y: Double
            var side: Double
            var depth: Int
        }
        root = newNode(x: originX, y: originY, side: side)
        var stack = [Work(node: root, lower: 0, upper: n, x: originX, y: originY, side: side, depth: 0)]
        while let work = stack.popLast() {
            if work.upper - work.lower <= Self.blockCapacity || work.depth >= Self.maximumDepth {
                fillLeaf(
                    work.node, ids: order[work.lower..<work.upper], boxOf: boxOf[work.lower..<work.upper],
                    centerX: centerX[work.lower..<work.upper], centerY: centerY[work.lower..<work.upper], boxes: boxes)
                continue
            }
            let midX = work.x + work.side / 2, midY = work.y + work.side / 2
            // Partition into [SW | NW | SE | NE] by x first, then y within each half.
            func partition(_ lower: Int, _ upper: Int, _ goesFirst: (Int) -> Bool) -> Int {
                var i = lower, j = upper - 1
                while true {
                    while i <= j && goesFirst(i) { i += 1 }
                    while i <= j && !goesFirst(j) { j -= 1 }
                    if i >= j { return i }
                    order.swapAt(i, j)
                    centerX.swapAt(i, j)
                    centerY.swapAt(i, j)
                    boxOf.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            let west = partition(work.lower, work.upper) { centerX[$0] < midX }
            let southWest = partition(work.lower, west) { centerY[$0] < midY }
            let southEast = partition(west, work.upper) { centerY[$0] < midY }
            let ranges = [
                (0, work.lower, southWest), (1, west, southEast), (2, southWest, west), (3, southEast, work.upper),
            ]
            for (quadrant, lower, upper) in ranges where upper > lower {
                let cell = Self.quadrantCell(quadrant, of: (work.x, work.y, work.side))
                let child = newNode(x: cell.x, y: cell.y, side: cell.side)
                nodeChildren[Int(work.node) * 4 + quadrant] = child
                stack.append(
                    Work(node: child, lower: lower, upper: upper, x: cell.x, y: cell.y, side: cell.side, depth: work.depth + 1))
            }
        }
        count = n
        // Children always come after their parent: fold boxes upwards in reverse order.
        for node in stride(from: nodeFirstBlock.count - 1, through: 0, by: -1) where nodeFirstBlock[node] < 0 {
            for k in 0..<4 {
                let child = nodeChildren[node * 4 + k]
                guard child >= 0 else { continue }
                let c = Int(child) * 4
                expandNode(Int32(node), nodeBoxes[c], nodeBoxes[c + 1], nodeBoxes[c + 2], nodeBoxes[c + 3])
            }
        }
    }

    /// Writes the items of a new leaf straight into fresh blocks (the bulk-load twin of
    /// ``appendToLeaf(_:id:_:_:_:_:)``), and sets the leaf's box.
    private mutating func fillLeaf(
        _ node: Int32, ids: ArraySlice<UInt32>, boxOf: ArraySlice<Int32>, centerX: ArraySlice<Double>,
        centerY: ArraySlice<Double>, boxes: [Double]
    ) {
        var bx0 = Double.infinity, by0 = Double.infinity, bx1 = -Double.infinity, by1 = -Double.infinity
        var block = newBlock()
        nodeFirstBlock[Int(node)] = block
        var position = 0
        for k in ids.indices {
            if position == Self.blockCapacity {
                let next = newBlock()
                blockCounts[Int(block)] = Int32(position)
                blockNext[Int(block)] = next
                block = next
                position = 0
            }
            let x0: Double, y0: Double, x1: Double, y1: Double
            let b = Int(boxOf[k])
            if b < 0 {
                (x0, y0, x1, y1) = (centerX[k], centerY[k], centerX[k], centerY[k])
            } else {
                (x0, y0, x1, y1) = (boxes[b * 4], boxes[b * 4 + 1], boxes[b * 4 + 2], boxes[b * 4 + 3])
            }
            let slot = Int(block) * Self.blockCapacity + position
            slotIDs[slot] = ids[k]
            slotBoxes[slot * 4] = x0
            slotBoxes[slot * 4 + 1] = y0
            slotBoxes[slot * 4 + 2] = x1
            slotBoxes[slot * 4 + 3] = y1
            slotOfID[Int(ids[k])] = Int32(slot)
            bx0 = Swift.min(bx0, x0)
            by0 = Swift.min(by0, y0)
            bx1 = Swift.max(bx1, x1)
            by1 = Swift.max(by1, y1)
            position += 1
        }
        blockCounts[Int(block)] = Int32(position)
        expandNode(node, bx0, by0, bx1, by1)
    }

    /// Rebuilds the tree from its current items: tight boxes, no empty blocks, balanced leaves.
    public mutating func rebuild() {
        var ids: [UInt32] = []
        var boxes: [Double] = []
        ids.reserveCapacity(count)
        boxes.reserveCapacity(count * 4)
        for (id, slot) in slotOfID.enumerated() where slot >= 0 {
            ids.append(UInt32(id))
            let s = Int(slot) * 4
            boxes.append(contentsOf: slotBoxes[s..<(s + 4)])
        }
        bulkLoad(ids: ids, boxes: boxes)
    }
}
