import SieveGeometry

/// FlatGeobuf's static packed R-tree: the nodes of every level, root first and leaves last, each
/// 40 bytes (its box as four doubles, then a UInt64: for a leaf, the byte offset of its feature
/// from the first feature; for an inner node, the index of its first child); each inner node
/// covers `nodeSize` nodes of the level below. Leaves are in the order of the features, which a
/// writer sorts along a Hilbert curve so that neighbours share nodes.
struct PackedRTree {
    static let nodeBytes = 40

    /// The level bounds (node index ranges), leaves first and the root last, and the node count.
    static func levels(items: Int, nodeSize: Int) -> (bounds: [Range<Int>], nodeCount: Int) {
        var counts = [items]
        var n = items
        var total = n
        repeat {
            n = (n + nodeSize - 1) / nodeSize
            total += n
            counts.append(n)
        } while n != 1
        var bounds: [Range<Int>] = []
        var end = total
        for count in counts {
            bounds.append((end - count)..<end)
            end -= count
        }
        return (bounds, total)
    }

    let bytes: UnsafeRawBufferPointer
    let start: Int
    let items: Int
    let nodeSize: Int

    init(_ bytes: UnsafeRawBufferPointer, start: Int, items: Int, nodeSize: Int) {
        self.bytes = bytes
        self.start = start
        self.items = items
        self.nodeSize = nodeSize
    }

    private func double(_ node: Int, _ k: Int) -> Double {
        Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: start + node * Self.nodeBytes + 8 * k, as: UInt64.self)))
    }

    private func offset(_ node: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: start + node * Self.nodeBytes + 32, as: UInt64.self))
    }

    /// The features whose boxes meet `box`, in file order: (position, byte offset from the first
    /// feature).
    func search(_ box: Envelope) throws(FileFormatError) -> [(index: Int, offset: Int)] {
        let (bounds, nodeCount) = Self.levels(items: items, nodeSize: nodeSize)
        let leavesStart = nodeCount - items
        var results: [(index: Int, offset: Int)] = []
        // (node index, level), the root's level being the last.
        var queue: [(node: Int, level: Int)] = [(0, bounds.count - 1)]
        while let (node, level) = queue.popLast() {
            let levelEnd = bounds[level].upperBound
            let end = min(node + nodeSize, levelEnd)
            for position in node..<end {
                if double(position, 0) > box.xmax || double(position, 1) > box.ymax || double(position, 2) < box.xmin || double(position, 3) < box.ymin {
                    continue
                }
                let target = offset(position)
                if position >= leavesStart {
                    guard target <= UInt64(Int.max) else { throw FileFormatError(.malformed, "a leaf's feature offset \(target)", byteOffset: start + position * Self.nodeBytes) }
                    results.append((position - leavesStart, Int(target)))
                } else {
                    guard level > 0, target < UInt64(nodeCount), bounds[level - 1].contains(Int(target)) else {
                        throw FileFormatError(.malformed, "an index node points to node \(target), not one of the level below", byteOffset: start + position * Self.nodeBytes)
                    }
                    queue.append((Int(target), level - 1))
                }
            }
        }
        results.sort { $0.index < $1.index }
        return results
    }

    /// The nodes of a tree over `boxes` (in feature order) whose features start at `offsets`, as
    /// bytes.
    static func build(boxes: [Envelope], offsets: [Int], nodeSize: Int) -> [UInt8] {
        let (bounds, nodeCount) = levels(items: boxes.count, nodeSize: nodeSize)
        var nodes = [(Envelope, UInt64)](repeating: (Envelope.empty, 0), count: nodeCount)
        let leaves = bounds[0]
        for (i, box) in boxes.enumerated() { nodes[leaves.lowerBound + i] = (box, UInt64(offsets[i])) }
        for level in 0..<(bounds.count - 1) {
            var parent = bounds[level + 1].lowerBound
            for first in stride(from: bounds[level].lowerBound, to: bounds[level].upperBound, by: nodeSize) {
                var box = Envelope.empty
                for child in first..<min(first + nodeSize, bounds[level].upperBound) { box.expand(toInclude: nodes[child].0) }
                nodes[parent] = (box, UInt64(first))
                parent += 1
            }
        }
        var out = LittleEndianWriter()
        out.bytes.reserveCapacity(nodeCount * nodeBytes)
        for (box, offset) in nodes {
            // An empty box (no geometry) is written as +inf…−inf: it meets nothing.
            let values = box.isEmpty ? [Double.infinity, .infinity, -.infinity, -.infinity] : [box.xmin, box.ymin, box.xmax, box.ymax]
            for value in values { out.double(value) }
            out.uint32(UInt32(truncatingIfNeeded: offset))
            out.uint32(UInt32(truncatingIfNeeded: offset >> 32))
        }
        return out.bytes
    }

    /// The index along a Hilbert curve of order 16 of the point (x, y), each in 0…65535.
    static func hilbert(_ x: UInt32, _ y: UInt32) -> UInt32 {
        var x = x
        var y = y
        var d: UInt32 = 0
        var s: UInt32 = 1 << 15
        while s > 0 {
            let rx: UInt32 = (x & s) > 0 ? 1 : 0
            let ry: UInt32 = (y & s) > 0 ? 1 : 0
            d &+= s &* s &* ((3 &* rx) ^ ry)
            // Rotate the quadrant so that the curve inside it runs the right way.
            if ry == 0 {
                if rx == 1 {
                    x = (1 << 16) - 1 - x
                    y = (1 << 16) - 1 - y
                }
                swap(&x, &y)
            }
            s >>= 1
        }
        return d
    }
}
