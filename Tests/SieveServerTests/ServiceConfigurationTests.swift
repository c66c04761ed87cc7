import Foundation
import HTTPTypes
import SieveEditing
import SieveFeatures
import SieveFormats
import SieveServer
import Testing

/// `geosieve serve --config`: a configuration file of two services and three layers, served as
/// written and honoured by every answer; bad files refused with the file, line and key.
@Suite(.tags(.network)) struct ServiceConfigurationTests {
    /// A folder with a renderer file and `services.yaml` written from `yaml`.
    static func folder(_ yaml: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geosieve-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let renderer = #"""
            {"renderer":{"type":"simple","symbol":{"type":"esriSFS","style":"esriSFSSolid","color":[200,120,40,255],
            "outline":{"type":"esriSLS","style":"esriSLSSolid","color":[60,60,60,255],"width":0.5}}},"transparency":30}
            """#
        try Data(renderer.utf8).write(to: folder.appendingPathComponent("renderer.json"))
        try Data(yaml.utf8).write(to: folder.appendingPathComponent("services.yaml"))
        return folder
    }

    /// The two services of the README's example, over the fixtures.
    static let example = """
        services:
          world:
            description: Natural Earth countries and cities
            copyright: Natural Earth (public domain)
            maxRecordCount: 50
            token: w0rld
            cors: https://maps.example.com
            layers:
              - source: \(fixturesDirectory.path)/naturalearth_lowres.geojson
                name: Countries
                collection: countries
                definitionExpression: pop_est > 10000000
                minScale: 150000000
                maxScale: 1000
                displayField: name
                renderer: renderer.json
              - source: \(fixturesDirectory.path)/naturalearth_cities.geojson
                id: 3
                name: Cities
                collection: cities
                defaultVisibility: false
                transparency: 40
          nyc:
            copyright: NYC Department of City Planning
            capabilities: Query
            layers:
              - source: \(fixturesDirectory.path)/nybb.geojson
                name: Boroughs
                definitionExpression: BoroCode <> 5
        """

    /// The catalog of `services.yaml` in `folder`, each source loaded as a GeoJSON file.
    static func catalog(_ folder: URL) async throws -> ServedCatalog {
        try await catalog(try ServiceConfigurationFile.load(path: folder.appendingPathComponent("services.yaml").path))
    }

    /// The catalog of `file`, each source loaded as a GeoJSON file.
    static func catalog(_ file: ServiceConfigurationFile) async throws -> ServedCatalog {
        try await file.catalog { spec in
            let url = URL(fileURLWithPath: spec.source)
            return ServiceConfigurationFile.OpenedSource(
                table: try FeatureTable.load(contentsOf: url), name: url.deletingPathExtension().lastPathComponent)
        }
    }

    @Test func servicesAndLayersAreServedAsConfigured() async throws {
        let folder = try Self.folder(Self.example)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try GeoSieveServer(catalog: try await Self.catalog(folder), configuration: ServerConfiguration(allowEdits: true))
        // Derived from the fixture itself: countries of more than ten million people.
        let populous = try Truth.features("naturalearth_lowres.geojson").filter {
            (($0["properties"] as? [String: Any])?["pop_est"] as? Double ?? 0) > 10_000_000
        }.count
        #expect(populous == 91)
        try await TestServer.withClient(server) { client in
            let root = "/arcgis/rest/services"
            let directory = try await client.get(root + "?f=json").object["services"] as? [[String: String]] ?? []
            #expect(directory.map { $0["name"] ?? "" + "/" + ($0["type"] ?? "") }.count == 6)
            #expect(Set(directory.compactMap { $0["name"] }) == ["world", "nyc"])

            let world = try await client.get(root + "/world/FeatureServer?f=json").object
            #expect(world["copyrightText"] as? String == "Natural Earth (public domain)")
            #expect(world["serviceDescription"] as? String == "Natural Earth countries and cities")
            #expect(world["maxRecordCount"] as? Int == 50)
            let layers = world["layers"] as? [[String: Any]] ?? []
            #expect(layers.map { $0["id"] as? Int } == [0, 3])
            #expect(layers.map { $0["name"] as? String } == ["Countries", "Cities"])
            #expect(layers.map { $0["defaultVisibility"] as? Bool } == [true, false])
            #expect(layers.map { $0["minScale"] as? Double } == [150_000_000, 0])

            let countries = try await client.get(root + "/world/FeatureServer/0?f=json").object
            #expect(countries["definitionExpression"] as? String == "pop_est > 10000000")
            #expect(countries["displayField"] as? String == "name")
            #expect(countries["minScale"] as? Double == 150_000_000)
            #expect(countries["maxScale"] as? Double == 1000)
            #expect(countries["copyrightText"] as? String == "Natural Earth (public domain)")
            let drawing = countries["drawingInfo"] as? [String: Any]
            #expect(drawing?["transparency"] as? Double == 30)
            let symbol = (drawing?["renderer"] as? [String: Any])?["symbol"] as? [String: Any]
            #expect(symbol?["color"] as? [Int] == [200, 120, 40, 255])
            let cities = try await client.get(root + "/world/FeatureServer/3?f=json").object
            #expect((cities["drawingInfo"] as? [String: Any])?["transparency"] as? Double == 40)
            #expect(cities["defaultVisibility"] as? Bool == false)
            #expect(try await client.get(root + "/world/FeatureServer/1?f=json").arcGISErrorCode == 404)
            // All layers and tables at once, each its own document.
            let all = try await client.get(root + "/world/FeatureServer/layers?f=json").object
            let documents = all["layers"] as? [[String: Any]] ?? []
            #expect(documents.map { $0["id"] as? Int } == [0, 3])
            #expect(documents.first?["definitionExpression"] as? String == "pop_est > 10000000")
            #expect((all["tables"] as? [Any])?.isEmpty == true)
            #expect(try await client.get(root + "/world/MapServer/layers?f=json").object["layers"] != nil)

            // The definition holds in every answer: count, page, statistics, OGC API.
            let count = try await client.get(root + "/world/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json").object
            #expect(count["count"] as? Int == populous)
            let page = try await client.get(root + "/world/FeatureServer/0/query?where=1%3D1&outFields=name&returnGeometry=false&f=json").object
            #expect((page["features"] as? [Any])?.count == 50)
            #expect(page["exceededTransferLimit"] as? Bool == true)
            let statistics = try await client.get(
                root + "/world/FeatureServer/0/query?outStatistics="
                    + encoded(#"[{"statisticType":"min","onStatisticField":"pop_est","outStatisticFieldName":"least"}]"#) + "&f=json").object
            let least = ((statistics["features"] as? [[String: Any]])?.first?["attributes"] as? [String: Any])?["least"] as? Double
            #expect((least ?? 0) > 10_000_000)
            let items = try await client.get("/ogc/collections/countries/items?limit=1").object
            #expect(items["numberMatched"] as? Int == populous)
            let boroughs = try await client.get("/ogc/collections/nyc/items").object
            #expect(boroughs["numberMatched"] as? Int == 4)

            // Edits: the service's token, the definition, the capabilities.
            let layer = root + "/world/FeatureServer/0"
            let small = encoded(#"[{"attributes":{"name":"Tiny","pop_est":5},"geometry":{"x":1,"y":1}}]"#)
            #expect(try await client.post(layer + "/addFeatures", form: "features=" + small).arcGISErrorCode == 499)
            let outside = try await client.post(layer + "/addFeatures", form: "features=" + small + "&token=w0rld").object
            let result = (outside["addResults"] as? [[String: Any]])?.first
            #expect(result?["success"] as? Bool == false)
            #expect((result?["error"] as? [String: Any])?["code"] as? Int == 1000)
            // Fiji (object ID 1, 889,953 people) is outside: deleteFeatures selects nothing,
            // applyEdits finds no such feature.
            let selected = try await client.post(layer + "/deleteFeatures", form: "objectIds=1&token=w0rld").object
            #expect((selected["deleteResults"] as? [Any])?.isEmpty == true)
            let fiji = try await client.post(layer + "/applyEdits", form: "deletes=1&token=w0rld").object
            #expect(((fiji["deleteResults"] as? [[String: Any]])?.first?["error"] as? [String: Any])?["code"] as? Int == 1019)
            let readOnly = try await client.post(root + "/nyc/FeatureServer/0/deleteFeatures", form: "objectIds=2")
            #expect(readOnly.arcGISErrorCode == 403)
            #expect(try await client.get(root + "/nyc/FeatureServer?f=json").object["capabilities"] as? String == "Query")

            // CORS: the world service's origin there, none elsewhere (the server sets none).
            let origin: HTTPFields = [.origin: "https://maps.example.com"]
            let allowed = try await client.get(root + "/world/FeatureServer?f=json", headers: origin)
            #expect(allowed.headers[.accessControlAllowOrigin] == "https://maps.example.com")
            let collection = try await client.get("/ogc/collections/cities", headers: origin)
            #expect(collection.headers[.accessControlAllowOrigin] == "https://maps.example.com")
            #expect(try await client.get(root + "/nyc/FeatureServer?f=json", headers: origin).headers[.accessControlAllowOrigin] == nil)

            // The vector tile of the service holds both layers: the collections' tiles, one after the other.
            let tile = try await client.get(root + "/world/VectorTileServer/tile/0/0/0.pbf")
            let countriesTile = try await client.get("/ogc/collections/countries/tiles/WebMercatorQuad/0/0/0")
            let citiesTile = try await client.get("/ogc/collections/cities/tiles/WebMercatorQuad/0/0/0")
            #expect(tile.status == 200)
            #expect(tile.bytes == countriesTile.bytes + citiesTile.bytes)
        }
    }

    @Test func aReloadedCatalogIsServedAtOnceAndTheOldOneStaysWhenTheNewFails() async throws {
        let folder = try Self.folder(Self.example)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try GeoSieveServer(catalog: try await Self.catalog(folder))
        try await TestServer.withClient(server) { client in
            let query = "/arcgis/rest/services/nyc/FeatureServer/0/query?where=1%3D1&returnCountOnly=true&f=json"
            let before = try await client.get(query)
            #expect(before.object["count"] as? Int == 4)
            // A file that does not bind is refused; what is served does not change.
            try Data(Self.example.replacingOccurrences(of: "BoroCode <> 5", with: "BoroCod <> 5").utf8)
                .write(to: folder.appendingPathComponent("services.yaml"))
            await #expect(throws: ConfigurationError.self) { try await Self.catalog(folder) }
            #expect(try await client.get(query).object["count"] as? Int == 4)
            // A good file is served at once, under new entity tags.
            try Data(Self.example.replacingOccurrences(of: "BoroCode <> 5", with: "BoroCode IN (1, 2)").utf8)
                .write(to: folder.appendingPathComponent("services.yaml"))
            server.replaceCatalog(try await Self.catalog(folder))
            let after = try await client.get(query)
            #expect(after.object["count"] as? Int == 2)
            #expect(after.headers[.eTag] != before.headers[.eTag])
            let document = try await client.get("/arcgis/rest/services/nyc/FeatureServer/0?f=json").object
            #expect(document["definitionExpression"] as? String == "BoroCode IN (1, 2)")
        }
    }

    @Test func hiddenFieldsAreNeverSeenAndTypesArePublished() async throws {
        let yaml = """
            services:
              nyc:
                layers:
                  - source: \(fixturesDirectory.path)/nybb.geojson
                    definitionExpression: Shape_Area > 0
                    hiddenFields: [Shape_Leng, shape_area]
                    typeIdField: BoroCode
                    types:
                      - id: 1
                        name: Manhattan
                        domains: {}
                        templates: [{name: Manhattan, prototype: {attributes: {BoroCode: 1}}}]
            """
        let folder = try Self.folder(yaml)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try GeoSieveServer(catalog: try await Self.catalog(folder), configuration: ServerConfiguration(allowEdits: true))
        try await TestServer.withClient(server) { client in
            let layer = "/arcgis/rest/services/nyc/FeatureServer/0"
            let document = try await client.get(layer + "?f=json").object
            let names = (document["fields"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            // The loader's object-ID field, then the file's properties but the hidden two.
            #expect(names == ["OBJECTID", "fid", "BoroCode", "BoroName"])
            #expect(document["typeIdField"] as? String == "BoroCode")
            #expect((document["types"] as? [[String: Any]])?.first?["name"] as? String == "Manhattan")
            // The definition names a hidden field: it is the service's own, and holds.
            let all = try await client.get(layer + "/query?where=1%3D1&outFields=*&returnGeometry=false&f=json").object
            let features = all["features"] as? [[String: Any]] ?? []
            #expect(features.count == 5)
            #expect(Set(features.flatMap { ($0["attributes"] as? [String: Any] ?? [:]).keys }) == ["OBJECTID", "fid", "BoroCode", "BoroName"])
            for refused in [
                "where=Shape_Leng%3E0", "outFields=BoroName,Shape_Leng", "orderByFields=SHAPE_AREA",
                "outStatistics=" + encoded(#"[{"statisticType":"sum","onStatisticField":"Shape_Leng","outStatisticFieldName":"s"}]"#),
            ] {
                #expect(try await client.get(layer + "/query?" + refused + "&f=json").arcGISErrorCode == 400, "\(refused)")
            }
            let items = try await client.get("/ogc/collections/nyc/items").object
            let properties = (items["features"] as? [[String: Any]])?.first?["properties"] as? [String: Any] ?? [:]
            #expect(Set(properties.keys) == ["OBJECTID", "fid", "BoroCode", "BoroName"])
            #expect(try await client.get("/ogc/collections/nyc/items?filter=" + encoded("Shape_Leng > 0")).status == 400)
            #expect(try await client.get("/ogc/collections/nyc/items?Shape_Leng=1").status == 400)
            let queryables = try await client.get("/ogc/collections/nyc/queryables").object["properties"] as? [String: Any] ?? [:]
            #expect(queryables["Shape_Leng"] == nil && queryables["BoroName"] != nil)
            let add = encoded(#"[{"attributes":{"BoroCode":9,"Shape_Leng":1}}]"#)
            #expect(try await client.post(layer + "/addFeatures", form: "features=" + add).arcGISErrorCode == 400)
        }
        // The display field cannot be hidden.
        try Data(yaml.replacingOccurrences(of: "[Shape_Leng, shape_area]", with: "[BoroName]\n        displayField: BoroName").utf8)
            .write(to: folder.appendingPathComponent("services.yaml"))
        do {
            _ = try await Self.catalog(folder)
            Issue.record("the display field was hidden")
        } catch let error as ConfigurationError {
            #expect(error.key == "services.nyc.layers[0].hiddenFields")
            #expect(error.message.contains("is the display field: it cannot be hidden"), "\(error)")
        }
    }

    /// Editor tracking and ownership from the file: the server fills the tracking fields, and
    /// an anonymous editor may not update a feature someone else created.
    @Test func editorTrackingAndOwnershipHoldEdits() async throws {
        let folder = try Self.folder("""
            services:
              notes:
                layers:
                  - source: notes.geojson
                    editorTracking: {creatorField: CREATOR, editorField: EDITOR, ownershipBasedAccessControl: true,
                                     allowAnonymousToUpdate: false, allowOthersToUpdate: false}
            """)
        defer { try? FileManager.default.removeItem(at: folder) }
        let notes = #"""
            {"type":"FeatureCollection","features":[
             {"type":"Feature","id":1,"properties":{"note":"a","CREATOR":"ann","EDITOR":"ann"},"geometry":{"type":"Point","coordinates":[1,1]}}]}
            """#
        try Data(notes.utf8).write(to: folder.appendingPathComponent("notes.geojson"))
        let catalog = try await Self.catalog(folder)
        let tracking = try #require(catalog.tables.first?.table?.options.editorTracking)
        #expect(tracking.creatorField == "CREATOR" && tracking.ownershipBasedAccessControl && !tracking.allowAnonymousToUpdate)
        let server = try GeoSieveServer(catalog: catalog, configuration: ServerConfiguration(allowEdits: true))
        try await TestServer.withClient(server) { client in
            let layer = "/arcgis/rest/services/notes/FeatureServer/0"
            let update = encoded(#"[{"attributes":{"OBJECTID":1,"note":"b"}}]"#)
            let denied = try await client.post(layer + "/updateFeatures", form: "features=" + update).object
            let error = (denied["updateResults"] as? [[String: Any]])?.first?["error"] as? [String: Any]
            #expect(error?["code"] as? Int == 403)
            // An anonymous add: the server writes the (null) creator and editor itself.
            let add = encoded(#"[{"attributes":{"note":"c","CREATOR":"mallory"},"geometry":{"x":2,"y":2}}]"#)
            #expect(try await client.post(layer + "/addFeatures", form: "features=" + add).text.contains(#""success":true"#))
            let added = try await client.get(layer + "/query?where=note%3D%27c%27&outFields=CREATOR&f=json").object
            let creator = ((added["features"] as? [[String: Any]])?.first?["attributes"] as? [String: Any])?["CREATOR"]
            #expect(creator is NSNull)
        }
    }

    /// The server section's users: each name with its own token, applied to the server's
    /// configuration.
    @Test func usersAndTheirTokens() throws {
        let file = try ServiceConfigurationFile.parse("server:\n  users:\n    ann: t-ann\n    bob: 't b'\nservices:\n  world:\n    layers:\n      - source: a.geojson\n", path: "services.yaml")
        #expect(file.server.users == ["ann": "t-ann", "bob": "t b"])
        #expect(file.server.applied(to: ServerConfiguration()).users == ["ann": "t-ann", "bob": "t b"])
        #expect(ServerConfiguration().users.isEmpty)
    }

    /// The README's example is `Examples/services.yaml`, word for word, and it serves its two
    /// services and three layers.
    @Test func theReadmesExampleServes() async throws {
        let root = fixturesDirectory.deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let example = root.appendingPathComponent("Examples/services.yaml")
        let text = try String(contentsOf: example, encoding: .utf8)
        #expect(readme.contains("```yaml\n" + text + "```\n"))
        let file = try ServiceConfigurationFile.load(path: example.path)
        #expect(file.server.port == 8080)
        let catalog = try await Self.catalog(file)
        #expect(catalog.services.map(\.name) == ["world", "nyc"])
        #expect(catalog.tables.map(\.id) == ["countries", "cities", "nyc"])
        #expect(catalog.tables.map(\.transparency) == [20, 0, 0])
    }

    /// Each bad file, and the error it gets: file, line, column, key and message, derived from
    /// the text (lines count from the `services:` line, 1).
    @Test(arguments: [
        ("services:\n  world:\n    layers:\n      - source: a.geojson\n        minscale: 5\n", 5, 9, "services.world.layers[0].minscale",
         #"unknown key in a layer (did you mean "minScale"?)"#),
        ("services:\n  world:\n    layers:\n      - source: a.geojson\n        minScale: big\n", 5, 19, "services.world.layers[0].minScale",
         #"must be a number, not "big""#),
        ("services:\n  world:\n    layers:\n      - source: a.geojson\n        minScale: 10\n        maxScale: 20\n", 6, 19,
         "services.world.layers[0].maxScale", "maxScale (20) must not be above minScale (10)"),
        ("services:\n  world:\n    layers:\n      - source: a.geojson\n        defaultVisibility: yes\n", 5, 28,
         "services.world.layers[0].defaultVisibility", #"must be true or false, not "yes""#),
        ("services:\n  world:\n    description: x\n", 3, 5, "services.world", "the service has no layer: add layers"),
        ("services:\n  world:\n    layers:\n      - source: a.geojson\n      - source: b.geojson\n        id: 0\n", 6, 13,
         "services.world.layers[1].id", "two layers of the service have ID 0"),
        ("services:\n  world:\n    capabilities: Query,Erase\n    layers:\n      - source: a.geojson\n", 3, 19, "services.world.capabilities",
         #"unknown capability "Erase""#),
        ("services:\n  wo rld:\n    layers:\n      - source: a.geojson\n", 3, 5, "services.wo rld", "is not a usable service name"),
        ("server:\n  port: 99999\nservices: {}\n", 2, 9, "server.port", "must be 0 to 65535, not 99999"),
        ("server:\n  users: {ann: t1, bob: t1}\nservices: {}\n", 2, 25, "server.users.bob", "two users have this token"),
        ("server:\n  users: [ann]\nservices: {}\n", 2, 10, "server.users", "users must be a mapping"),
        ("services:\n  world:\n    layers:\n      - source: a.geojson\n        editorTracking: {ownershipBasedAccessControl: true, allowOthersToQuery: false}\n",
         5, 81, "services.world.layers[0].editorTracking.allowOthersToQuery", "the server does not filter queries by user"),
        // A repeated key is reported where its mapping starts (world's, 3:5).
        ("services:\n  world:\n    layers:\n      - source: a.geojson\n    layers: []\n", 3, 5, "", #"has the key "layers" more than once"#),
        ("services:\n  world: [\n", 3, 1, "", "is not valid YAML"),
        ("servces: {}\n", 1, 1, "servces", #"unknown key in the file (did you mean "services"?)"#),
    ])
    func badFilesAreRefusedWithWhereAndWhat(yaml: String, line: Int, column: Int, key: String, message: String) throws {
        do {
            _ = try ServiceConfigurationFile.parse(yaml, path: "services.yaml")
            Issue.record("accepted: \(yaml)")
        } catch {
            #expect(error.file == "services.yaml")
            #expect(error.line == line)
            #expect(error.column == column)
            #expect(error.key == key)
            #expect(error.message.contains(message), "\(error)")
            #expect(error.description.hasPrefix("services.yaml:\(line):\(column): "))
        }
    }

    /// Errors only the table can tell: a definition that does not bind, a display field or time
    /// field it does not have, a source that does not open — each at its key.
    @Test(arguments: [
        ("definitionExpression: BoroCod > 1", 5, "definitionExpression", "BoroCod"),
        ("displayField: Boro", 5, "displayField", #""Boro" is not a field of the table"#),
        ("timeInfo: {startTimeField: BoroName}", 5, "timeInfo", "not a date"),
        ("editorTracking: {creatorField: who}", 5, "editorTracking", #""who" is not a field"#),
    ])
    func settingsAreCheckedAgainstTheTable(setting: String, line: Int, key: String, message: String) async throws {
        let yaml = "services:\n  nyc:\n    layers:\n      - source: \(fixturesDirectory.path)/nybb.geojson\n        \(setting)\n"
        let folder = try Self.folder(yaml)
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            _ = try await Self.catalog(folder)
            Issue.record("accepted: \(setting)")
        } catch let error as ConfigurationError {
            #expect(error.line == line)
            #expect(error.key == "services.nyc.layers[0]." + key)
            #expect(error.message.contains(message), "\(error)")
        }
        let missing = "services:\n  nyc:\n    layers:\n      - source: nowhere.geojson\n"
        try Data(missing.utf8).write(to: folder.appendingPathComponent("services.yaml"))
        do {
            _ = try await Self.catalog(folder)
            Issue.record("a missing source was accepted")
        } catch let error as ConfigurationError {
            #expect(error.line == 4)
            #expect(error.key == "services.nyc.layers[0].source")
        }
    }
}
