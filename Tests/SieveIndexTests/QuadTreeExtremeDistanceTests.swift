import SieveGeometry
import SieveTestSupport
import Testing

@testable import SieveIndex

/// Radius and nearest queries where squared distances overflow or underflow: coordinates and
/// radii near the largest doubles, in the subnormal range, and mixed. Answers are checked
/// against distances computed without squaring any offset.
@Suite("Quadtree distances at the ends of the Double range")
struct QuadTreeExtremeDistanceTests {
    typealias Data = QuadTreePropertyTests.Data

    static func points(_ coordinates: [(Double, Double)]) -> (QuadTree, Data) {
        let boxes = coordinates.map { Envelope(xmin: $0.0, ymin: $0.1, xmax: $0.0, ymax: $0.1) }
        let xs = coordinates.map(\.0), ys = coordinates.map(\.1)
        return (QuadTree(xmin: xs, ymin: ys, xmax: xs, ymax: ys), Data(boxes: boxes))
    }

    static func near(_ tree: QuadTree, _ x: Double, _ y: Double, _ r: Double) -> [UInt32] {
        var found: [UInt32] = []
        tree.query(nearX: x, y: y, radius: r, into: &found)
        return found.sorted()
    }

    /// The cases of the issue: a point √2·10³⁰⁸ away was within 10³⁰⁸ (the radius squared
    /// overflowed), and with subnormal offsets every point was within any radius (the squares
    /// underflowed to zero).
    @Test func theReportedCases() {
        let (huge, _) = Self.points([(1e308, 1e308), (0, 1e308), (-1e308, 0), (5e307, 5e307)])
        #expect(Self.near(huge, 0, 0, 1e308) == [1, 2, 3])
        #expect(Self.near(huge, 0, 0, 1.5e308) == [0, 1, 2, 3])
        #expect(Self.near(huge, 0, 0, 7.1e307) == [3])
        #expect(huge.nearest(toX: 0, y: 0, count: 4).map(\.id) == [3, 1, 2, 0])
        #expect(huge.nearest(toX: 0, y: 0, count: 1).first?.distance == 5e307 * 2.0.squareRoot())

        let tiny = 0x1p-1074
        let (small, _) = Self.points([(0, tiny), (0, Double(bitPattern: 0x7e8)), (3 * tiny, 4 * tiny), (Double(bitPattern: 0x1_2688_b70e_62b), 0), (0, 0)])
        #expect(Self.near(small, 0, 0, Double(bitPattern: 0xca)) == [0, 2, 4])
        #expect(Self.near(small, 0, 0, 5 * tiny) == [0, 2, 4])
        #expect(Self.near(small, 0, 0, 4 * tiny) == [0, 4])
        #expect(Self.near(small, 0, 0, 0) == [4])
        #expect(Self.near(small, 0, 0, 1e-300) == [0, 1, 2, 3, 4])
        let nearest = small.nearest(toX: 0, y: 0, count: 3)
        #expect(nearest.map(\.id) == [4, 0, 2])
        #expect(nearest.map(\.distance) == [0, tiny, 5 * tiny])
        #expect(small.nearest(toX: 0, y: 0, count: 5, maxDistance: Double(bitPattern: 0xca)).map(\.id) == [4, 0, 2])
    }

    /// Random points at many scales, probed at random points with random radii: every answer
    /// as the reference computes it.
    @Test(arguments: [1e300, 1.5e308, 1e-300, Double(bitPattern: 0xc10_69cd), 1e-140, 1])
    func randomPointsAtScale(scale: Double) {
        var g = SeededGenerator(seed: UInt64(scale.exponent.magnitude) &+ 17)
        var coordinates: [(Double, Double)] = []
        for _ in 0..<3_000 {
            coordinates.append((g.uniform(-1, 1) * scale, g.uniform(-1, 1) * scale))
        }
        // Some clustered far tighter than the scale, and some at the ends of the Double range.
        for _ in 0..<300 {
            coordinates.append((scale * 0.5 + g.uniform(0, 1) * scale * 1e-12, g.uniform(0, 1) * scale * 1e-12))
        }
        coordinates.append((.greatestFiniteMagnitude, -.greatestFiniteMagnitude))
        coordinates.append((0x1p-1074, 0))
        let (tree, data) = Self.points(coordinates)
        for round in 0..<60 {
            let x = g.uniform(-1, 1) * scale, y = g.uniform(-1, 1) * scale
            let r = [0, g.unit() * scale, g.unit() * scale * 1e-6, scale * 4, 0x1p-1074, .greatestFiniteMagnitude][round % 6]
            var found: [UInt32] = []
            tree.query(nearX: x, y: y, radius: r, into: &found)
            QuadTreePropertyTests.checkRadius(found, data, x, y, r, "scale \(scale) radius \(r) at (\(x), \(y))")
            let k = 1 + g.int(6)
            QuadTreePropertyTests.checkNearest(tree.nearest(toX: x, y: y, count: k), data, x, y, k, "scale \(scale) nearest")
        }
    }

    /// Boxes (not only points) with mixed scales, after edits: the node boxes' distances (the
    /// search prunes with them) are scaled like the items'.
    @Test func boxesAfterEdits() {
        var g = SeededGenerator(seed: 5)
        var tree = QuadTree()
        var boxes: [Envelope?] = []
        for id in 0..<2_000 {
            let scale = [Double(bitPattern: 0x1_2688_b70e_62b), 1e-200, 1, 1e200, 1e307][g.int(5)]
            let x = g.uniform(-1, 1) * scale, y = g.uniform(-1, 1) * scale
            let box = Envelope(xmin: x, ymin: y, xmax: x + g.unit() * scale, ymax: y + g.unit() * scale)
            boxes.append(box)
            tree.insert(UInt32(id), envelope: box)
        }
        for id in stride(from: 0, to: 2_000, by: 7) {
            tree.remove(UInt32(id))
            boxes[id] = nil
        }
        let data = Data(boxes: boxes)
        for round in 0..<100 {
            let scale = [Double(bitPattern: 0x1_2688_b70e_62b), 1e-200, 1, 1e200, 1e307][round % 5]
            let x = g.uniform(-1, 1) * scale, y = g.uniform(-1, 1) * scale
            let r = g.unit() * scale * [1, 1e-3, 10][g.int(3)]
            var found: [UInt32] = []
            tree.query(nearX: x, y: y, radius: r, into: &found)
            QuadTreePropertyTests.checkRadius(found, data, x, y, r, "radius \(r) at (\(x), \(y))")
            QuadTreePropertyTests.checkNearest(tree.nearest(toX: x, y: y, count: 3), data, x, y, 3, "nearest at (\(x), \(y))")
        }
    }
}
