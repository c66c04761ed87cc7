import Foundation
import SieveGeometry
import SieveTestSupport
import Testing

@testable import SieveIndex

/// Every query kind against a brute-force scan of the same envelopes, on seeded data (uniform,
/// clustered and degenerate), before and after random interleavings of inserts, removes and
/// moves. The tree's invariants are checked after every mutation in debug builds.
@Suite("Quadtree against brute force", .tags(.slow), .timeLimit(.minutes(10)))
struct QuadTreePropertyTests {
    typealias Generator = SeededGenerator

    /// A data set: envelopes by id (nil = absent).
    struct Data {
        var boxes: [Envelope?]

        func brute(_ window: Envelope) -> [UInt32] {
            boxes.indices.filter { boxes[$0].map { $0.intersects(window) } ?? false }.map(UInt32.init)
        }

        func bruteRadius(_ x: Double, _ y: Double, _ r: Double) -> [UInt32] {
            boxes.indices.filter { i in
                guard let b = boxes[i] else { return false }
                return QuadTree.squaredDistance(x, y, b.xmin, b.ymin, b.xmax, b.ymax) <= r * r
            }.map(UInt32.init)
        }

        /// The ids within `r` of `(x, y)` by the distance computed without squaring offsets
        /// (``exactishDistance(_:_:_:)``): those certainly within (by a relative margin of
        /// 10⁻⁹) and those too close to the circle to call.
        func bruteRadiusExactish(_ x: Double, _ y: Double, _ r: Double) -> (certain: Set<UInt32>, uncertain: Set<UInt32>) {
            var certain = Set<UInt32>(), uncertain = Set<UInt32>()
            for i in boxes.indices {
                guard let b = boxes[i] else { continue }
                let d = exactishDistance(x, y, b)
                if d <= r * (1 - 1e-9) || d == 0 { certain.insert(UInt32(i)) } else if d <= r * (1 + 1e-9) { uncertain.insert(UInt32(i)) }
            }
            return (certain, uncertain)
        }

        func bruteNearest(_ x: Double, _ y: Double, _ k: Int) -> [(UInt32, Double)] {
            let all = boxes.indices.compactMap { i -> (UInt32, Double)? in
                guard let b = boxes[i] else { return nil }
                return (UInt32(i), QuadTree.distance(x, y, b.xmin, b.ymin, b.xmax, b.ymax))
            }
            return Array(all.sorted { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }.prefix(k))
        }
    }

    /// The distance from a point to a box as `m·√(1 + (n/m)²)`, `m` the larger offset: no
    /// square of an offset is formed, so nothing overflows or vanishes short of the result itself.
    static func exactishDistance(_ x: Double, _ y: Double, _ b: Envelope) -> Double {
        let dx = x < b.xmin ? b.xmin - x : (x > b.xmax ? x - b.xmax : 0)
        let dy = y < b.ymin ? b.ymin - y : (y > b.ymax ? y - b.ymax : 0)
        let m = Swift.max(dx, dy), n = Swift.min(dx, dy)
        guard m > 0, m.isFinite else { return m }
        return m * (1 + (n / m) * (n / m)).squareRoot()
    }

    /// Checks a radius query's answer against the exact-ish reference: every item certainly
    /// within is found, nothing certainly outside is.
    static func checkRadius(_ found: [UInt32], _ data: Data, _ x: Double, _ y: Double, _ r: Double, _ label: String) {
        let (certain, uncertain) = data.bruteRadiusExactish(x, y, r)
        let result = Set(found)
        #expect(found.count == result.count, "\(label): duplicates")
        #expect(certain.isSubset(of: result), "\(label): missing \(certain.subtracting(result).sorted().prefix(5))")
        #expect(result.isSubset(of: certain.union(uncertain)), "\(label): extra \(result.subtracting(certain.union(uncertain)).sorted().prefix(5))")
    }

    /// Checks a nearest query's answer against the exact-ish reference: the distances are the
    /// `k` smallest (to a relative 10⁻⁹), each the distance of the id it comes with.
    static func checkNearest(_ found: [(id: UInt32, distance: Double)], _ data: Data, _ x: Double, _ y: Double, _ k: Int, _ label: String) {
        let all = data.boxes.indices.compactMap { i in data.boxes[i].map { exactishDistance(x, y, $0) } }.sorted()
        let expected = Array(all.prefix(k))
        #expect(found.count == expected.count, "\(label): count")
        func close(_ a: Double, _ b: Double) -> Bool { a == b || abs(a - b) <= 1e-9 * Swift.max(abs(a), abs(b)) }
        for (hit, distance) in zip(found, expected) {
            #expect(close(hit.distance, distance), "\(label): distance \(hit.distance), expected \(distance)")
            if let box = data.boxes[Int(hit.id)] {
                #expect(close(hit.distance, exactishDistance(x, y, box)), "\(label): id \(hit.id)")
            }
        }
        #expect(zip(found, found.dropFirst()).allSatisfy { $0.distance <= $1.distance }, "\(label): order")
    }

    enum Shape: String, CaseIterable {
        case uniformPoints, clusteredPoints, mixedBoxes, identicalPoints, gridBoundaries, geographic, webMercator
        /// A millimetre-wide cluster a thousand kilometres from the origin: fewer exact grid
        /// levels than usual for the bulk load's keys.
        case tinyExtentFarFromZero
        /// Coordinates whose spread overflows a Double: no subdivision at all.
        case hugeCoordinates
    }

    static func envelope(_ shape: Shape, _ g: inout Generator) -> Envelope {
        switch shape {
        case .uniformPoints:
            let x = g.uniform(0, 1000), y = g.uniform(0, 1000)
            return Envelope(xmin: x, ymin: y, xmax: x, ymax: y)
        case .clusteredPoints:
            let cluster = Double(g.int(5))
            let x = min(1000, max(0, 100 + cluster * 180 + g.gaussian() * 5))
            let y = min(1000, max(0, 500 + g.gaussian() * (1 + cluster)))
            return Envelope(xmin: x, ymin: y, xmax: x, ymax: y)
        case .mixedBoxes:
            // Mostly tiny boxes, some huge ones, a few spanning the whole extent.
            let x = g.uniform(0, 1000), y = g.uniform(0, 1000)
            let size: Double = g.int(20) == 0 ? g.uniform(100, 1000) : (g.int(50) == 0 ? 5000 : g.uniform(0, 2))
            return Envelope(xmin: x - size / 2, ymin: y - size / 2, xmax: x + size / 2, ymax: y + size / 2)
        case .identicalPoints:
            return Envelope(xmin: 7, ymin: 7, xmax: 7, ymax: 7)
        case .gridBoundaries:
            // Points on a coarse grid, so that many lie exactly on cell boundaries.
            let x = Double(g.int(9)) * 125, y = Double(g.int(9)) * 125
            return Envelope(xmin: x, ymin: y, xmax: x, ymax: y)
        case .geographic:
            let edges: [Double] = [-180, 180]
            let x = g.int(4) == 0 ? edges[g.int(2)] : g.uniform(-180, 180)
            let y = g.int(4) == 0 ? [-90.0, 90][g.int(2)] : g.uniform(-90, 90)
            return Envelope(xmin: x, ymin: y, xmax: x, ymax: y)
        case .webMercator:
            let half = 20_037_508.342789244
            let x = g.uniform(-half, half), y = g.uniform(-half, half)
            let size = g.uniform(0, 50_000)
            return Envelope(xmin: x, ymin: y, xmax: min(half, x + size), ymax: min(half, y + size))
        case .tinyExtentFarFromZero:
            let x = 1e9 + g.uniform(0, 1e-3), y = 1e9 + g.uniform(0, 1e-3)
            return Envelope(xmin: x, ymin: y, xmax: x, ymax: y)
        case .hugeCoordinates:
            let edge = g.int(10) == 0 ? [-1.5e308, 1.5e308][g.int(2)] : 0
            let x = edge == 0 ? g.uniform(-1e307, 1e307) : edge, y = g.uniform(-1e307, 1e307)
            return Envelope(xmin: x, ymin: y, xmax: x, ymax: y)
        }
    }

    static func window(_ shape: Shape, _ g: inout Generator) -> Envelope {
        let scale: Double
        let offset: Double
        switch shape {
        case .geographic: (scale, offset) = (360, -180)
        case .webMercator: (scale, offset) = (40_075_016.68, -20_037_508.34)
        case .tinyExtentFarFromZero: (scale, offset) = (1e-3, 1e9)
        case .hugeCoordinates: (scale, offset) = (2e307, -1e307)
        default: (scale, offset) = (1000, 0)
        }
        let x = offset + g.unit() * scale, y = offset + g.unit() * scale
        let w = g.unit() * scale * (g.int(3) == 0 ? 0.5 : 0.05), h = g.unit() * scale * 0.05
        if g.int(10) == 0 { return Envelope(xmin: x, ymin: y, xmax: x, ymax: y) }  // a point window
        return Envelope(xmin: x, ymin: y, xmax: x + w, ymax: y + h)
    }

    func checkQueries(_ tree: QuadTree, _ data: Data, _ shape: Shape, _ g: inout Generator, _ label: String) {
        let present = data.boxes.compactMap { $0 }
        for round in 0..<40 {
            var window = Self.window(shape, &g)
            if round % 4 == 0, !present.isEmpty {
                // Windows that touch items exactly: an item's own envelope, or the line along its top edge.
                let item = present[g.int(present.count)]
                window = round % 8 == 0 ? item : Envelope(xmin: item.xmin - 1, ymin: item.ymax, xmax: item.xmax + 1, ymax: item.ymax)
            }
            #expect(tree.query(intersecting: window).sorted() == data.brute(window), "\(label) window \(window)")
            #expect(tree.anyIntersects(window) == !data.brute(window).isEmpty, "\(label) any")
            let probe = window.center
            let radius = window.width + 0.5
            var near: [UInt32] = []
            tree.query(nearX: probe.x, y: probe.y, radius: radius, into: &near)
            let k = 1 + g.int(8)
            let nearest = tree.nearest(toX: probe.x, y: probe.y, count: k)
            if shape == .hugeCoordinates {
                // Squares of these offsets overflow: compared with distances computed without
                // squaring them.
                Self.checkRadius(near, data, probe.x, probe.y, radius, "\(label) radius")
            } else {
                #expect(near.sorted() == data.bruteRadius(probe.x, probe.y, radius), "\(label) radius")
            }
            Self.checkNearest(nearest, data, probe.x, probe.y, k, "\(label) nearest k=\(k) (exact-ish)")
            let expected = data.bruteNearest(probe.x, probe.y, k)
            #expect(nearest.map(\.id) == expected.map(\.0), "\(label) nearest k=\(k)")
            #expect(nearest.map(\.distance) == expected.map(\.1), "\(label) nearest distances")
        }
        // Early exit visits no more than asked.
        var visited = 0
        let everywhere = Double.greatestFiniteMagnitude
        tree.forEach(intersecting: Envelope(xmin: -everywhere, ymin: -everywhere, xmax: everywhere, ymax: everywhere)) { _ in
            visited += 1
            return visited < 3
        }
        #expect(visited == min(3, tree.count))
    }

    @Test(arguments: Shape.allCases)
    func bulkThenEdits(shape: Shape) {
        var g = Generator(state: UInt64(Shape.allCases.firstIndex(of: shape) ?? 0) &* 977 &+ 1)
        let n = 1500
        var data = Data(boxes: (0..<n).map { _ in Self.envelope(shape, &g) })
        data.boxes[17] = nil  // a row without geometry
        let xmin = data.boxes.map { $0?.xmin ?? .nan }, ymin = data.boxes.map { $0?.ymin ?? .nan }
        let xmax = data.boxes.map { $0?.xmax ?? .nan }, ymax = data.boxes.map { $0?.ymax ?? .nan }
        var tree = QuadTree(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
        tree._checkInvariants()
        #expect(tree.count == n - 1)
        checkQueries(tree, data, shape, &g, "\(shape) bulk")

        // Random interleaving of inserts (new ids and re-inserts), removes and moves.
        for step in 0..<1500 {
            switch g.int(3) {
            case 0:
                let id = g.int(n + 500)
                let box = Self.envelope(shape, &g)
                if id >= data.boxes.count { data.boxes.append(contentsOf: repeatElement(nil, count: id + 1 - data.boxes.count)) }
                data.boxes[id] = box
                tree.insert(UInt32(id), envelope: box)
            case 1:
                let id = g.int(data.boxes.count)
                let removed = tree.remove(UInt32(id))
                #expect(removed == (data.boxes[id] != nil))
                data.boxes[id] = nil
            default:
                let id = g.int(data.boxes.count)
                let box = Self.envelope(shape, &g)
                data.boxes[id] = box
                tree.move(UInt32(id), to: box)
            }
            if step % 500 == 0 { checkQueries(tree, data, shape, &g, "\(shape) step \(step)") }
        }
        #expect(tree.count == data.boxes.compactMap { $0 }.count)
        checkQueries(tree, data, shape, &g, "\(shape) edited")
        tree.rebuild()
        tree._checkInvariants()
        checkQueries(tree, data, shape, &g, "\(shape) rebuilt")
    }

    @Test func emptyTreeAndGrowthFromNothing() {
        var tree = QuadTree()
        #expect(tree.query(intersecting: Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1)).isEmpty)
        #expect(tree.nearest(toX: 0, y: 0, count: 3).isEmpty)
        let inserted = tree.insert(1, envelope: .empty)
        #expect(!inserted)
        // Points far apart force the root to grow many times.
        let points: [(Double, Double)] = [(0, 0), (1e7, -3e6), (-2e7, 2e7), (0.5, 0.25), (1e-9, 1e-9)]
        for (i, p) in points.enumerated() {
            tree.insert(UInt32(i), envelope: Envelope(xmin: p.0, ymin: p.1, xmax: p.0, ymax: p.1))
        }
        tree._checkInvariants()
        #expect(tree.query(intersecting: Envelope(xmin: -1, ymin: -1, xmax: 1, ymax: 1)).sorted() == [0, 3, 4])
        #expect(tree.nearest(toX: 9e6, y: -3e6, count: 1).first?.id == 1)
    }

    @Test func manyIdenticalPointsStopAtTheMaximumDepth() {
        var tree = QuadTree()
        for i in 0..<500 { tree.insert(UInt32(i), envelope: Envelope(xmin: 3, ymin: 3, xmax: 3, ymax: 3)) }
        tree.insert(500, envelope: Envelope(xmin: 4, ymin: 4, xmax: 4, ymax: 4))
        tree._checkInvariants()
        #expect(tree.query(intersecting: Envelope(xmin: 3, ymin: 3, xmax: 3, ymax: 3)).count == 500)
        #expect(tree.nearest(toX: 3, y: 3, count: 2).map(\.id) == [0, 1])
    }

    /// A bulk load leaves every leaf exactly full, so the first insert into a leaf moves it to a
    /// larger range; the garbage left behind is compacted away once it outnumbers the items,
    /// which packs every subtree's items together again.
    @Test func insertsMoveLeavesAndCompactionRepacksThem() {
        var g = Generator(state: 4242)
        let n = 1500
        var xs = (0..<n).map { _ in g.uniform(0, 100) }, ys = (0..<n).map { _ in g.uniform(0, 100) }
        var tree = QuadTree(xmin: xs, ymin: ys, xmax: xs, ymax: ys)
        #expect(tree.garbageSlots == 0 && tree.itemIDs.count == n)
        #expect(tree.spans.dropFirst().allSatisfy { $0.x >= 0 }, "a bulk load packs every subtree")
        var compactions = 0
        for i in 0..<(2 * n) {
            let x = g.uniform(0, 100), y = g.uniform(0, 100)
            let garbageBefore = tree.garbageSlots
            tree.insert(UInt32(n + i), envelope: Envelope(xmin: x, ymin: y, xmax: x, ymax: y))
            xs.append(x)
            ys.append(y)
            if tree.garbageSlots < garbageBefore {
                compactions += 1
                #expect(tree.garbageSlots == 0 && tree.itemIDs.count == tree.count)
                #expect(tree.spans.dropFirst().allSatisfy { $0.x >= 0 }, "a compaction packs every subtree")
            }
            #expect(tree.itemIDs.count <= 8 * tree.count + 64 * QuadTree.leafCapacity, "garbage stays bounded")
        }
        #expect(compactions > 0)
        tree._checkInvariants()
        let data = Data(boxes: zip(xs, ys).map { Envelope(xmin: $0, ymin: $1, xmax: $0, ymax: $1) })
        for _ in 0..<50 {
            let x = g.uniform(-5, 100), y = g.uniform(-5, 100), w = g.uniform(0, 40), h = g.uniform(0, 40)
            let window = Envelope(xmin: x, ymin: y, xmax: x + w, ymax: y + h)
            #expect(tree.query(intersecting: window).sorted() == data.brute(window))
        }
    }

    /// Points on an integer lattice (several per lattice point), probed at lattice points with
    /// integer radii and with windows whose edges fall on lattice lines: many points lie exactly
    /// on a circle or a window's edge, and every one must be found, as brute force finds it.
    @Test func pointsOnTheBoundaryAreFound() {
        var g = Generator(state: 31)
        var boxes: [Envelope?] = []
        for x in 0..<60 {
            for y in 0..<60 {
                for _ in 0..<(1 + g.int(3)) { boxes.append(Envelope(xmin: Double(x), ymin: Double(y), xmax: Double(x), ymax: Double(y))) }
            }
        }
        let data = Data(boxes: boxes)
        let xs = boxes.map { $0?.xmin ?? .nan }, ys = boxes.map { $0?.ymin ?? .nan }
        let tree = QuadTree(xmin: xs, ymin: ys, xmax: xs, ymax: ys)
        for _ in 0..<300 {
            let px = Double(g.int(60)), py = Double(g.int(60)), r = Double(g.int(8))
            var near: [UInt32] = []
            tree.query(nearX: px, y: py, radius: r, into: &near)
            #expect(near.sorted() == data.bruteRadius(px, py, r), "radius \(r) at (\(px), \(py))")
            let x0 = Double(g.int(60)), y0 = Double(g.int(60))
            let window = Envelope(xmin: x0, ymin: y0, xmax: x0 + Double(g.int(6)), ymax: y0 + Double(g.int(6)))
            #expect(tree.query(intersecting: window).sorted() == data.brute(window), "window \(window)")
        }
    }

    /// Emptying a tree and refilling it, far away or not: an emptied tree starts over, and a
    /// centre the root cannot grow to rebuilds the tree around it.
    @Test func emptiedTreesAndFarInserts() {
        func point(_ x: Double, _ y: Double) -> Envelope { Envelope(xmin: x, ymin: y, xmax: x, ymax: y) }
        var tree = QuadTree()
        tree.insert(0, envelope: point(0, 0))
        tree.remove(0)
        #expect(tree.count == 0 && tree.rootCell.isEmpty)
        tree.insert(1, envelope: point(1e305, 0))
        tree._checkInvariants()
        #expect(tree.query(intersecting: point(1e305, 0)) == [1])

        var bulk = QuadTree(xmin: [1, 2], ymin: [1, 2], xmax: [1, 2], ymax: [1, 2])
        bulk.remove(0)
        bulk.remove(1)
        bulk.insert(2, envelope: point(-1e305, 0))
        bulk._checkInvariants()
        #expect(bulk.query(intersecting: point(-1e305, 0)) == [2])

        // Bounded, then a centre beyond any exact root cell (one leaf), then back after the far
        // item leaves and the tree is rebuilt.
        var tree2 = QuadTree(xmin: [0, 10], ymin: [0, 10], xmax: [0, 10], ymax: [0, 10])
        tree2.insert(5, envelope: point(1.5e308, -1.5e308))
        tree2._checkInvariants()
        #expect(tree2.unbounded)
        #expect(tree2.query(intersecting: Envelope(xmin: -1, ymin: -1, xmax: 11, ymax: 11)).sorted() == [0, 1])
        tree2.remove(5)
        tree2.rebuild()
        tree2._checkInvariants()
        #expect(!tree2.unbounded)
        #expect(tree2.nearest(toX: 9, y: 9, count: 1).first?.id == 1)
    }

    /// Growing the root towards a point must keep the old root's cell exactly a quadrant of the
    /// new one. Near 2⁵³ grid units from zero, `corner − side` rounds; the tree then rebuilds
    /// around the new point instead.
    @Test func rootGrowthNeverRounds() {
        var tree = QuadTree()
        let c = -(0x1p31 - 0.3)
        tree.insert(0, envelope: Envelope(xmin: c, ymin: c, xmax: c, ymax: c))
        tree.insert(1, envelope: Envelope(xmin: -0x1p32, ymin: -0x1p32, xmax: -0x1p32, ymax: -0x1p32))
        tree.insert(2, envelope: Envelope(xmin: c, ymin: c, xmax: c, ymax: c))
        tree._checkInvariants()
        #expect(tree.query(intersecting: Envelope(xmin: c, ymin: c, xmax: c, ymax: c)).sorted() == [0, 2])
        #expect(QuadTree.isExactDifference(1, 0x1p-60) == false)
        #expect(QuadTree.isExactDifference(0x1p31, 0x1p30))
    }

    @Test func nearestWithANegativeLimitFindsNothing() {
        let tree = QuadTree(xmin: [0, 1], ymin: [0, 0], xmax: [0, 1], ymax: [0, 0])
        #expect(tree.nearest(toX: 0.5, y: 0, count: 2, maxDistance: -1).isEmpty)
        #expect(tree.nearest(toX: 0.5, y: 0, count: 2, maxDistance: 0.5).map(\.id) == [0, 1])
    }
}
