import SieveGeometry

extension QuadTree {
    /// Appends to `results` every id whose envelope intersects `window` (touching counts).
    /// The order is the tree's, not sorted.
    ///
    /// Subtrees whose box lies inside the window are swept whole, without testing their items.
    public func query(intersecting window: Envelope, into results: inout [UInt32]) {
        search(window) { id in
            results.append(id)
            return true
        }
    }

    /// The ids whose envelope intersects `window`.
    public func query(intersecting window: Envelope) -> [UInt32] {
        var results: [UInt32] = []
        query(intersecting: window, into: &results)
        return results
    }

    /// Calls `body` for every id whose envelope intersects `window` until it returns `false`.
    /// - Returns: `false` when `body` stopped the search.
    @discardableResult
    public func forEach(intersecting window: Envelope, _ body: (UInt32) -> Bool) -> Bool {
        search(window, body)
    }

    /// Whether any envelope intersects `window` (stops at the first).
    public func anyIntersects(_ window: Envelope) -> Bool {
        !search(window) { _ in false }
    }

    /// Appends to `results` every id whose envelope lies within `radius` of `(x, y)`: the
    /// distance from the point to the nearest point of the envelope is at most `radius` (a
    /// circle, not a square).
    public func query(nearX x: Double, y: Double, radius: Double, into results: inout [UInt32]) {
        guard radius >= 0, x.isFinite, y.isFinite else { return }
        searchRadius(x, y, radius) { results.append($0) }
    }

    /// The `k` ids whose envelopes are nearest to `(x, y)` (distance from the point to the
    /// envelope; 0 inside), nearest first, ties by id; at most `maxDistance` away.
    /// - Complexity: best-first search: O(k log n) node visits for well-spread data.
    public func nearest(toX x: Double, y: Double, count k: Int, maxDistance: Double = .infinity) -> [(id: UInt32, distance: Double)] {
        guard k > 0, root >= 0, count > 0, x.isFinite, y.isFinite else { return [] }
        let limit = maxDistance * maxDistance
        // Min-heap of (squared distance, node or item). Items are tagged by a negative code.
        var heap = MinHeap()
        let b = Int(root) * 4
        heap.push(Self.squaredDistance(x, y, nodeBoxes[b], nodeBoxes[b + 1], nodeBoxes[b + 2], nodeBoxes[b + 3]), key: Int64(root), id: 0)
        var found: [(id: UInt32, distance: Double)] = []
        while let entry = heap.pop() {
            if entry.distance > limit { break }
            if entry.key < 0 {
                // An item: everything still in the heap is at least as far.
                found.append((entry.id, entry.distance.squareRoot()))
                if found.count == k {
                    // Take every other item at exactly the same distance to break ties by id.
                    while let next = heap.peek(), next.distance == entry.distance {
                        _ = heap.pop()
                        if next.key < 0 { found.append((next.id, next.distance.squareRoot())) } else { expand(next, &heap, x, y) }
                    }
                    break
                }
                continue
            }
            expand(entry, &heap, x, y)
        }
        found.sort { $0.distance < $1.distance || ($0.distance == $1.distance && $0.id < $1.id) }
        return Array(found.prefix(k))
    }

    /// Pushes a node's children, or a leaf's items, onto the heap.
    private func expand(_ entry: MinHeap.Entry, _ heap: inout MinHeap, _ x: Double, _ y: Double) {
        let node = Int(entry.key)
        if nodeFirstBlock[node] >= 0 {
            var block = nodeFirstBlock[node]
            while block >= 0 {
                for k in 0..<Int(blockCounts[Int(block)]) {
                    let slot = Int(block) * Self.blockCapacity + k
                    let s = slot * 4
                    let d = Self.squaredDistance(x, y, slotBoxes[s], slotBoxes[s + 1], slotBoxes[s + 2], slotBoxes[s + 3])
                    heap.push(d, key: -1, id: slotIDs[slot])
                }
                block = blockNext[Int(block)]
            }
            return
        }
        for k in 0..<4 {
            let child = nodeChildren[node * 4 + k]
            guard child >= 0 else { continue }
            let c = Int(child) * 4
            heap.push(Self.squaredDistance(x, y, nodeBoxes[c], nodeBoxes[c + 1], nodeBoxes[c + 2], nodeBoxes[c + 3]), key: Int64(child), id: 0)
        }
    }

    /// The squared distance from a point to a box (0 inside).
    @inline(__always)
    static func squaredDistance(_ x: Double, _ y: Double, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Double {
        let dx = x < x0 ? x0 - x : (x > x1 ? x - x1 : 0)
        let dy = y < y0 ? y0 - y : (y > y1 ? y - y1 : 0)
        return dx * dx + dy * dy
    }

    /// The window search: explicit stack (on the thread's stack, no allocation), per-axis early
    /// rejection, whole-subtree sweeps for nodes inside the window.
    /// - Returns: `false` when `visit` stopped it.
    @inline(__always)
    func search(_ window: Envelope, _ visit: (UInt32) -> Bool) -> Bool {
        guard root >= 0, count > 0, !window.isEmpty else { return true }
        let qx0 = window.xmin, qy0 = window.ymin, qx1 = window.xmax, qy1 = window.ymax
        return withSearchBuffers { nodeBoxes, children, firstBlock, blockCounts, blockNext, ids, boxes, stack in
            var top = 0
            stack[0] = root
            top = 1
            let capacity = Self.blockCapacity
            while top > 0 {
                top &-= 1
                let node = stack[top]
                let b = Int(node) &* 4
                let x0 = nodeBoxes[b]
                if x0 > qx1 { continue }
                let y0 = nodeBoxes[b &+ 1]
                if y0 > qy1 { continue }
                let x1 = nodeBoxes[b &+ 2]
                if x1 < qx0 { continue }
                let y1 = nodeBoxes[b &+ 3]
                if y1 < qy0 { continue }
                if x0 >= qx0 && y0 >= qy0 && x1 <= qx1 && y1 <= qy1 {
                    // Everything below lies inside the window: sweep it, using the stack's top
                    // part (the pending nodes below `top` stay untouched).
                    var sweepTop = top
                    stack[sweepTop] = node
                    sweepTop &+= 1
                    while sweepTop > top {
                        sweepTop &-= 1
                        let inner = stack[sweepTop]
                        var block = firstBlock[Int(inner)]
                        if block < 0 {
                            let c = Int(inner) &* 4
                            for k in 0..<4 where children[c &+ k] >= 0 {
                                stack[sweepTop] = children[c &+ k]
                                sweepTop &+= 1
                            }
                            continue
                        }
                        while block >= 0 {
                            let base = Int(block) &* capacity
                            for slot in base..<(base &+ Int(blockCounts[Int(block)])) where !visit(ids[slot]) {
                                return false
                            }
                            block = blockNext[Int(block)]
                        }
                    }
                    continue
                }
                var block = firstBlock[Int(node)]
                if block < 0 {
                    for k in 0..<4 where children[b &+ k] >= 0 {
                        stack[top] = children[b &+ k]
                        top &+= 1
                    }
                    continue
                }
                while block >= 0 {
                    let base = Int(block) &* capacity
                    for slot in base..<(base &+ Int(blockCounts[Int(block)])) {
                        let s = slot &* 4
                        if boxes[s] > qx1 || boxes[s &+ 1] > qy1 || boxes[s &+ 2] < qx0 || boxes[s &+ 3] < qy0 {
                            continue
                        }
                        if !visit(ids[slot]) { return false }
                    }
                    block = blockNext[Int(block)]
                }
            }
            return true
        }
    }

    /// The radius search: like ``search(_:_:)`` over the circle's bounding square, with the
    /// exact point-to-box distance test done in the leaf scan (no sweeps: a node inside the
    /// square is not inside the circle).
    @inline(__always)
    func searchRadius(_ x: Double, _ y: Double, _ radius: Double, _ visit: (UInt32) -> Void) {
        guard root >= 0, count > 0 else { return }
        let qx0 = x - radius, qy0 = y - radius, qx1 = x + radius, qy1 = y + radius
        let limit = radius * radius
        _ = withSearchBuffers { nodeBoxes, children, firstBlock, blockCounts, blockNext, ids, boxes, stack in
            stack[0] = root
            var top = 1
            let capacity = Self.blockCapacity
            while top > 0 {
                top &-= 1
                let node = stack[top]
                let b = Int(node) &* 4
                if Self.squaredDistance(x, y, nodeBoxes[b], nodeBoxes[b &+ 1], nodeBoxes[b &+ 2], nodeBoxes[b &+ 3]) > limit {
                    continue
                }
                var block = firstBlock[Int(node)]
                if block < 0 {
                    for k in 0..<4 where children[b &+ k] >= 0 {
                        stack[top] = children[b &+ k]
                        top &+= 1
                    }
                    continue
                }
                while block >= 0 {
                    let base = Int(block) &* capacity
                    for slot in base..<(base &+ Int(blockCounts[Int(block)])) {
                        let s = slot &* 4
                        if boxes[s] > qx1 || boxes[s &+ 1] > qy1 || boxes[s &+ 2] < qx0 || boxes[s &+ 3] < qy0 { continue }
                        if Self.squaredDistance(x, y, boxes[s], boxes[s &+ 1], boxes[s &+ 2], boxes[s &+ 3]) <= limit {
                            visit(ids[slot])
                        }
                    }
                    block = blockNext[Int(block)]
                }
            }
            return true
        }
    }

    /// Runs `body` with unsafe views of the flat arrays and a stack buffer of
    /// ``searchStackCapacity`` node indices (on the thread's stack: no allocation per search).
    @inline(__always)
    func withSearchBuffers<R>(
        _ body: (
            UnsafeBufferPointer<Double>, UnsafeBufferPointer<Int32>, UnsafeBufferPointer<Int32>, UnsafeBufferPointer<Int32>,
            UnsafeBufferPointer<Int32>, UnsafeBufferPointer<UInt32>, UnsafeBufferPointer<Double>, UnsafeMutableBufferPointer<Int32>
        ) -> R
    ) -> R {
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: searchStackCapacity) { stack in
            nodeBoxes.withUnsafeBufferPointer { nodeBoxes in
                nodeChildren.withUnsafeBufferPointer { children in
                    nodeFirstBlock.withUnsafeBufferPointer { firstBlock in
                        blockCounts.withUnsafeBufferPointer { blockCounts in
                            blockNext.withUnsafeBufferPointer { blockNext in
                                slotIDs.withUnsafeBufferPointer { ids in
                                    slotBoxes.withUnsafeBufferPointer { boxes in
                                        body(nodeBoxes, children, firstBlock, blockCounts, blockNext, ids, boxes, stack)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A binary min-heap of search entries for nearest-neighbour search.
struct MinHeap {
    struct Entry {
        var distance: Double
        /// A node index, or -1 for an item.
        var key: Int64
        var id: UInt32
    }

    private var entries: [Entry] = []

    mutating func push(_ distance: Double, key: Int64, id: UInt32) {
        entries.append(Entry(distance: distance, key: key, id: id))
        var i = entries.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard Self.before(entries[i], entries[parent]) else { break }
            entries.swapAt(i, parent)
            i = parent
        }
    }

    func peek() -> Entry? { entries.first }

    mutating func pop() -> Entry? {
        guard let first = entries.first else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            var i = 0
            while true {
                let left = 2 * i + 1, right = left + 1
                var best = i
                if left < entries.count && Self.before(entries[left], entries[best]) { best = left }
                if right < entries.count && Self.before(entries[right], entries[best]) { best = right }
                if best == i { break }
                entries.swapAt(i, best)
                i = best
            }
        }
        return first
    }

    /// Nearer first; at equal distance nodes before items (so every tied item is found), then
    /// smaller ids.
    private static func before(_ a: Entry, _ b: Entry) -> Bool {
        if a.distance != b.distance { return a.distance < b.distance }
        if (a.key < 0) != (b.key < 0) { return a.key >= 0 }
        return a.id < b.id
    }
}
