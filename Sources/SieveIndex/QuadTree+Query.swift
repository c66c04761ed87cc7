import SieveGeometry

extension QuadTree {
    /// Appends to `results` every id whose envelope intersects `window` (touching counts).
    /// The order is the tree's, not sorted.
    ///
    /// Subtrees whose box lies inside the window are swept whole, without testing their items.
    public func query(intersecting window: Envelope, into results: inout [UInt32]) {
        var visitor = AppendingVisitor(ids: [])
        swap(&visitor.ids, &results)
        search(window, &visitor)
        swap(&visitor.ids, &results)
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
        withoutActuallyEscaping(body) { body in
            var visitor = CallingVisitor(body: body)
            return search(window, &visitor)
        }
    }

    /// Whether any envelope intersects `window` (stops at the first).
    public func anyIntersects(_ window: Envelope) -> Bool {
        var visitor = FirstHitVisitor()
        search(window, &visitor)
        return visitor.found
    }

    /// Appends to `results` every id whose envelope lies within `radius` of `(x, y)`: the
    /// distance from the point to the nearest point of the envelope is at most `radius` (a
    /// circle, not a square).
    public func query(nearX x: Double, y: Double, radius: Double, into results: inout [UInt32]) {
        guard radius >= 0, x.isFinite, y.isFinite else { return }
        var visitor = AppendingVisitor(ids: [])
        swap(&visitor.ids, &results)
        searchRadius(x, y, radius, &visitor)
        swap(&visitor.ids, &results)
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
        let range = nodeItems[node]
        if range.isLeaf {
            for slot in range.slots {
                let s = slot * 2
                let d = Self.squaredDistance(x, y, itemLow[s], itemLow[s + 1], itemHigh[s], itemHigh[s + 1])
                heap.push(d, key: -1, id: itemIDs[slot])
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

    /// The squared distance from a point to a box's farthest corner: no point of the box is
    /// farther. Each coordinate difference is one subtraction, like ``squaredDistance(_:_:_:_:_:_:)``'s,
    /// so (rounding being monotonic) no item inside the box computes a larger distance.
    @inline(__always)
    static func squaredFarthestDistance(_ x: Double, _ y: Double, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Double {
        let dx = Swift.max(x - x0, x1 - x)
        let dy = Swift.max(y - y0, y1 - y)
        return dx * dx + dy * dy
    }

    /// The window search: explicit stack (on the thread's stack, no allocation), children tested
    /// before they are pushed, whole-subtree sweeps for nodes inside the window, and leaves of
    /// points scanned from their lower corners alone.
    /// - Returns: `false` when the visitor stopped it.
    @inline(__always) @discardableResult
    func search<Visitor: SearchVisitor>(_ window: Envelope, _ visitor: inout Visitor) -> Bool {
        guard root >= 0, count > 0, !window.isEmpty else { return true }
        let qx0 = window.xmin, qy0 = window.ymin, qx1 = window.xmax, qy1 = window.ymax
        return withSearchView { view in
            let boxes = view.boxes, children = view.children, items = view.items, stack = view.stack
            let ids = view.ids, low = view.low, high = view.high
            @inline(__always) func intersects(_ node: Int32) -> Bool {
                let b = Int(node) &* 4
                return boxes[b] <= qx1 && boxes[b &+ 1] <= qy1 && boxes[b &+ 2] >= qx0 && boxes[b &+ 3] >= qy0
            }
            guard intersects(root) else { return true }
            stack[0] = root
            var top = 1
            while top > 0 {
                top &-= 1
                let node = stack[top]
                let b = Int(node) &* 4
                if boxes[b] >= qx0 && boxes[b &+ 1] >= qy0 && boxes[b &+ 2] <= qx1 && boxes[b &+ 3] <= qy1 {
                    guard view.sweep(node, stackTop: top, &visitor) else { return false }
                    continue
                }
                let range = items[Int(node)]
                guard range.isLeaf else {
                    for k in 0..<4 {
                        let child = children[b &+ k]
                        if child >= 0 && intersects(child) {
                            stack[top] = child
                            top &+= 1
                        }
                    }
                    continue
                }
                let end = Int(range.start) &+ Int(range.count)
                var slot = Int(range.start)
                if range.hasBoxes {
                    while slot < end {
                        let s = slot &* 2
                        if low[s] <= qx1 && low[s &+ 1] <= qy1 && high[s] >= qx0 && high[s &+ 1] >= qy0 {
                            guard visitor.visit(ids[slot]) else { return false }
                        }
                        slot &+= 1
                    }
                } else {
                    while slot < end {
                        let s = slot &* 2
                        let x = low[s], y = low[s &+ 1]
                        if x >= qx0 && x <= qx1 && y >= qy0 && y <= qy1 {
                            guard visitor.visit(ids[slot]) else { return false }
                        }
                        slot &+= 1
                    }
                }
            }
            return true
        }
    }

    /// The radius search: like ``search(_:_:)``, with the point-to-box distance in place of the
    /// window test; a node whose farthest corner is within the radius is swept whole.
    @inline(__always)
    func searchRadius<Visitor: SearchVisitor>(_ x: Double, _ y: Double, _ radius: Double, _ visitor: inout Visitor) {
        guard root >= 0, count > 0 else { return }
        let limit = radius * radius
        _ = withSearchView { view in
            let boxes = view.boxes, children = view.children, items = view.items, stack = view.stack
            let ids = view.ids, low = view.low, high = view.high
            @inline(__always) func reaches(_ node: Int32) -> Bool {
                let b = Int(node) &* 4
                return Self.squaredDistance(x, y, boxes[b], boxes[b &+ 1], boxes[b &+ 2], boxes[b &+ 3]) <= limit
            }
            guard reaches(root) else { return true }
            stack[0] = root
            var top = 1
            while top > 0 {
                top &-= 1
                let node = stack[top]
                let b = Int(node) &* 4
                if Self.squaredFarthestDistance(x, y, boxes[b], boxes[b &+ 1], boxes[b &+ 2], boxes[b &+ 3]) <= limit {
                    guard view.sweep(node, stackTop: top, &visitor) else { return false }
                    continue
                }
                let range = items[Int(node)]
                guard range.isLeaf else {
                    for k in 0..<4 {
                        let child = children[b &+ k]
                        if child >= 0 && reaches(child) {
                            stack[top] = child
                            top &+= 1
                        }
                    }
                    continue
                }
                let end = Int(range.start) &+ Int(range.count)
                var slot = Int(range.start)
                if range.hasBoxes {
                    while slot < end {
                        let s = slot &* 2
                        if Self.squaredDistance(x, y, low[s], low[s &+ 1], high[s], high[s &+ 1]) <= limit {
                            guard visitor.visit(ids[slot]) else { return false }
                        }
                        slot &+= 1
                    }
                } else {
                    while slot < end {
                        let s = slot &* 2
                        let dx = low[s] - x, dy = low[s &+ 1] - y
                        if dx * dx + dy * dy <= limit {
                            guard visitor.visit(ids[slot]) else { return false }
                        }
                        slot &+= 1
                    }
                }
            }
            return true
        }
    }

    /// Runs `body` with unsafe views of the flat arrays and a stack buffer of
    /// ``searchStackCapacity`` node indices (on the thread's stack: no allocation per search).
    @inline(__always)
    func withSearchView<R>(_ body: (SearchView) -> R) -> R {
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: searchStackCapacity) { stack in
            nodeBoxes.withUnsafeBufferPointer { boxes in
                nodeChildren.withUnsafeBufferPointer { children in
                    nodeItems.withUnsafeBufferPointer { items in
                        itemIDs.withUnsafeBufferPointer { ids in
                            itemLow.withUnsafeBufferPointer { low in
                                itemHigh.withUnsafeBufferPointer { high in
                                    body(
                                        SearchView(
                                            boxes: boxes, children: children, items: items, ids: ids, low: low, high: high,
                                            stack: stack))
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Unsafe views of the tree's arrays for the duration of one search.
    struct SearchView {
        let boxes: UnsafeBufferPointer<Double>
        let children: UnsafeBufferPointer<Int32>
        let items: UnsafeBufferPointer<ItemRange>
        let ids: UnsafeBufferPointer<UInt32>
        let low: UnsafeBufferPointer<Double>
        let high: UnsafeBufferPointer<Double>
        let stack: UnsafeMutableBufferPointer<Int32>

        /// Hands every item below `node` to the visitor, leaf by leaf, using the stack above
        /// `stackTop` (the pending nodes below it stay untouched).
        /// - Returns: `false` when the visitor stopped it.
        @inline(__always)
        func sweep<Visitor: SearchVisitor>(_ node: Int32, stackTop: Int, _ visitor: inout Visitor) -> Bool {
            var top = stackTop
            stack[top] = node
            top &+= 1
            while top > stackTop {
                top &-= 1
                let inner = stack[top]
                let range = items[Int(inner)]
                if range.isLeaf {
                    let start = Int(range.start)
                    guard visitor.visitAll(UnsafeBufferPointer(rebasing: ids[start..<(start &+ Int(range.count))])) else { return false }
                    continue
                }
                let c = Int(inner) &* 4
                for k in 0..<4 where children[c &+ k] >= 0 {
                    stack[top] = children[c &+ k]
                    top &+= 1
                }
            }
            return true
        }
    }
}

/// Receives the hits of a search.
protocol SearchVisitor {
    /// One hit. Returns `false` to stop the search.
    mutating func visit(_ id: UInt32) -> Bool
    /// The items of a leaf that lies wholly in the query region. Returns `false` to stop.
    mutating func visitAll(_ ids: UnsafeBufferPointer<UInt32>) -> Bool
}

/// Appends every hit to an array.
struct AppendingVisitor: SearchVisitor {
    var ids: [UInt32]

    @inline(__always) mutating func visit(_ id: UInt32) -> Bool {
        ids.append(id)
        return true
    }

    @inline(__always) mutating func visitAll(_ ids: UnsafeBufferPointer<UInt32>) -> Bool {
        self.ids.append(contentsOf: ids)
        return true
    }
}

/// Calls a closure for every hit until it returns `false`.
struct CallingVisitor: SearchVisitor {
    let body: (UInt32) -> Bool

    @inline(__always) mutating func visit(_ id: UInt32) -> Bool { body(id) }

    @inline(__always) mutating func visitAll(_ ids: UnsafeBufferPointer<UInt32>) -> Bool {
        for id in ids where !body(id) { return false }
        return true
    }
}

/// Stops at the first hit.
struct FirstHitVisitor: SearchVisitor {
    var found = false

    @inline(__always) mutating func visit(_ id: UInt32) -> Bool {
        found = true
        return false
    }

    @inline(__always) mutating func visitAll(_ ids: UnsafeBufferPointer<UInt32>) -> Bool {
        found = !ids.isEmpty
        return !found
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
