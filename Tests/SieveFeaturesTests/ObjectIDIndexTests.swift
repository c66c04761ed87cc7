import SieveColumns
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import Testing

/// `FeatureTable.row(forObjectID:)` over consecutive object IDs (kept as arithmetic, no hash
/// table) and over any others, checked against a dictionary built here.
@Suite("Object-ID index")
struct ObjectIDIndexTests {
    /// A table whose only field is the object-ID column holding `ids`.
    func table(_ ids: [Int64]) throws -> FeatureTable {
        let schema = try Schema(fields: [Field(name: "OBJECTID", type: .oid)], objectIdFieldName: "OBJECTID")
        return try FeatureTable(schema: schema, columns: [.integer(Int64Column(values: ids))])
    }

    /// Checks every ID of `ids` and the neighbours of the extremes against a dictionary.
    func check(_ ids: [Int64]) throws {
        let table = try table(ids)
        var expected: [Int64: Int] = [:]
        for (row, id) in ids.enumerated() { expected[id] = row }
        var probes = ids
        for id in [ids.min(), ids.max()].compactMap({ $0 }) {
            if id > .min { probes.append(id - 1) }
            if id < .max { probes.append(id + 1) }
        }
        probes += [0, 1, -1, .min, .max, .min + 1, .max - 1]
        for id in probes {
            #expect(table.row(forObjectID: id) == expected[id], "object ID \(id) of \(ids.prefix(5))…")
        }
    }

    @Test(
        arguments: [
            [], [1], [0], [-3], [1, 2, 3, 4], [-2, -1, 0, 1, 2], [10, 11, 12],
            [Int64.max - 2, Int64.max - 1, Int64.max], [Int64.min, Int64.min + 1, Int64.min + 2],
        ] as [[Int64]])
    func consecutive(ids: [Int64]) throws {
        try check(ids)
        // Consecutive IDs need no hash table.
        let table = try table(ids)
        #expect(table.byteCount == Column.integer(Int64Column(values: ids)).byteCount + table.geometryColumn.byteCount)
    }

    @Test(
        arguments: [
            [2, 1], [1, 3], [1, 2, 4], [5, 4, 3], [7, 3, -1], [Int64.max, Int64.min], [Int64.min, Int64.max],
            [0, 1, 2, Int64.max],
        ] as [[Int64]])
    func notConsecutive(ids: [Int64]) throws {
        try check(ids)
    }

    @Test("increasing object IDs with gaps are searched in the column: no memory of their own")
    func increasingWithGaps() throws {
        let ids = (Int64(1)...5000).map { $0 * 3 - ($0 % 7 == 0 ? 1 : 0) }
        try check(ids)
        let table = try table(ids)
        #expect(table.byteCount == Column.integer(Int64Column(values: ids)).byteCount + table.geometryColumn.byteCount)
        // Repeated IDs in increasing order are still duplicates.
        #expect(throws: FeatureTableError.self) { try self.table([1, 2, 2, 3]) }
    }

    @Test func manyConsecutiveAndOneOut() throws {
        let ids = (Int64(1)...1000).map { $0 }
        try check(ids)
        var shuffled = ids
        shuffled.swapAt(10, 500)
        try check(shuffled)
        try check(ids + [2000])
    }

    @Test func duplicatesAreStillErrors() {
        for ids: [Int64] in [[1, 1], [1, 2, 3, 2], [5, 6, 7, 5]] {
            let error = #expect(throws: FeatureTableError.self) { _ = try table(ids) }
            #expect(error?.kind == .duplicateObjectID)
        }
    }
}
