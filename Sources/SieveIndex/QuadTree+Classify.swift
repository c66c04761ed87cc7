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
        guard root != NodeRef.none, count > 0 else { return }
        var stack: [(ref: Int32, box: Box)] = [(root, rootBox)]
        while let (ref, box) = stack.popLast() {
            switch classify(box.envelope) {
            case .outside:
                continue
            case .inside:
                forEachItem(below: ref, inside)
            case .boundary:
                if NodeRef.isLeaf(ref) {
                    forEachItem(below: ref, boundary)
                } else {
                    let node = inner[Int(ref)]
                    for k in 0..<4 where node.children[k] != NodeRef.none { stack.append((node.children[k], node.box(k))) }
                }
            }
        }
    }

    /// Calls `body` for every item below `ref` (a ``NodeRef``).
    func forEachItem(below ref: Int32, _ body: (UInt32) -> Void) {
        var stack: [Int32] = [ref]
        while let current = stack.popLast() {
            if NodeRef.isLeaf(current) {
                for slot in leaves[Int(NodeRef.leafIndex(current))].slots { body(itemIDs[slot]) }
                continue
            }
            let children = inner[Int(current)].children
            for k in 0..<4 where children[k] != NodeRef.none { stack.append(children[k]) }
        }
    }
}
