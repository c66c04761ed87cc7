import Foundation
import GeoSieve
import Testing

/// The "Using the library" example of the README, compiled and run, so the README cannot drift
/// from the API.
@Suite("README example")
struct ReadmeExampleTests {
    @Test func usingTheLibrary() throws {
        let countriesURL = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/naturalearth_lowres.geojson")
        let southAfricaText = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Examples/south-africa.geojson"),
            encoding: .utf8)

        // --- README example begins ---
        // Geometries and relationships.
        let southAfrica = try Geometry(geoJSON: southAfricaText)
        let (pretoria, _) = try Geometry.parse("POINT (28.2274832 -25.7049747)")

        let (inside, matrix) = try GEOSContext.withCurrent { context in
            let prepared = try PreparedGeometry(southAfrica, context: context)  // prepare once …
            let inside = try prepared.intersects(x: 28.2274832, y: -25.7049747)  // … test many times
            let matrix = try GEOSGeometry(pretoria, context: context)
                .relate(GEOSGeometry(southAfrica, context: context))  // DE-9IM: 0FFFFF212
            return (inside, matrix)
        }

        // A feature table, a where clause and a spatial filter.
        let countries = try FeatureTable.load(contentsOf: countriesURL, schema: nil)
        let query = QueryParameters(
            whereClause: "continent = 'Africa' AND pop_est > 1e7",
            geometry: southAfrica, spatialRelationship: .touches)
        let neighbours = try countries.queryFeatures(query)
        let names = neighbours.map { $0.value(ofField: "name") }
        // --- README example ends ---

        #expect(inside)
        #expect(matrix.description == "0FFFFF212")
        // Neighbours of South Africa with more than ten million people (Natural Earth 1:110m):
        // Mozambique and Zimbabwe (Botswana, Namibia, eSwatini and Lesotho have fewer).
        #expect(Set(names) == [.string("Mozambique"), .string("Zimbabwe")])
    }

    @Test func dataInAndOut() throws {
        let citiesPath = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/naturalearth_cities.geojson").path
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geosieve-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let geoPackagePath = folder.appendingPathComponent("cities.gpkg").path

        // --- README example begins ---
        let options = LoadOptions(onInvalid: .skip, progress: { print("\($0.bytesRead) of \($0.totalBytes) bytes") })
        let (cities, report) = try FeatureTable.loadReporting(contentsOfFile: citiesPath, options: options)
        try GeoPackage.write(cities, to: geoPackagePath, options: GeoPackageWriteOptions(layerName: "cities"))
        let reread = try GeoPackage.read(at: geoPackagePath).table
        let saints = try reread.queryFeatures(QueryParameters(whereClause: "name LIKE 'San %'"))
        var lines: [UInt8] = []
        saints.write(.geoJSONSeq, chunkSize: 1 << 16) { piece in lines += piece }  // one feature a line
        // --- README example ends ---

        #expect(report.skippedCount == 0)
        #expect(reread.count == cities.count)
        // San Marino, San José, San Salvador, San Francisco (not Sanaa, Santo Domingo, Santiago).
        #expect(Set(saints.map { $0.value(ofField: "name") })
            == [.string("San Marino"), .string("San José"), .string("San Salvador"), .string("San Francisco")])
        #expect(String(decoding: lines, as: UTF8.self).split(separator: "\n").count == 4)
    }

    @Test func editing() throws {
        let citiesPath = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/naturalearth_cities.geojson").path
        let cities = try FeatureTable.load(contentsOf: URL(fileURLWithPath: citiesPath))

        // --- README example begins ---
        let editable = try EditableFeatureTable(cities)
        let before = editable.snapshot
        let result = editable.applyEdits(
            adds: [FeatureEdit(attributes: ["name": .string("Atlantis")], geometry: .point(Point(x: -30, y: 30)))],
            updates: [FeatureEdit(objectID: 1, attributes: ["name": .string("Vatican")])],
            deletes: [2])
        print(result.json)  // {"addResults":[{"objectId":…,"success":true}],"updateResults":[…],"deleteResults":[…]}
        let after = editable.snapshot  // one feature more, one less; `before` is unchanged
        // --- README example ends ---

        #expect(result.allSucceeded)
        #expect(result.addResults[0].objectID == Int64(cities.count) + 1)
        #expect(before.featureCount == cities.count)
        #expect(after.featureCount == cities.count)
        #expect(try after.queryObjectIDs(QueryParameters(whereClause: "name = 'Atlantis'")) == [Int64(cities.count) + 1])
        #expect(try before.queryObjectIDs(QueryParameters(whereClause: "name = 'Atlantis'")) == [])
        #expect(after.value(row: try #require(after.row(forObjectID: 1)), field: "name") == .string("Vatican"))
        #expect(after.row(forObjectID: 2) == nil)
        #expect(before.row(forObjectID: 2) != nil)
    }
}
