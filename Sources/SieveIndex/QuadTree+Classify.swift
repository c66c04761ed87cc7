import SieveGeometry

/// What a region test says about a box: everything in it is inside the region, nothing is, or
/// it straddles the region's boundary.
public enum RegionClass: Sendable, Hashable {
    /// The whole box lies in the region: every item below the node is accepted without a test.
    case inside
    /// The box lies entirely outside the region: every item below the node is rejected.
    case outside
    /// The box crosses the region's boundary: look closer (children, or each item of a leaf).
    case boundary
}

extension QuadTree {
    /// Splits the items by a region, deciding whole subtrees at once where it can.
    ///
    /// Starting at the root, `classify` is asked about each node's box (the box of everything
    /// below the node). An `.inside` node hands all its items to `inside` with no further test;
    /// an `.outside` node is skipped; a `.boundary` node is opened: its children are classified
    /// in turn, and the items of a boundary leaf go to `boundary` one by one, for the caller's
    /// exact test. With a spatial predicate such as "intersects a polygon", `classify` answers
    /// from one geometric test per node (the polygon covers the box / is disjoint from it), so
    /// the exact per-item work shrinks to the items near the polygon's boundary.
    ///
    /// - Parameters:
    ///   - classify: The region test for a node's box. It must be conservative: `.inside` only
    ///     when every item in the box belongs to the answer, `.outside` only when none does.
    ///   - inside: Called for every item of the nodes classified `.inside`.
    ///   - boundary: Called for every item of the leaves classified `.boundary`.
    public func classify(
        _ classify: (Envelope) -> RegionClass, inside: (UInt32) -> Void, boundary: (UInt32) -> Void
    ) {
        guard count > 0 else { return }
        var stack: [Int32] = [0]
        while let index = stack.popLast() {
            let node = inner[Int(index)]
            for k in 0..<4 where node.children[k] != NodeRef.none {
                switch classify(node.box(k).envelope) {
                case .outside:
                    continue
                case .inside:
                    forEachItem(below: node, k, inside)
                case .boundary:
                    if NodeRef.isLeaf(node.children[k]) {
                        for slot in node.leafSlots(k) { boundary(itemIDs[slot]) }
                    } else {
                        stack.append(node.children[k])
                    }
                }
            }
        }
    }

    /// Calls `body` for every item below child `k` of `node`.
    func forEachItem(below node: InnerNode, _ k: Int, _ body: (UInt32) -> Void) {
        guard NodeRef.isInner(node.children[k]) else {
            for slot in node.leafSlots(k) { body(itemIDs[slot]) }
            return
        }
        var stack: [Int32] = [node.children[k]]
        while let index = stack.popLast() {
            let current = inner[Int(index)]
            for lane in 0..<4 {
                if NodeRef.isLeaf(current.children[lane]) {
                    for slot in current.leafSlots(lane) { body(itemIDs[slot]) }
                } else if NodeRef.isInner(current.children[lane]) {
                    stack.append(current.children[lane])
                }
            }
        }
    }
}
