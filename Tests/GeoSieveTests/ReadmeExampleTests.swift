import Foundation
import GeoSieve
import Testing

/// The "Using the library" example of the README, compiled and run, so the README cannot drift
/// from the API.
@Suite("README example")
struct ReadmeExampleTests {
    /// The README's "Use the library" example: the statements between the markers below are
    /// the README's code block, line for line (less this function's indentation, and the block's
    /// two imports, which this file has), so the README cannot show code that does not compile.
    /// The counts are Python's over the same file (`json`, and `shapely` for the box). Run from
    /// the package's root, as `swift test` runs.
    @Test func theReadmeLibraryExample() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        // README: begin
        let countries = try FeatureTable.load(contentsOf: URL(fileURLWithPath: "Tests/Fixtures/naturalearth_lowres.geojson"))

        // A where clause: the African countries of more than 50 million people.
        let populous = try countries.queryFeatureCount(QueryParameters(whereClause: "continent = 'Africa' AND pop_est > 5e7"))

        // A spatial query: the countries a box over the Alps intersects.
        let alps = try Geometry(wkt: "POLYGON ((5 45, 17 45, 17 48, 5 48, 5 45))")
        let alpine = try countries.queryFeatures(QueryParameters(geometry: alps, spatialRelationship: .intersects))

        print(populous, alpine.count)  // 7 9
        // README: end
        #expect(populous == 7)
        #expect(alpine.count == 9)

        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let lines = source.components(separatedBy: "\n")
        let begin = try #require(lines.firstIndex { $0.hasSuffix("// README: begin") })
        let end = try #require(lines.firstIndex { $0.hasSuffix("// README: end") })
        let statements = lines[(begin + 1)..<end].map { $0.count >= 8 ? String($0.dropFirst(8)) : $0 }
        let block = (["```swift", "import Foundation", "import GeoSieve", ""] + statements + ["```"]).joined(separator: "\n")
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains(block), "README.md's library example differs from this test's")
    }

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

    @Test func layersAndTheMap() throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures")
        let countries = try FeatureTable.load(contentsOf: fixtures.appendingPathComponent("naturalearth_lowres.geojson"))
        let cities = try FeatureTable.load(contentsOf: fixtures.appendingPathComponent("naturalearth_cities.geojson"))
        let world = Envelope(xmin: -180, ymin: -90, xmax: 180, ymax: 90)

        // --- README example begins ---
        var layer = FeatureLayer(source: countries, name: "countries")
        try layer.setDefinitionExpression("continent = 'Africa'")
        try layer.setDisplayFilterDefinition(
            .manual(activeFilter: DisplayFilter(name: "large", whereClause: "pop_est > 5e7"), availableFilters: []))
        let scale = try MapScale.scale(extent: world, width: 1440, spatialReference: .wgs84)
        let counted = try layer.queryFeatureCount()  // 51: the definition expression only
        let drawn = try layer.displayedFeatureCount(in: world, scale: scale)  // 7: the display filter too
        try layer.selectFeatures(QueryParameters(whereClause: "pop_est > 1e8"), mode: .new)
        let stats = try layer.queryStatistics(StatisticsQueryParameters(
            statistics: try StatisticDefinition.list("count:fid:n,sum:pop_est:total")))

        var map = Map(layers: [layer, FeatureLayer(source: cities, name: "cities")])  // cities on top
        map.layers[0].renderer = try Renderer(esriJSON: #"{"type":"simple","symbol":{"type":"esriSFS","color":[230,171,2,255]}}"#)
        let hits = try map.identify(MapIdentifyParameters(
            point: Point(x: 3.38, y: 6.45), tolerance: 5, mapExtent: world, viewWidth: 1440, viewHeight: 720,
            layerOption: .visible))  // cities first (Lagos), then countries (Nigeria)
        let svg = try map.renderSVG(extent: world, width: 1440, height: 720).svg  // a standalone SVG document
        // --- README example ends ---

        #expect(counted == 51)
        #expect(drawn == 7)
        #expect(try layer.selectedObjectIDs.count == 3)  // Nigeria, Egypt, Ethiopia
        #expect(stats.value(row: 0, field: "n") == .integer(51))
        #expect(hits.map(\.layerName) == ["cities", "countries"])
        #expect(hits[0].results.first?.displayValue == "Lagos")
        #expect(hits[1].results.first?.attributes.first { $0.name == "name" }?.value == .string("Nigeria"))
        #expect(String(decoding: svg.prefix(5), as: UTF8.self) == "<?xml")
    }
}
