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
        var boxOf = [Int32](repeating: 0, count: n)  // position of each item's box in `boxes`
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for i in 0..<n {
            let cx = boxes[i * 4] / 2 + boxes[i * 4 + 2] / 2
            let cy = boxes[i * 4 + 1] / 2 + boxes[i * 4 + 3] / 2
            centerX[i] = cx
            centerY[i] = cy
            boxOf[i] = Int32(i)
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
                nodeFirstBlock[Int(work.node)] = newBlock()
                for i in work.lower..<work.upper {
                    let b = Int(boxOf[i]) * 4
                    appendToLeaf(work.node, id: order[i], boxes[b], boxes[b + 1], boxes[b + 2], boxes[b + 3])
                }
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
