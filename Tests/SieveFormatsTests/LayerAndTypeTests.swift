import CSQLite
import Foundation
import SieveColumns
import SieveFeatures
import SieveEditing
import SieveGeometry
import SieveFormats
import SieveTestSupport
import Testing

/// GeoPackages written by hand with SQL: layer selection, the type mapping, values that do not
/// fit their columns, SRS rows, and what the writer guarantees when it fails.
@Suite("GeoPackage layers and types")
struct LayerAndTypeTests {
    /// The metadata tables of a GeoPackage and its SRS rows (-1, 0, 4326, 2263).
    static let metadata = """
        CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY, organization TEXT NOT NULL,
          organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
        CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE,
          description TEXT DEFAULT '', last_change DATETIME, min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER);
        CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL,
          srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL);
        INSERT INTO gpkg_spatial_ref_sys VALUES ('u', -1, 'NONE', -1, 'undefined', ''), ('g', 0, 'NONE', 0, 'undefined', ''),
          ('WGS 84', 4326, 'EPSG', 4326, 'x', ''), ('NY', 99, 'epsg', 2263, 'x', '');
        """

    /// A feature table `name` with the given column definitions, registered as features with a
    /// geometry column `geom` of `geometryType` in SRS `srs`.
    static func table(_ name: String, columns: String, geometryType: String = "POINT", srs: Int = 4326) -> String {
        """
        CREATE TABLE "\(name)" (fid INTEGER PRIMARY KEY, geom \(geometryType)\(columns.isEmpty ? "" : ", " + columns));
        INSERT INTO gpkg_contents (table_name, data_type, srs_id) VALUES ('\(name)', 'features', \(srs));
        INSERT INTO gpkg_geometry_columns VALUES ('\(name)', 'geom', '\(geometryType)', \(srs), 0, 0);
        """
    }

    /// `X'…'` of the GeoPackage blob of a little-endian point.
    static func pointBlob(_ x: Double, _ y: Double, srs: Int32 = 4326) throws -> String {
        let blob = try GeoPackageBinary.blob(.point(Point(x: x, y: y)), srsID: srs)
        return "X'" + blob.map { String(format: "%02X", $0) }.joined() + "'"
    }

    @Test func layerSelection() throws {
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("two.gpkg").path
            try executeSQL(
                path,
                Self.metadata + Self.table("roads", columns: "name TEXT") + Self.table("Rivers", columns: "")
                    + "INSERT INTO roads VALUES (1, \(try Self.pointBlob(1, 2)), 'A1');")
            #expect(try GeoPackage.featureLayers(at: path) == ["roads", "Rivers"])
            let several = try #require(geoPackageError { _ = try GeoPackage.read(at: path) })
            #expect(several.kind == .layerNotFound)
            #expect("\(several)".contains("2 feature tables; name one as FILE.gpkg:LAYER: \"roads\", \"Rivers\""))
            let missing = try #require(geoPackageError { _ = try GeoPackage.read(at: path, layer: "lakes") })
            #expect("\(missing)" == "layer not found in \(path): no feature table \"lakes\"; its feature tables: \"roads\", \"Rivers\"")
            #expect(try GeoPackage.read(at: path, layer: "roads").table.count == 1)
            #expect(try GeoPackage.read(at: path, layer: "RIVERS").name == "Rivers")  // ignoring case
            #expect(try GeoPackage.read(at: path, layer: "rivers").table.count == 0)
        }
    }

    @Test func sourceArguments() {
        #expect(GeoPackage.source("a.gpkg")?.path == "a.gpkg")
        #expect(GeoPackage.source("a.gpkg")?.layer == nil)
        #expect(GeoPackage.source("dir/a.GPKG:roads")?.path == "dir/a.GPKG")
        #expect(GeoPackage.source("dir/a.GPKG:roads")?.layer == "roads")
        #expect(GeoPackage.source("a.gpkg:x:y")?.layer == "x:y")
        #expect(GeoPackage.source("a.gpkg:")?.layer == nil)
        #expect(GeoPackage.source("a.geojson") == nil)
        #expect(GeoPackage.source("a.gpkgx") == nil)
    }

    @Test func notAGeoPackage() throws {
        try withTemporaryFolder { folder in
            let text = folder.appendingPathComponent("text.gpkg").path
            try Data("hello, this is not SQLite".utf8).write(to: URL(fileURLWithPath: text))
            #expect(geoPackageError { _ = try GeoPackage.read(at: text) }?.kind == .notAGeoPackage)
            let plain = folder.appendingPathComponent("plain.gpkg").path
            try executeSQL(plain, "CREATE TABLE t (a INTEGER);")
            let error = try #require(geoPackageError { _ = try GeoPackage.read(at: plain) })
            #expect(error.kind == .notAGeoPackage)
            #expect(error.message.contains("gpkg_contents"))
            let missing = folder.appendingPathComponent("missing.gpkg").path
            #expect(geoPackageError { _ = try GeoPackage.read(at: missing) }?.kind == .cannotOpen)
            #expect(!FileManager.default.fileExists(atPath: missing))  // read-only: nothing created
        }
    }

    @Test func typeMapping() throws {
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("types.gpkg").path
            let columns = """
                i INTEGER, m MEDIUMINT, s SMALLINT, t TINYINT, b BOOLEAN, f FLOAT, d DOUBLE, r REAL,
                txt TEXT, txt20 TEXT(20), day DATE, moment DATETIME
                """
            try executeSQL(
                path,
                Self.metadata + Self.table("t", columns: columns, srs: 99)
                    + """
                    INSERT INTO t VALUES (7, \(try Self.pointBlob(1, 2, srs: 99)), 9000000000, -2147483648, 32767, -128, 1,
                      0.1, 2.5, -3, 'é', 'abc', '2024-02-29', '2024-02-29T13:14:15.678Z');
                    INSERT INTO t VALUES (8, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL,
                      '2024-03-01T01:00:00+02:00');
                    """)
            let layer = try GeoPackage.read(at: path)
            let table = layer.table
            let types = Dictionary(uniqueKeysWithValues: table.schema.fields.map { ($0.name, $0.type) })
            #expect(table.schema.objectIdFieldName == "fid")
            #expect(types["fid"] == .oid)
            #expect(types["i"] == .bigInteger)
            #expect(types["m"] == .integer)
            #expect(types["s"] == .smallInteger)
            #expect(types["t"] == .smallInteger)
            #expect(types["b"] == .smallInteger)
            #expect(types["f"] == .single)
            #expect(types["d"] == .double)
            #expect(types["r"] == .double)
            #expect(types["txt"] == .string)
            #expect(table.schema.field(named: "txt20")?.length == 20)
            #expect(types["day"] == .dateOnly)  // a DATE holds days
            #expect(types["moment"] == .date)
            #expect(table.spatialReference.wkid == 2263)  // organization 'epsg', any case
            #expect(table.schema.geometryType == .point)
            #expect(table.value(row: 0, field: "i") == .integer(9_000_000_000))
            #expect(table.value(row: 0, field: "m") == .integer(-2_147_483_648))
            #expect(table.value(row: 0, field: "t") == .integer(-128))
            #expect(table.value(row: 0, field: "b") == .integer(1))
            #expect(table.value(row: 0, field: "f") == .double(0.1))
            #expect(table.value(row: 0, field: "r") == .double(-3))
            #expect(table.value(row: 0, field: "txt") == .string("é"))
            // 2024-02-29 is day 19782 after 1970-01-01 (54 years, 13 leap days before it, +59 days).
            let day: Int64 = (54 * 365 + 13 + 59) * 86_400_000
            #expect(table.value(row: 0, field: "day") == .date(day))
            #expect(table.value(row: 0, field: "moment") == .date(day + (13 * 3600 + 14 * 60 + 15) * 1000 + 678))
            // 2024-03-01T01:00+02:00 is 2024-02-29T23:00Z.
            #expect(table.value(row: 1, field: "moment") == .date(day + 23 * 3_600_000))
            #expect(table.value(row: 1, field: "i") == .null)
            #expect(table.value(row: 1, field: "txt") == .null)
            #expect(table.geometry(row: 1) == nil)
            #expect(table.geometry(row: 0) == .point(Point(x: 1, y: 2)))
        }
    }

    /// Each bad value is reported with the row's fid and the field.
    @Test(arguments: [
        ("s SMALLINT", "32768", "invalid value in PATH, layer \"t\", fid 5, field \"s\": 32768 is outside the SMALLINT range -32768…32767"),
        ("t TINYINT", "200", "fid 5, field \"t\": 200 is outside the TINYINT range -128…127"),
        ("m MEDIUMINT", "2147483648", "fid 5, field \"m\": 2147483648 is outside the MEDIUMINT range"),
        ("b BOOLEAN", "2", "fid 5, field \"b\": expected 0 or 1 (BOOLEAN), found INTEGER 2"),
        ("i INTEGER", "1.5", "fid 5, field \"i\": expected an integer (INTEGER), found REAL 1.5"),
        ("i INTEGER", "'abc'", "fid 5, field \"i\": expected an integer (INTEGER), found TEXT 'abc'"),
        ("d DOUBLE", "'x'", "fid 5, field \"d\": expected a number (DOUBLE), found TEXT 'x'"),
        ("txt TEXT", "X'00FF'", "fid 5, field \"txt\": expected a text (TEXT), found a BLOB of 2 bytes"),
        ("txt TEXT", "CAST(X'C328' AS TEXT)", "fid 5, field \"txt\": the text is not UTF-8"),
        ("day DATE", "'2023-02-30'", "fid 5, field \"day\": expected a date text yyyy-mm-dd (DATE), found TEXT '2023-02-30'"),
        ("moment DATETIME", "20240101", "fid 5, field \"moment\": expected an ISO 8601 date-time text (DATETIME), found INTEGER"),
    ])
    func valuesThatDoNotFit(_ column: String, _ value: String, _ expected: String) throws {
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("bad.gpkg").path
            try executeSQL(
                path,
                Self.metadata + Self.table("t", columns: column)
                    + "INSERT INTO t VALUES (4, NULL, NULL); INSERT INTO t VALUES (5, NULL, \(value));")
            let error = try #require(geoPackageError { _ = try GeoPackage.read(at: path) })
            #expect(error.kind == .invalidValue)
            #expect(error.featureID == 5)
            let text = "\(error)".replacingOccurrences(of: path, with: "PATH")
            #expect(text.contains(expected), "\(text)")
        }
    }

    @Test func unsupportedColumnsFailOrAreSkipped() throws {
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("blob.gpkg").path
            try executeSQL(
                path,
                Self.metadata + Self.table("t", columns: "photo BLOB, v VARCHAR(3), n INTEGER")
                    + "INSERT INTO t VALUES (1, NULL, X'01', 'abc', 3);")
            let error = try #require(geoPackageError { _ = try GeoPackage.read(at: path) })
            #expect(error.kind == .unsupportedField)
            #expect(error.fieldName == "photo")
            let layer = try GeoPackage.read(at: path, options: GeoPackageReadOptions(unsupportedFields: .skip))
            #expect(layer.skippedFields.map(\.name) == ["photo", "v"])
            #expect(layer.skippedFields.map(\.declaredType) == ["BLOB", "VARCHAR(3)"])
            #expect(layer.table.schema.fieldNames == ["fid", "n"])
            #expect(layer.table.value(row: 0, field: "n") == .integer(3))
        }
    }

    @Test func geometryTypesAndSpatialReferences() throws {
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("g.gpkg").path
            let point = try Self.pointBlob(1, 2, srs: 0)
            let multi = "X'" + (try GeoPackageBinary.blob(
                .multipoint(try Multipoint(points: [Point(x: 3, y: 4), Point(x: 5, y: 6)])), srsID: 0))
                .map { String(format: "%02X", $0) }.joined() + "'"
            let line = "X'" + (try GeoPackageBinary.blob(
                .polyline(try Polyline(paths: [[Point(x: 0, y: 0), Point(x: 1, y: 1)]])), srsID: 0))
                .map { String(format: "%02X", $0) }.joined() + "'"
            try executeSQL(
                path,
                Self.metadata + Self.table("mixed", columns: "", geometryType: "GEOMETRY", srs: 0)
                    + Self.table("bad", columns: "", geometryType: "GEOMETRY", srs: -1)
                    + Self.table("declared", columns: "", geometryType: "POINT")
                    + Self.table("curves", columns: "", geometryType: "CURVEPOLYGON")
                    + "INSERT INTO mixed VALUES (1, \(point)), (2, \(multi)), (3, NULL);"
                    + "INSERT INTO bad VALUES (1, \(point)), (2, \(line));"
                    + "INSERT INTO declared VALUES (1, \(point)), (2, \(line));")
            // Points and multipoints mix as a multipoint layer; srs_id 0 is undefined (WKID 0).
            let mixed = try GeoPackage.read(at: path, layer: "mixed").table
            #expect(mixed.schema.geometryType == .multipoint)
            #expect(mixed.geometry(row: 0) == .multipoint(try Multipoint(points: [Point(x: 1, y: 2)])))
            #expect(mixed.geometry(row: 2) == nil)
            #expect(mixed.spatialReference.wkid == 0)
            let bad = try #require(geoPackageError { _ = try GeoPackage.read(at: path, layer: "bad") })
            #expect(bad.kind == .invalidGeometry)
            #expect(bad.featureID == 2)
            #expect(bad.message.contains("but fid 1 has a POINT geometry"))
            let declared = try #require(geoPackageError { _ = try GeoPackage.read(at: path, layer: "declared") })
            #expect(declared.featureID == 2)
            #expect(declared.message == "a LINESTRING or MULTILINESTRING geometry in a column declared POINT")
            let curves = try #require(geoPackageError { _ = try GeoPackage.read(at: path, layer: "curves") })
            #expect(curves.kind == .unsupportedField)
        }
    }
}

/// What the writer writes, and what it leaves behind when it fails.
@Suite("GeoPackage writing")
struct GeoPackageWritingTests {
    static func smallTable(dates: [Int64], spatialReference: SpatialReference = .wgs84) throws -> FeatureTable {
        let schema = try Schema(
            fields: [
                Field(name: "OBJECTID", type: .oid), Field(name: "when", type: .date),
                Field(name: "label", type: .string, length: 12), Field(name: "geom", type: .integer),
            ],
            objectIdFieldName: "OBJECTID", geometryType: .polygon, spatialReference: spatialReference)
        let count = dates.count
        let square = { (i: Int) throws -> Geometry in
            let x = Double(i)
            return .polygon(
                try Polygon(exterior: [Point(x: x, y: 0), Point(x: x + 1, y: 0), Point(x: x + 1, y: 1), Point(x: x, y: 0)]))
        }
        return try FeatureTable(
            schema: schema,
            columns: [
                .integer(Int64Column(values: (1...Int64(count)).map { $0 * 10 })),
                .date(Int64Column(values: dates)),
                .string(StringColumn((0..<count).map { "row \($0)" })),
                .integer(Int64Column(values: Array(repeating: 5, count: count))),
            ],
            geometries: try (0..<count).map(square))
    }

    @Test func metadataAndIndex() throws {
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("small.gpkg").path
            let table = try Self.smallTable(dates: [0, 86_400_000, -1], spatialReference: .webMercator)
            try GeoPackage.write(table, to: path, options: GeoPackageWriteOptions(layerName: "squares"))
            #expect(try querySQL(path, "PRAGMA application_id") == [["1196444487"]])
            #expect(try querySQL(path, "PRAGMA user_version") == [["10300"]])
            #expect(try querySQL(path, "SELECT srs_id, organization, organization_coordsys_id FROM gpkg_spatial_ref_sys ORDER BY srs_id")
                == [["-1", "NONE", "-1"], ["0", "NONE", "0"], ["3857", "EPSG", "3857"], ["4326", "EPSG", "4326"]])
            #expect(try querySQL(path, "SELECT table_name, data_type, min_x, min_y, max_x, max_y, srs_id FROM gpkg_contents")
                == [["squares", "features", "0.0", "0.0", "3.0", "1.0", "3857"]])
            // A field named geom: the geometry column becomes geom_1.
            #expect(try querySQL(path, "SELECT column_name, geometry_type_name, srs_id, z, m FROM gpkg_geometry_columns")
                == [["geom_1", "POLYGON", "3857", "0", "0"]])
            #expect(try querySQL(path, "SELECT extension_name, scope FROM gpkg_extensions WHERE table_name = 'squares' AND column_name = 'geom_1'")
                == [["gpkg_rtree_index", "write-only"]])
            #expect(try querySQL(path, "SELECT rtreecheck('rtree_squares_geom_1')") == [["ok"]])
            #expect(try querySQL(path, "SELECT id, minx, maxx FROM rtree_squares_geom_1 ORDER BY id")
                == [["10", "0.0", "1.0"], ["20", "1.0", "2.0"], ["30", "2.0", "3.0"]])
            #expect(try querySQL(path, "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'rtree_squares_geom_1_%'")
                == [["6"]])
            #expect(try querySQL(path, "SELECT \"when\", label FROM squares ORDER BY OBJECTID")
                == [["1970-01-01T00:00:00.000Z", "row 0"], ["1970-01-02T00:00:00.000Z", "row 1"], ["1969-12-31T23:59:59.999Z", "row 2"]])
            #expect(try querySQL(path, "SELECT type FROM pragma_table_info('squares') ORDER BY cid")
                == [["INTEGER"], ["POLYGON"], ["DATETIME"], ["TEXT(12)"], ["MEDIUMINT"]])
            let back = try GeoPackage.read(at: path)
            #expect(back.table.spatialReference == .webMercator)
            #expect(back.table.schema.fieldNames == ["OBJECTID", "when", "label", "geom"])
            #expect(back.geometryColumn == "geom_1")
            for row in 0..<3 {
                for field in 0..<4 { #expect(back.table.value(row: row, fieldIndex: field) == table.value(row: row, fieldIndex: field)) }
                #expect(back.table.geometry(row: row) == table.geometry(row: row))
            }
        }
    }

    /// A date-only field is a `DATE` column of `yyyy-mm-dd` texts, and reads back as one.
    @Test func dateOnlyFieldsAreDATEColumns() throws {
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("days.gpkg").path
            let schema = try Schema(
                fields: [Field(name: "OBJECTID", type: .oid), Field(name: "day", type: .dateOnly)], objectIdFieldName: "OBJECTID",
                geometryType: .point)
            // 1970-01-02, 1969-12-31 and 2022-04-16 (19,098 days after 1970-01-01), then NULL.
            let days: [Int64] = [1, -1, 19_098, 0].map { $0 * 86_400_000 }
            var validity = ValidityBitmap(count: 4, allValid: true)
            validity.set(3, valid: false)
            let table = try FeatureTable(
                schema: schema,
                columns: [.integer(Int64Column(values: [1, 2, 3, 4])), .date(Int64Column(values: days, validity: validity))],
                geometries: Array(repeating: Geometry.point(Point(x: 1, y: 2)), count: 4))
            try GeoPackage.write(table, to: path, options: GeoPackageWriteOptions(layerName: "days"))
            #expect(try querySQL(path, "SELECT type FROM pragma_table_info('days') WHERE name = 'day'") == [["DATE"]])
            #expect(try querySQL(path, "SELECT day FROM days ORDER BY OBJECTID") == [["1970-01-02"], ["1969-12-31"], ["2022-04-16"], [nil]])
            let back = try GeoPackage.read(at: path).table
            #expect(back.schema.field(named: "day")?.type == .dateOnly)
            for row in 0..<4 { #expect(back.value(row: row, field: "day") == table.value(row: row, field: "day")) }
        }
    }

    /// A large R-tree, packed by the bulk loader, passes SQLite's own check and answers window
    /// queries as a scan of the boxes does.
    @Test func bulkLoadedIndexIsValid() throws {
        var random = SeededGenerator(state: 7)
        let count = 20_000
        var geometries: [Geometry?] = []
        for i in 0..<count {
            if i % 97 == 0 {
                geometries.append(nil)
            } else {
                geometries.append(.point(Point(x: random.uniform(-180, 180), y: random.uniform(-90, 90))))
            }
        }
        let schema = try Schema(fields: [Field(name: "fid", type: .oid)], objectIdFieldName: "fid", geometryType: .point)
        let table = try FeatureTable(
            schema: schema, columns: [.integer(Int64Column(values: (0..<Int64(count)).map { $0 * 3 - 7000 }))], geometries: geometries)
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("many.gpkg").path
            try GeoPackage.write(table, to: path, options: GeoPackageWriteOptions(layerName: "pts"))
            #expect(try querySQL(path, "SELECT rtreecheck('rtree_pts_geom')") == [["ok"]])
            #expect(try querySQL(path, "SELECT count(*) FROM rtree_pts_geom") == [["\(count - (count + 96) / 97)"]])
            for _ in 0..<20 {
                let x0 = random.uniform(-180, 150)
                let y0 = random.uniform(-90, 60)
                let x1 = x0 + random.uniform(0, 30)
                let y1 = y0 + random.uniform(0, 30)
                let got = Set(
                    try querySQL(path, "SELECT id FROM rtree_pts_geom WHERE maxx >= \(x0) AND minx <= \(x1) AND maxy >= \(y0) AND miny <= \(y1)")
                        .compactMap { $0[0].flatMap { Int64($0) } })
                // Every point inside the window is found; anything else found lies within a
                // float's rounding of the window's edge.
                for row in 0..<count {
                    guard case .point(let p) = geometries[row] else { continue }
                    let id = Int64(row) * 3 - 7000
                    if p.x >= x0, p.x <= x1, p.y >= y0, p.y <= y1 { #expect(got.contains(id)) }
                    if got.contains(id) {
                        #expect(p.x >= x0 - 1e-4 && p.x <= x1 + 1e-4 && p.y >= y0 - 1e-4 && p.y <= y1 + 1e-4)
                    }
                }
            }
            let back = try GeoPackage.read(at: path).table
            #expect(back.count == count)
            #expect(back.objectIDs == table.objectIDs)
        }
    }

    /// A write that fails in its last row leaves nothing under the target name (and no
    /// temporary file), and a file already there unchanged.
    @Test func failedWriteLeavesNoFile() throws {
        // The last date is in year 10000, which a DATETIME text cannot hold.
        let year10000: Int64 = 253_402_300_800_000
        let table = try Self.smallTable(dates: [0, 1, year10000])
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("out.gpkg").path
            let error = try #require(
                geoPackageError { try GeoPackage.write(table, to: path, options: GeoPackageWriteOptions(layerName: "t")) })
            #expect(error.kind == .cannotWrite)
            #expect(error.featureID == 30)
            #expect(error.fieldName == "when")
            #expect(error.message.contains("+10000-01-01"))
            #expect(try folderContents(folder) == [])
            try Data("previous".utf8).write(to: URL(fileURLWithPath: path))
            #expect(geoPackageError { try GeoPackage.write(table, to: path, options: GeoPackageWriteOptions(layerName: "t")) } != nil)
            #expect(try folderContents(folder) == ["out.gpkg"])
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("previous".utf8))
            // A good table replaces it.
            try GeoPackage.write(try Self.smallTable(dates: [0]), to: path, options: GeoPackageWriteOptions(layerName: "t"))
            #expect(try GeoPackage.read(at: path).table.count == 1)
            #expect(try folderContents(folder) == ["out.gpkg"])
        }
    }

    @Test func badNamesAndPlaces() throws {
        let table = try Self.smallTable(dates: [0])
        for name in ["", "gpkg_x", "RTREE_y", "sqlite_z"] {
            let error = geoPackageError { try GeoPackage.write(table, to: "/tmp/never.gpkg", options: GeoPackageWriteOptions(layerName: name)) }
            #expect(error?.kind == .cannotWrite, "\(name)")
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/never.gpkg"))
        let error = geoPackageError {
            try GeoPackage.write(table, to: "/nonexistent-folder/x.gpkg", options: GeoPackageWriteOptions(layerName: "t"))
        }
        #expect(error?.kind == .writeFailed)
    }

    /// Other references get a row named by their code, with the definition the hook gives.
    @Test func definitionHook() throws {
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("ny.gpkg").path
            let table = try Self.smallTable(dates: [0], spatialReference: SpatialReference(wkid: 2263))
            try GeoPackage.write(
                table, to: path,
                options: GeoPackageWriteOptions(layerName: "t", spatialReferenceDefinition: { $0.wkid == 2263 ? "PROJCS[\"NY\"]" : nil }))
            #expect(try querySQL(path, "SELECT organization, organization_coordsys_id, definition FROM gpkg_spatial_ref_sys WHERE srs_id = 2263")
                == [["EPSG", "2263", "PROJCS[\"NY\"]"]])
            #expect(try GeoPackage.read(at: path).table.spatialReference.wkid == 2263)
            let esri = folder.appendingPathComponent("esri.gpkg").path
            try GeoPackage.write(
                try Self.smallTable(dates: [0], spatialReference: SpatialReference(wkid: 102_003)), to: esri,
                options: GeoPackageWriteOptions(layerName: "t"))
            #expect(try querySQL(esri, "SELECT organization, definition FROM gpkg_spatial_ref_sys WHERE srs_id = 102003")
                == [["ESRI", "undefined"]])
            #expect(try GeoPackage.read(at: esri).table.spatialReference.wkid == 102_003)
        }
    }
}
