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
    ///
    /// Distances are compared squared. When the radius lies in 10⁻¹⁵⁰ … 10¹⁵⁰ and the point and
    /// the tree's items within ±10¹⁵⁰ (the common case), no square can overflow, and a square
    /// that underflows is far below the radius's; otherwise the offsets are first scaled by a
    /// power of two that brings the radius near 1 (exact), so that a point √2·10³⁰⁸ away is
    /// not within 10³⁰⁸ and a point 10⁻³⁰⁰ away is not within 10⁻³¹⁰. Either way the answer
    /// is the exact one except within a few units in the last place of the radius.
    public func query(nearX x: Double, y: Double, radius: Double, into results: inout [UInt32]) {
        guard radius >= 0, x.isFinite, y.isFinite else { return }
        var visitor = AppendingVisitor(ids: [])
        swap(&visitor.ids, &results)
        if radius == .infinity || isWellScaled(x: x, y: y, scale: radius) {
            search(CircleRegion(x: x, y: y, limit: radius * radius), &visitor)
        } else {
            search(ScaledCircleRegion(x: x, y: y, radius: radius), &visitor)
        }
        swap(&visitor.ids, &results)
    }

    /// Whether squared distances between `(x, y)` and the items, compared with `scale` squared,
    /// are safe from overflow and from harmful underflow: `scale` in 10⁻¹⁵⁰ … 10¹⁵⁰ and every
    /// coordinate within ±10¹⁵⁰.
    @inline(__always)
    func isWellScaled(x: Double, y: Double, scale: Double) -> Bool {
        guard scale >= 1e-150, scale <= 1e150, abs(x) <= 1e150, abs(y) <= 1e150 else { return false }
        let box = bounds
        return box.isEmpty || Swift.max(abs(box.xmin), abs(box.xmax), abs(box.ymin), abs(box.ymax)) <= 1e150
    }

    /// The `k` ids whose envelopes are nearest to `(x, y)` (distance from the point to the
    /// envelope; 0 inside), nearest first, ties by id; at most `maxDistance` away.
    ///
    /// Distances are computed without squaring the offsets (`distance(_:_:_:_:_:_:)`), so
    /// that they neither overflow near the largest doubles nor vanish in the subnormal range:
    /// points 10⁻³²⁰ apart are told apart, points 10³⁰⁸ away are not infinitely far.
    /// - Complexity: best-first search: O(k log n) node visits for well-spread data.
    public func nearest(toX x: Double, y: Double, count k: Int, maxDistance: Double = .infinity) -> [(id: UInt32, distance: Double)] {
        guard k > 0, root != NodeRef.none, count > 0, x.isFinite, y.isFinite, maxDistance >= 0 else { return [] }
        var heap = MinHeap()
        heap.push(0, kind: .inner, value: 0)  // the sentinel: its only child is the root
        var found: [(id: UInt32, distance: Double)] = []
        while let entry = heap.pop() {
            if entry.distance > maxDistance { break }
            if entry.kind == .item {
                // An item: everything still in the heap is at least as far.
                found.append((UInt32(bitPattern: entry.value), entry.distance))
                if found.count == k {
                    // Take every other item at exactly the same distance to break ties by id.
                    while let next = heap.peek(), next.distance == entry.distance {
                        _ = heap.pop()
                        if next.kind == .item {
                            found.append((UInt32(bitPattern: next.value), next.distance))
                        } else {
                            expand(next, &heap, x, y)
                        }
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

    /// Pushes a node's children, or a leaf's items, onto the heap, with their distances from
    /// `(x, y)`.
    private func expand(_ entry: MinHeap.Entry, _ heap: inout MinHeap, _ x: Double, _ y: Double) {
        if entry.kind == .leaf {
            for slot in inner[Int(LeafID.parent(entry.value))].leafSlots(LeafID.quadrant(entry.value)) {
                let s = slot * 2
                let d = Self.distance(x, y, itemLow[s], itemLow[s + 1], itemHigh[s], itemHigh[s + 1])
                heap.push(d, kind: .item, value: Int32(bitPattern: itemIDs[slot]))
            }
            return
        }
        let node = inner[Int(entry.value)]
        for k in 0..<4 where node.children[k] != NodeRef.none {
            let d = Self.distance(x, y, node.minX[k], node.minY[k], node.maxX[k], node.maxY[k])
            if NodeRef.isLeaf(node.children[k]) {
                heap.push(d, kind: .leaf, value: LeafID.make(entry.value, k))
            } else {
                heap.push(d, kind: .inner, value: node.children[k])
            }
        }
    }

    /// The distance from a point to a box (0 inside), as `m·√(1 + (n/m)²)` with `m` the larger
    /// and `n` the smaller offset: correct to a few units in the last place over the whole
    /// `Double` range (infinite only when the distance itself exceeds the largest double), and
    /// never smaller for a box inside another.
    @inline(__always)
    static func distance(_ x: Double, _ y: Double, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Double {
        let dx = x < x0 ? x0 - x : (x > x1 ? x - x1 : 0)
        let dy = y < y0 ? y0 - y : (y > y1 ? y - y1 : 0)
        let m = Swift.max(dx, dy), n = Swift.min(dx, dy)
        guard m > 0, m.isFinite else { return m }
        let ratio = n / m
        return m * (1 + ratio * ratio).squareRoot()
    }

    /// The squared distance from a point to a box (0 inside).
    @inline(__always)
    static func squaredDistance(_ x: Double, _ y: Double, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Double {
        let dx = x < x0 ? x0 - x : (x > x1 ? x - x1 : 0)
        let dy = y < y0 ? y0 - y : (y > y1 ? y - y1 : 0)
        return dx * dx + dy * dy
    }

    /// The window search (an empty window holds nothing).
    @inline(__always) @discardableResult
    func search<Visitor: SearchVisitor>(_ window: Envelope, _ visitor: inout Visitor) -> Bool {
        window.isEmpty || search(WindowRegion(window), &visitor)
    }

    /// The search: explicit stack (on the thread's stack, no allocation), the four children of
    /// a node tested together from the node's own memory, leaves scanned from their parent
    /// (points from their lower corners alone), and whole-subtree sweeps for children that lie
    /// wholly in the region.
    /// - Returns: `false` when the visitor stopped it.
    @inline(__always) @discardableResult
    func search<Region: SearchRegion, Visitor: SearchVisitor>(_ region: Region, _ visitor: inout Visitor) -> Bool {
        guard count > 0 else { return true }
        return withSearchView { view in
            let inner = view.inner, stack = view.stack
            stack[0] = 0
            var top = 1
            while top > 0 {
                top &-= 1
                let node = inner[Int(stack[top])]
                // A missing child's empty box can pass only an unbounded region; the lane loop
                // skips it.
                let reaches = region.reaches(node)
                guard any(reaches) else { continue }
                let covers = region.covers(node)
                for k in 0..<4 where reaches[k] && node.children[k] != NodeRef.none {
                    let child = node.children[k]
                    if covers[k] {
                        guard view.sweep(node, k, stackTop: top, &visitor) else { return false }
                    } else if NodeRef.isInner(child) {
                        stack[top] = child
                        top &+= 1
                    } else {
                        guard view.scan(node, k, region, &visitor) else { return false }
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
            inner: inner, spans: spans, ids: itemIDs, low: itemLow, high: itemHigh, stackCapacity: searchStackCapacity, body)
    }

    @inline(__always)
    private static func withSearchView<R>(
        inner: [InnerNode], spans: [SIMD2<Int32>], ids: [UInt32], low: [Double], high: [Double], stackCapacity: Int,
        _ body: (SearchView) -> R
    ) -> R {
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: stackCapacity) { stack in
          withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { scratch in
            inner.withUnsafeBufferPointer { inner in
                spans.withUnsafeBufferPointer { spans in
                    ids.withUnsafeBufferPointer { ids in
                        low.withUnsafeBufferPointer { low in
                            high.withUnsafeBufferPointer { high in
                                body(SearchView(inner: inner, spans: spans, ids: ids, low: low, high: high, stack: stack, scratch: scratch))
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
        let inner: UnsafeBufferPointer<InnerNode>
        let spans: UnsafeBufferPointer<SIMD2<Int32>>
        let ids: UnsafeBufferPointer<UInt32>
        let low: UnsafeBufferPointer<Double>
        let high: UnsafeBufferPointer<Double>
        let stack: UnsafeMutableBufferPointer<Int32>
        /// Room for the hits of one leaf scan.
        let scratch: UnsafeMutableBufferPointer<UInt32>

        /// Hands every item below child `k` of `node` to the visitor: all at once when the child's
        /// span is packed, else leaf by leaf, using the stack above `stackTop` (the pending nodes
        /// below it stay untouched).
        /// - Returns: `false` when the visitor stopped it.
        @inline(__always)
        func sweep<Visitor: SearchVisitor>(_ node: InnerNode, _ k: Int, stackTop: Int, _ visitor: inout Visitor) -> Bool {
            let child = node.children[k]
            if NodeRef.isLeaf(child) { return visitor.visitAll(leafIDs(node, k)) }
            var top = stackTop
            stack[top] = child
            top &+= 1
            while top > stackTop {
                top &-= 1
                let span = spans[Int(stack[top])]
                if span.x >= 0 {
                    guard visitor.visitAll(UnsafeBufferPointer(rebasing: ids[Int(span.x)..<Int(span.y)])) else { return false }
                    continue
                }
                let current = inner[Int(stack[top])]
                for lane in 0..<4 {
                    let grandchild = current.children[lane]
                    if NodeRef.isLeaf(grandchild) {
                        guard visitor.visitAll(leafIDs(current, lane)) else { return false }
                    } else if NodeRef.isInner(grandchild) {
                        stack[top] = grandchild
                        top &+= 1
                    }
                }
            }
            return true
        }

        /// Hands the items of the leaf in lane `k` of `node` that the region holds to the
        /// visitor. The scan has no branch on the data (hit rates near one half made the branches
        /// mispredict, and a rare hit would wait for its id): each id is written to the scratch
        /// buffer, and the write position advances by one for a hit; each buffer's worth goes to
        /// the visitor at once.
        /// - Returns: `false` when the visitor stopped it.
        @inline(__always)
        func scan<Region: SearchRegion, Visitor: SearchVisitor>(
            _ node: InnerNode, _ k: Int, _ region: Region, _ visitor: inout Visitor
        ) -> Bool {
            var slot = NodeRef.leafStart(node.children[k])
            let end = slot &+ node.leafCount(k)
            let hasBoxes = node.leafHasBoxes(k)
            while slot < end {
                let chunkEnd = Swift.min(end, slot &+ scratch.count)
                var hits = 0
                if hasBoxes {
                    while slot < chunkEnd {
                        let s = slot &* 2
                        scratch[hits] = ids[slot]
                        hits &+= region.holds(lower: SIMD2(low[s], low[s &+ 1]), upper: SIMD2(high[s], high[s &+ 1])) ? 1 : 0
                        slot &+= 1
                    }
                } else {
                    while slot < chunkEnd {
                        let s = slot &* 2
                        scratch[hits] = ids[slot]
                        hits &+= region.holds(SIMD2(low[s], low[s &+ 1])) ? 1 : 0
                        slot &+= 1
                    }
                }
                guard hits == 0 || visitor.visitAll(UnsafeBufferPointer(rebasing: scratch[0..<hits])) else { return false }
            }
            return true
        }

        /// The ids of the leaf in lane `k` of `node`.
        @inline(__always)
        func leafIDs(_ node: InnerNode, _ k: Int) -> UnsafeBufferPointer<UInt32> {
            let start = NodeRef.leafStart(node.children[k])
            return UnsafeBufferPointer(rebasing: ids[start..<(start &+ node.leafCount(k))])
        }
    }
}

/// What a search looks for: which children of a node to visit and which to take whole, and
/// which items it holds.
protocol SearchRegion {
    /// The lanes of `node` whose box may hold an item of the region.
    func reaches(_ node: QuadTree.InnerNode) -> SIMDMask<SIMD4<Int64>>
    /// The lanes of `node` whose box lies wholly in the region (every item below is a hit).
    func covers(_ node: QuadTree.InnerNode) -> SIMDMask<SIMD4<Int64>>
    /// Whether the region holds a point item.
    func holds(_ point: SIMD2<Double>) -> Bool
    /// Whether the region holds an item with the box `lower … upper`.
    func holds(lower: SIMD2<Double>, upper: SIMD2<Double>) -> Bool
}

/// A query window: items whose envelope intersects it (touching counts).
struct WindowRegion: SearchRegion {
    let lower: SIMD2<Double>
    let upper: SIMD2<Double>

    init(_ window: Envelope) {
        lower = SIMD2(window.xmin, window.ymin)
        upper = SIMD2(window.xmax, window.ymax)
    }

    @inline(__always) func reaches(_ node: QuadTree.InnerNode) -> SIMDMask<SIMD4<Int64>> {
        (node.minX .<= upper.x) .& (node.minY .<= upper.y) .& (node.maxX .>= lower.x) .& (node.maxY .>= lower.y)
    }

    @inline(__always) func covers(_ node: QuadTree.InnerNode) -> SIMDMask<SIMD4<Int64>> {
        (node.minX .>= lower.x) .& (node.minY .>= lower.y) .& (node.maxX .<= upper.x) .& (node.maxY .<= upper.y)
    }

    @inline(__always) func holds(_ point: SIMD2<Double>) -> Bool { all((point .>= lower) .& (point .<= upper)) }

    @inline(__always) func holds(lower a: SIMD2<Double>, upper b: SIMD2<Double>) -> Bool { all((a .<= upper) .& (b .>= lower)) }
}

/// A circle: items whose envelope lies within `√limit` of the centre, distances compared
/// squared as ``QuadTree/squaredDistance(_:_:_:_:_:_:)`` computes them.
struct CircleRegion: SearchRegion {
    let x: Double
    let y: Double
    let limit: Double

    // Each lane's distance is computed as squaredDistance computes it, so an item's distance is
    // never smaller than its node's nearest point's, nor larger than its farthest corner's.

    @inline(__always) func reaches(_ node: QuadTree.InnerNode) -> SIMDMask<SIMD4<Int64>> {
        let px = SIMD4<Double>(repeating: x), py = SIMD4<Double>(repeating: y), zero = SIMD4<Double>(repeating: 0)
        let dx = Self.lanewiseMax(Self.lanewiseMax(node.minX - px, px - node.maxX), zero)
        let dy = Self.lanewiseMax(Self.lanewiseMax(node.minY - py, py - node.maxY), zero)
        return dx * dx + dy * dy .<= limit
    }

    @inline(__always) func covers(_ node: QuadTree.InnerNode) -> SIMDMask<SIMD4<Int64>> {
        let px = SIMD4<Double>(repeating: x), py = SIMD4<Double>(repeating: y)
        let fx = Self.lanewiseMax(px - node.minX, node.maxX - px), fy = Self.lanewiseMax(py - node.minY, node.maxY - py)
        return fx * fx + fy * fy .<= limit
    }

    @inline(__always) func holds(_ point: SIMD2<Double>) -> Bool {
        let dx = point.x - x, dy = point.y - y
        return dx * dx + dy * dy <= limit
    }

    @inline(__always) func holds(lower a: SIMD2<Double>, upper b: SIMD2<Double>) -> Bool {
        QuadTree.squaredDistance(x, y, a.x, a.y, b.x, b.y) <= limit
    }

    /// The larger of each pair of lanes (the standard library's generic `pointwiseMax` is not
    /// always inlined).
    @inline(__always)
    static func lanewiseMax(_ a: SIMD4<Double>, _ b: SIMD4<Double>) -> SIMD4<Double> {
        a.replacing(with: b, where: b .> a)
    }
}

/// A circle whose radius or surroundings lie near the ends of the `Double` range: every offset
/// from the centre is multiplied by a power of two that brings the radius near 1 before it is
/// squared (multiplying by a power of two is exact, short of overflow and underflow), so that
/// squares neither overflow (an offset too large to scale is infinite, and beyond any finite
/// radius) nor vanish next to the radius's square.
struct ScaledCircleRegion: SearchRegion {
    let x: Double
    let y: Double
    let scale: Double
    /// The radius scaled, squared: between 2^-148 and 2^48 (0 for a zero radius).
    let limit: Double

    init(x: Double, y: Double, radius: Double) {
        self.x = x
        self.y = y
        // A zero radius takes the largest scale: every nonzero offset (at least 2^-1074) then
        // squares to at least 2^-148, above the limit 0.
        scale = radius == 0 ? 0x1p1000 : Self.scale(bringingToOne: radius)
        let scaled = radius * scale
        limit = scaled * scaled
    }

    /// The power of two, between 2^-1000 and 2^1000, that brings `value` (positive and finite)
    /// nearest to 1.
    static func scale(bringingToOne value: Double) -> Double {
        let exponent = Swift.min(1000, Swift.max(-1000, -Int(value.exponent)))
        return Double(sign: .plus, exponent: exponent, significand: 1)
    }

    @inline(__always) func reaches(_ node: QuadTree.InnerNode) -> SIMDMask<SIMD4<Int64>> {
        let px = SIMD4<Double>(repeating: x), py = SIMD4<Double>(repeating: y), zero = SIMD4<Double>(repeating: 0)
        let dx = CircleRegion.lanewiseMax(CircleRegion.lanewiseMax(node.minX - px, px - node.maxX), zero) * scale
        let dy = CircleRegion.lanewiseMax(CircleRegion.lanewiseMax(node.minY - py, py - node.maxY), zero) * scale
        return dx * dx + dy * dy .<= limit
    }

    @inline(__always) func covers(_ node: QuadTree.InnerNode) -> SIMDMask<SIMD4<Int64>> {
        let px = SIMD4<Double>(repeating: x), py = SIMD4<Double>(repeating: y)
        let fx = CircleRegion.lanewiseMax(px - node.minX, node.maxX - px) * scale
        let fy = CircleRegion.lanewiseMax(py - node.minY, node.maxY - py) * scale
        return fx * fx + fy * fy .<= limit
    }

    @inline(__always) func holds(_ point: SIMD2<Double>) -> Bool {
        let dx = (point.x - x) * scale, dy = (point.y - y) * scale
        return dx * dx + dy * dy <= limit
    }

    @inline(__always) func holds(lower a: SIMD2<Double>, upper b: SIMD2<Double>) -> Bool {
        let dx = (x < a.x ? a.x - x : (x > b.x ? x - b.x : 0)) * scale
        let dy = (y < a.y ? a.y - y : (y > b.y ? y - b.y : 0)) * scale
        return dx * dx + dy * dy <= limit
    }
}

/// Receives the hits of a search, a run of ids at a time (a scanned leaf's hits, a swept
/// leaf, or a packed subtree).
protocol SearchVisitor {
    /// Hits. Returns `false` to stop the search.
    mutating func visitAll(_ ids: UnsafeBufferPointer<UInt32>) -> Bool
}

/// Appends every hit to an array.
struct AppendingVisitor: SearchVisitor {
    var ids: [UInt32]

    @inline(__always) mutating func visitAll(_ ids: UnsafeBufferPointer<UInt32>) -> Bool {
        self.ids.append(contentsOf: ids)
        return true
    }
}

/// Calls a closure for every hit until it returns `false`.
struct CallingVisitor: SearchVisitor {
    let body: (UInt32) -> Bool

    @inline(__always) mutating func visitAll(_ ids: UnsafeBufferPointer<UInt32>) -> Bool {
        for id in ids where !body(id) { return false }
        return true
    }
}

/// Stops at the first hit.
struct FirstHitVisitor: SearchVisitor {
    var found = false

    @inline(__always) mutating func visitAll(_ ids: UnsafeBufferPointer<UInt32>) -> Bool {
        found = !ids.isEmpty
        return !found
    }
}

/// A binary min-heap of search entries for nearest-neighbour search.
struct MinHeap {
    enum Kind: UInt8 {
        case inner, leaf, item
    }

    struct Entry {
        var distance: Double
        var kind: Kind
        /// An inner node's index, a ``QuadTree/LeafID``, or an item's id (bit pattern).
        var value: Int32
    }

    private var entries: [Entry] = []

    mutating func push(_ distance: Double, kind: Kind, value: Int32) {
        entries.append(Entry(distance: distance, kind: kind, value: value))
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

    /// Nearer first; at equal distance nodes and leaves before items (so every tied item is
    /// found), then smaller ids.
    private static func before(_ a: Entry, _ b: Entry) -> Bool {
        if a.distance != b.distance { return a.distance < b.distance }
        if (a.kind == .item) != (b.kind == .item) { return b.kind == .item }
        return UInt32(bitPattern: a.value) < UInt32(bitPattern: b.value)
    }
}
