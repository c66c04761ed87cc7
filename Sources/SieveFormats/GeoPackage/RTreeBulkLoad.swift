import SieveFeatures
import CSQLite

/// Fills an SQLite R-tree virtual table (`USING rtree(id, minx, maxx, miny, maxy)`) in one
/// pass by writing its shadow tables directly, instead of inserting entry by entry (which costs
/// a descent and, often, node splits per entry: about 15 µs an entry on a million points).
///
/// The tree is packed in Hilbert order (a Hilbert R-tree, Kamel and Faloutsos 1994): the
/// entries are sorted once by the Hilbert index of their box's centre on a 65536 × 65536 grid
/// over the extent, and cut into full nodes; consecutive nodes form the nodes of the level
/// above, up to one root. The shadow tables are those of SQLite's R-tree module:
/// `<name>_node(nodeno, data)` holding each node as a blob (a big-endian 16-bit tree depth, used
/// in the root only, a 16-bit cell count, then cells of a 64-bit id — the feature's id in a
/// leaf, the child's node number otherwise — and the box as 32-bit floats minx, maxx, miny,
/// maxy, all big-endian, zero-padded to the node size of the root SQLite created),
/// `<name>_rowid(rowid, nodeno)` giving each entry's leaf, and `<name>_parent(nodeno,
/// parentnode)` each non-root node's parent. The root is node 1, the others are numbered level
/// by level from the top. Boxes are rounded outwards to 32-bit floats, as the module rounds them.
/// SQLite's `rtreecheck()` accepts the result (the tests check it).
package struct RTreeBulkLoad {
    /// One entry: an id and its box, already rounded outwards to floats.
    struct Entry: Sendable {
        var id: Int64
        var minX: Float
        var maxX: Float
        var minY: Float
        var maxY: Float

        /// The entry of a box given in doubles, rounded outwards.
        init(id: Int64, minX: Double, maxX: Double, minY: Double, maxY: Double) {
            self.id = id
            self.minX = Self.down(minX)
            self.maxX = Self.up(maxX)
            self.minY = Self.down(minY)
            self.maxY = Self.up(maxY)
        }

        /// The largest float not above `value`.
        static func down(_ value: Double) -> Float {
            let f = Float(value)
            return Double(f) > value ? f.nextDown : f
        }

        /// The smallest float not below `value`.
        static func up(_ value: Double) -> Float {
            let f = Float(value)
            return Double(f) < value ? f.nextUp : f
        }

        mutating func expand(_ other: Entry) {
            minX = min(minX, other.minX)
            maxX = max(maxX, other.maxX)
            minY = min(minY, other.minY)
            maxY = max(maxY, other.maxY)
        }
    }

    /// The index of cell (`x`, `y`) along the Hilbert curve filling a 65536 × 65536 grid
    /// (`x` and `y` below 65536), four bits of each at a time through ``hilbertNibbles``: no
    /// branch on the data.
    @inline(__always)
    package static func hilbertIndex(_ x: UInt32, _ y: UInt32) -> UInt32 {
        hilbertNibbles.withUnsafeBufferPointer { table in
            var state = 0
            var index: UInt32 = 0
            for shift: UInt32 in [12, 8, 4, 0] {
                let entry = table[state << 8 | Int((x >> shift) & 0xF) << 4 | Int((y >> shift) & 0xF)]
                index = index << 8 | UInt32(entry & 0xFF)
                state = Int(entry >> 8)
            }
            return index
        }
    }

    /// The Hilbert curve on a 16 × 16 grid, in each of the four orientations a sub-square can
    /// have: entry `state << 8 | x << 4 | y` holds the index of cell (`x`, `y`) (8 bits) and the
    /// orientation of that cell's sub-square (bits 8–9: bit 0 swaps x and y, bit 1 complements
    /// both), both as the classic bit-by-bit algorithm finds them.
    static let hilbertNibbles: [UInt16] = {
        var table = [UInt16](repeating: 0, count: 4 << 8)
        for state in 0..<4 {
            for cellX in 0..<16 {
                for cellY in 0..<16 {
                    var swapped = state & 1 != 0
                    var flipped = state & 2 != 0
                    var x = UInt32(cellX)
                    var y = UInt32(cellY)
                    if flipped {
                        x ^= 0xF
                        y ^= 0xF
                    }
                    if swapped { swap(&x, &y) }
                    var index: UInt32 = 0
                    var s: UInt32 = 8
                    while s > 0 {
                        let rx: UInt32 = (x & s) != 0 ? 1 : 0
                        let ry: UInt32 = (y & s) != 0 ? 1 : 0
                        index += s * s * ((3 * rx) ^ ry)
                        if ry == 0 {
                            if rx == 1 {
                                x = 0xF - x
                                y = 0xF - y
                                flipped.toggle()
                            }
                            swap(&x, &y)
                            swapped.toggle()
                        }
                        s >>= 1
                    }
                    table[state << 8 | cellX << 4 | cellY] = UInt16(index) | UInt16((swapped ? 1 : 0) | (flipped ? 2 : 0)) << 8
                }
            }
        }
        return table
    }()

    /// The indices of the entries in Hilbert order of their centres (entries of the same
    /// Hilbert cell in their given order).
    static func hilbertOrder(_ entries: [Entry]) -> [UInt32] {
        var extent = entries[0]
        for entry in entries { extent.expand(entry) }
        let x0 = Double(extent.minX)
        let y0 = Double(extent.minY)
        let width = Double(extent.maxX) - x0
        let height = Double(extent.maxY) - y0
        let sx = width > 0 ? 65535 / width : 0
        let sy = height > 0 ? 65535 / height : 0
        func cell(_ value: Double, _ origin: Double, _ scale: Double) -> UInt32 {
            let scaled = ((value - origin) * scale).rounded(.down)
            return scaled >= 0 ? UInt32(min(scaled, 65535)) : 0  // NaN and negatives go to 0.
        }
        var keys: [UInt32] = []
        keys.reserveCapacity(entries.count)
        for entry in entries {
            let cx = Double(entry.minX) / 2 + Double(entry.maxX) / 2
            let cy = Double(entry.minY) / 2 + Double(entry.maxY) / 2
            keys.append(hilbertIndex(cell(cx, x0, sx), cell(cy, y0, sy)))
        }
        return radixOrder(keys)
    }

    /// The indices of `keys` in ascending order of their keys, equal keys in index order: a
    /// least-significant-digit radix sort, a byte at a time (at most 2³² − 1 keys).
    static func radixOrder(_ keys: [UInt32]) -> [UInt32] {
        let n = keys.count
        var order = (0..<n).map { UInt32(truncatingIfNeeded: $0) }
        var scratch = [UInt32](repeating: 0, count: n)
        keys.withUnsafeBufferPointer { keys in
            for shift: UInt32 in [0, 8, 16, 24] {
                var starts = [Int](repeating: 0, count: 257)
                for key in keys { starts[Int((key >> shift) & 0xFF) + 1] += 1 }
                // A digit every key shares orders nothing.
                if starts.contains(n) { continue }
                for digit in 0..<256 { starts[digit + 1] += starts[digit] }
                order.withUnsafeBufferPointer { from in
                    scratch.withUnsafeMutableBufferPointer { to in
                        for index in from {
                            let digit = Int((keys[Int(index)] >> shift) & 0xFF)
                            to[starts[digit]] = index
                            starts[digit] += 1
                        }
                    }
                }
                swap(&order, &scratch)
            }
        }
        return order
    }

    /// The size in bytes of the nodes of the (new, empty) R-tree `name`: its root's, which
    /// SQLite sized from the page size when it created the table.
    static func nodeSize(rtree name: String, connection: SQLiteConnection) throws(GeoPackageError) -> Int {
        let sizeRows = try connection.rows("SELECT length(data) FROM \(sqlIdentifier(name + "_node")) WHERE nodeno = 1")
        guard let text = sizeRows.first?.first ?? nil, let nodeSize = Int(text), nodeSize >= 4 + 24 * 3 else {
            throw GeoPackageError(.sqlite, "the R-tree \(GeoPackageText.quoted(name)) has no root node of a known size")
        }
        return nodeSize
    }

    /// A packed tree as the shadow tables store it, computed without SQLite (so on any thread).
    struct Layout: Sendable {
        /// The nodes' numbers, in the order they are written (leaves first, the root, 1, last).
        var numbers: [Int64] = []
        /// The nodes' blobs, end to end in that order, each `nodeSize` bytes.
        var blobs: [UInt8] = []
        let nodeSize: Int
        /// The `_parent` rows: each non-root node's number and its parent's.
        var children: [Int64] = []
        var parents: [Int64] = []
        /// The `_rowid` rows: each entry's id and leaf, in the order of the entries.
        var ids: [Int64] = []
        var leaves: [Int64] = []
    }

    /// The tree of `entries` for nodes of `nodeSize` bytes (at most 2³² − 1 entries: the sort
    /// key holds an entry's index in 32 bits).
    static func layout(_ entries: [Entry], nodeSize: Int) -> Layout {
        var layout = Layout(nodeSize: nodeSize)
        guard !entries.isEmpty else { return layout }  // CREATE VIRTUAL TABLE made the empty root.
        let capacity = min((nodeSize - 4) / 24, 0xFFFF)
        let order = hilbertOrder(entries)
        let sorted = order.map { entries[Int($0)] }

        // Levels bottom-up; level 0's cells are the sorted entries, level k's cells are the
        // boxes of level k-1's nodes in order, each node the next `capacity` cells.
        var levels: [[Entry]] = [sorted]
        while levels[levels.count - 1].count > capacity {
            let cells = levels[levels.count - 1]
            var boxes: [Entry] = []
            boxes.reserveCapacity((cells.count + capacity - 1) / capacity)
            var start = 0
            while start < cells.count {
                let end = min(start + capacity, cells.count)
                var box = cells[start]
                for i in (start + 1)..<end { box.expand(cells[i]) }
                box.id = Int64(boxes.count)
                boxes.append(box)
                start = end
            }
            levels.append(boxes)
        }
        // Node numbers: the root (over the top level's cells) is 1; then each level's nodes,
        // top-down. firstNumber[k] is the number of the first node over level k's cells.
        let depth = levels.count - 1
        var firstNumber = [Int64](repeating: 0, count: levels.count)
        firstNumber[depth] = 1
        var next: Int64 = 2
        for level in stride(from: depth - 1, through: 0, by: -1) {
            firstNumber[level] = next
            next += Int64((levels[level].count + capacity - 1) / capacity)
        }
        let nodeCount = Int(next - 1)
        layout.numbers.reserveCapacity(nodeCount)
        layout.blobs = [UInt8](repeating: 0, count: nodeCount * nodeSize)
        // The leaf of each entry, by its index in `entries`.
        var leafOf = [Int64](repeating: 0, count: sorted.count)
        layout.blobs.withUnsafeMutableBytes { blobs in
            guard let base = blobs.baseAddress else { return }
            var node = base
            for level in 0...depth {
                let cells = levels[level]
                var start = 0
                var number = firstNumber[level]
                while start < cells.count {
                    let end = min(start + capacity, cells.count)
                    if level == depth { node.storeBytes(of: UInt16(depth).bigEndian, toByteOffset: 0, as: UInt16.self) }
                    node.storeBytes(of: UInt16(end - start).bigEndian, toByteOffset: 2, as: UInt16.self)
                    var offset = 4
                    for i in start..<end {
                        let cell = cells[i]
                        // A cell of level k > 0 is node number firstNumber[k-1] + its index.
                        let id = level == 0 ? cell.id : firstNumber[level - 1] + cell.id
                        node.storeBytes(of: UInt64(bitPattern: id).bigEndian, toByteOffset: offset, as: UInt64.self)
                        node.storeBytes(of: cell.minX.bitPattern.bigEndian, toByteOffset: offset + 8, as: UInt32.self)
                        node.storeBytes(of: cell.maxX.bitPattern.bigEndian, toByteOffset: offset + 12, as: UInt32.self)
                        node.storeBytes(of: cell.minY.bitPattern.bigEndian, toByteOffset: offset + 16, as: UInt32.self)
                        node.storeBytes(of: cell.maxY.bitPattern.bigEndian, toByteOffset: offset + 20, as: UInt32.self)
                        offset += 24
                        if level == 0 {
                            leafOf[Int(order[i])] = number
                        } else {
                            layout.children.append(id)
                            layout.parents.append(number)
                        }
                    }
                    layout.numbers.append(number)
                    node += nodeSize
                    number += 1
                    start = end
                }
            }
        }
        layout.ids = entries.map(\.id)
        layout.leaves = leafOf
        return layout
    }

    /// Writes `layout` into the shadow tables of the (new, empty) R-tree `name`.
    static func write(_ layout: Layout, rtree name: String, connection: SQLiteConnection) throws(GeoPackageError) {
        guard !layout.numbers.isEmpty else { return }
        let insertNode = try connection.prepare(
            "INSERT OR REPLACE INTO \(sqlIdentifier(name + "_node")) (nodeno, data) VALUES (?, ?)")
        let nodeSize = layout.nodeSize
        let result = layout.blobs.withUnsafeBytes { blobs in
            Result { () throws(GeoPackageError) in
                for (k, number) in layout.numbers.enumerated() {
                    try insertNode.bind(1, int64: number)
                    try insertNode.bind(2, blob: UnsafeRawBufferPointer(rebasing: blobs[(k * nodeSize)..<((k + 1) * nodeSize)]))
                    try insertNode.run()
                }
            }
        }
        try result.get()
        let insertParent = try connection.prepare(
            "INSERT INTO \(sqlIdentifier(name + "_parent")) (nodeno, parentnode) VALUES (?, ?)")
        for (child, parent) in zip(layout.children, layout.parents) {
            try insertParent.bind(1, int64: child)
            try insertParent.bind(2, int64: parent)
            try insertParent.run()
        }
        try insertRowids(layout.ids, layout.leaves, table: sqlIdentifier(name + "_rowid"), connection: connection)
    }

    /// Inserts `(ids[k], nodes[k])` into the R-tree's rowid table, in order, many rows per
    /// statement; where the ids continue the table's (1, 2, 3, …) SQLite assigns them itself,
    /// which saves it a b-tree search per row (the rows are the same). Ascending ids (the usual
    /// case) append to the b-tree, the cheap way in.
    static func insertRowids(_ ids: [Int64], _ nodes: [Int64], table: String, connection: SQLiteConnection) throws(GeoPackageError) {
        let batch = 128
        func insert(_ columns: String, _ tuple: String, rows: Int) throws(GeoPackageError) -> SQLiteStatement {
            try connection.prepare(
                "INSERT INTO \(table) (\(columns)) VALUES \(Array(repeating: tuple, count: rows).joined(separator: ", "))")
        }
        let explicitBatch = try insert("rowid, nodeno", "(?, ?)", rows: batch)
        let explicitOne = try insert("rowid, nodeno", "(?, ?)", rows: 1)
        let implicitBatch = try insert("nodeno", "(?)", rows: batch)
        let implicitOne = try insert("nodeno", "(?)", rows: 1)
        var largest: Int64?
        var k = 0
        while k < ids.count {
            let n = ids.count - k >= batch ? batch : 1
            // SQLite assigns the largest rowid plus one (1 in an empty table).
            var expected = largest ?? 0
            var implicit = true
            for j in k..<(k + n) {
                guard expected < Int64.max, ids[j] == expected + 1 else {
                    implicit = false
                    break
                }
                expected += 1
            }
            let statement = implicit ? (n == batch ? implicitBatch : implicitOne) : (n == batch ? explicitBatch : explicitOne)
            for j in 0..<n {
                if implicit {
                    try statement.bind(Int32(j + 1), int64: nodes[k + j])
                } else {
                    try statement.bind(Int32(2 * j + 1), int64: ids[k + j])
                    try statement.bind(Int32(2 * j + 2), int64: nodes[k + j])
                }
                if largest.map({ ids[k + j] > $0 }) ?? true { largest = ids[k + j] }
            }
            try statement.run()
            k += n
        }
    }
}
