import Foundation
import SieveGeometry
import Testing

@testable import SieveIndex

/// Region classification against brute force: the region is a disc; boxes inside it are
/// accepted whole, boxes outside skipped, the rest tested item by item.
@Suite("Quadtree region classification")
struct QuadTreeClassifyTests {
    @Test(arguments: [0.0, 5.0])
    func discRegion(boxSize: Double) {
        var g = QuadTreePropertyTests.Generator(state: 99)
        let n = 40_000  // enough for many leaves of leafCapacity items inside the disc
        var xmin: [Double] = [], ymin: [Double] = [], xmax: [Double] = [], ymax: [Double] = []
        for _ in 0..<n {
            let x = g.uniform(0, 1000), y = g.uniform(0, 1000), s = g.unit() * boxSize
            xmin.append(x)
            ymin.append(y)
            xmax.append(x + s)
            ymax.append(y + s)
        }
        let tree = QuadTree(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
        let (cx, cy, r) = (420.0, 515.0, 260.0)
        func inDisc(_ x: Double, _ y: Double) -> Bool { (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r }
        // An item belongs when its whole envelope lies in the disc (all four corners).
        func belongs(_ i: Int) -> Bool {
            inDisc(xmin[i], ymin[i]) && inDisc(xmax[i], ymin[i]) && inDisc(xmin[i], ymax[i]) && inDisc(xmax[i], ymax[i])
        }
        var accepted: [UInt32] = []
        var tested = 0
        var insideCalls = 0
        tree.classify(
            { box in
                let corners = [(box.xmin, box.ymin), (box.xmax, box.ymin), (box.xmin, box.ymax), (box.xmax, box.ymax)]
                if corners.allSatisfy({ inDisc($0.0, $0.1) }) { return .inside }
                let dx = max(box.xmin - cx, 0, cx - box.xmax), dy = max(box.ymin - cy, 0, cy - box.ymax)
                if dx * dx + dy * dy > r * r { return .outside }
                return .boundary
            },
            inside: { id in
                insideCalls += 1
                accepted.append(id)
            },
            boundary: { id in
                tested += 1
                if belongs(Int(id)) { accepted.append(id) }
            })
        #expect(accepted.sorted() == (0..<n).filter(belongs).map(UInt32.init))
        // Most of the disc was decided without item tests.
        #expect(insideCalls > tested)
        #expect(tested < n / 2)
    }
}
