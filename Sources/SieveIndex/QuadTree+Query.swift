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
        guard k > 0, root != NodeRef.none, count > 0, x.isFinite, y.isFinite else { return [] }
        let limit = maxDistance * maxDistance
        var heap = MinHeap()
        heap.push(Self.squaredDistance(x, y, rootBox.x0, rootBox.y0, rootBox.x1, rootBox.y1), node: root)
        var found: [(id: UInt32, distance: Double)] = []
        while let entry = heap.pop() {
            if entry.distance > limit { break }
            if entry.isItem {
                // An item: everything still in the heap is at least as far.
                found.append((entry.id, entry.distance.squareRoot()))
                if found.count == k {
                    // Take every other item at exactly the same distance to break ties by id.
                    while let next = heap.peek(), next.distance == entry.distance {
                        _ = heap.pop()
                        if next.isItem { found.append((next.id, next.distance.squareRoot())) } else { expand(next.node, &heap, x, y) }
                    }
                    break
                }
                continue
            }
            expand(entry.node, &heap, x, y)
        }
        found.sort { $0.distance < $1.distance || ($0.distance == $1.distance && $0.id < $1.id) }
        return Array(found.prefix(k))
    }

    /// Pushes a node's children, or a leaf's items, onto the heap.
    private func expand(_ ref: Int32, _ heap: inout MinHeap, _ x: Double, _ y: Double) {
        if NodeRef.isLeaf(ref) {
            for slot in leaves[Int(NodeRef.leafIndex(ref))].slots {
                let s = slot * 2
                heap.push(Self.squaredDistance(x, y, itemLow[s], itemLow[s + 1], itemHigh[s], itemHigh[s + 1]), item: itemIDs[slot])
            }
            return
        }
        let node = inner[Int(ref)]
        for k in 0..<4 where node.children[k] != NodeRef.none {
            heap.push(Self.squaredDistance(x, y, node.minX[k], node.minY[k], node.maxX[k], node.maxY[k]), node: node.children[k])
        }
    }

    /// The squared distance from a point to a box (0 inside).
    @inline(__always)
    static func squaredDistance(_ x: Double, _ y: Double, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Double {
        let dx = x < x0 ? x0 - x : (x > x1 ? x - x1 : 0)
        let dy = y < y0 ? y0 - y : (y > y1 ? y - y1 : 0)
        return dx * dx + dy * dy
    }

    /// The larger of each pair of lanes (the standard library's generic `pointwiseMax` is not
    /// always inlined).
    @inline(__always)
    static func lanewiseMax(_ a: SIMD4<Double>, _ b: SIMD4<Double>) -> SIMD4<Double> {
        a.replacing(with: b, where: b .> a)
    }

    /// The window search: explicit stack (on the thread's stack, no allocation), the four
    /// children of a node tested together from the node's own memory, whole-subtree sweeps for
    /// children inside the window, and leaves of points scanned from their lower corners alone.
    /// - Returns: `false` when the visitor stopped it.
    @inline(__always) @discardableResult
    func search<Visitor: SearchVisitor>(_ window: Envelope, _ visitor: inout Visitor) -> Bool {
        guard root != NodeRef.none, count > 0, !window.isEmpty else { return true }
        let qx0 = window.xmin, qy0 = window.ymin, qx1 = window.xmax, qy1 = window.ymax
        let r = rootBox, root = root
        guard r.x0 <= qx1 && r.y0 <= qy1 && r.x1 >= qx0 && r.y1 >= qy0 else { return true }
        return withSearchView { view in
            let inner = view.inner, leaves = view.leaves, stack = view.stack, ids = view.ids, low = view.low, high = view.high
            /// Scans a leaf that the window cuts.
            @inline(__always) func scan(_ leaf: Int32) -> Bool {
                let range = leaves[Int(leaf)]
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
                return true
            }
            var top = 0
            if r.x0 >= qx0 && r.y0 >= qy0 && r.x1 <= qx1 && r.y1 <= qy1 {
                return view.sweep(root, stackTop: 0, &visitor)
            } else if NodeRef.isLeaf(root) {
                return scan(NodeRef.leafIndex(root))
            }
            stack[0] = root
            top = 1
            while top > 0 {
                top &-= 1
                let node = inner[Int(stack[top])]
                let cuts = (node.minX .<= qx1) .& (node.minY .<= qy1) .& (node.maxX .>= qx0) .& (node.maxY .>= qy0)
                guard any(cuts) else { continue }
                let within = (node.minX .>= qx0) .& (node.minY .>= qy0) .& (node.maxX .<= qx1) .& (node.maxY .<= qy1)
                for k in 0..<4 where cuts[k] {
                    let child = node.children[k]
                    if within[k] {
                        guard view.sweep(child, stackTop: top, &visitor) else { return false }
                    } else if NodeRef.isLeaf(child) {
                        guard scan(NodeRef.leafIndex(child)) else { return false }
                    } else {
                        stack[top] = child
                        top &+= 1
                    }
                }
            }
            return true
        }
    }

    /// The radius search: like ``search(_:_:)``, with the point-to-box distance in place of the
    /// window test; a child whose farthest corner is within the radius is swept whole.
    @inline(__always)
    func searchRadius<Visitor: SearchVisitor>(_ x: Double, _ y: Double, _ radius: Double, _ visitor: inout Visitor) {
        guard root != NodeRef.none, count > 0 else { return }
        let limit = radius * radius
        let r = rootBox, root = root
        guard Self.squaredDistance(x, y, r.x0, r.y0, r.x1, r.y1) <= limit else { return }
        _ = withSearchView { view in
            let inner = view.inner, leaves = view.leaves, stack = view.stack, ids = view.ids, low = view.low, high = view.high
            @inline(__always) func scan(_ leaf: Int32) -> Bool {
                let range = leaves[Int(leaf)]
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
                return true
            }
            if NodeRef.isLeaf(root) { return scan(NodeRef.leafIndex(root)) }
            stack[0] = root
            var top = 1
            let px = SIMD4<Double>(repeating: x), py = SIMD4<Double>(repeating: y), zero = SIMD4<Double>(repeating: 0)
            while top > 0 {
                top &-= 1
                let node = inner[Int(stack[top])]
                // Each lane's distance is computed as squaredDistance computes it, so an item's
                // distance is never smaller than its node's, nor larger than its farthest corner's.
                let dx = Self.lanewiseMax(Self.lanewiseMax(node.minX - px, px - node.maxX), zero)
                let dy = Self.lanewiseMax(Self.lanewiseMax(node.minY - py, py - node.maxY), zero)
                let reaches = dx * dx + dy * dy .<= limit
                guard any(reaches) else { continue }
                let fx = Self.lanewiseMax(px - node.minX, node.maxX - px), fy = Self.lanewiseMax(py - node.minY, node.maxY - py)
                let covered = fx * fx + fy * fy .<= limit
                for k in 0..<4 where reaches[k] {
                    let child = node.children[k]
                    if covered[k] {
                        guard view.sweep(child, stackTop: top, &visitor) else { return false }
                    } else if NodeRef.isLeaf(child) {
                        guard scan(NodeRef.leafIndex(child)) else { return false }
                    } else {
                        stack[top] = child
                        top &+= 1
                    }
                }
            }
            return true
        }
    }

    /// Runs `body` with unsafe views of the flat arrays and a stack buffer of
    /// ``searchStackCapacity`` node references (on the thread's stack: no allocation per search).
    ///
    /// The arrays are passed in rather than read from `self` inside the closures: a closure that
    /// captured `self` would copy the whole tree (a retain and release per array) on every search.
    @inline(__always)
    func withSearchView<R>(_ body: (SearchView) -> R) -> R {
        Self.withSearchView(
            inner: inner, leaves: leaves, ids: itemIDs, low: itemLow, high: itemHigh, stackCapacity: searchStackCapacity, body)
    }

    @inline(__always)
    private static func withSearchView<R>(
        inner: [InnerNode], leaves: [ItemRange], ids: [UInt32], low: [Double], high: [Double], stackCapacity: Int,
        _ body: (SearchView) -> R
    ) -> R {
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: stackCapacity) { stack in
            inner.withUnsafeBufferPointer { inner in
                leaves.withUnsafeBufferPointer { leaves in
                    ids.withUnsafeBufferPointer { ids in
                        low.withUnsafeBufferPointer { low in
                            high.withUnsafeBufferPointer { high in
                                body(SearchView(inner: inner, leaves: leaves, ids: ids, low: low, high: high, stack: stack))
                            }
                        }
                    }
                }
            }
        }
    }

    /// Unsafe views of the tree's arrays for the duration of one search.
    struct SearchView {
        let inner: UnsafeBufferPointer<InnerNode>
        let leaves: UnsafeBufferPointer<ItemRange>
        let ids: UnsafeBufferPointer<UInt32>
        let low: UnsafeBufferPointer<Double>
        let high: UnsafeBufferPointer<Double>
        let stack: UnsafeMutableBufferPointer<Int32>

        /// Hands every item below `ref` to the visitor, leaf by leaf, using the stack above
        /// `stackTop` (the pending nodes below it stay untouched).
        /// - Returns: `false` when the visitor stopped it.
        @inline(__always)
        func sweep<Visitor: SearchVisitor>(_ ref: Int32, stackTop: Int, _ visitor: inout Visitor) -> Bool {
            var top = stackTop
            stack[top] = ref
            top &+= 1
            while top > stackTop {
                top &-= 1
                let current = stack[top]
                if NodeRef.isLeaf(current) {
                    let range = leaves[Int(NodeRef.leafIndex(current))]
                    let start = Int(range.start)
                    guard visitor.visitAll(UnsafeBufferPointer(rebasing: ids[start..<(start &+ Int(range.count))])) else { return false }
                    continue
                }
                let children = inner[Int(current)].children
                for k in 0..<4 where children[k] != NodeRef.none {
                    stack[top] = children[k]
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
        /// The node (a ``QuadTree/NodeRef``) for a node entry.
        var node: Int32
        var id: UInt32
        var isItem: Bool
    }

    private var entries: [Entry] = []

    mutating func push(_ distance: Double, node: Int32) {
        push(Entry(distance: distance, node: node, id: 0, isItem: false))
    }

    mutating func push(_ distance: Double, item id: UInt32) {
        push(Entry(distance: distance, node: QuadTree.NodeRef.none, id: id, isItem: true))
    }

    private mutating func push(_ entry: Entry) {
        entries.append(entry)
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
        if a.isItem != b.isItem { return !a.isItem }
        return a.id < b.id
    }
}
