import Foundation
import SieveColumns
import SieveFeatures
import SieveEditing
import SieveGEOS
import SieveGeometry
import SieveFormats
import Testing

/// Interoperability with GDAL, when `ogrinfo` and `ogr2ogr` are on PATH (`apt-get install
/// gdal-bin`; `.ci/run` installs it): GDAL reads what GeoSieve writes, and GeoSieve reads what
/// GDAL writes from the fixtures with the same query answers as the GeoJSON source.
@Suite(
    "GeoPackage interop with GDAL",
    .enabled(if: executableOnPath("ogrinfo") != nil && executableOnPath("ogr2ogr") != nil, "ogrinfo and ogr2ogr are not on PATH (apt-get install gdal-bin)"))
struct GDALInteropTests {
    /// `ogrinfo -so -al` on our file: feature count, fields, geometry type, extent and SRS.
    @Test(arguments: fixtureNames)
    func gdalReadsOurFile(_ name: String) throws {
        let ogrinfo = try #require(executableOnPath("ogrinfo"))
        let table = try FeatureTable.load(contentsOf: fixtureURL(name))
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("ours.gpkg").path
            try GeoPackage.write(table, to: path, options: GeoPackageWriteOptions(layerName: "layer"))
            let (status, output) = try run(ogrinfo, ["-so", "-al", path])
            #expect(status == 0, "\(output)")
            #expect(output.contains("Layer name: layer"))
            #expect(output.contains("Feature Count: \(table.count)\n"))
            #expect(output.contains("FID Column = \(table.schema.objectIdFieldName)"))
            #expect(output.contains("Geometry Column = geom"))
            #expect(output.contains("ID[\"EPSG\",4326]]"))
            let geometryLine: String
            switch table.schema.geometryType {
            case .point: geometryLine = "Geometry: Point"
            case .polygon: geometryLine = "Geometry: Multi Polygon"  // some features have several parts
            default: geometryLine = "Geometry:"
            }
            #expect(output.contains(geometryLine), "\(output)")
            // The extent, as ogrinfo prints it (6 decimals), from the table's own envelopes.
            var extent = Envelope.empty
            for row in 0..<table.count { if let e = table.envelope(row: row) { extent.expand(toInclude: e) } }
            let f = { (v: Double) in String(format: "%.6f", v) }
            #expect(output.contains("Extent: (\(f(extent.xmin)), \(f(extent.ymin))) - (\(f(extent.xmax)), \(f(extent.ymax)))"), "\(output)")
            for field in table.schema.fields where field.name != table.schema.objectIdFieldName {
                let type: String
                switch field.type {
                case .string: type = "String"
                case .double, .single: type = "Real"
                case .bigInteger: type = "Integer64"
                default: type = "Integer"
                }
                #expect(output.contains("\n\(field.name): \(type) "), "\(field.name) \(output)")
            }
            // GDAL's full read sees the same features without complaint.
            let (fullStatus, full) = try run(ogrinfo, ["-q", "-al", path])
            #expect(fullStatus == 0)
            #expect(full.components(separatedBy: "OGRFeature(layer):").count - 1 == table.count)
        }
    }

    /// The R-tree triggers work in GDAL (which provides the ST_ functions they call): deleting,
    /// nulling and renumbering features keeps the index in step.
    @Test func triggersKeepTheIndexInStep() throws {
        let ogrinfo = try #require(executableOnPath("ogrinfo"))
        let table = try FeatureTable.load(contentsOf: fixtureURL("nybb.geojson"))
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("nybb.gpkg").path
            try GeoPackage.write(table, to: path, options: GeoPackageWriteOptions(layerName: "nybb"))
            let ids = table.objectIDs.sorted()
            for sql in [
                "DELETE FROM nybb WHERE OBJECTID = \(ids[0])",
                "UPDATE nybb SET geom = NULL WHERE OBJECTID = \(ids[1])",
                "UPDATE nybb SET OBJECTID = 100 WHERE OBJECTID = \(ids[2])",
            ] {
                #expect(try run(ogrinfo, [path, "-sql", sql]).status == 0)
            }
            let rows = try querySQL(path, "SELECT id FROM rtree_nybb_geom ORDER BY id").compactMap { $0[0] }
            #expect(rows == [String(ids[3]), String(ids[4]), "100"])
            #expect(try querySQL(path, "SELECT rtreecheck('rtree_nybb_geom')") == [["ok"]])
        }
    }

    /// `ogr2ogr -f GPKG` from each fixture, read by GeoSieve: the same values and query answers
    /// as the GeoJSON source.
    @Test(arguments: fixtureNames)
    func weReadGDALsFile(_ name: String) throws {
        let ogr2ogr = try #require(executableOnPath("ogr2ogr"))
        let source = try FeatureTable.load(contentsOf: fixtureURL(name))
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("gdal.gpkg").path
            let (status, output) = try run(ogr2ogr, ["-f", "GPKG", path, fixtureURL(name).path])
            #expect(status == 0, "\(output)")
            let layer = try GeoPackage.read(at: path)
            let copy = layer.table
            #expect(copy.count == source.count)
            #expect(copy.spatialReference == .wgs84)
            // GDAL numbers the features 1… in file order (its fid), as the source's OBJECTIDs.
            #expect(copy.objectIDs == source.objectIDs)
            for field in source.schema.fields where field.name != source.schema.objectIdFieldName {
                let index = try #require(copy.schema.index(ofField: field.name), "\(field.name)")
                let sourceIndex = try #require(source.schema.index(ofField: field.name))
                for row in 0..<source.count {
                    let a = source.value(row: row, fieldIndex: sourceIndex)
                    let b = copy.value(row: row, fieldIndex: index)
                    // Whole doubles may come back as integers from a Real column and vice versa.
                    #expect(a == b || Self.numeric(a) == Self.numeric(b), "\(field.name) row \(row): \(a) vs \(b)")
                }
            }
            for row in 0..<source.count {
                #expect(copy.geometry(row: row)?.envelope == source.geometry(row: row)?.envelope)
            }
            for clause in ["1=1", "fid > 3", "MOD(fid, 2) = 0"] {
                let query = QueryParameters(whereClause: clause)
                #expect(try copy.queryObjectIDs(query) == source.queryObjectIDs(query))
            }
            for (text, relationship) in [
                ("POLYGON ((-12 35, 30 35, 40 50, 30 72, -12 72, -25 60, -12 35))", SpatialRelationship.intersects),
                ("-74.1,40.6,-73.9,40.8", .intersects), ("-20,-10,40,20", .within), ("-20,-10,40,20", .contains),
            ] {
                let query = QueryParameters(geometry: try Geometry.parse(text).geometry, spatialRelationship: relationship)
                #expect(try copy.queryObjectIDs(query) == source.queryObjectIDs(query), "\(text) \(relationship)")
            }
        }
    }

    static func numeric(_ value: ScalarValue) -> Double? {
        switch value {
        case .integer(let x): Double(x)
        case .double(let x): x
        default: nil
        }
    }
}

/// Shapefile interoperability with GDAL (skipped without `ogrinfo` and `ogr2ogr`): GeoSieve reads
/// what `ogr2ogr -f "ESRI Shapefile"` writes from the fixtures with the values, geometries and
/// query answers of the GeoJSON source, and GDAL reads what GeoSieve writes with the same
/// features, field types and values.
@Suite(
    "Shapefile interop with GDAL",
    .enabled(if: executableOnPath("ogrinfo") != nil && executableOnPath("ogr2ogr") != nil, "ogrinfo and ogr2ogr are not on PATH (apt-get install gdal-bin)"))
struct GDALShapefileInteropTests {
    /// `source` and `copy` hold the same features: `copy`'s FIDs count from 0 where the
    /// source's object IDs count from 1, every field of the source has the same values in the
    /// copy (by `name(field)`), and the geometries are equal once rings are oriented alike.
    static func expectSame(_ source: FeatureTable, _ copy: FeatureTable, name: (String) -> String = { $0 }, _ context: String) throws {
        #expect(copy.count == source.count, "\(context)")
        #expect(Array(copy.objectIDs) == source.objectIDs.map { $0 - 1 }, "\(context)")
        for field in source.schema.fields where field.name != source.schema.objectIdFieldName {
            let index = try #require(copy.schema.index(ofField: name(field.name)), "\(context): \(field.name)")
            let sourceIndex = try #require(source.schema.index(ofField: field.name))
            for row in 0..<source.count {
                let a = source.value(row: row, fieldIndex: sourceIndex)
                let b = copy.value(row: row, fieldIndex: index)
                #expect(a == b || GDALInteropTests.numeric(a) == GDALInteropTests.numeric(b), "\(context): \(field.name) row \(row): \(a) vs \(b)")
            }
        }
        func normalized(_ geometry: Geometry?) -> Geometry? {
            if case .polygon(let polygon) = geometry { return .polygon(polygon.outerRingsCounterClockwise(false)) }
            return geometry
        }
        for row in 0..<source.count {
            #expect(normalized(copy.geometry(row: row)) == normalized(source.geometry(row: row)), "\(context): row \(row)")
        }
    }

    @Test(arguments: fixtureNames)
    func weReadGDALsShapefile(_ name: String) throws {
        let ogr2ogr = try #require(executableOnPath("ogr2ogr"))
        let source = try FeatureTable.load(contentsOf: fixtureURL(name))
        try withTemporaryFolder { folder in
            // GDAL's default (ISO-8859-1, language driver 0x57) and UTF-8 with a .cpg; and zipped.
            for (file, options) in [("latin1.shp", []), ("utf8.shp", ["-lco", "ENCODING=UTF-8"]), ("zipped.shp.zip", [])] {
                let path = folder.appendingPathComponent(file).path
                let (status, output) = try run(ogr2ogr, ["-f", "ESRI Shapefile", path, fixtureURL(name).path] + options)
                #expect(status == 0, "\(output)")
                let layer = try Shapefile.read(at: path)
                #expect(layer.table.spatialReference == .wgs84, "\(file)")
                #expect(layer.encoding == (file == "utf8.shp" ? "UTF-8" : "ISO-8859-1"), "\(file)")
                try Self.expectSame(source, layer.table, "\(name) \(file)")
                // The same answers to attribute and spatial queries (FIDs one less).
                for (clause, geometry) in [
                    ("1=1", nil), ("name LIKE 'B%'", nil), ("1=1", "POLYGON ((-12 35, 30 35, 40 50, 30 72, -12 72, -25 60, -12 35))"),
                    ("1=1", "-74.1,40.6,-73.9,40.8"),
                ] as [(String, String?)] {
                    guard clause == "1=1" || source.schema.field(named: "name") != nil else { continue }
                    let query = QueryParameters(whereClause: clause, geometry: try geometry.map { try Geometry.parse($0).geometry })
                    #expect(try layer.table.queryObjectIDs(query) == source.queryObjectIDs(query).map { $0 - 1 }, "\(name) \(clause)")
                }
            }
        }
    }

    @Test(arguments: fixtureNames)
    func gdalReadsOurShapefile(_ name: String) throws {
        let ogr2ogr = try #require(executableOnPath("ogr2ogr"))
        let ogrinfo = try #require(executableOnPath("ogrinfo"))
        let source = try FeatureTable.load(contentsOf: fixtureURL(name))
        try withTemporaryFolder { folder in
            for file in ["ours.shp", "ours.shz"] {
                let path = folder.appendingPathComponent(file).path
                try Shapefile.write(source, to: path)
                let (infoStatus, info) = try run(ogrinfo, ["-so", "-al", path])
                #expect(infoStatus == 0, "\(info)")
                #expect(info.contains("Feature Count: \(source.count)\n"), "\(info)")
                #expect(info.contains("ID[\"EPSG\",4326]]"), "\(info)")
                // GDAL's reading of our file, written as a GeoPackage (binary doubles, typed
                // columns) and read back: the source's features. GDAL numbers them 1… (its fid);
                // our OBJECTID field, written to the .dbf, reads as an ordinary field.
                let back = folder.appendingPathComponent("back-\(file).gpkg").path
                let (status, output) = try run(ogr2ogr, ["-f", "GPKG", back, path])
                #expect(status == 0, "\(output)")
                let copy = try GeoPackage.read(at: back).table
                #expect(copy.count == source.count)
                let objectID = source.schema.objectIdFieldName
                #expect((0..<copy.count).map { copy.value(row: $0, field: objectID) } == source.objectIDs.map { ScalarValue.integer($0) })
                for field in source.schema.fields where field.name != objectID {
                    for row in 0..<source.count {
                        let a = source.value(row: row, field: field.name)
                        let b = copy.value(row: row, field: field.name)
                        #expect(a == b || GDALInteropTests.numeric(a) == GDALInteropTests.numeric(b), "\(file) \(field.name) row \(row): \(a) vs \(b)")
                    }
                }
                for row in 0..<source.count {
                    var a = source.geometry(row: row)
                    var b = copy.geometry(row: row)
                    if case .polygon(let p) = a { a = .polygon(p.outerRingsCounterClockwise(true)) }
                    if case .polygon(let p) = b { b = .polygon(p.outerRingsCounterClockwise(true)) }
                    #expect(a == b, "\(file) row \(row)")
                }
            }
        }
    }

    /// GDAL's field types for ours: N below 10 digits Integer, 10–18 Integer64, with decimals
    /// Real (24.15), D Date, C String with our width; a date-time field written as text.
    @Test func gdalReadsOurFieldTypes() throws {
        let ogrinfo = try #require(executableOnPath("ogrinfo"))
        let fields = [
            Field(name: "OBJECTID", type: .oid), Field(name: "NAME", type: .string), Field(name: "COUNT", type: .integer),
            Field(name: "BIG", type: .bigInteger), Field(name: "RATE", type: .double), Field(name: "DAY", type: .dateOnly),
            Field(name: "WHEN", type: .date),
        ]
        let table = try FeatureTable.load(
            geoJSON: #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"NAME":"Zürich","COUNT":-12,"BIG":123456789012,"RATE":0.1,"DAY":"2024-02-29","WHEN":"2024-02-29T10:11:12.345Z"},"geometry":{"type":"Point","coordinates":[1,2]}},{"type":"Feature","properties":{},"geometry":null}]}"#,
            schema: fields)
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("t.shp").path
            let report = try Shapefile.write(table, to: path)
            #expect(report.warnings == [#"field "WHEN" holds times of day, which a dBase date cannot: written as ISO 8601 text"#])
            let (status, output) = try run(ogrinfo, ["-al", path])
            #expect(status == 0)
            for line in [
                "OBJECTID: Integer (9.0)", "NAME: String (7.0)", "COUNT: Integer (9.0)", "BIG: Integer64 (18.0)", "RATE: Real (24.15)",
                "DAY: Date (10.0)", "WHEN: String (24.0)", "  NAME (String) = Zürich", "  COUNT (Integer) = -12",
                "  BIG (Integer64) = 123456789012", "  RATE (Real) = 0.100000000000000", "  DAY (Date) = 2024/02/29", "  WHEN (String) = 2024-02-29T10:11:12.345Z",
                "  POINT (1 2)", "  NAME (String) = (null)", "  COUNT (Integer) = (null)", "  DAY (Date) = (null)",
            ] {
                #expect(output.contains(line + "\n"), "\(line)\n\(output)")
            }
        }
    }
}

/// CSV sources against GDAL's CSV driver (skipped without `ogr2ogr`): GeoSieve reads what
/// `ogr2ogr -f CSV -lco GEOMETRY=AS_WKT` writes from the fixtures with the values of the source,
/// and reads a points CSV with the values GDAL's driver reads (its `AUTODETECT_TYPE` and
/// `X_POSSIBLE_NAMES`/`Y_POSSIBLE_NAMES` open options).
@Suite(
    "CSV interop with GDAL",
    .enabled(if: executableOnPath("ogr2ogr") != nil, "ogr2ogr is not on PATH (apt-get install gdal-bin)"))
struct GDALCSVInteropTests {
    @Test(arguments: fixtureNames)
    func weReadGDALsCSV(_ name: String) throws {
        let ogr2ogr = try #require(executableOnPath("ogr2ogr"))
        let source = try FeatureTable.load(contentsOf: fixtureURL(name))
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("gdal.csv").path
            let (status, output) = try run(ogr2ogr, ["-f", "CSV", "-lco", "GEOMETRY=AS_WKT", path, fixtureURL(name).path])
            #expect(status == 0, "\(output)")
            let copy = try CSVFile.read(at: path)
            #expect(copy.count == source.count)
            #expect(copy.schema.geometryType == source.schema.geometryType)
            for field in source.schema.fields where field.name != source.schema.objectIdFieldName {
                for row in 0..<source.count {
                    let a = source.value(row: row, field: field.name)
                    let b = copy.value(row: row, field: field.name)
                    #expect(a == b || GDALInteropTests.numeric(a) == GDALInteropTests.numeric(b), "\(field.name) row \(row): \(a) vs \(b)")
                }
            }
            // GDAL writes WKT with 15 significant digits: the same geometries to 1e-12.
            for row in 0..<source.count {
                let a = try #require(source.geometry(row: row)?.envelope)
                let b = try #require(copy.geometry(row: row)?.envelope)
                for (u, v) in [(a.xmin, b.xmin), (a.ymin, b.ymin), (a.xmax, b.xmax), (a.ymax, b.ymax)] {
                    #expect(abs(u - v) <= 1e-12 * max(1, abs(u)), "row \(row)")
                }
            }
        }
    }

    @Test func gdalReadsOurPointsCSVAsWeDo() throws {
        let ogr2ogr = try #require(executableOnPath("ogr2ogr"))
        let text = "name,lon,lat,pop,when,ratio\n\"Zürich, CH\",8.54,47.37,402762,2024-02-29,0.5\n\"Bern \"\"BE\"\"\",7.45,46.95,,2024-03-01,1.25\nLine\nbreak,x,y,,,\n"
            .replacingOccurrences(of: "Line\nbreak,x,y,,,\n", with: "\"Line\nbreak\",-1.5,2.5,7,,\n")
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("points.csv").path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            let ours = try CSVFile.read(at: path)
            let gpkg = folder.appendingPathComponent("gdal.gpkg").path
            let (status, output) = try run(
                ogr2ogr,
                ["-f", "GPKG", gpkg, path, "-oo", "X_POSSIBLE_NAMES=lon", "-oo", "Y_POSSIBLE_NAMES=lat", "-oo", "AUTODETECT_TYPE=YES", "-a_srs", "EPSG:4326"])
            #expect(status == 0, "\(output)")
            let theirs = try GeoPackage.read(at: gpkg).table
            #expect(theirs.count == ours.count)
            for field in ["name", "pop", "ratio", "when"] {
                for row in 0..<ours.count {
                    let a = ours.value(row: row, field: field)
                    let b = theirs.value(row: row, field: field)
                    #expect(a == b || GDALInteropTests.numeric(a) == GDALInteropTests.numeric(b), "\(field) row \(row): \(a) vs \(b)")
                }
            }
            for row in 0..<ours.count {
                #expect(ours.geometry(row: row) == theirs.geometry(row: row), "row \(row)")
            }
        }
    }
}

/// FlatGeobuf interoperability with GDAL (skipped without `ogr2ogr`): GeoSieve reads GDAL's files
/// (with and without GDAL's index) with the source's values and geometries, and GDAL reads
/// GeoSieve's, with its index answering GDAL's spatial filter as GeoSieve's box read does.
@Suite(
    "FlatGeobuf interop with GDAL",
    .enabled(if: executableOnPath("ogr2ogr") != nil, "ogr2ogr is not on PATH (apt-get install gdal-bin)"))
struct GDALFlatGeobufInteropTests {
    @Test(arguments: fixtureNames)
    func weReadGDALsFlatGeobuf(_ name: String) throws {
        let ogr2ogr = try #require(executableOnPath("ogr2ogr"))
        let source = try FeatureTable.load(contentsOf: fixtureURL(name))
        try withTemporaryFolder { folder in
            let plain = folder.appendingPathComponent("plain.fgb").path
            let (status, output) = try run(ogr2ogr, ["-f", "FlatGeobuf", "-lco", "SPATIAL_INDEX=NO", plain, fixtureURL(name).path])
            #expect(status == 0, "\(output)")
            let layer = try FlatGeobuf.read(at: plain)
            #expect(!layer.hasIndex)
            #expect(layer.table.spatialReference == .wgs84)
            try GDALShapefileInteropTests.expectSame(source, layer.table, "\(name) fgb")
            // GDAL's indexed file: the same features (sorted its way), and box reads through
            // GDAL's index equal box filtering of the plain file.
            let indexed = folder.appendingPathComponent("indexed.fgb").path
            #expect(try run(ogr2ogr, ["-f", "FlatGeobuf", indexed, fixtureURL(name).path]).status == 0)
            let sorted = try FlatGeobuf.read(at: indexed)
            #expect(sorted.hasIndex)
            #expect(sorted.table.count == source.count)
            for box in [Envelope(xmin: -10, ymin: 35, xmax: 30, ymax: 60), Envelope(xmin: -74.1, ymin: 40.6, xmax: -73.9, ymax: 40.8), Envelope(xmin: 100, ymin: -50, xmax: 180, ymax: 0)] {
                let viaIndex = try FlatGeobuf.read(at: indexed, intersecting: box).table
                let expected = FlatGeobufTests.boxFiltered(layer.table, box).count
                #expect(viaIndex.count == expected, "\(name) \(box)")
            }
        }
    }

    @Test(arguments: fixtureNames)
    func gdalReadsOurFlatGeobuf(_ name: String) throws {
        let ogr2ogr = try #require(executableOnPath("ogr2ogr"))
        let ogrinfo = try #require(executableOnPath("ogrinfo"))
        let source = try FeatureTable.load(contentsOf: fixtureURL(name))
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("ours.fgb").path
            try FlatGeobuf.write(source, to: path)
            let (infoStatus, info) = try run(ogrinfo, ["-so", "-al", path])
            #expect(infoStatus == 0, "\(info)")
            #expect(info.contains("Feature Count: \(source.count)\n"), "\(info)")
            #expect(info.contains("ID[\"EPSG\",4326]]"), "\(info)")
            // GDAL's reading, as a GeoPackage (binary doubles), matched by our OBJECTID column.
            let back = folder.appendingPathComponent("back.gpkg").path
            let (status, output) = try run(ogr2ogr, ["-f", "GPKG", back, path])
            #expect(status == 0, "\(output)")
            let copy = try GeoPackage.read(at: back).table
            #expect(copy.count == source.count)
            let objectID = source.schema.objectIdFieldName
            var rowOf: [Int64: Int] = [:]
            for row in 0..<copy.count { if case .integer(let id) = copy.value(row: row, field: objectID) { rowOf[id] = row } }
            for row in 0..<source.count {
                let back = try #require(rowOf[source.objectIDs[row]])
                for field in source.schema.fields where field.name != objectID {
                    let a = source.value(row: row, field: field.name)
                    let b = copy.value(row: back, field: field.name)
                    #expect(a == b || GDALInteropTests.numeric(a) == GDALInteropTests.numeric(b), "\(field.name) row \(row): \(a) vs \(b)")
                }
                #expect(copy.geometry(row: back) == source.geometry(row: row), "row \(row)")
            }
            // GDAL's spatial filter uses our index: the features our box read finds.
            let box = Envelope(xmin: -10, ymin: 35, xmax: 30, ymax: 60)
            let filtered = folder.appendingPathComponent("filtered.gpkg").path
            #expect(try run(ogr2ogr, ["-f", "GPKG", filtered, path, "-spat", "-10", "35", "30", "60"]).status == 0)
            let theirs = try GeoPackage.read(at: filtered).table
            let ours = try FlatGeobuf.read(at: path, intersecting: box).table
            func ids(_ table: FeatureTable) -> Set<Int64> {
                Set((0..<table.count).compactMap { if case .integer(let id) = table.value(row: $0, field: objectID) { id } else { nil } })
            }
            // GDAL's -spat also tests the geometries, not only their boxes: a subset of ours.
            #expect(ids(theirs).isSubset(of: ids(ours)))
            #expect(ids(ours) == FlatGeobufTests.boxFiltered(source, box))
        }
    }
}
