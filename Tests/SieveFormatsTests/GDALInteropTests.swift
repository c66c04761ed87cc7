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
