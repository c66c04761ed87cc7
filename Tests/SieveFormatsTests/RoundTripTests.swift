import Foundation
import SieveColumns
import SieveFeatures
import SieveEditing
import SieveGEOS
import SieveGeometry
import SieveFormats
import Testing

/// GeoJSON fixtures written to GeoPackage and read back: the same schema where GeoPackage can
/// say it, the same values, geometries and query answers.
@Suite("GeoPackage round trips")
struct RoundTripTests {
    /// Writes `table` and reads it back.
    static func roundTrip(_ table: FeatureTable, layer: String = "layer") throws -> GeoPackageLayer {
        try withTemporaryFolder { folder in
            let path = folder.appendingPathComponent("out.gpkg").path
            try GeoPackage.write(table, to: path, options: GeoPackageWriteOptions(layerName: layer))
            #expect(try folderContents(folder) == ["out.gpkg"])
            return try GeoPackage.read(at: path)
        }
    }

    @Test(arguments: fixtureNames)
    func fixtureRoundTrip(_ name: String) throws {
        let source = try FeatureTable.load(contentsOf: fixtureURL(name))
        let layer = try Self.roundTrip(source, layer: "countries")
        let copy = layer.table
        #expect(layer.name == "countries")
        #expect(layer.geometryColumn == "geom")
        #expect(layer.skippedFields.isEmpty)
        #expect(copy.count == source.count)
        #expect(copy.schema.objectIdFieldName == source.schema.objectIdFieldName)
        #expect(copy.schema.fieldNames == source.schema.fieldNames)
        #expect(copy.schema.fields.map(\.type) == source.schema.fields.map(\.type))
        #expect(copy.schema.geometryType == source.schema.geometryType)
        #expect(copy.spatialReference == source.spatialReference)
        for row in 0..<source.count {
            for field in source.schema.fields.indices {
                #expect(copy.value(row: row, fieldIndex: field) == source.value(row: row, fieldIndex: field))
            }
            #expect(copy.geometry(row: row) == source.geometry(row: row), "row \(row)")
            #expect(copy.envelope(row: row) == source.envelope(row: row))
        }
    }

    /// Where clauses and spatial queries answer the same on the copy as on the source, and the
    /// spatial ones as Shapely does (the oracle of the spatial query tests).
    @Test(arguments: fixtureNames)
    func sameQueryAnswers(_ name: String) throws {
        let source = try FeatureTable.load(contentsOf: fixtureURL(name))
        let copy = try Self.roundTrip(source).table
        let clauses: [String: [String]] = [
            "naturalearth_lowres.geojson": [
                "1=1", "continent = 'Africa' AND pop_est > 5e7", "name LIKE 'S%'", "gdp_md_est BETWEEN 1000 AND 50000",
                "iso_a3 IS NULL OR iso_a3 = '-99'",
            ],
            "naturalearth_cities.geojson": ["1=1", "name LIKE '%o%'", "fid > 100 AND fid < 150"],
            "nybb.geojson": ["1=1", "BoroName = 'Brooklyn'", "Shape_Area > 1e9", "BoroCode IN (1, 3, 5)"],
        ]
        for clause in clauses[name] ?? [] {
            let query = QueryParameters(whereClause: clause)
            let expected = try source.queryObjectIDs(query)
            #expect(try copy.queryObjectIDs(query) == expected, "\(clause)")
            if clause != "1=1" { #expect(expected.count < source.count) }
        }
        // The spatial query oracle: Shapely's answers for each query geometry and relationship.
        let data = try Data(contentsOf: fixtureURL("oracle/spatial_query_oracle.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let queries = try #require(object["queries"] as? [String: String])
        let cases = try #require(object["cases"] as? [[String: Any]])
        var checked = 0
        for item in cases where item["dataset"] as? String == name {
            guard let relationshipName = item["relationship"] as? String,
                let relationship = Self.relationship(named: relationshipName),
                let queryName = item["query"] as? String, let text = queries[queryName],
                let ids = item["objectIds"] as? [Int]
            else { continue }
            let geometry = try Geometry.parse(text).geometry
            let answer = try copy.queryObjectIDs(QueryParameters(geometry: geometry, spatialRelationship: relationship))
            #expect(answer == ids.map(Int64.init), "\(queryName) \(relationshipName)")
            checked += 1
        }
        #expect(checked > 10)
    }

    static func relationship(named name: String) -> SpatialRelationship? {
        if name.hasPrefix("relate:") { return .relate(pattern: String(name.dropFirst(7))) }
        let all: [SpatialRelationship] = [
            .intersects, .contains, .within, .touches, .crosses, .overlaps, .equals, .disjoint, .envelopeIntersects,
        ]
        return all.first { $0.description == name }
    }
}
