// Needs the RemoteSources trait (on by default).
#if RemoteSources
import Foundation
import SieveColumns
import SieveFeatures
import SieveEditing
import SieveGeometry
import SieveMap
import SievePostGIS
import SieveSQL
import SieveServer
import SieveFormats
import Testing

@testable import SieveClients
import SieveTestSupport

/// One front door: every kind of source opened by ``SourceLocator`` answers every kind of
/// ``QueryRequest`` through ``FeatureLayer/query(_:)`` as the in-memory table of the same
/// features does — a table, an edited table, a GeoPackage layer, a PostGIS table (with a server)
/// and a layer served by `geosieve serve` read back as a feature service.
@Suite("Feature sources behind one query operation", .tags(.network))
struct FeatureSourceTests {
    /// The Natural Earth countries, the reference every source is compared with.
    static func countries() throws -> FeatureTable {
        try OwnServerTests.fixture("naturalearth_lowres.geojson")
    }

    /// A definition expression every layer of the comparison carries.
    static let definition = "pop_est > 1000000"

    /// The requests compared, by name: each kind of answer, with a where clause, a spatial
    /// filter, an order and a page.
    static func requests() -> [(String, QueryRequest)] {
        let box = Geometry.envelope(Envelope(xmin: -20, ymin: -40, xmax: 60, ymax: 40))
        var selection = QueryParameters(whereClause: "continent <> 'Asia'", geometry: box)
        selection.outFields = ["name", "continent"]
        var page = QueryParameters(whereClause: "continent = 'Africa'", orderBy: [SortField("name", ascending: false)])
        page.resultOffset = 3
        page.maxFeatures = 7
        var distinct = QueryParameters(outFields: ["continent"], orderBy: [SortField("continent")])
        distinct.returnGeometry = false
        var statistics = QueryParameters(whereClause: "1=1", orderBy: [SortField("continent")])
        statistics.returnGeometry = false
        let aggregates = StatisticsRequest(
            statistics: [
                StatisticDefinition(.count, onField: "name", outputAlias: "n"),
                StatisticDefinition(.max, onField: "pop_est", outputAlias: "most"),
            ],
            groupByFields: ["continent"])
        return [
            ("features", QueryRequest(selection, answer: .features)),
            ("page", QueryRequest(page, answer: .features)),
            ("ids", QueryRequest(selection, answer: .objectIDs)),
            ("count", QueryRequest(selection, answer: .count)),
            ("extent", QueryRequest(selection, answer: .extent)),
            ("distinct", QueryRequest(distinct, answer: .distinctValues)),
            ("distinct count", QueryRequest(distinct, answer: .distinctCount)),
            ("statistics", QueryRequest(statistics, answer: .statistics(aggregates))),
        ]
    }

    /// What an answer says, in a form equal across sources whose field types differ (a
    /// GeoPackage or a database may store a whole number as a double): object IDs in order,
    /// counts, the extent, and values as text rounded to 9 significant digits.
    static func summary(_ answer: QueryAnswer) -> String {
        func text(_ value: ScalarValue) -> String {
            switch value {
            case .null: "null"
            case .integer(let x): String(format: "%.9g", Double(x))
            case .double(let x): String(format: "%.9g", x)
            case .string(let s): s
            case .date(let ms): "date \(ms)"
            case .boolean(let b): b ? "1" : "0"
            }
        }
        switch answer {
        case .features(let result):
            return "features " + result.map { feature in "\(feature.objectID):" + feature.values.dropFirst().map(text).joined(separator: "|") }
                .joined(separator: ",") + " exceeded \(result.exceededTransferLimit)"
        case .objectIDs(let ids, _): return "ids \(ids)"
        case .count(let count): return "count \(count)"
        case .extent(let count, let extent, let reference):
            return "extent \(count) " + [extent.xmin, extent.ymin, extent.xmax, extent.ymax].map { String(format: "%.9g", $0) }.joined(separator: ",")
                + " \(reference.wkid ?? 0)"
        case .values(let values):
            return "values " + values.rows.map { $0.map(text).joined(separator: "|") }.joined(separator: ",")
        }
    }

    /// Runs every request on `layer` and on the reference layer and expects the same summaries.
    static func expectSameAnswers(_ layer: FeatureLayer, source: String) async throws {
        var reference = FeatureLayer(source: try countries(), name: "reference")
        try reference.setDefinitionExpression(definition)
        for (name, request) in requests() {
            let expected = summary(try await reference.query(request))
            let got = summary(try await layer.query(request))
            #expect(got == expected, "\(source): \(name)")
        }
    }

    /// A layer over `source` with the comparison's definition expression.
    static func layer(_ source: any FeatureSource) throws -> FeatureLayer {
        var layer = FeatureLayer(source: source, name: "countries")
        try layer.setDefinitionExpression(definition)
        return layer
    }

    @Test func aTableAndAnEditedTableAnswerAlike() async throws {
        let table = try Self.countries()
        try await Self.expectSameAnswers(try Self.layer(table), source: "table")
        let editable = try EditableFeatureTable(table)
        try await Self.expectSameAnswers(try Self.layer(editable), source: "edited table")
        // An edit is seen at once by the layer over the edited table.
        let layer = try Self.layer(editable)
        let before = try layer.queryFeatureCount()
        let first = try #require(try layer.queryObjectIDs().first)
        let result = editable.applyEdits(try ApplyEditsRequest(json: #"{"deletes":[\#(first)]}"#, schema: table.schema))
        #expect(result.deleteResults.map(\.success) == [true])
        guard case .count(let after) = try await layer.query(QueryRequest(answer: .count)) else {
            Issue.record("not a count")
            return
        }
        #expect(after == before - 1)
    }

    @Test func aGeoPackageLayerOpenedByItsLocatorAnswersAlike() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("geosieve-sources-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("world.gpkg").path
        try GeoPackage.write(try Self.countries(), to: path, options: GeoPackageWriteOptions(layerName: "countries"))
        for text in [path, path + ":countries"] {
            let locator = try SourceLocator(text)
            #expect(locator == .geoPackage(path: path, layer: text == path ? nil : "countries"))
            try await locator.withOpened { opened in
                #expect(opened.name == "countries")
                #expect(opened.source.capabilities.contains(.inMemory))
                try await Self.expectSameAnswers(try Self.layer(opened.source), source: "GeoPackage")
            }
        }
    }

    /// FlatGeobuf and GeoParquet files open by their locators, and with a read extent hold only
    /// the features whose boxes meet it (through the FlatGeobuf index, the GeoParquet covering).
    @Test func flatGeobufAndGeoParquetFilesReadOnlyTheirExtent() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("geosieve-sources-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let countries = try Self.countries()
        let fgb = directory.appendingPathComponent("world.fgb").path
        try FlatGeobuf.write(countries, to: fgb)
        let parquet = directory.appendingPathComponent("world.parquet").path
        try GeoParquet.write(countries, to: parquet, options: GeoParquetWriteOptions(rowGroupSize: 20))
        let extent = Envelope(xmin: -10, ymin: 35, xmax: 30, ymax: 60)
        let meeting = (0..<countries.count).filter { row in
            guard let e = countries.geometry(row: row)?.envelope else { return false }
            return e.xmin <= extent.xmax && e.xmax >= extent.xmin && e.ymin <= extent.ymax && e.ymax >= extent.ymin
        }.count
        for (path, expected) in [(fgb, SourceLocator.flatGeobuf(path: fgb)), (parquet, SourceLocator.geoParquet(path: parquet))] {
            let locator = try SourceLocator(path)
            #expect(locator == expected)
            // (The object IDs are the files' positions, not the table's: counts compared.)
            try await locator.withOpened { opened in
                #expect(opened.source.inMemoryTable?.count == countries.count, "\(path)")
            }
            var options = SourceOptions()
            options.readExtent = extent
            try await locator.withOpened(options) { opened in
                #expect(opened.source.inMemoryTable?.count == meeting, "\(path)")
            }
        }
    }

    @Test func aJSONFileOpenedByItsLocatorAnswersAlike() async throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/naturalearth_lowres.geojson").path
        let locator = try SourceLocator(path)
        #expect(locator == .jsonFile(path: path))
        try await locator.withOpened { opened in
            #expect(opened.name == "naturalearth_lowres")
            #expect(opened.loadReport?.skippedCount == 0)
            try await Self.expectSameAnswers(try Self.layer(opened.source), source: "GeoJSON file")
        }
    }

    @Test func aServedLayerReadBackAsAFeatureServiceAnswersAlike() async throws {
        let catalog = try ServedCatalog([ServedTable(id: "countries", table: EditableFeatureTable(try Self.countries()))])
        let server = try GeoSieveServer(catalog: catalog, configuration: ServerConfiguration(port: 0))
        try await withLoopbackServer({ logger, onRunning in try await server.run(logger: logger, onRunning: onRunning) }) { base in
            for text in [base + "/arcgis/rest/services/countries/FeatureServer/0", "OAPIF:" + base + "/ogc#countries"] {
                let locator = try SourceLocator(text)
                try await locator.withOpened { opened in
                    #expect(opened.source.capabilities.contains(.inMemory))
                    try await Self.expectSameAnswers(try Self.layer(opened.source), source: text)
                }
            }
        }
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["GEOSIEVE_POSTGIS_URL"] != nil, "no PostGIS server (GEOSIEVE_POSTGIS_URL)"))
    func aPostGISTableAnswersAlikeWhereItLives() async throws {
        let base = try #require(ProcessInfo.processInfo.environment["GEOSIEVE_POSTGIS_URL"])
        let url = base + (base.contains("?") ? "&" : "?") + "table=front_door_countries"
        let written = try await PostGISFeatureSource.write(try Self.countries(), to: try PostGISConnectionOptions(url: url), replace: true)
        try await written.close()
        let locator = try SourceLocator(url)
        #expect(locator == .postGIS(url: url))
        try await locator.withOpened { opened in
            // Queried where it lives: nothing in memory.
            #expect(opened.source.inMemoryTable == nil)
            #expect(opened.name == "front_door_countries")
            let layer = try Self.layer(opened.source)
            try await Self.expectSameAnswers(layer, source: "PostGIS")
            // What needs the table in memory says so.
            #expect(throws: QueryError.self) { _ = try layer.queryFeatureCount() }
        }
        var options = SourceOptions()
        options.readsDatabaseIntoMemory = true
        try await locator.withOpened(options) { opened in
            #expect(opened.source.inMemoryTable != nil)
            try await Self.expectSameAnswers(try Self.layer(opened.source), source: "PostGIS read into memory")
        }
    }

    /// The error of `request` on `layer`, as an untyped error.
    static func failure(_ layer: FeatureLayer, _ request: QueryRequest) -> (any Error)? {
        let result = Result { () throws -> QueryAnswer in try layer.answer(request) }
        if case .failure(let error) = result { return error }
        return nil
    }

    @Test func queryErrorsKeepTheStagesMessageAndCategory() throws {
        let layer = try Self.layer(try Self.countries())
        let thrown = Self.failure(layer, QueryRequest(QueryParameters(whereClause: "popu > 1"), answer: .count))
        // Matched by kind, as a catch clause matches it.
        switch thrown {
        case QueryError.whereClause?: break
        default: Issue.record("not a where-clause query error: \(String(describing: thrown))")
        }
        let error = try #require(thrown as? QueryError)
        #expect(error.category == .invalidRequest)
        #expect(error.description.hasPrefix("where clause error at 1:1: unknown field \"popu\""))
        #expect(error.underlying is WhereClauseError)
        var unknownOrder = QueryParameters()
        unknownOrder.orderBy = [SortField("nope")]
        #expect((Self.failure(layer, QueryRequest(unknownOrder)) as? QueryError)?.kind == .parameter)
    }

    @Test func locatorsAreReadAsTheCommandLineReadsThem() throws {
        #expect(try SourceLocator("-") == .jsonFile(path: "-"))
        #expect(try SourceLocator("cities.geojsonl") == .jsonFile(path: "cities.geojsonl"))
        #expect(try SourceLocator("parcels.json") == .jsonFile(path: "parcels.json"))
        #expect(try SourceLocator("a.gpkg") == .geoPackage(path: "a.gpkg", layer: nil))
        #expect(try SourceLocator("a.gpkg:roads") == .geoPackage(path: "a.gpkg", layer: "roads"))
        #expect(try SourceLocator("postgresql://u@127.0.0.1:5432/gis?table=t") == .postGIS(url: "postgresql://u@127.0.0.1:5432/gis?table=t"))
        #expect(try SourceLocator("https://h/arcgis/rest/services/x/FeatureServer/0") == .featureService(url: "https://h/arcgis/rest/services/x/FeatureServer/0"))
        #expect(try SourceLocator("https://h/arcgis/rest/services/x/MapServer/2") == .featureService(url: "https://h/arcgis/rest/services/x/MapServer/2"))
        #expect(try SourceLocator("OAPIF:https://h/ogc#lakes") == .ogcCollection(serviceURL: "https://h/ogc", collection: "lakes"))
        #expect(try SourceLocator("OAPIF:https://h/ogc#lakes").description == "OAPIF:https://h/ogc#lakes")
        // An https URL that is not a service layer is a path like any other.
        #expect(try SourceLocator("https://h/data.geojson") == .jsonFile(path: "https://h/data.geojson"))
        #expect(throws: SourceLocatorError.self) { _ = try SourceLocator("OAPIF:https://h/ogc") }
        #expect(throws: SourceLocatorError.self) { _ = try SourceLocator("OAPIF:https://h/ogc#") }
    }

    @Test func openingErrorsSayWhatAndWhere() async throws {
        // A missing file: unreadable, with its name.
        await #expect(throws: FeatureTableError.self) {
            try await SourceLocator("/nonexistent/world.geojson").withOpened { _ in }
        }
        do {
            try await SourceLocator("/nonexistent/world.geojson").withOpened { _ in }
        } catch let error as FeatureTableError {
            #expect(error.description.contains("cannot read /nonexistent/world.geojson: no such file"))
        }
        // A schema for a typed source.
        var options = SourceOptions()
        options.schema = []
        await #expect(throws: SourceLocatorError.self) {
            try await SourceLocator("postgresql://u@127.0.0.1:1/gis?table=t").withOpened(options) { _ in }
        }
        // A service mode for a file.
        var mode = SourceOptions()
        mode.serviceMode = .selection
        await #expect(throws: SourceLocatorError.self) {
            try await SourceLocator("world.geojson").withOpened(mode) { _ in }
        }
    }
}
#endif
