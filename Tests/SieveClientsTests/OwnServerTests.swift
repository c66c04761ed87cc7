// Needs the RemoteSources trait (on by default).
#if RemoteSources
import Foundation
import Logging
import SieveCQL
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import SieveMap
import SieveServer
import Testing

@testable import SieveClients
import SieveTestSupport

/// The client against GeoSieve's own server on a loopback socket: its ArcGIS error documents
/// (HTTP 200), OGC exceptions and token checks come back as the client's typed errors.
@Suite("Service client against geosieve serve", .tags(.network))
struct OwnServerTests {
    /// A fixture of `Tests/Fixtures`.
    static func fixture(_ name: String) throws -> FeatureTable {
        try FeatureTable.load(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures/\(name)"))
    }

    /// Runs `body` with the base URL of a server of the cities and countries fixtures, token
    /// `t0k` (needed for reads too), answering at most `maxRecordCount` features per query, its
    /// requests logged into `log` when given.
    static func withServer(
        maxRecordCount: Int = 2000, allowEdits: Bool = false, log: ServerRequestLog? = nil, _ body: @Sendable (String) async throws -> Void
    ) async throws {
        let catalog = try ServedCatalog([
            ServedTable(id: "cities", table: EditableFeatureTable(fixture("naturalearth_cities.geojson"))),
            ServedTable(id: "countries", table: EditableFeatureTable(fixture("naturalearth_lowres.geojson"))),
            // Edits but no deletes.
            ServedTable(
                id: "undeletable",
                table: EditableFeatureTable(fixture("naturalearth_lowres.geojson"), options: EditingOptions(capabilities: [.query, .create, .update]))),
            // Feature types, templates and a renderer of its own, for the layer document.
            ServedTable(
                id: "typed", table: EditableFeatureTable(fixture("naturalearth_lowres.geojson").withTypes(esriLayerJSON: typesJSON)),
                renderer: Renderer(esriJSON: rendererJSON)),
        ])
        let server = try GeoSieveServer(
            catalog: catalog,
            configuration: ServerConfiguration(
                port: 0, maxRecordCount: maxRecordCount, allowEdits: allowEdits, token: "t0k", tokenRequiredForRead: true))
        try await withLoopbackServer(log: log, { logger, onRunning in try await server.run(logger: logger, onRunning: onRunning) }, body)
    }

    /// The `typed` service's types and templates.
    static let typesJSON = #"""
        {"typeIdField":"continent",
         "types":[{"id":"Europe","name":"European country","domains":{},
                   "templates":[{"name":"New European country","description":"","drawingTool":"esriFeatureEditToolPolygon",
                                 "prototype":{"attributes":{"continent":"Europe","pop_est":0}}}]},
                  {"id":"Asia","name":"Asian country","domains":{},"templates":[]}],
         "templates":[]}
        """#

    /// The `typed` service's renderer.
    static let rendererJSON = #"""
        {"type":"uniqueValue","field1":"continent",
         "defaultSymbol":{"type":"esriSFS","style":"esriSFSSolid","color":[200,200,200,255]},
         "uniqueValueInfos":[{"value":"Europe","label":"Europe","symbol":{"type":"esriSFS","style":"esriSFSSolid","color":[0,0,255,255]}}]}
        """#

    @Test func errorsAndTokens() async throws {
        try await Self.withServer { base in
            let layer = base + "/arcgis/rest/services/cities/FeatureServer/0"
            var configuration = ServiceClient.Configuration(token: "t0k")
            configuration.sleep = { _ in }
            let client = ServiceClient(configuration: configuration)
            // A query sent as a POST form (idempotent), with the token in the form and header.
            let count = try await client.send(ServiceRequest(
                url: layer + "/query", parameters: [("where", "1=1"), ("returnCountOnly", "true"), ("f", "json")],
                method: .post, idempotent: true))
            #expect(try count.json()["count"]?.doubleValue == 243)
            // A bad where clause: ArcGIS's error document in an HTTP 200, the message kept.
            let bad = await ServiceClientTests.error {
                _ = try await client.send(ServiceRequest(url: layer + "/query", parameters: [("where", "nosuchfield = 1"), ("f", "json")]))
            }
            #expect(bad?.kind == .serviceError)
            #expect(bad?.status == 400)
            #expect(bad?.attempts == 1)
            #expect(bad?.url.contains("where=nosuchfield%20%3D%201") == true)
            #expect(bad?.url.contains("t0k") == false)
            // OGC API: an unknown collection is a 404 exception.
            let missing = await ServiceClientTests.error { _ = try await client.send(ServiceRequest(url: base + "/ogc/collections/nowhere")) }
            #expect(missing?.kind == .serviceError)
            #expect(missing?.status == 404)
            try await client.shutdown()
            // Without the token: ArcGIS's 499, not retried.
            let anonymous = ServiceClient(configuration: ServiceClientTests.configuration())
            let refused = await ServiceClientTests.error { _ = try await anonymous.send(ServiceRequest(url: layer, parameters: [("f", "json")])) }
            #expect(refused?.kind == .serviceError)
            #expect(refused?.status == 499)
            try await anonymous.shutdown()
        }
    }

    /// The fields and every feature (attributes and geometry) of `table`, in object-ID order,
    /// as Esri JSON (from its `fields` member on: the display field the server names is the
    /// service's, not the file's).
    static func text(_ table: FeatureTable) throws -> String {
        let text = try table.queryFeatures(QueryParameters(outFields: ["*"])).esriJSON
        return String(text[(text.range(of: "\"fields\":")?.lowerBound ?? text.startIndex)...])
    }

    @Test(arguments: [1, 7, 1000])
    func layersArePagedExactlyOnce(maxRecordCount: Int) async throws {
        try await Self.withServer(maxRecordCount: maxRecordCount) { base in
            var configuration = ServiceClient.Configuration(token: "t0k")
            configuration.maxConcurrentRequests = 1
            let requests = ServiceClientTests.Recorder<String>()
            configuration.trace = { requests.append($0.url) }
            let client = ServiceClient(configuration: configuration)
            for (name, fixture) in [("cities", "naturalearth_cities.geojson"), ("countries", "naturalearth_lowres.geojson")] {
                let truth = try Self.fixture(fixture)
                let reader = try await ArcGISLayerReader.open(base + "/arcgis/rest/services/\(name)/FeatureServer/0", client: client)
                #expect(reader.info.maxRecordCount == maxRecordCount)
                #expect(reader.info.supportsPagination)
                requests.clear()
                // Paged with resultOffset: every feature once, values and geometries as stored.
                let paged = try await reader.features()
                #expect(paged.count == truth.count)
                let (pagedText, truthText) = (try Self.text(paged), try Self.text(truth))
                if pagedText != truthText {
                    let common = zip(pagedText, truthText).prefix { $0 == $1 }.count
                    Issue.record("\(name): differ at \(common): \(pagedText.dropFirst(max(0, common - 80)).prefix(200)) vs \(truthText.dropFirst(max(0, common - 80)).prefix(200))")
                }
                // The count, then ceil(count / maxRecordCount) pages.
                #expect(requests.all.count == 1 + (truth.count + maxRecordCount - 1) / maxRecordCount)
                // By object-ID batches, as for a service without pagination.
                var unpaged = reader.info
                unpaged.supportsPagination = false
                requests.clear()
                let batched = try await ArcGISLayerReader(client: client, info: unpaged).features()
                #expect(try Self.text(batched) == Self.text(truth), "\(name)")
                #expect(requests.all.count == 1 + (truth.count + maxRecordCount - 1) / maxRecordCount)
            }
            try await client.shutdown()
        }
    }

    @Test func queriesSelectOnTheServer() async throws {
        try await Self.withServer(maxRecordCount: 7) { base in
            let client = ServiceClient(configuration: ServiceClient.Configuration(token: "t0k"))
            let reader = try await ArcGISLayerReader.open(base + "/arcgis/rest/services/countries/FeatureServer/0", client: client)
            let truth = try Self.fixture("naturalearth_lowres.geojson")
            let box = Envelope(xmin: -10, ymin: 35, xmax: 30, ymax: 60)
            let query = ArcGISLayerQuery(whereClause: "pop_est > 10000000", envelope: box, outFields: ["name", "pop_est"])
            let read = try await reader.features(query)
            let expected = try truth.queryObjectIDs(QueryParameters(whereClause: "pop_est > 10000000", geometry: .envelope(box)))
            #expect(try read.queryObjectIDs(QueryParameters()) == expected)
            #expect(expected.count > 7)
            // The fields asked for and the object ID, in the layer's order.
            #expect(read.schema.fields.map(\.name) == truth.schema.fields.map(\.name).filter { ["OBJECTID", "name", "pop_est"].contains($0) })
            #expect(read.schema.fields.count == 3)
            #expect(try await reader.objectIDs(query) == expected)
            // At most maxFeatures, the first in object-ID order.
            var few = query
            few.maxFeatures = 3
            #expect(try await reader.features(few).queryObjectIDs(QueryParameters()) == Array(expected.prefix(3)))
            // A where clause the service refuses: its message.
            let bad = await ServiceClientTests.error { _ = try await reader.features(ArcGISLayerQuery(whereClause: "nosuch > 1")) }
            #expect(bad?.kind == .serviceError)
            try await client.shutdown()
        }
    }

    @Test(arguments: [1, 7, 1000])
    func collectionsAreReadThroughNextLinks(pageSize: Int) async throws {
        try await Self.withServer(maxRecordCount: 50) { base in
            let requests = ServiceClientTests.Recorder<String>()
            var configuration = ServiceClient.Configuration(token: "t0k")
            configuration.trace = { requests.append($0.url) }
            let client = ServiceClient(configuration: configuration)
            for (name, fixture) in [("cities", "naturalearth_cities.geojson"), ("countries", "naturalearth_lowres.geojson")] {
                let truth = try Self.fixture(fixture)
                let reader = try await OGCCollectionReader.open(base + "/ogc", collection: name, client: client)
                #expect(reader.info.supportsCQL2Text)
                #expect(reader.info.itemsURL == base + "/ogc/collections/\(name)/items")
                requests.clear()
                var query = OGCCollectionQuery()
                query.pageSize = pageSize
                let read = try await reader.features(query)
                #expect(try Self.text(read) == Self.text(truth), "\(name)")
                // Pages of min(pageSize, 50) features (the server's cap), through next links.
                let perPage = min(pageSize, 50)
                #expect(requests.all.count == (truth.count + perPage - 1) / perPage)
            }
            try await client.shutdown()
        }
    }

    @Test func collectionFiltersArePushedOrAppliedLocally() async throws {
        try await Self.withServer(maxRecordCount: 20) { base in
            let requests = ServiceClientTests.Recorder<String>()
            var configuration = ServiceClient.Configuration(token: "t0k")
            configuration.trace = { requests.append($0.url) }
            let client = ServiceClient(configuration: configuration)
            let truth = try Self.fixture("naturalearth_lowres.geojson")
            let box = Envelope(xmin: -10, ymin: 35, xmax: 30, ymax: 60)
            let filter = "pop_est > 10000000 AND continent = 'Europe'"
            let expected = try truth.queryObjectIDs(
                QueryParameters(geometry: .envelope(box), filter: try CQL2Filter(filter, encoding: .text)))
            #expect(expected.count > 5)
            let reader = try await OGCCollectionReader.open(base + "/ogc", collection: "countries", client: client)
            requests.clear()
            let pushed = try await reader.features(OGCCollectionQuery(bbox: box, filter: filter))
            #expect(try pushed.queryObjectIDs(QueryParameters()) == expected)
            #expect(requests.all.count == 1)
            #expect(requests.all.first?.contains("filter-lang=cql2-text") == true)
            // A server without CQL2: the box is sent, the filter applied to what comes back.
            var plain = reader.info
            plain.supportsCQL2Text = false
            requests.clear()
            let local = try await OGCCollectionReader(client: client, info: plain).features(OGCCollectionQuery(bbox: box, filter: filter))
            #expect(try local.queryObjectIDs(QueryParameters()) == expected)
            #expect(requests.all.allSatisfy { !$0.contains("filter=") })
            // maxFeatures: no more read than asked.
            let few = try await reader.features(OGCCollectionQuery(maxFeatures: 30))
            #expect(few.count == 30)
            // With the filter applied here, maxFeatures counts the features that pass it: the
            // first 3 in object-ID order, though pages of 2 hold fewer.
            var small = OGCCollectionQuery(filter: "continent = 'Europe'", maxFeatures: 3)
            small.pageSize = 2
            let firstEuropean = try await OGCCollectionReader(client: client, info: plain).features(small)
            #expect(try firstEuropean.queryObjectIDs(QueryParameters()) == Array(truth.queryObjectIDs(QueryParameters(whereClause: "continent = 'Europe'")).prefix(3)))
            try await client.shutdown()
        }
    }
}
#endif
