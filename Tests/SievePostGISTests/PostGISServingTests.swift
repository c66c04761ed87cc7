#if RemoteSources
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import SieveGeometry
import NIOCore
import SieveEditing
import SieveFeatures
import SievePostGIS
import SieveServer
import SieveTestSupport
import Testing

/// `geosieve serve` over a PostGIS table, never loaded, against the same table served from
/// memory: every answer kind of the ArcGIS `query` route and of the OGC API items routes, and
/// the layer documents, must be the same bytes (once the time stamps are set aside), with and
/// without a definition expression; edits through either server give the same answers and leave
/// the same features; what a table served from a database does not do (edits when published
/// read-only, vector tiles) is refused with a reason, and a statement past the query timeout
/// answers 503.
@Suite("Serving a PostGIS table where it lives, against serving it from memory", .tags(.postgis), .enabled(if: PostGISServer.url != nil, "no PostGIS server (GEOSIEVE_POSTGIS_URL)"))
struct PostGISServingTests {
    /// Two servers of the countries and cities: one from memory, one from the database.
    static func servers(definition: @escaping (String) -> String = { _ in "" }) async throws -> (memory: GeoSieveServer, database: GeoSieveServer) {
        let fixture = try await PostGISServer.fixture()
        var memory: [ServedTable] = []
        var database: [ServedTable] = []
        for (layer, id) in [("naturalearth_lowres", "countries"), ("naturalearth_cities", "cities")] {
            let table = try #require(fixture.tables[layer])
            let source = try #require(fixture.sources[layer])
            let definition = definition(id)
            let settings = LayerSettings(name: id, definitionExpression: definition)
            let editable = try EditableFeatureTable(table, options: EditingOptions(definitionExpression: definition.isEmpty ? nil : definition))
            memory.append(try ServedTable(id: id, table: editable, settings: settings))
            database.append(try await ServedTable.publishing(id: id, source: source, settings: settings))
        }
        return (try GeoSieveServer(catalog: ServedCatalog(memory)), try GeoSieveServer(catalog: ServedCatalog(database)))
    }

    /// The body of `uri` from both servers, with the status.
    static func both(_ uri: String, _ servers: (memory: GeoSieveServer, database: GeoSieveServer)) async throws
        -> (memory: (Int, [UInt8]), database: (Int, [UInt8]))
    {
        (try await get(uri, servers.memory), try await get(uri, servers.database))
    }

    static func get(_ uri: String, _ server: GeoSieveServer, method: HTTPRequest.Method = .get, form: String? = nil) async throws -> (Int, [UInt8]) {
        let app = Application(router: server.router(logRequests: false))
        let headers: HTTPFields = form == nil ? [:] : [.contentType: "application/x-www-form-urlencoded"]
        return try await app.test(.router) { client in
            let response = try await client.executeRequest(uri: uri, method: method, headers: headers, body: form.map { ByteBuffer(string: $0) })
            return (Int(response.status.code), Array(response.body.readableBytesView))
        }
    }

    /// `bytes` as text with every OGC `timeStamp` member's value blanked.
    static func comparable(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.replacing(/"timeStamp":"[^"]*"/, with: "\"timeStamp\":\"\"")
    }

    static let queries: [String] = {
        let query = "/arcgis/rest/services/countries/FeatureServer/0/query?"
        let cities = "/arcgis/rest/services/cities/FeatureServer/0/query?"
        let box = "geometry=" + encoded(#"{"xmin":-10,"ymin":35,"xmax":30,"ymax":60,"spatialReference":{"wkid":4326}}"#)
        let africa = encoded("continent = 'Africa'")
        return [
            query + "where=1%3D1&outFields=*&f=json",
            query + "where=\(encoded("pop_est > 1e8"))&outFields=name,pop_est&orderByFields=pop_est%20DESC&f=json",
            query + "where=\(africa)&returnCountOnly=true&f=json",
            query + "where=\(africa)&returnIdsOnly=true&f=json",
            query + "where=\(africa)&returnExtentOnly=true&f=json",
            query + "where=\(africa)&returnExtentOnly=true&outSR=3857&f=json",
            query + "where=1%3D1&outFields=name&orderByFields=name&resultOffset=20&resultRecordCount=7&returnGeometry=false&f=json",
            query + "where=1%3D1&outFields=continent&returnDistinctValues=true&orderByFields=continent&returnGeometry=false&f=json",
            query + "where=1%3D1&outFields=continent&returnDistinctValues=true&returnCountOnly=true&f=json",
            query + "where=1%3D1&outStatistics=" + encoded(
                #"[{"statisticType":"count","onStatisticField":"name","outStatisticFieldName":"n"},{"statisticType":"sum","onStatisticField":"pop_est","outStatisticFieldName":"people"},{"statisticType":"avg","onStatisticField":"gdp_md_est","outStatisticFieldName":"gdp"},{"statisticType":"stddev","onStatisticField":"pop_est","outStatisticFieldName":"sd"},{"statisticType":"min","onStatisticField":"name","outStatisticFieldName":"first"}]"#)
                + "&groupByFieldsForStatistics=continent&havingClause=\(encoded("COUNT(name) > 5"))&orderByFields=people%20DESC&f=json",
            query + "where=1%3D1&outStatistics=" + encoded(
                #"[{"statisticType":"percentile_cont","onStatisticField":"pop_est","outStatisticFieldName":"median","statisticParameters":{"value":0.5}}]"#) + "&f=json",
            // Grouped in the database: counts, integer sums, averages, minimums and maximums.
            query + "where=1%3D1&outStatistics=" + encoded(
                #"[{"statisticType":"count","onStatisticField":"OBJECTID","outStatisticFieldName":"n"},{"statisticType":"sum","onStatisticField":"OBJECTID","outStatisticFieldName":"s"},{"statisticType":"avg","onStatisticField":"OBJECTID","outStatisticFieldName":"a"},{"statisticType":"min","onStatisticField":"OBJECTID","outStatisticFieldName":"lo"},{"statisticType":"max","onStatisticField":"OBJECTID","outStatisticFieldName":"hi"},{"statisticType":"count","onStatisticField":"pop_est","outStatisticFieldName":"c"}]"#)
                + "&groupByFieldsForStatistics=continent&havingClause=\(encoded("COUNT(OBJECTID) > 3 AND MAX(OBJECTID) > 10"))&orderByFields=s%20DESC&f=json",
            query + "where=\(encoded("pop_est > 1e7"))&outStatistics=" + encoded(
                #"[{"statisticType":"count","onStatisticField":"OBJECTID","outStatisticFieldName":"n"},{"statisticType":"max","onStatisticField":"OBJECTID","outStatisticFieldName":"hi"}]"#)
                + "&f=json",
            query + "where=\(encoded("1=0"))&outStatistics=" + encoded(
                #"[{"statisticType":"count","onStatisticField":"OBJECTID","outStatisticFieldName":"n"},{"statisticType":"min","onStatisticField":"OBJECTID","outStatisticFieldName":"lo"},{"statisticType":"sum","onStatisticField":"OBJECTID","outStatisticFieldName":"s"}]"#)
                + "&groupByFieldsForStatistics=continent,iso_a3&f=json",
            query + box + "&geometryType=esriGeometryEnvelope&spatialRel=esriSpatialRelIntersects&outFields=name&f=json",
            query + box + "&geometryType=esriGeometryEnvelope&spatialRel=esriSpatialRelContains&returnIdsOnly=true&f=json",
            query + box + "&geometryType=esriGeometryEnvelope&spatialRel=esriSpatialRelWithin&returnCountOnly=true&f=json",
            query + "where=\(encoded("name LIKE 'B%'"))&outFields=*&f=geojson",
            query + "where=\(encoded("name LIKE 'B%'"))&outFields=*&f=pbf",
            query + "objectIds=3,5,8,400&outFields=name&returnGeometry=false&f=json",
            // A page of some fields ordered by another (the database reads only those it needs).
            query + "where=1%3D1&outFields=name&orderByFields=pop_est%20DESC,continent&resultRecordCount=20&f=json",
            query + "where=1%3D1&outFields=name,nmae&f=json",
            cities + "where=1%3D1&outFields=*&outSR=3857&resultRecordCount=50&f=json",
            cities + "geometry=" + encoded(#"{"x":2.35,"y":48.85,"spatialReference":{"wkid":4326}}"#)
                + "&geometryType=esriGeometryPoint&distance=500&units=esriSRUnit_Kilometer&outFields=name&f=json",
            "/ogc/collections/countries/items?limit=5&offset=10",
            "/ogc/collections/countries/items?bbox=-10,35,30,60&limit=100",
            "/ogc/collections/countries/items?filter=" + encoded("pop_est > 5e7 AND continent = 'Asia'") + "&sortby=-pop_est&properties=name,pop_est",
            "/ogc/collections/countries/items?filter=" + encoded("S_INTERSECTS(geometry, POINT(2.35 48.85))"),
            "/ogc/collections/countries/items?continent=Europe&limit=3&crs=" + encoded("http://www.opengis.net/def/crs/EPSG/0/3857"),
            "/ogc/collections/countries/items/42",
            "/ogc/collections/countries/items/100000",
            "/ogc/collections/countries",
            "/arcgis/rest/services/countries/FeatureServer/0?f=json",
            "/arcgis/rest/services/countries/FeatureServer?f=json",
            query + "where=no_such_field%3D1&f=json",
        ]
    }()

    @Test func everyAnswerIsTheInMemoryAnswer() async throws {
        let servers = try await Self.servers()
        for uri in Self.queries {
            let (memory, database) = try await Self.both(uri, servers)
            #expect(memory.0 == database.0, "status of \(uri)")
            #expect(Self.comparable(memory.1) == Self.comparable(database.1), "\(uri)")
        }
    }

    @Test func aDefinitionExpressionLimitsEveryAnswerAlike() async throws {
        let servers = try await Self.servers { id in id == "countries" ? "pop_est > 2e7 OR name LIKE 'S%'" : "name < 'M'" }
        for uri in Self.queries {
            let (memory, database) = try await Self.both(uri, servers)
            #expect(memory.0 == database.0, "status of \(uri)")
            #expect(Self.comparable(memory.1) == Self.comparable(database.1), "\(uri)")
        }
        // The definition holds: Germany (83 million) and Sweden, not Iceland.
        let (_, body) = try await Self.get(
            "/arcgis/rest/services/countries/FeatureServer/0/query?where=\(encoded("name IN ('Germany','Sweden','Iceland')"))&outFields=name&orderByFields=name&returnGeometry=false&f=json",
            servers.database)
        let names = try Self.names(body)
        #expect(names == ["Germany", "Sweden"])
    }

    /// A server of `start` in memory and one of `source` (the same features in PostGIS), each
    /// editing with `editing` and global IDs from a sequence of its own: edits through both
    /// must give the same bytes.
    static func editingServers(
        _ start: FeatureTable, _ source: PostGISFeatureSource, settings: LayerSettings, editing: EditingOptions, configuration: ServerConfiguration
    ) async throws -> (memory: GeoSieveServer, database: GeoSieveServer) {
        let memoryTable = try EditableFeatureTable(start, options: PostGISEditingTests.GlobalIDs().options(editing))
        let memory = try GeoSieveServer(
            catalog: ServedCatalog([try ServedTable(id: "places", table: memoryTable, settings: settings)]), configuration: configuration)
        let published = try await ServedTable.publishing(
            id: "places", source: source, settings: settings, editing: PostGISEditingTests.GlobalIDs().options(editing))
        return (memory, try GeoSieveServer(catalog: ServedCatalog([published]), configuration: configuration))
    }

    /// `body` sent to `uri` with `method` as `contentType`.
    static func send(_ uri: String, _ server: GeoSieveServer, method: HTTPRequest.Method, body: String?, contentType: String) async throws -> (Int, [UInt8]) {
        let app = Application(router: server.router(logRequests: false))
        return try await app.test(.router) { client in
            let response = try await client.executeRequest(
                uri: uri, method: method, headers: [.contentType: contentType], body: body.map { ByteBuffer(string: $0) })
            return (Int(response.status.code), Array(response.body.readableBytesView))
        }
    }

    @Test("edits through the server (applyEdits, add, update, delete, the service's applyEdits, OGC create, replace, delete) answer as in memory and leave the same features")
    func editsThroughTheServerAnswerAsInMemory() async throws {
        let (options, start) = try await PostGISEditingTests.makeTable("edit_served")
        let source = try await PostGISFeatureSource.open(options)
        let settings = LayerSettings(name: "places")
        var configuration = ServerConfiguration()
        configuration.allowEdits = true
        // Editor tracking on a fixed clock, global IDs from a sequence each: the same on both.
        let editing = EditingOptions(
            editorTracking: EditorTracking(creatorField: "creator", creationDateField: "created", editorField: "editor", editDateField: "edited"),
            now: { PostGISEditingTests.instant })
        let (memory, database) = try await Self.editingServers(start, source, settings: settings, editing: editing, configuration: configuration)
        let layer = "/arcgis/rest/services/places/FeatureServer/0/"
        let forms: [(String, String)] = [
            (
                "applyEdits",
                "adds=" + encoded(#"[{"attributes":{"name":"added","n":5},"geometry":{"x":1.5,"y":2.5}}]"#) + "&updates="
                    + encoded(#"[{"attributes":{"oid":2,"name":"renamed","x":-0.5},"geometry":{"x":9,"y":9}}]"#) + "&deletes=3&f=json"
            ),
            ("applyEdits", "updates=" + encoded(#"[{"attributes":{"oid":5,"nmae":"typo"}}]"#) + "&deletes=6&f=json"),
            ("applyEdits", "updates=" + encoded(#"[{"attributes":{"oid":999,"name":"missing"}},{"attributes":{"oid":7,"n":"seven"}}]"#) + "&deletes=8&rollbackOnFailure=false&f=json"),
            ("addFeatures", "features=" + encoded(#"[{"attributes":{"name":"second add"},"geometry":{"x":3,"y":4}},{"attributes":{"name":"no geometry"}}]"#) + "&f=json"),
            ("updateFeatures", "features=" + encoded(#"[{"attributes":{"oid":9,"stamp":86400000}}]"#) + "&f=json"),
            ("deleteFeatures", "where=" + encoded("n > 150") + "&f=json"),
            ("deleteFeatures", "objectIds=10,999&f=json"),
        ]
        for (operation, form) in forms {
            let a = try await Self.get(layer + operation, memory, method: .post, form: form)
            let b = try await Self.get(layer + operation, database, method: .post, form: form)
            #expect(a.0 == b.0, "\(operation) \(form)")
            #expect(String(decoding: b.1, as: UTF8.self) == String(decoding: a.1, as: UTF8.self), "\(operation) \(form)")
        }
        // The service's applyEdits: a failure in the batch rolls every edit back.
        let service = "/arcgis/rest/services/places/FeatureServer/applyEdits"
        let serviceForm = "edits=" + encoded(#"[{"id":0,"adds":[{"attributes":{"name":"never"}}],"deletes":[999]}]"#) + "&f=json"
        let serviceA = try await Self.get(service, memory, method: .post, form: serviceForm)
        let serviceB = try await Self.get(service, database, method: .post, form: serviceForm)
        #expect(String(decoding: serviceB.1, as: UTF8.self) == String(decoding: serviceA.1, as: UTF8.self))
        #expect(String(decoding: serviceB.1, as: UTF8.self).contains("1003"))
        // OGC API Part 4: create (the new item's location), replace, delete, a missing item.
        let feature = #"{"type":"Feature","properties":{"name":"from OGC","n":11},"geometry":{"type":"Point","coordinates":[5,6]}}"#
        for (method, path, body) in [
            (HTTPRequest.Method.post, "/ogc/collections/places/items", feature as String?), (.put, "/ogc/collections/places/items/11", feature),
            (.delete, "/ogc/collections/places/items/12", nil), (.delete, "/ogc/collections/places/items/999", nil),
            (.put, "/ogc/collections/places/items/3", feature),
        ] {
            let a = try await Self.send(path, memory, method: method, body: body, contentType: "application/geo+json")
            let b = try await Self.send(path, database, method: method, body: body, contentType: "application/geo+json")
            #expect(a.0 == b.0, "\(method) \(path)")
        }
        // The same features at the end, and the layer says it is editable.
        let all = layer + "query?where=1%3D1&outFields=*&orderByFields=oid&f=json"
        let (fromMemory, fromDatabase) = try await Self.both(all, (memory, database))
        #expect(Self.comparable(fromDatabase.1) == Self.comparable(fromMemory.1))
        #expect(try await source.queryFeatureCount(QueryParameters()) == 15)
        let (_, document) = try await Self.get(layer + "?f=json", database)
        let text = String(decoding: document, as: UTF8.self)
        #expect(text.contains(#""capabilities":"Create,Delete,Query,Update,Editing""#))
        #expect(text.contains(#""editFieldsInfo":{"creationDateField":"created","creatorField":"creator","editDateField":"edited","editorField":"editor"}"#))
        #expect(text.contains(#""globalIdField":"GlobalID""#))
        // The adds were stamped by the tracking clock.
        let stamped = try await source.queryFeatureCount(QueryParameters(whereClause: "created = TIMESTAMP '2023-11-14 22:13:20.123'"))
        #expect(stamped == 4)
        await source.close()
    }

    @Test("attachments of a PostGIS layer, kept in its companion table: listed, read, added, replaced, deleted as in memory, and gone with their feature")
    func attachmentsAnswerAsInMemory() async throws {
        let (options, start) = try await PostGISEditingTests.makeTable("attach_served")
        try await PostGISEditingTests.sql(
            options, ["DROP TABLE IF EXISTS attach_served__attach"] + PostGISFeatureSource.attachmentTableSQL(for: options, objectIDColumn: "oid"))
        let source = try await PostGISFeatureSource.open(options)
        #expect(source.keepsAttachments && source.table.attachmentTable == "attach_served__attach")
        let settings = LayerSettings(name: "places")
        var configuration = ServerConfiguration()
        configuration.allowEdits = true
        let memoryTable = try EditableFeatureTable(start, options: EditingOptions(hasAttachments: true))
        let memory = try GeoSieveServer(
            catalog: ServedCatalog([try ServedTable(id: "places", table: memoryTable, settings: settings)]), configuration: configuration)
        let database = try GeoSieveServer(
            catalog: ServedCatalog([try await ServedTable.publishing(id: "places", source: source, settings: settings, editing: EditingOptions())]),
            configuration: configuration)
        let boundary = "----geosieve-test-boundary"
        func multipart(_ fields: [(String, String)], file: (name: String, type: String, data: String)?) -> String {
            var body = ""
            for (name, value) in fields { body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n" }
            if let file {
                body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"attachment\"; filename=\"\(file.name)\"\r\n"
                    + "Content-Type: \(file.type)\r\n\r\n\(file.data)\r\n"
            }
            return body + "--\(boundary)--\r\n"
        }
        let layer = "/arcgis/rest/services/places/FeatureServer/0/"
        let form = "multipart/form-data; boundary=\(boundary)"
        let steps: [(HTTPRequest.Method, String, String?, String)] = [
            (.post, "1/addAttachment", multipart([("f", "json")], file: ("notes/field.txt", "text/plain", "line one\r\nline two")), form),
            (.post, "1/addAttachment", multipart([("f", "json")], file: ("photo.jpg", "image/jpeg", "JPEG")), form),
            (.post, "2/addAttachment", multipart([], file: ("b\u{e9}b\u{e9}.bin", "application/octet-stream", "\u{0}\u{1}")), form),
            (.post, "999/addAttachment", multipart([], file: ("x.txt", "text/plain", "x")), form),
            (.post, "1/addAttachment", multipart([("f", "json")], file: nil), form),
            (.get, "1/attachments?f=json", nil, ""), (.get, "2/attachments", nil, ""), (.get, "3/attachments", nil, ""),
            (.get, "1/attachments/1", nil, ""), (.get, "1/attachments/2", nil, ""), (.get, "1/attachments/3", nil, ""), (.get, "1/attachments/x", nil, ""),
            (.post, "1/updateAttachment", multipart([("attachmentId", "2")], file: ("photo2.png", "image/png", "PNG")), form),
            (.post, "1/updateAttachment", multipart([("attachmentId", "3")], file: ("p.png", "image/png", "PNG")), form),
            (.post, "1/updateAttachment", multipart([], file: ("p.png", "image/png", "PNG")), form),
            (.get, "1/attachments/2", nil, ""), (.get, "1/attachments", nil, ""),
            (.post, "1/deleteAttachments", "attachmentIds=1,3,1&f=json", "application/x-www-form-urlencoded"),
            (.post, "999/deleteAttachments", "attachmentIds=1,2&f=json", "application/x-www-form-urlencoded"),
            (.post, "1/deleteAttachments", "f=json", "application/x-www-form-urlencoded"),
            (.get, "1/attachments", nil, ""),
            // The feature's deletion takes its attachments with it.
            (.post, "deleteFeatures", "objectIds=2&f=json", "application/x-www-form-urlencoded"),
            (.get, "2/attachments", nil, ""), (.get, "2/attachments/3", nil, ""),
            (.post, "1/addAttachment", multipart([("f", "json")], file: ("again.txt", "text/plain", "again")), form),
            (.get, "1/attachments", nil, ""),
        ]
        for (method, path, body, contentType) in steps {
            let a = try await Self.send(layer + path, memory, method: method, body: body, contentType: contentType)
            let b = try await Self.send(layer + path, database, method: method, body: body, contentType: contentType)
            #expect(a.0 == b.0, "\(method) \(path)")
            #expect(String(decoding: b.1, as: UTF8.self) == String(decoding: a.1, as: UTF8.self), "\(method) \(path)")
        }
        // What the companion table holds: the attachments left, of feature 1 only.
        let left = try await source.attachmentInfos(objectID: 1).map(\.id)
        #expect(left == [2, 4], "\(left)")
        #expect(try await source.attachmentInfos(objectID: 2).isEmpty)
        #expect(try await source.attachment(objectID: 1, attachmentID: 2)?.data == Array("PNG".utf8))
        // The layer says it has attachments.
        let (_, document) = try await Self.get(layer + "?f=json", database)
        #expect(String(decoding: document, as: UTF8.self).contains(#""hasAttachments":true"#))
        await source.close()

        // Export: the table in memory, attachments and all, written over the database's (its
        // companion replaced too); new attachments number on from the largest written.
        let exported = try await PostGISFeatureSource.write(memoryTable.snapshot, to: options, replace: true)
        #expect(try await exported.attachmentInfos(objectID: 1) == memoryTable.snapshot.queryAttachmentInfos(objectID: 1))
        #expect(try await exported.attachment(objectID: 1, attachmentID: 4)?.data == Array("again".utf8))
        let next = try await exported.addAttachment(
            objectID: 5, name: "n.txt", contentType: "text/plain", data: [1], options: EditingOptions(hasAttachments: true), user: nil)
        #expect(next.objectID == 5 && next.success)
        await exported.close()
    }

    @Test("editing users: the token names the user whose edits they are (editor tracking, ownership), in the database as in memory")
    func editingUsersAsInMemory() async throws {
        let (options, start) = try await PostGISEditingTests.makeTable("edit_users")
        let source = try await PostGISFeatureSource.open(options)
        let tracking = EditorTracking(
            creatorField: "creator", creationDateField: "created", editorField: "editor", editDateField: "edited", ownershipBasedAccessControl: true,
            allowOthersToUpdate: false, allowOthersToDelete: false, allowAnonymousToUpdate: false, allowAnonymousToDelete: false)
        let editing = EditingOptions(editorTracking: tracking, now: { PostGISEditingTests.instant })
        var configuration = ServerConfiguration(allowEdits: true, token: "shared")
        configuration.users = ["ann": "t-ann", "bob": "t-bob"]
        let settings = LayerSettings(name: "places")
        let (memory, database) = try await Self.editingServers(start, source, settings: settings, editing: editing, configuration: configuration)
        let layer = "/arcgis/rest/services/places/FeatureServer/0/"
        // Features with an even object ID were created by ann, the others by nobody.
        let steps: [(String, String)] = [
            ("addFeatures", "token=t-ann&features=" + encoded(#"[{"attributes":{"name":"ann's"},"geometry":{"x":1,"y":1}}]"#)),
            ("addFeatures", "token=shared&features=" + encoded(#"[{"attributes":{"name":"nobody's"},"geometry":{"x":2,"y":2}}]"#)),
            ("updateFeatures", "token=t-bob&features=" + encoded(#"[{"attributes":{"oid":21,"name":"bob was here"}}]"#)),
            ("updateFeatures", "token=t-ann&features=" + encoded(#"[{"attributes":{"oid":21,"name":"ann again"}},{"attributes":{"oid":2,"n":-2}}]"#)),
            ("updateFeatures", "token=shared&features=" + encoded(#"[{"attributes":{"oid":2,"n":-3}}]"#)),
            ("updateFeatures", "token=t-bob&features=" + encoded(#"[{"attributes":{"oid":1,"n":-1}},{"attributes":{"oid":22,"n":-22}}]"#)),
            ("applyEdits", "token=t-bob&rollbackOnFailure=false&deletes=4,5"),
            ("deleteFeatures", "token=shared&objectIds=6"),
            ("deleteFeatures", "token=t-ann&objectIds=21,6"),
            ("deleteFeatures", "token=nobody&objectIds=8"),
        ]
        for (operation, form) in steps {
            let a = try await Self.get(layer + operation, memory, method: .post, form: form + "&f=json")
            let b = try await Self.get(layer + operation, database, method: .post, form: form + "&f=json")
            #expect(a.0 == b.0, "\(operation) \(form)")
            #expect(String(decoding: b.1, as: UTF8.self) == String(decoding: a.1, as: UTF8.self), "\(operation) \(form)")
        }
        // OGC API Part 4 with the token as a bearer: bob may not replace ann's feature; ann may.
        let feature = #"{"type":"Feature","properties":{"name":"replaced"},"geometry":{"type":"Point","coordinates":[5,6]}}"#
        for token in ["t-bob", "t-ann"] {
            var statuses: [Int] = []
            for server in [memory, database] {
                let app = Application(router: server.router(logRequests: false))
                statuses.append(
                    try await app.test(.router) { client in
                        Int(
                            try await client.executeRequest(
                                uri: "/ogc/collections/places/items/10", method: .put,
                                headers: [.contentType: "application/geo+json", .authorization: "Bearer \(token)"], body: ByteBuffer(string: feature)
                            ).status.code)
                    })
            }
            #expect(statuses[0] == statuses[1] && (token == "t-ann") == (200..<300).contains(statuses[1]), "\(token): \(statuses)")
        }
        // The same features at the end, each edit stamped with its user.
        let all = layer + "query?where=1%3D1&outFields=*&orderByFields=oid&f=json"
        let (fromMemory, fromDatabase) = try await Self.both(all, (memory, database))
        #expect(Self.comparable(fromDatabase.1) == Self.comparable(fromMemory.1))
        let table = try await source.readTable()
        func row(_ id: Int64) throws -> Int { try #require((0..<table.count).first { table.objectID(row: $0) == id }) }
        let (two, one, four, ten, twentyTwo) = (try row(2), try row(1), try row(4), try row(10), try row(22))
        #expect(table.value(row: two, field: "editor") == .string("ann"))
        #expect(table.value(row: two, field: "n") == .integer(-2))
        #expect(table.value(row: twentyTwo, field: "creator") == .null)
        #expect(table.value(row: ten, field: "name") == .string("replaced"))
        #expect((0..<table.count).allSatisfy { table.objectID(row: $0) != 21 && table.objectID(row: $0) != 6 })
        #expect(table.value(row: one, field: "n") == .integer(10))
        #expect(table.value(row: four, field: "n") == .integer(40))
        await source.close()
    }

    @Test func editsAndTilesOfADatabaseLayerAreRefusedWithAReason() async throws {
        let fixture = try await PostGISServer.fixture()
        let source = try #require(fixture.sources["naturalearth_lowres"])
        let served = try await ServedTable.publishing(id: "countries", source: source, settings: LayerSettings())
        var configuration = ServerConfiguration()
        configuration.allowEdits = true
        let server = try GeoSieveServer(catalog: ServedCatalog([served]), configuration: configuration)
        let before = try await source.queryFeatureCount(QueryParameters())
        // The layer says it only answers queries …
        let (_, layer) = try await Self.get("/arcgis/rest/services/countries/FeatureServer/0?f=json", server)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(layer)) as? [String: Any])
        #expect(document["capabilities"] as? String == "Query")
        // … an edit is refused, naming why, and changes nothing …
        let (status, body) = try await Self.get(
            "/arcgis/rest/services/countries/FeatureServer/0/deleteFeatures", server, method: .post, form: "where=1%3D1&f=json")
        #expect(status == 200)  // ArcGIS answers errors in the body
        #expect(String(decoding: body, as: UTF8.self).contains("read-only"))
        #expect(try await source.queryFeatureCount(QueryParameters()) == before)
        // … and a tile answers 501.
        let (tileStatus, tile) = try await Self.get("/ogc/collections/countries/tiles/WebMercatorQuad/0/0/0", server)
        #expect(tileStatus == 501)
        #expect(String(decoding: tile, as: UTF8.self).contains("served from a database"))
    }

    /// A table of a million random points (seeded) without a spatial index, and a polygon of
    /// many vertices (Russia's): a count of the points in it takes the database seconds.
    static let slowTable = Task<(PostGISConnectionOptions, Geometry), any Error> {
        let url = try #require(PostGISServer.url)
        let fixture = try await PostGISServer.fixture()
        let options = try PostGISConnectionOptions(url: url + "?table=slow_points")
        var configuration = PostgresConnection.Configuration(
            host: options.host, port: options.port, username: options.user, password: options.password, database: options.database, tls: .disable)
        configuration.options.requireBackendKeyData = true
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 7, logger: Logger(label: "test"))
        for sql in [
            "DROP TABLE IF EXISTS slow_points", "SELECT setseed(0.31)",
            "CREATE TABLE slow_points AS SELECT i::bigint AS id, ST_SetSRID(ST_MakePoint(random() * 360 - 180, random() * 180 - 90), 4326)::geometry(Point, 4326) AS geom FROM generate_series(1, 1000000) AS i",
            "ALTER TABLE slow_points ADD PRIMARY KEY (id)", "ANALYZE slow_points",
        ] {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "test"))
        }
        try await connection.close()
        let countries = try #require(fixture.tables["naturalearth_lowres"])
        let russia = try countries.queryFeatures(QueryParameters(whereClause: "name = 'Russia'"))
        let polygon = try #require(russia.geometry(at: 0))
        return (options, polygon)
    }

    /// The points `source` counts in `polygon`.
    static func slowCount(_ source: PostGISFeatureSource, _ polygon: Geometry) async throws -> Int {
        var query = QueryParameters()
        query.geometry = polygon
        query.spatialRelationship = .intersects
        return try await source.queryFeatureCount(query)
    }

    @Test func aStatementPastTheTimeoutIsCancelledByTheDatabase() async throws {
        let (options, polygon) = try await Self.slowTable.value
        try await PostGISFeatureSource.using(options, pool: PostGISPoolOptions(maximumConnections: 2, statementTimeout: 0.05)) { source in
            await #expect(throws: PostGISError.self) { _ = try await Self.slowCount(source, polygon) }
            do {
                _ = try await Self.slowCount(source, polygon)
            } catch let error as PostGISError {
                #expect(error.kind == .cancelled)
                #expect(error.category == .timedOut)
            }
            // The pool's connections are still usable.
            #expect(try await source.queryFeatureCount(QueryParameters(whereClause: "id <= 10")) == 10)
        }
    }

    @Test func aQueryWhoseTaskIsCancelledIsCancelledInTheDatabase() async throws {
        let (options, polygon) = try await Self.slowTable.value
        try await PostGISFeatureSource.using(options, pool: PostGISPoolOptions(maximumConnections: 2)) { source in
            // ST_Relate with a pattern computes the whole matrix of each point against a polygon
            // of many vertices: a million of them take the database far longer than this test
            // waits, so a statement still running below was not cancelled.
            var query = QueryParameters()
            query.geometry = polygon
            query.spatialRelationship = .relate(pattern: "T********")
            let relate = query
            let task = Task { try await source.queryFeatureCount(relate) }
            try await Self.waitForStatement(options, running: true)
            task.cancel()
            // The task's own cancellation, or the database's refusal of the cancelled statement.
            await #expect(throws: (any Error).self) { _ = try await task.value }
            try await Self.waitForStatement(options, running: false)
        }
    }

    /// Waits (at most 20 s) until a statement calling ST_Relate on `slow_points` runs, or none does.
    static func waitForStatement(_ options: PostGISConnectionOptions, running: Bool) async throws {
        let configuration = PostgresConnection.Configuration(
            host: options.host, port: options.port, username: options.user, password: options.password, database: options.database, tls: .disable)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 8, logger: Logger(label: "test"))
        defer { Task { try? await connection.close() } }
        for _ in 0..<200 {
            var count = 0
            let rows = try await connection.query(
                "SELECT count(*)::int8 FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%slow_points%ST_Relate%' AND pid <> pg_backend_pid()",
                logger: Logger(label: "test"))
            for try await row in rows { count = Int(try row.decode(Int64.self)) }
            if (count > 0) == running { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record(running ? "the statement never started" : "the statement still runs: it was not cancelled")
    }

    @Test func thePoolRunsQueriesSideBySide() async throws {
        let url = try #require(PostGISServer.url)
        _ = try await PostGISServer.fixture()
        let options = try PostGISConnectionOptions(url: url + "?table=naturalearth_lowres")
        try await PostGISFeatureSource.using(options, pool: PostGISPoolOptions(maximumConnections: 3)) { source in
            // Twelve counts at once over three connections: each is the right count.
            let truth = try await source.queryFeatureCount(QueryParameters(whereClause: "continent = 'Europe'"))
            let counts = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<12 { group.addTask { try await source.queryFeatureCount(QueryParameters(whereClause: "continent = 'Europe'")) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(counts == Array(repeating: truth, count: 12))
            let countries = try #require(try await PostGISServer.fixture().tables["naturalearth_lowres"])
            #expect(truth == (try countries.queryFeatureCount(QueryParameters(whereClause: "continent = 'Europe'"))))
        }
    }

    @Test func aConfiguredDatabaseLayerIsCheckedWhereTheFileSaysIt() async throws {
        let fixture = try await PostGISServer.fixture()
        let source = try #require(fixture.sources["naturalearth_lowres"])
        let text = """
            services:
              world:
                layers:
                  - source: postgresql://db/countries
                    definitionExpression: nmae = 'France'
            """
        let file = try ServiceConfigurationFile.parse(text, path: "services.yaml")
        do {
            _ = try await file.catalog { _ in ServiceConfigurationFile.OpenedSource(source: source, name: "countries") }
            Issue.record("a definition over a field the table lacks was taken")
        } catch {
            // Line 5, at the definition's value: 8 spaces and "definitionExpression: " (22) before it.
            #expect(error.description.hasPrefix("services.yaml:5:31: services.world.layers[0].definitionExpression: "), "\(error)")
            #expect(error.description.contains("nmae"))
        }
        // Taken, the layer is published where it lives, editable as the service's capabilities
        // say (all by default; the server's allowEdits decides whether edits are taken).
        let good = try ServiceConfigurationFile.parse(text.replacingOccurrences(of: "nmae", with: "name"), path: "services.yaml")
        let catalog = try await good.catalog { _ in ServiceConfigurationFile.OpenedSource(source: source, name: "countries") }
        let served = try #require(catalog.tables.first)
        #expect(served.table == nil)
        #expect(served.capabilities == .all)
        let queryOnly = try ServiceConfigurationFile.parse(
            text.replacingOccurrences(of: "nmae", with: "name").replacingOccurrences(of: "  world:\n", with: "  world:\n    capabilities: [Query]\n"),
            path: "services.yaml")
        let readOnly = try await queryOnly.catalog { _ in ServiceConfigurationFile.OpenedSource(source: source, name: "countries") }
        #expect(try #require(readOnly.tables.first).capabilities == [.query])
        // Editor tracking holds the database's edits as a table's in memory; types are kept
        // with a table in memory, and refused here.
        let tracked = try ServiceConfigurationFile.parse(
            text.replacingOccurrences(of: "nmae", with: "name") + "\n        editorTracking: {editDateField: last_edit, editorField: name}", path: "services.yaml")
        do {
            _ = try await tracked.catalog { _ in ServiceConfigurationFile.OpenedSource(source: source, name: "countries") }
            Issue.record("a tracking field the table lacks was taken")
        } catch {
            #expect(error.description.contains("last_edit"), "\(error)")
        }
        let trackedWell = try ServiceConfigurationFile.parse(
            text.replacingOccurrences(of: "nmae", with: "name") + "\n        editorTracking: {editorField: name}", path: "services.yaml")
        let trackedCatalog = try await trackedWell.catalog { _ in ServiceConfigurationFile.OpenedSource(source: source, name: "countries") }
        #expect(try #require(trackedCatalog.tables.first).editorTracking == EditorTracking(editorField: "name"))
        let typed = try ServiceConfigurationFile.parse(text.replacingOccurrences(of: "nmae", with: "name") + "\n        typeIdField: name", path: "services.yaml")
        await #expect { _ = try await typed.catalog { _ in ServiceConfigurationFile.OpenedSource(source: source, name: "countries") } } throws: {
            "\($0)".contains("applies to layers held in memory")
        }
    }

    static func names(_ body: [UInt8]) throws -> [String] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        let features = object["features"] as? [[String: Any]] ?? []
        return features.compactMap { ($0["attributes"] as? [String: Any])?["name"] as? String }
    }
}

/// `text` percent-encoded for a query string.
private func encoded(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
}
#endif
