import SieveFormats
import SieveTestSupport
import Testing

/// The R-tree bulk loader's Hilbert index (four bits at a time through a table) against the
/// classic bit-by-bit algorithm (Hilbert curve `xy2d` on a 65536 × 65536 grid).
@Suite("Hilbert index")
struct HilbertIndexTests {
    static func reference(_ x: UInt32, _ y: UInt32) -> UInt32 {
        var x = x
        var y = y
        var index: UInt32 = 0
        var s: UInt32 = 1 << 15
        while s > 0 {
            let rx: UInt32 = (x & s) != 0 ? 1 : 0
            let ry: UInt32 = (y & s) != 0 ? 1 : 0
            index &+= s &* s &* ((3 &* rx) ^ ry)
            if ry == 0 {
                if rx == 1 {
                    x = 0xFFFF &- x
                    y = 0xFFFF &- y
                }
                swap(&x, &y)
            }
            s >>= 1
        }
        return index
    }

    @Test func everyCellOfCornersAndEdges() {
        var mismatches = 0
        for x in Array(0..<300) + Array(65_236..<65_536) {
            for y in Array(0..<64) + Array(32_736..<32_800) + Array(65_472..<65_536) {
                let (cx, cy) = (UInt32(x), UInt32(y))
                if RTreeBulkLoad.hilbertIndex(cx, cy) != Self.reference(cx, cy) { mismatches += 1 }
                if RTreeBulkLoad.hilbertIndex(cy, cx) != Self.reference(cy, cx) { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    @Test func randomCells() {
        var random = SeededGenerator(state: 11)
        var mismatches = 0
        for _ in 0..<200_000 {
            let x = UInt32(random.int(65_536))
            let y = UInt32(random.int(65_536))
            if RTreeBulkLoad.hilbertIndex(x, y) != Self.reference(x, y) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    /// The curve visits every cell once, each next to the one before (checked on one 256-cell
    /// wide stripe of indices).
    @Test func consecutiveIndicesAreNeighbours() {
        var cellOf: [UInt32: (UInt32, UInt32)] = [:]
        for x: UInt32 in 0..<256 {
            for y: UInt32 in 0..<256 { cellOf[RTreeBulkLoad.hilbertIndex(x, y)] = (x, y) }
        }
        // The first 65536 indices fill the 256 × 256 corner.
        #expect(cellOf.count == 65_536)
        var steps = 0
        for index: UInt32 in 1..<65_536 {
            guard let a = cellOf[index - 1], let b = cellOf[index] else { continue }
            let dx = a.0 > b.0 ? a.0 - b.0 : b.0 - a.0
            let dy = a.1 > b.1 ? a.1 - b.1 : b.1 - a.1
            if dx + dy == 1 { steps += 1 }
        }
        #expect(steps == 65_535)
    }
}
