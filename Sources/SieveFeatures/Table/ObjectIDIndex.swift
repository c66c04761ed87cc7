/// Object ID → row. When the object IDs run consecutively in row order (`first`, `first + 1`,
/// …, as they do when they are numbered from the features' positions), the index is that rule
/// and takes no memory; otherwise it is a hash table.
struct ObjectIDIndex: Sendable {
    /// The first row's object ID, when they are consecutive.
    private var first: Int64 = 0
    /// The number of rows.
    private(set) var count = 0
    /// The hash table, when they are not consecutive.
    private var table: [Int64: Int]?

    /// Two rows with the same object ID.
    struct Duplicate: Error {
        var previousRow: Int
        var row: Int
        var objectID: Int64
    }

    /// The index of `objectIDs` (one per row, in row order).
    /// - Throws: the first repeated object ID (with its two rows).
    init(_ objectIDs: [Int64]) throws(Duplicate) {
        count = objectIDs.count
        guard let start = objectIDs.first else { return }
        var consecutive = true
        for (row, id) in objectIDs.enumerated() {
            let (expected, overflow) = start.addingReportingOverflow(Int64(row))
            if overflow || id != expected {
                consecutive = false
                break
            }
        }
        if consecutive {
            first = start
            return
        }
        var rows: [Int64: Int] = [:]
        rows.reserveCapacity(objectIDs.count)
        for (row, id) in objectIDs.enumerated() {
            if let previous = rows.updateValue(row, forKey: id) {
                throw Duplicate(previousRow: previous, row: row, objectID: id)
            }
        }
        table = rows
    }

    /// The row of `objectID`, or `nil`.
    @inline(__always)
    func row(_ objectID: Int64) -> Int? {
        if let table { return table[objectID] }
        let (offset, overflow) = objectID.subtractingReportingOverflow(first)
        guard !overflow, offset >= 0, offset < Int64(count) else { return nil }
        return Int(offset)
    }

    /// The bytes the index holds (a hash table of 16-byte entries at its capacity; none when
    /// the object IDs are consecutive).
    var byteCount: Int {
        guard let table else { return 0 }
        return table.capacity * 16 + table.capacity / 8
    }
}
