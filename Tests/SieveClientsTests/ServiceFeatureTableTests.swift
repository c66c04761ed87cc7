// Needs the RemoteSources trait (on by default).
#if RemoteSources
import Foundation
import Hummingbird
import Logging
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import SieveMap
import SieveServer
import Synchronization
import Testing

@testable import SieveClients
import SieveJSON
import SieveTestSupport

/// Service feature tables, mode by mode, against `geosieve serve` (both protocols): what each
/// mode fetches, counted in requests from the client's trace, and what the cache then holds,
/// compared with the fixture.
@Suite("Service feature tables and request modes", .tags(.network))
struct ServiceFeatureTableTests {
    /// A clock the test moves.
    final class Clock: Sendable {
        private let seconds = Atomic<Int>(0)
        func advance(_ by: Int) { seconds.add(by, ordering: .relaxed) }
        var now: Duration { .seconds(seconds.load(ordering: .relaxed)) }
    }

    /// A client whose requests are recorded.
    static func client() -> (ServiceClient, ServiceClientTests.Recorder<String>) {
        let requests = ServiceClientTests.Recorder<String>()
        var configuration = ServiceClient.Configuration(token: "t0k")
        configuration.trace = { requests.append($0.url) }
        return (ServiceClient(configuration: configuration), requests)
    }

    static let countries = "/arcgis/rest/services/countries/FeatureServer/0"

    static func truth(_ query: QueryParameters = QueryParameters()) throws -> [Int64] {
        try OwnServerTests.fixture("naturalearth_lowres.geojson").queryObjectIDs(query)
    }

    @Test func snapshotLoadsEverythingOnceAndALayerQueriesIt() async throws {
        let served = ServerRequestLog()
        try await OwnServerTests.withServer(maxRecordCount: 50, log: served) { base in
            let (client, requests) = Self.client()
            let reader = try await ArcGISLayerReader.open(base + Self.countries, client: client)
            let table = try ServiceFeatureTable(service: .arcGIS(reader), mode: .snapshot, definitionExpression: "pop_est > 50000000")
            #expect(table.currentTable.count == 0)
            requests.clear()
            served.clear()
            try await table.load()
            // The count, then four pages of 50 at most: as the client traced them and as the
            // server logged them.
            let expected = try Self.truth(QueryParameters(whereClause: "pop_est > 50000000"))
            #expect(requests.all.count == 1 + (expected.count + 49) / 50)
            #expect(served.all == Array(repeating: "POST /arcgis/rest/services/countries/FeatureServer/0/query", count: requests.all.count))
            let layer = FeatureLayer(source: table, name: "countries")
            #expect(try layer.queryObjectIDs() == expected)
            #expect(try layer.queryFeatureCount(QueryParameters(whereClause: "continent = 'Asia'"))
                == Self.truth(QueryParameters(whereClause: "pop_est > 50000000 AND continent = 'Asia'")).count)
            #expect(table.fetchCount == 1)
            try await client.shutdown()
        }
    }

    @Test func onDemandFetchesTheBufferedExtentAndAgainOnlyWhenLeavingItOrExpired() async throws {
        let served = ServerRequestLog()
        try await OwnServerTests.withServer(log: served) { base in
            let (client, requests) = Self.client()
            let reader = try await ArcGISLayerReader.open(base + Self.countries, client: client)
            let clock = Clock()
            let options = OnDemandOptions(bufferFactor: 2, expirationInterval: .seconds(60), autoRefreshOnExpiration: false)
            let table = try ServiceFeatureTable(service: .arcGIS(reader), mode: .onDemand(options), now: { clock.now })
            try await table.load()
            #expect(table.fetchCount == 0)
            // 20 x 10 degrees around (10, 45): the fetch covers 40 x 20.
            let view = Envelope(xmin: 0, ymin: 40, xmax: 20, ymax: 50)
            #expect(try await table.display(view))
            // Read by envelopes (what a map draws by).
            let buffered = Envelope(xmin: -10, ymin: 35, xmax: 30, ymax: 55)
            #expect(try table.currentTable.queryObjectIDs(QueryParameters())
                == Self.truth(QueryParameters(geometry: .envelope(buffered), spatialRelationship: .envelopeIntersects)))
            // Panning inside the buffered extent: no request (none logged by the server either).
            requests.clear()
            served.clear()
            for dx in stride(from: -9.0, through: 9.0, by: 3) {
                #expect(try await !table.display(Envelope(xmin: dx, ymin: 41, xmax: dx + 20, ymax: 49)))
            }
            #expect(requests.all.isEmpty)
            #expect(served.all.isEmpty)
            // Leaving it: one more fetch, the cache now holds both regions, each feature once.
            #expect(try await table.display(Envelope(xmin: 60, ymin: 20, xmax: 80, ymax: 30)))
            let second = Envelope(xmin: 50, ymin: 15, xmax: 90, ymax: 35)
            let union = Set(
                try Self.truth(QueryParameters(geometry: .envelope(buffered), spatialRelationship: .envelopeIntersects))
                    + Self.truth(QueryParameters(geometry: .envelope(second), spatialRelationship: .envelopeIntersects)))
            #expect(try table.currentTable.queryObjectIDs(QueryParameters()) == union.sorted())
            #expect(table.currentTable.count == union.count)
            // Expired (60 s): the next display inside fetches again, exactly once.
            clock.advance(59)
            #expect(try await !table.display(Envelope(xmin: 65, ymin: 22, xmax: 75, ymax: 28)))
            clock.advance(1)
            served.clear()
            #expect(try await table.display(Envelope(xmin: 65, ymin: 22, xmax: 75, ymax: 28)))
            #expect(try await !table.display(Envelope(xmin: 65, ymin: 22, xmax: 75, ymax: 28)))
            #expect(table.fetchCount == 3)
            // The refetch: one count and one page, as the server saw it.
            #expect(served.all.count == 2)
            // Without auto refresh, a timer's refresh does nothing.
            clock.advance(100)
            #expect(try await !table.refreshIfExpired())
            try await client.shutdown()
        }
    }

    @Test func autoRefreshRefetchesTheLastExtentWhenExpired() async throws {
        try await OwnServerTests.withServer { base in
            let (client, _) = Self.client()
            let reader = try await ArcGISLayerReader.open(base + Self.countries, client: client)
            let clock = Clock()
            let options = OnDemandOptions(bufferFactor: 1, expirationInterval: .seconds(30), autoRefreshOnExpiration: true)
            let table = try ServiceFeatureTable(service: .arcGIS(reader), mode: .onDemand(options), now: { clock.now })
            #expect(try await !table.refreshIfExpired())  // nothing fetched yet
            #expect(try await table.display(Envelope(xmin: 0, ymin: 40, xmax: 20, ymax: 50)))
            #expect(try await !table.refreshIfExpired())
            clock.advance(30)
            #expect(try await table.refreshIfExpired())
            #expect(try await !table.refreshIfExpired())
            #expect(table.fetchCount == 2)
            try await client.shutdown()
        }
    }

    @Test func selectionAndManualCacheFetchOnlyWhenAsked() async throws {
        try await OwnServerTests.withServer(maxRecordCount: 7) { base in
            let (client, requests) = Self.client()
            let reader = try await ArcGISLayerReader.open(base + Self.countries, client: client)
            requests.clear()
            let selection = try ServiceFeatureTable(service: .arcGIS(reader), mode: .selection)
            try await selection.load()
            #expect(await !((try? selection.display(Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1))) ?? true))
            #expect(requests.all.isEmpty)
            let asia = try await selection.selectFeatures(whereClause: "continent = 'Asia'")
            #expect(asia == (try Self.truth(QueryParameters(whereClause: "continent = 'Asia'"))))
            #expect(selection.currentTable.count == asia.count)

            let manual = try ServiceFeatureTable(service: .arcGIS(reader), mode: .manualCache)
            try await manual.load()
            #expect(manual.currentTable.count == 0)
            #expect(try await manual.populateFromService(whereClause: "continent = 'Africa'", maxFeatures: 10) == 10)
            let africa = try Self.truth(QueryParameters(whereClause: "continent = 'Africa'"))
            #expect(try manual.currentTable.queryObjectIDs(QueryParameters()) == Array(africa.prefix(10)))
            // More of the same: merged, not duplicated.
            #expect(try await manual.populateFromService(whereClause: "continent = 'Africa'") == africa.count)
            #expect(manual.currentTable.count == africa.count)
            // clearCache: only what this population brought.
            #expect(try await manual.populateFromService(whereClause: "continent = 'Europe'", clearCache: true, outFields: ["name"]) > 0)
            #expect(try manual.currentTable.queryObjectIDs(QueryParameters()) == Self.truth(QueryParameters(whereClause: "continent = 'Europe'")))
            #expect(manual.currentTable.schema.fields.map(\.name) == ["OBJECTID", "name"])
            try await client.shutdown()
        }
    }

    @Test func ogcCollectionsWorkTheSameWay() async throws {
        try await OwnServerTests.withServer(maxRecordCount: 25) { base in
            let (client, requests) = Self.client()
            let reader = try await OGCCollectionReader.open(base + "/ogc", collection: "countries", client: client)
            let snapshot = try await ServiceFeatureTable.ogcCollection(
                base + "/ogc", collection: "countries", client: client, definitionExpression: "continent = 'Africa'")
            #expect(snapshot.currentTable.count == 0)
            try await snapshot.load()
            #expect(try snapshot.currentTable.queryObjectIDs(QueryParameters()) == Self.truth(QueryParameters(whereClause: "continent = 'Africa'")))
            let onDemand = try ServiceFeatureTable(service: .ogc(reader), mode: .onDemand(OnDemandOptions()))
            #expect(try await onDemand.display(Envelope(xmin: 0, ymin: 40, xmax: 20, ymax: 50)))
            requests.clear()
            #expect(try await !onDemand.display(Envelope(xmin: 5, ymin: 42, xmax: 15, ymax: 48)))
            #expect(requests.all.isEmpty)
            let buffered = Envelope(xmin: -10, ymin: 35, xmax: 30, ymax: 55)
            #expect(try onDemand.currentTable.queryObjectIDs(QueryParameters()) == Self.truth(QueryParameters(geometry: .envelope(buffered))))
            try await client.shutdown()
        }
    }

    @Test func aFailedFetchLeavesTheCacheAsItWas() async throws {
        try await OwnServerTests.withServer { base in
            let (client, _) = Self.client()
            let reader = try await ArcGISLayerReader.open(base + Self.countries, client: client)
            let table = try ServiceFeatureTable(service: .arcGIS(reader), mode: .manualCache)
            try await table.populateFromService(whereClause: "continent = 'Europe'")
            let before = try table.currentTable.queryObjectIDs(QueryParameters())
            await #expect(throws: ServiceError.self) { try await table.populateFromService(whereClause: "nosuchfield = 1", clearCache: true) }
            #expect(try table.currentTable.queryObjectIDs(QueryParameters()) == before)
            try await client.shutdown()
        }
    }
}

/// `geosieve serve`'s routes behind a responder that answers every third request 503.
struct FlakyResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context == BasicRequestContext {
    typealias Context = BasicRequestContext
    let inner: Inner
    let log: MisbehavingServer.Log

    func respond(to request: Request, context: Context) async throws -> Response {
        if log.count("all").isMultiple(of: 3) {
            _ = log.count("refused")
            return MisbehavingServer.json(#"{"code":"Busy","description":"every third request"}"#, status: .serviceUnavailable)
        }
        return try await inner.respond(to: request, context: context)
    }
}

@Suite("Service feature tables against a failing server", .tags(.network))
struct FlakyServiceTests {
    @Test(arguments: ["arcgis", "ogc"])
    func aServerFailingEveryThirdRequestStillFillsTheCacheExactly(kind: String) async throws {
        let catalog = try ServedCatalog([ServedTable(id: "countries", table: EditableFeatureTable(OwnServerTests.fixture("naturalearth_lowres.geojson")))])
        let server = try GeoSieveServer(catalog: catalog, configuration: ServerConfiguration(port: 0, maxRecordCount: 7))
        let log = MisbehavingServer.Log()
        try await withLoopbackServer({ logger, onRunning in
            try await Application(
                responder: FlakyResponder(inner: server.router().buildResponder(), log: log),
                configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { await onRunning($0.localAddress?.port ?? 0) }, logger: logger
            ).runService()
        }) { base in
            let client = ServiceClient(configuration: ServiceClientTests.configuration())
            let service: ServiceFeatureTable.Service =
                kind == "arcgis"
                ? .arcGIS(try await ArcGISLayerReader.open(base + "/arcgis/rest/services/countries/FeatureServer/0", client: client))
                : .ogc(try await OGCCollectionReader.open(base + "/ogc", collection: "countries", client: client))
            let table = try ServiceFeatureTable(service: service, mode: .snapshot)
            try await table.load()
            let truth = try OwnServerTests.fixture("naturalearth_lowres.geojson")
            #expect(try OwnServerTests.text(table.currentTable) == OwnServerTests.text(truth))
            #expect(try table.currentTable.queryObjectIDs(QueryParameters()) == truth.queryObjectIDs(QueryParameters()))
            // 26 pages of 7 and the documents: about a third of the requests were refused.
            #expect(log.counts.withLock { $0["refused"] ?? 0 } >= 9)
            try await client.shutdown()
        }
    }
}

@Suite("Layer documents and map services", .tags(.network))
struct LayerDocumentTests {
    @Test func typesTemplatesAndRendererComeWithTheLayer() async throws {
        try await OwnServerTests.withServer { base in
            let (client, _) = ServiceFeatureTableTests.client()
            let table = try await ServiceFeatureTable.arcGIS(base + "/arcgis/rest/services/typed/FeatureServer/0", client: client)
            guard case .arcGIS(let reader) = table.service else { throw ServiceError(.invalidResponse, "not an ArcGIS table", url: "") }
            // What the server was given, read back through the layer document.
            let given = try OwnServerTests.fixture("naturalearth_lowres.geojson").withTypes(esriLayerJSON: OwnServerTests.typesJSON).schema
            #expect(reader.info.typeIdFieldName == "continent")
            #expect(reader.info.types == given.types)
            #expect(reader.info.types.map(\.name) == ["European country", "Asian country"])
            #expect(reader.info.types.first?.templates.first?.name == "New European country")
            #expect(reader.info.templates.isEmpty)
            #expect(reader.info.drawingInfo?.renderer == (try Renderer(esriJSON: OwnServerTests.rendererJSON)))
            #expect(reader.info.drawingInfoProblem == nil)
            #expect(reader.info.typesProblem == nil)
            // The cache is typed as the layer, before and after fetching; a layer over it draws
            // with the service's renderer.
            #expect(table.currentTable.schema.types == given.types)
            try await table.load()
            #expect(table.currentTable.schema.types == given.types)
            #expect(table.currentTable.schema.typeIdFieldName == "continent")
            let layer = FeatureLayer(table)
            #expect(layer.name == "typed")
            #expect(layer.renderer == reader.info.drawingInfo?.renderer)
            // Some fields only, not those the types name: read untyped, merged into a typed cache.
            let names = try await reader.features(ArcGISLayerQuery(outFields: ["name"]))
            #expect(names.schema.fields.map(\.name) == ["OBJECTID", "name"])
            #expect(names.count == table.currentTable.count)
            let manual = try ServiceFeatureTable(service: .arcGIS(reader), mode: .manualCache)
            let europe = try await manual.populateFromService(whereClause: "continent = 'Europe'", outFields: ["name"])
            #expect(europe == (try table.currentTable.queryFeatureCount(QueryParameters(whereClause: "continent = 'Europe'"))))
            #expect(manual.currentTable.schema.types == given.types)
            try await client.shutdown()
        }
    }

    /// The README's "Service tables in Swift" example, against geosieve serve (its URL and view
    /// changed: the countries around Italy).
    @Test func readmeServiceTableExample() async throws {
        try await OwnServerTests.withServer { base in
            var configuration = ServiceClient.Configuration(token: "t0k")
            configuration.maxAttempts = 1
            // --- README example begins ---
            let client = ServiceClient(configuration: configuration)
            let table = try await ServiceFeatureTable.arcGIS(
                base + ServiceFeatureTableTests.countries, client: client,
                mode: .onDemand(OnDemandOptions(bufferFactor: 2, expirationInterval: .seconds(60))))
            let layer = FeatureLayer(table)
            let view = Envelope(xmin: 10, ymin: 40, xmax: 15, ymax: 45)
            try await table.display(view)  // fetches twice the view, once
            let drawn = try layer.displayedFeatureCount(in: view, scale: 0)
            try await client.shutdown()
            // --- README example ends ---
            let truth = try OwnServerTests.fixture("naturalearth_lowres.geojson")
            #expect(drawn == (try truth.queryFeatureCount(QueryParameters(geometry: .envelope(view), spatialRelationship: .envelopeIntersects))))
            // Read by envelopes: Russia, whose envelope spans the world, is drawn in the view.
            let buffered = Envelope(xmin: 7.5, ymin: 37.5, xmax: 17.5, ymax: 47.5)
            #expect(table.currentTable.count == (try truth.queryFeatureCount(QueryParameters(geometry: .envelope(buffered), spatialRelationship: .envelopeIntersects))))
            #expect(try layer.queryFeatureCount(QueryParameters(whereClause: "name = 'Russia'")) == 1)
        }
    }

    @Test func layerDocumentsGeoSieveCannotUseAreClearErrors() throws {
        let fields: JSONValue = try JSONReader.parse(#"[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"kind","type":"esriFieldTypeInteger"}]"#)
        func info(_ members: String) throws -> ArcGISLayerInfo {
            let document = try JSONReader.parse(#"{"name":"x","fields":\#(JSONWriter.string(fields)),\#(members)}"#)
            return try ArcGISLayerInfo(json: document, url: "http://h/arcgis/rest/services/s/MapServer/3")
        }
        // A group layer has no features.
        #expect {
            try info(#""type":"Group Layer""#)
        } throws: { ($0 as? ServiceError)?.message.contains("describes a Group Layer, not a feature layer or table") == true }
        // Types naming a field the layer does not have: the layer is read without types, the
        // reason kept.
        let untyped = try info(#""typeIdField":"nope","types":[{"id":1,"name":"a"}]"#)
        #expect(untyped.types.isEmpty && untyped.typeIdFieldName == nil)
        #expect(untyped.typesProblem == "invalid schema at position 32: types[0]: types need a typeIdField naming a field of the table")
        #expect(try ServiceFeatureTable(service: .arcGIS(ArcGISLayerReader(client: ServiceClient(), info: untyped))).currentTable.schema.types.isEmpty)
        // A renderer GeoSieve does not read: the layer is still read, the reason kept.
        let odd = try info(#""drawingInfo":{"renderer":{"type":"heatmap"}},"capabilities":"Map,Query,Data,Create""#)
        #expect(odd.drawingInfo == nil)
        #expect(odd.drawingInfoProblem?.isEmpty == false)
        // A map service's layer is read-only whatever it declares.
        #expect(odd.serviceKind == .mapServer)
        #expect(odd.capabilities == [.query])
    }

    @Test func aLayerTakesTheServiceLayersScalesVisibilityAndDisplayField() throws {
        let fields = #"[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"NAME","type":"esriFieldTypeString"},{"name":"pop","type":"esriFieldTypeInteger"}]"#
        func layer(_ members: String) throws -> (ArcGISLayerInfo, FeatureLayer) {
            let document = try JSONReader.parse(#"{"name":"cities","geometryType":"esriGeometryPoint","fields":\#(fields)\#(members)}"#)
            let info = try ArcGISLayerInfo(json: document, url: "http://h/arcgis/rest/services/s/FeatureServer/0")
            let table = try ServiceFeatureTable(service: .arcGIS(ArcGISLayerReader(client: ServiceClient(), info: info)))
            return (info, FeatureLayer(table))
        }
        let (info, configured) = try layer(
            #","minScale":5000000,"maxScale":2500,"defaultVisibility":false,"displayField":"name","definitionExpression":"pop > 1000""#)
        #expect(configured.minScale == 5_000_000 && configured.maxScale == 2500)
        #expect(configured.isVisible == false)
        // The display field as the table spells it (ArcGIS field names are case-insensitive).
        #expect(configured.displayFieldName == "NAME")
        // The definition is the service's to apply: reported, not applied again.
        #expect(info.definitionExpression == "pop > 1000")
        #expect(configured.definitionExpression == "")
        #expect(configured.sourceDefinitionExpression == "pop > 1000")
        #expect(configured.effectiveDefinitionExpression == "pop > 1000")
        // Drawing transparency as opacity, time, and what queries the layer answers.
        let (timed, drawn) = try layer(
            #","drawingInfo":{"renderer":{"type":"simple","symbol":{"type":"esriSMS","style":"esriSMSCircle","color":[0,0,0,255],"size":4}},"transparency":35},"#
                + #""timeInfo":{"startTimeField":"pop","endTimeField":null,"timeExtent":[1000,2000]},"currentVersion":9.31,"#
                + #""advancedQueryCapabilities":{"supportsPagination":true,"supportsOrderBy":true}"#)
        #expect(abs(drawn.opacity - 0.65) < 1e-12)
        #expect(drawn.timeInfo == LayerTimeInfo(startField: "pop", endField: nil, extent: 1000...2000))
        #expect(timed.supportsPagination && timed.supportsOrderBy && !timed.supportsCount && !timed.pagesByOffset)
        // Absent members: no scale bound, visible, the table's own display field.
        let (plainInfo, plain) = try layer("")
        #expect(plain.minScale == 0 && plain.maxScale == 0 && plain.isVisible && plain.displayFieldName == nil)
        #expect(plainInfo.definitionExpression.isEmpty)
        #expect(plain.opacity == 1 && plain.timeInfo == nil && plain.sourceDefinitionExpression.isEmpty)
        #expect(plainInfo.supportsCount && !plainInfo.supportsOrderBy && !plainInfo.pagesByOffset)
        // Values that are not scales read as no bound; a display field the layer lacks is left out.
        let (_, odd) = try layer(#","minScale":-1,"maxScale":"x","displayField":"nope""#)
        #expect(odd.minScale == 0 && odd.maxScale == 0 && odd.displayFieldName == nil)
    }

    @Test func mapServiceLayersAreReadLikeFeatureLayersButNeverEdited() async throws {
        try await OwnServerTests.withServer(maxRecordCount: 40, allowEdits: true) { base in
            let (client, requests) = ServiceFeatureTableTests.client()
            let reader = try await ArcGISLayerReader.open(base + "/arcgis/rest/services/countries/MapServer/0", client: client)
            #expect(reader.info.serviceKind == .mapServer)
            #expect(reader.info.capabilities == [.query])
            let table = try ServiceFeatureTable(service: .arcGIS(reader), mode: .snapshot)
            requests.clear()
            try await table.load()
            // Paged as a feature layer is: the count, then pages of 40, all through the map service.
            let truth = try OwnServerTests.fixture("naturalearth_lowres.geojson")
            #expect(requests.all.count == 1 + (truth.count + 39) / 40)
            #expect(requests.all.allSatisfy { $0.contains("/MapServer/0/query") })
            #expect(try OwnServerTests.text(table.currentTable) == OwnServerTests.text(truth))
            // No local edits (canAdd, canUpdate, canDelete are false), nothing to send.
            let cache = try #require(table.cache)
            #expect(!cache.canAdd)
            #expect(!cache.canUpdate(objectID: 1))
            #expect(!cache.canDelete(objectID: 1))
            #expect(cache.deleteFeatures(objectIDs: [1])[0].success == false)
            #expect(table.currentTable.count == truth.count)
            await #expect {
                try await table.applyEdits()
            } throws: { ($0 as? ServiceError)?.kind == .unsupported }
            // The feature service of the same layer is editable.
            let editable = try await ArcGISLayerReader.open(base + ServiceFeatureTableTests.countries, client: client)
            #expect(editable.info.serviceKind == .featureServer)
            #expect(editable.info.capabilities.contains(.delete))
            try await client.shutdown()
        }
    }
}

@Suite("Local edits sent with applyEdits", .tags(.network))
struct SendingEditsTests {
    static let square = Geometry.polygon((try? Polygon(exterior: [
        Point(x: 0, y: 0), Point(x: 0, y: 1), Point(x: 1, y: 1), Point(x: 1, y: 0), Point(x: 0, y: 0),
    ])) ?? Polygon.empty)

    @Test func editsReachTheServiceAndAddsTakeItsObjectIDs() async throws {
        try await OwnServerTests.withServer(allowEdits: true) { base in
            let (client, requests) = ServiceFeatureTableTests.client()
            let layerURL = base + ServiceFeatureTableTests.countries
            let reader = try await ArcGISLayerReader.open(layerURL, client: client)
            let table = try ServiceFeatureTable(service: .arcGIS(reader), mode: .snapshot)
            try await table.load()
            let cache = try #require(table.cache)
            // Someone else adds a feature first: the service's next object ID is taken.
            let other = try await client.send(ServiceRequest(
                url: layerURL + "/addFeatures",
                parameters: [("features", #"[{"attributes":{"name":"Elsewhere"}}]"#), ("f", "json")], method: .post))
            let otherID = try #require(other.json()["addResults"]?.arrayValue?.first?["objectId"]?.doubleValue).rounded()
            #expect(cache.updateFeatures([FeatureEdit(objectID: 1, attributes: ["name": .string("Renamed")])])[0].success)
            #expect(cache.deleteFeatures(objectIDs: [2])[0].success)
            let add = cache.addFeatures([FeatureEdit(attributes: ["name": .string("Square")], geometry: Self.square)])[0]
            let local = try #require(add.objectID)
            #expect(Double(local) == otherID)  // the same number, locally
            let sent = try await table.applyEdits()
            #expect(sent.added.count == 1)
            #expect(sent.added[0].local == local)
            #expect(Double(sent.added[0].service) == otherID + 1)
            #expect(sent.updated == [1])
            #expect(sent.deleted == [2])
            #expect(!cache.hasLocalEdits)
            // The cache: the square under the service's object ID, not twice.
            let snapshot = table.currentTable
            #expect(try snapshot.queryObjectIDs(QueryParameters(whereClause: "name = 'Square'")) == [sent.added[0].service])
            #expect(snapshot.row(forObjectID: local) == nil)
            // The service: each edit, and the other client's feature.
            let check = try await ArcGISLayerReader.open(layerURL, client: client).features()
            #expect(try check.queryObjectIDs(QueryParameters(whereClause: "name = 'Renamed'")) == [1])
            #expect(check.row(forObjectID: 2) == nil)
            #expect(try check.queryObjectIDs(QueryParameters(whereClause: "name IN ('Square', 'Elsewhere')")).count == 2)
            // Nothing pending: no request.
            requests.clear()
            let nothing = try await table.applyEdits()
            #expect(nothing.added.isEmpty && nothing.updated.isEmpty && nothing.deleted.isEmpty)
            #expect(requests.all.isEmpty)
            // Edited again after sending: an update from the sent version.
            #expect(cache.updateFeatures([FeatureEdit(objectID: sent.added[0].service, attributes: ["name": .string("Square 2")])])[0].success)
            #expect(cache.localEdits.updates.map(\.objectID) == [sent.added[0].service])
            try await table.applyEdits()
            #expect(try await ArcGISLayerReader.open(layerURL, client: client).features(ArcGISLayerQuery(whereClause: "name = 'Square 2'")).count == 1)
            try await client.shutdown()
        }
    }

    @Test func editsTheServiceRefusesStayPending() async throws {
        try await OwnServerTests.withServer(allowEdits: true) { base in
            let (client, _) = ServiceFeatureTableTests.client()
            // A layer without Delete: the cache refuses local deletes as the service would.
            let undeletable = try await ArcGISLayerReader.open(base + "/arcgis/rest/services/undeletable/FeatureServer/0", client: client)
            #expect(undeletable.info.capabilities == [.query, .create, .update])
            let limited = try ServiceFeatureTable(service: .arcGIS(undeletable), mode: .snapshot)
            try await limited.load()
            let limitedCache = try #require(limited.cache)
            #expect(!limitedCache.canDelete(objectID: 3))
            #expect(limitedCache.canUpdate(objectID: 3))
            #expect(limitedCache.deleteFeatures(objectIDs: [3])[0].success == false)
            #expect(!limitedCache.hasLocalEdits)
            // A feature another client deleted meanwhile: the service refuses the batch.
            let reader = try await ArcGISLayerReader.open(base + ServiceFeatureTableTests.countries, client: client)
            let table = try ServiceFeatureTable(service: .arcGIS(reader), mode: .snapshot)
            try await table.load()
            let cache = try #require(table.cache)
            _ = try await client.send(ServiceRequest(
                url: reader.info.url + "/deleteFeatures", parameters: [("objectIds", "3"), ("f", "json")], method: .post))
            #expect(cache.updateFeatures([FeatureEdit(objectID: 1, attributes: ["name": .string("Renamed")])])[0].success)
            #expect(cache.deleteFeatures(objectIDs: [3])[0].success)
            do {
                try await table.applyEdits()
                Issue.record("the service deleted a feature it no longer has")
            } catch let error as ServiceError {
                #expect(error.kind == .serviceError)
                // Each edit with the service's reason: the update rolled back because of the delete.
                #expect(error.message == "the service applied none of the edits: "
                    + "update of object ID 1: Operation rolled back: another edit of the batch failed. (code 1003); "
                    + "delete of object ID 3: Delete for the object was not attempted. Object ID 3 does not exist. (code 1019)")
            }
            // Nothing applied there (rollbackOnFailure), everything still pending here.
            let check = try await ArcGISLayerReader.open(reader.info.url, client: client).features(ArcGISLayerQuery(whereClause: "name = 'Renamed'"))
            #expect(check.count == 0)
            #expect(cache.localEdits.updates.map(\.objectID) == [1])
            #expect(cache.localEdits.deletes == [3])
            // OGC collections are not edited.
            let ogc = try ServiceFeatureTable(
                service: .ogc(try await OGCCollectionReader.open(base + "/ogc", collection: "countries", client: client)), mode: .snapshot)
            await #expect(throws: ServiceError.self) { try await ogc.applyEdits() }
            try await client.shutdown()
        }
    }
}
#endif
