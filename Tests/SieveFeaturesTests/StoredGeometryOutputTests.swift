import Foundation
import SieveColumns
import SieveGeometry
import SieveTestSupport
import Testing

@testable import SieveFeatures
@testable import SieveEditing
@testable import SieveFormats
import SieveJSON

/// The writers read stored geometries straight from the geometry column
/// (``StoredGeometryWriter``): every format, with every layout option, must give byte for byte
/// the text of the materializing path (each row's `Geometry` written through its JSON value or
/// its WKT), on the fixtures and on random tables of every kind of geometry.
@Suite("Output from flat geometry arrays")
struct StoredGeometryOutputTests {
    static let variants: [(FeatureOutputFormat, FeatureWriterOptions)] = [
        (.geoJSON, FeatureWriterOptions()),
        (.geoJSON, FeatureWriterOptions(pretty: true)),
        (.geoJSON, FeatureWriterOptions(coordinatePrecision: 3)),
        (.geoJSON, FeatureWriterOptions(pretty: true, coordinatePrecision: 0)),
        (.geoJSONSeq, FeatureWriterOptions()),
        (.geoJSONSeq, FeatureWriterOptions(coordinatePrecision: 17, recordSeparator: true)),
        (.esriJSON, FeatureWriterOptions()),
        (.esriJSON, FeatureWriterOptions(pretty: true)),
        (.esriJSON, FeatureWriterOptions(pretty: true, coordinatePrecision: 5)),
        (.csv, FeatureWriterOptions()),
        (.csv, FeatureWriterOptions(coordinatePrecision: 2)),
    ]

    /// `result` as the materializing path writes it: the same result with every geometry handed
    /// over as a value (what the writers get for geometries projected to another reference).
    static func materialized(_ result: FeatureQueryResult) -> FeatureQueryResult {
        FeatureQueryResult(
            table: result.table, rows: result.rows, fieldIndices: result.fieldIndices, returnsGeometry: result.returnsGeometry,
            exceededTransferLimit: result.exceededTransferLimit, spatialReference: result.spatialReference,
            projectedGeometries: result.rows.map { result.table.geometry(row: $0) })
    }

    /// The first line (1-based) where two texts differ, for a readable failure.
    static func firstDifference(_ a: String, _ b: String) -> String {
        let (x, y) = (a.split(separator: "\n", omittingEmptySubsequences: false), b.split(separator: "\n", omittingEmptySubsequences: false))
        for (i, (p, q)) in zip(x, y).enumerated() where p != q {
            return "line \(i + 1):\n  \(p.prefix(300))\n  \(q.prefix(300))"
        }
        return "lengths \(a.utf8.count) and \(b.utf8.count)"
    }

    static func check(
        _ table: FeatureTable, _ name: String, query: QueryParameters = QueryParameters(),
        variants: [(FeatureOutputFormat, FeatureWriterOptions)] = Self.variants
    ) throws {
        let result = try table.queryFeatures(query)
        #expect(result.storedGeometries != nil || !result.returnsGeometry)
        let reference = Self.materialized(result)
        #expect(reference.storedGeometries == nil)
        for (format, options) in variants {
            let fast = result.text(format, options: options)
            let slow = reference.text(format, options: options)
            // Compared first, so that a failure shows where they differ, not both texts.
            let same = fast == slow
            #expect(same, "\(name) \(format) \(options): \(Self.firstDifference(fast, slow))")
            guard !options.pretty, options.coordinatePrecision == nil else { continue }
            // Streamed in small pieces: the same text.
            var pieces: [UInt8] = []
            result.write(format, options: options, chunkSize: 100) { (piece: [UInt8]) -> Void in pieces.append(contentsOf: piece) }
            let streamed = pieces == Array(slow.utf8)
            #expect(streamed, "\(name) \(format) streamed")
        }
    }

    @Test(arguments: ["naturalearth_lowres.geojson", "naturalearth_cities.geojson", "nybb.geojson"])
    func fixtures(name: String) throws {
        let table = try FeatureTable.load(contentsOf: fixtureURL(name))
        // Every format and layout once (the materializing path is slow in debug builds on the
        // fixtures' long rings).
        let variants = [0, 1, 5, 8, 10].map { Self.variants[$0] }
        try Self.check(table, name, variants: variants)
        // A page out of order, and only some fields.
        try Self.check(
            table, "\(name) ordered page",
            query: QueryParameters(outFields: [table.schema.fields[1].name], orderBy: [SortField(table.schema.fields[1].name, ascending: false)], maxFeatures: 17),
            variants: [Self.variants[0], Self.variants[9]])
    }

    @Test func theOutputTestTables() throws {
        try Self.check(try OutputFormatTests.polygons(), "polygons")
        try Self.check(try OutputFormatTests.lines(), "lines")
    }

    /// Every kind and layout the column stores: z and m (NaN m too), empty geometries of every
    /// kind, rows without geometry, envelopes and collections (materialized), rings in both
    /// orientations, several parts, holes.
    @Test func everyKindAndLayout() throws {
        let texts = [
            "POINT (1 2)", "POINT Z (1 2 3)", "POINT M (1 2 4)", "POINT ZM (1 2 3 4)", "POINT M (1 2 NaN)", "POINT EMPTY",
            "POINT Z EMPTY", "MULTIPOINT ((1 2), (3 4))", "MULTIPOINT Z ((1 2 3), (3 4 5))", "MULTIPOINT M ((1 2 NaN), (3 4 5))",
            "MULTIPOINT EMPTY", "MULTIPOINT ZM EMPTY", "LINESTRING (0 0, 1 1, 2 0)", "MULTILINESTRING ((0 0, 1 1), (2 2, 3 3, 4 2))",
            "LINESTRING M (0 0 1, 1 1 2)", "LINESTRING EMPTY", "MULTILINESTRING ZM ((0 0 1 2, 1 1 3 NaN), (5 5 0 0, 6 6 1 1))",
            "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 4, 4 4, 4 2, 2 2))",
            "POLYGON ((0 0, 0 10, 10 10, 10 0, 0 0), (2 2, 4 2, 4 4, 2 4, 2 2))",
            "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5), (5.2 5.1, 5.8 5.1, 5.8 5.7, 5.2 5.1)))",
            "POLYGON Z ((0 0 1, 1 0 2, 1 1 3, 0 0 1))", "POLYGON M ((0 0 1, 0 1 NaN, 1 1 3, 0 0 1))",
            "POLYGON ZM ((0 0 1 1, 1 0 2 2, 1 1 3 3, 0 0 1 1))", "POLYGON ((0 0, 1 1, 2 2, 0 0))", "POLYGON EMPTY",
            "POLYGON ZM EMPTY", "GEOMETRYCOLLECTION (POINT (1 1), LINESTRING (0 0, 2 2))", "GEOMETRYCOLLECTION EMPTY",
            "POLYGON ((1e-300 0, 1 0, 1 1e300, 1e-300 0))", "LINESTRING (-0.0 0.1, 123456789.123456789 -1e-7)",
        ]
        var geometries: [Geometry?] = try texts.map { try Geometry(wkt: $0) }
        geometries += [.envelope(Envelope(xmin: -1, ymin: -2, xmax: 3, ymax: 4)), .envelope(.empty), nil]
        try Self.check(try FlatSpatialFilterTests.table(geometries, type: .polygon), "every kind")
        // The points alone, in point storage (z and m per row).
        let points = geometries.filter { if case .point? = $0 { return true } else { return $0 == nil } }
        let pointTable = try FlatSpatialFilterTests.table(points, type: .point)
        #expect(pointTable.geometryColumn.storage == .points)
        try Self.check(pointTable, "points")
    }

    @Test(arguments: [1 as UInt64, 2])
    func randomTables(seed: UInt64) throws {
        var random = SeededGenerator(seed: 100 + seed)
        var geometries = try (0..<600).map { _ in try FlatRegionFilterTests.randomGeometry(&random) }
        // Coordinates of every magnitude and many digits.
        for _ in 0..<100 {
            let scale = [1e-9, 1e-3, 1, 1e5, 1e12][random.int(5)]
            let (x, y) = (random.uniform(-1, 1) * scale, random.uniform(-1, 1) * scale)
            geometries.append(.polygon(try Polygon(exterior: [
                Point(x: x, y: y), Point(x: x + scale, y: y), Point(x: x, y: y + scale / 3), Point(x: x, y: y),
            ])))
        }
        try Self.check(try FlatSpatialFilterTests.table(geometries, type: .polygon), "random \(seed)")
        let points: [Geometry?] = (0..<500).map { _ in
            random.chance(5) ? nil : .point(Point(x: random.uniform(-180, 180), y: random.uniform(-90, 90)))
        }
        try Self.check(try FlatSpatialFilterTests.table(points, type: .point), "random points \(seed)")
    }

    /// A column whose rows were replaced (positions left unused), through a table built on it.
    @Test func editedColumn() throws {
        var random = SeededGenerator(seed: 107)
        var column = GeometryColumn(storage: .shapes)
        for _ in 0..<400 { column.append(try FlatRegionFilterTests.randomGeometry(&random)) }
        for _ in 0..<600 { column.replace(row: random.int(column.count), with: try FlatRegionFilterTests.randomGeometry(&random)) }
        #expect(column.unusedPositions > 0)
        let table = try FlatSpatialFilterTests.table((0..<column.count).map { column[$0] }, type: .polygon)
        let edited = FeatureTable(
            validatedSchema: table.schema, columns: table.columns, geometryColumn: column,
            rowByObjectID: Dictionary(uniqueKeysWithValues: (0..<column.count).map { (Int64($0 + 1), $0) }))
        try Self.check(edited, "edited")
    }

    /// A result made a table of its own gathers its stored geometries from the column's arrays:
    /// the same table as the one built from the materialized geometries, also after edits.
    @Test func resultAsTable() throws {
        var random = SeededGenerator(seed: 109)
        let geometries = try (0..<800).map { _ in try FlatRegionFilterTests.randomGeometry(&random) }
        let points: [Geometry?] = (0..<300).map { _ in random.chance(5) ? nil : .point(Point(x: random.uniform(0, 9), y: 1, z: 2)) }
        for (table, type) in [(try FlatSpatialFilterTests.table(geometries, type: .polygon), "shapes"), (try FlatSpatialFilterTests.table(points, type: .point), "points")] {
            for query in [
                QueryParameters(), QueryParameters(whereClause: "OBJECTID > 100", orderBy: [SortField("OBJECTID", ascending: false)], maxFeatures: 333),
                QueryParameters(objectIDs: [5, 3, 9]), QueryParameters(whereClause: "1 = 0"),
            ] {
                let result = try table.queryFeatures(query)
                let made = try result.makeTable()
                let reference = try Self.materialized(result).makeTable()
                #expect(made.count == reference.count && made.objectIDs == reference.objectIDs, "\(type)")
                #expect(made.extent == reference.extent, "\(type)")
                #expect(made.geometryColumn.storage == table.geometryColumn.storage, "\(type)")
                for row in 0..<made.count {
                    let (a, b) = (made.geometry(row: row), reference.geometry(row: row))
                    #expect(a == b || a?.wkb() == b?.wkb(), "\(type) row \(row)")
                    #expect(made.envelope(row: row) == reference.envelope(row: row), "\(type) row \(row)")
                }
                #expect(made.row(forObjectID: result.objectIDs.first ?? 0) == reference.row(forObjectID: result.objectIDs.first ?? 0))
                if query.maxFeatures != nil { try Self.check(made, "\(type) made table", variants: [Self.variants[0], Self.variants[9]]) }
            }
        }
    }

    /// The writers' shortest coordinate text is `formatNumber`'s, on edge cases and on random
    /// doubles of every magnitude.
    @Test func shortestNumbersAreFormatNumbers() {
        var values: [Double] = [
            0, -0.0, 1, -1, 0.1, 1e-5, 1e21, 1e22, 123456789012345678, 9_007_199_254_740_991, 9_007_199_254_740_992,
            -9_007_199_254_740_993, 4.5, -2.5, .ulpOfOne, .leastNonzeroMagnitude, .leastNormalMagnitude,
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 171.953732856527, -16.078567760711252, .infinity, -.infinity,
        ]
        var random = SeededGenerator(seed: 113)
        for _ in 0..<100_000 {
            values.append(Double(bitPattern: random.next()))
            values.append((random.uniform(-1e6, 1e6) * 1000).rounded() / 1000)
            values.append(Double(random.int(1 << 40)) - Double(1 << 39))
        }
        var mismatches = 0
        for value in values where !value.isNaN {
            var bytes: [UInt8] = []
            CoordinateFormat.appendShortest(value, to: &bytes)
            if bytes != Array(formatNumber(value).utf8) {
                mismatches += 1
                Issue.record("\(value.bitPattern): \(String(decoding: bytes, as: UTF8.self)) != \(formatNumber(value))")
                if mismatches > 5 { break }
            }
        }
    }
}
