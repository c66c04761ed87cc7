import Foundation
import SieveColumns
import SieveFeatures
import SieveEditing
import SieveGeometry
import SieveFormats
import SieveTestSupport
import Testing

/// The writer's fast paths give the file the general ones give: point blobs written from the
/// coordinate arrays, object IDs SQLite assigns itself where they continue the table's, texts
/// and dates bound from one buffer per batch, the R-tree's rows, over batch boundaries.
@Suite("GeoPackage write paths")
struct WritePathTests {
    /// A table of `ids` with a point (or `nil`) per row, a plain text, a dictionary text, a
    /// double and a date field, some values NULL.
    static func table(ids: [Int64], geometries: [Geometry?], spatialReference: SpatialReference = .wgs84) throws
        -> FeatureTable
    {
        let n = ids.count
        let schema = try Schema(
            fields: [
                Field(name: "fid", type: .oid), Field(name: "name", type: .string), Field(name: "kind", type: .string),
                Field(name: "score", type: .double), Field(name: "seen", type: .date),
            ],
            objectIdFieldName: "fid", geometryType: .point, spatialReference: spatialReference)
        let names: [String?] = (0..<n).map { i in i % 11 == 3 ? nil : (i % 13 == 5 ? "" : "név \(i) ✓") }
        let kinds: [String?] = (0..<n).map { i in
            i % 7 == 2 ? nil : ["a", "", "ß", "long enough to be stored out of line"][i % 4]
        }
        var scores = DoubleColumn(values: (0..<n).map { Double($0) / 3 })
        var validity = ValidityBitmap(count: n, allValid: true)
        for i in stride(from: 1, to: n, by: 5) { validity.set(i, valid: false) }
        scores.validity = n > 1 ? validity : nil
        let dates = Int64Column(
            values: (0..<n).map { Int64($0) * 86_399_999 - 1_000_000_000_000 }, validity: n > 1 ? validity : nil)
        return try FeatureTable(
            schema: schema,
            columns: [
                .integer(Int64Column(values: ids)), .string(StringColumn(names, dictionaryLimit: 0)),
                .string(StringColumn(kinds)), .double(scores), .date(dates),
            ],
            geometries: geometries)
    }

    static func points(_ n: Int, seed: UInt64) -> [Geometry?] {
        var random = SeededGenerator(state: seed)
        return (0..<n).map { i in
            if i % 17 == 4 { return nil }
            if i % 29 == 8 { return .point(Point(x: .nan, y: .nan)) }  // the empty point
            if i % 31 == 9 { return .point(Point(x: -0.0, y: 0)) }
            return .point(Point(x: random.uniform(-1e7, 1e7), y: random.uniform(-90, 90)))
        }
    }

    /// Writes `table` (its `rows`) and checks the file row by row against the table.
    func check(_ table: FeatureTable, rows: [Int]? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("t.gpkg").path
            try GeoPackage.write(table, rows: rows, to: path, options: GeoPackageWriteOptions(layerName: "t"))
            let written = rows ?? Array(0..<table.count)
            let srsID = Int32(
                try querySQL(path, "SELECT srs_id FROM gpkg_geometry_columns")[0][0].flatMap { Int32($0) } ?? -99)
            // Every row, by its object ID, with its geometry blob exactly as the general writer makes it.
            let stored = try querySQL(path, "SELECT fid, iif(geom IS NULL, NULL, hex(geom)) FROM t ORDER BY fid")
            let expectedIDs = written.map { table.objectID(row: $0) }.sorted()
            #expect(stored.map { $0[0].flatMap { Int64($0) } } == expectedIDs, sourceLocation: sourceLocation)
            var blobMismatches = 0
            for line in stored {
                guard let id = line[0].flatMap({ Int64($0) }), let row = table.row(forObjectID: id) else { continue }
                let expected = try table.geometry(row: row).map { geometry in
                    try GeoPackageBinary.blob(geometry, srsID: srsID).map { byte in
                        let digits = Array("0123456789ABCDEF")
                        return "\(digits[Int(byte >> 4)])\(digits[Int(byte & 15)])"
                    }.joined()
                }
                if line[1] != expected { blobMismatches += 1 }
            }
            #expect(blobMismatches == 0, sourceLocation: sourceLocation)
            #expect(try querySQL(path, "PRAGMA integrity_check") == [["ok"]], sourceLocation: sourceLocation)
            #expect(try querySQL(path, "PRAGMA page_size") == [["16384"]], sourceLocation: sourceLocation)
            // The R-tree holds every non-empty geometry under its object ID.
            #expect(try querySQL(path, "SELECT rtreecheck('rtree_t_geom')") == [["ok"]], sourceLocation: sourceLocation)
            let indexed = try querySQL(path, "SELECT id FROM rtree_t_geom ORDER BY id").map {
                $0[0].flatMap { Int64($0) }
            }
            let nonEmpty = written.filter { table.envelope(row: $0) != nil }.map { table.objectID(row: $0) }.sorted()
            #expect(indexed == nonEmpty, sourceLocation: sourceLocation)
            #expect(
                try querySQL(path, "SELECT count(*) FROM rtree_t_geom_rowid") == [["\(nonEmpty.count)"]],
                sourceLocation: sourceLocation)
            // Read back: the same values and geometries.
            let back = try GeoPackage.read(at: path).table
            #expect(back.count == written.count, sourceLocation: sourceLocation)
            var valueMismatches = 0
            for backRow in 0..<back.count {
                guard let row = table.row(forObjectID: back.objectID(row: backRow)) else {
                    valueMismatches += 1
                    continue
                }
                for field in 1..<5
                where back.value(row: backRow, fieldIndex: field) != table.value(row: row, fieldIndex: field) {
                    valueMismatches += 1
                }
                let a = back.geometry(row: backRow)
                let b = table.geometry(row: row)
                if a != b, !(a?.isEmpty == true && b?.isEmpty == true) { valueMismatches += 1 }
            }
            #expect(valueMismatches == 0, sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [1, 2, 63, 64, 65, 127, 128, 129, 130, 300])
    func consecutiveIDsFromOne(count: Int) throws {
        try check(
            try Self.table(ids: (1...Int64(count)).map { $0 }, geometries: Self.points(count, seed: UInt64(count))))
    }

    @Test(arguments: [
        "from five", "from zero", "negative", "gaps", "descending", "one out of place", "at the top",
        "twice consecutive",
    ])
    func otherIDs(pattern: String) throws {
        let n: Int64 = 200
        let ids: [Int64] =
            switch pattern {
            case "from five": (5..<(5 + n)).map { $0 }
            case "from zero": (0..<n).map { $0 }
            case "negative": (-100..<(-100 + n)).map { $0 }
            case "gaps": (1...n).map { $0 + $0 / 50 }
            case "descending": (1...n).reversed().map { $0 }
            case "one out of place": (1...n).map { $0 == 70 ? 1000 : $0 }
            case "at the top": ((Int64.max - n + 1)...Int64.max).map { $0 }
            default: (1...(n / 2)).map { $0 } + (1000...(1000 + n / 2 - 1)).map { $0 }
            }
        try check(try Self.table(ids: ids, geometries: Self.points(Int(n), seed: 3)))
    }

    @Test func chosenRowsInAnyOrder() throws {
        let n = 300
        let table = try Self.table(ids: (1...Int64(n)).map { $0 }, geometries: Self.points(n, seed: 5))
        try check(table, rows: Array(0..<n).filter { $0 % 3 != 1 })
        try check(table, rows: Array((0..<n).reversed()))
        try check(table, rows: Array(100..<n) + Array(0..<100))
        try check(table, rows: [])
    }

    @Test(arguments: [SpatialReference.wgs84, .webMercator, SpatialReference(wkid: 2263), SpatialReference(wkid: 0)])
    func spatialReferences(reference: SpatialReference) throws {
        try check(
            try Self.table(ids: (1...90).map { $0 }, geometries: Self.points(90, seed: 9), spatialReference: reference))
    }

    @Test func objectIDsOnly() throws {
        for ids in [(1...150).map { Int64($0) }, (1...150).map { Int64($0) * 2 }] {
            let schema = try Schema(fields: [Field(name: "fid", type: .oid)], objectIdFieldName: "fid")
            let table = try FeatureTable(schema: schema, columns: [.integer(Int64Column(values: ids))])
            try withTemporaryFolder { folder in
                let path = folder.appendingPathComponent("ids.gpkg").path
                try GeoPackage.write(table, to: path, options: GeoPackageWriteOptions(layerName: "ids"))
                // (Attribute-only tables are written without a geometry column, and not read.)
                #expect(
                    try querySQL(path, "SELECT fid FROM ids ORDER BY fid").map { $0[0].flatMap { Int64($0) } } == ids)
            }
        }
    }

    /// The write reports its progress every 16,384 features and once at the end, with no byte
    /// count (SQLite writes the file); the read every 16,384 features.
    @Test func writeReportsProgress() throws {
        let n = 40_000
        let table = try Self.table(ids: (1...Int64(n)).map { $0 }, geometries: Self.points(n, seed: 5))
        let reports = ProgressLog()
        var reads: [GeoPackageReadProgress] = []
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("p.gpkg").path
            try GeoPackage.write(
                table, rows: Array(stride(from: 0, to: n, by: 2)), to: path,
                options: GeoPackageWriteOptions(layerName: "p", progress: { reports.append($0) }))
            // Reading back: every 16,384 features, the fraction of the key range (object IDs
            // 1, 3, 5, …, 39999) read so far.
            let layer = try GeoPackage.read(at: path, progress: { reads.append($0) })
            #expect(layer.table.count == 20_000)
        }
        #expect(reads == [GeoPackageReadProgress(features: 16_384, fraction: Double(2 * 16_383) / 39_998)])
        let features = reports.all.map(\.features)
        #expect(features.count == 2)
        #expect(features.first.map { (16_384..<16_384 + 1_000).contains($0) } == true)
        #expect(features.last == 20_000)
        #expect(reports.all.allSatisfy { $0.totalFeatures == 20_000 && $0.bytesWritten == nil })
    }
}

/// Progress reports collected from a `@Sendable` callback.
final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var reports: [WriteProgress] = []
    func append(_ report: WriteProgress) { lock.withLock { reports.append(report) } }
    var all: [WriteProgress] { lock.withLock { reports } }
}
