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
struct RTreeBulkLoad {
    /// One entry: an id and its box, already rounded outwards to floats.
    struct Entry {
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

    /// The index of cell (`x`, `y`) along the Hilbert curve filling a 65536 × 65536 grid.
    @inline(__always)
    static func hilbertIndex(_ x: UInt32, _ y: UInt32) -> UInt32 {
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

    /// The indices of the entries in Hilbert order of their centres.
    static func hilbertOrder(_ entries: [Entry]) -> [Int] {
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
        var keys: [UInt64] = []
        keys.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            let cx = Double(entry.minX) / 2 + Double(entry.maxX) / 2
            let cy = Double(entry.minY) / 2 + Double(entry.maxY) / 2
            let key = UInt64(hilbertIndex(cell(cx, x0, sx), cell(cy, y0, sy)))
            keys.append(key << 32 | UInt64(truncatingIfNeeded: index))
        }
        keys.sort()
        return keys.map { Int(truncatingIfNeeded: $0 & 0xFFFF_FFFF) }
    }

    /// Writes the tree of `entries` into the shadow tables of the (new, empty) R-tree `name`.
    /// At most 2³² − 1 entries (the sort key holds the entry's index in 32 bits).
    static func write(_ entries: [Entry], rtree name: String, connection: SQLiteConnection) throws(GeoPackageError) {
        guard !entries.isEmpty else { return }  // CREATE VIRTUAL TABLE made the empty root.
        guard entries.count < 1 << 32 else {
            throw GeoPackageError(.cannotWrite, "\(entries.count) geometries are more than the spatial index takes")
        }
        let nodeTable = sqlIdentifier(name + "_node")
        let sizeRows = try connection.rows("SELECT length(data) FROM \(nodeTable) WHERE nodeno = 1")
        guard let text = sizeRows.first?.first ?? nil, let nodeSize = Int(text), nodeSize >= 4 + 24 * 3 else {
            throw GeoPackageError(.sqlite, "the R-tree \(GeoPackageText.quoted(name)) has no root node of a known size")
        }
        let capacity = min((nodeSize - 4) / 24, 0xFFFF)
        let order = hilbertOrder(entries)
        let sorted = order.map { entries[$0] }

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

        let insertNode = try connection.prepare("INSERT OR REPLACE INTO \(nodeTable) (nodeno, data) VALUES (?, ?)")
        let insertParent = try connection.prepare(
            "INSERT INTO \(sqlIdentifier(name + "_parent")) (nodeno, parentnode) VALUES (?, ?)")
        var blob = [UInt8](repeating: 0, count: nodeSize)
        // The leaf of each entry, by its index in `entries`.
        var leafOf = [Int64](repeating: 0, count: sorted.count)
        for level in 0...depth {
            let cells = levels[level]
            var start = 0
            var number = firstNumber[level]
            while start < cells.count {
                let end = min(start + capacity, cells.count)
                for i in blob.indices { blob[i] = 0 }
                if level == depth { Self.store(UInt16(depth), at: 0, in: &blob) }
                Self.store(UInt16(end - start), at: 2, in: &blob)
                var offset = 4
                for i in start..<end {
                    let cell = cells[i]
                    // A cell of level k > 0 is node number firstNumber[k-1] + its index.
                    let id = level == 0 ? cell.id : firstNumber[level - 1] + cell.id
                    Self.store(UInt64(bitPattern: id), at: offset, in: &blob)
                    Self.store(cell.minX.bitPattern, at: offset + 8, in: &blob)
                    Self.store(cell.maxX.bitPattern, at: offset + 12, in: &blob)
                    Self.store(cell.minY.bitPattern, at: offset + 16, in: &blob)
                    Self.store(cell.maxY.bitPattern, at: offset + 20, in: &blob)
                    offset += 24
                    if level == 0 {
                        leafOf[order[i]] = number
                    } else {
                        try insertParent.bind(1, int64: id)
                        try insertParent.bind(2, int64: number)
                        try insertParent.run()
                    }
                }
                try insertNode.bind(1, int64: number)
                let result = blob.withUnsafeBytes { bytes in
                    Result { () throws(GeoPackageError) in
                        try insertNode.bind(2, blob: bytes)
                        try insertNode.run()
                    }
                }
                try result.get()
                number += 1
                start = end
            }
        }
        // Rowids in the order of `entries`, the table's row order: ascending object IDs (the
        // usual case) append to the b-tree, the cheap way in.
        // Many rows per statement: one step inserts `batch` rows.
        let batch = 128
        let rowidTable = sqlIdentifier(name + "_rowid")
        let values = Array(repeating: "(?, ?)", count: batch).joined(separator: ", ")
        let insertBatch = try connection.prepare("INSERT INTO \(rowidTable) (rowid, nodeno) VALUES \(values)")
        let insertOne = try connection.prepare("INSERT INTO \(rowidTable) (rowid, nodeno) VALUES (?, ?)")
        var k = 0
        while k + batch <= entries.count {
            for j in 0..<batch {
                try insertBatch.bind(Int32(2 * j + 1), int64: entries[k + j].id)
                try insertBatch.bind(Int32(2 * j + 2), int64: leafOf[k + j])
            }
            try insertBatch.run()
            k += batch
        }
        while k < entries.count {
            try insertOne.bind(1, int64: entries[k].id)
            try insertOne.bind(2, int64: leafOf[k])
            try insertOne.run()
            k += 1
        }
    }

    @inline(__always)
    private static func store<T: FixedWidthInteger>(_ value: T, at offset: Int, in blob: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes in
            for (k, byte) in bytes.enumerated() { blob[offset + k] = byte }
        }
    }
}
