import Foundation
import Testing
import SieveTestSupport

/// `geosieve convert … --output postgresql://…` (export) and `geosieve query postgresql://…`
/// (queries pushed down, or the table read into memory) against a real PostGIS server
/// (`Scripts/postgis-server.sh`; the URL comes in `GEOSIEVE_POSTGIS_URL`). Each answer must
/// equal the one the same command gives on the GeoJSON file.
@Suite(
    "geosieve with PostGIS tables", .tags(.cli, .postgis),
    .enabled(if: ProcessInfo.processInfo.environment["GEOSIEVE_POSTGIS_URL"] != nil, "no PostGIS server (GEOSIEVE_POSTGIS_URL)"))
struct PostGISCLITests {
    static let file = SpatialCLITests.countries

    /// The countries written to the server once, as the table `cli_countries`.
    static let table: Result<String, any Error> = Result {
        let url = (ProcessInfo.processInfo.environment["GEOSIEVE_POSTGIS_URL"] ?? "") + "?table=cli_countries"
        let result = try CLI.run(["convert", file, "--output", url])
        guard result.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: result.stderr]) }
        return url
    }

    @Test func queriesAnswerAsOnTheFile() throws {
        let url = try Self.table.get()
        let cases: [[String]] = [
            ["--where", "pop_est > 1e8", "--return", "count"],
            ["--filter", "S_INTERSECTS(geometry, BBOX(170, -20, -170, 0)) OR continent = 'Oceania'", "--return", "ids"],
            ["--filter", #"{"op":"<","args":[{"property":"gdp_md_est"},1000]}"#, "--return", "extent"],
            ["--geometry", SpatialCLITests.europe, "--spatial-rel", "within", "--return", "ids"],
            ["--where", "continent = 'Africa'", "--order-by", "pop_est DESC", "--limit", "5", "--out-fields", "name,pop_est"],
            ["--where", "name LIKE 'B%'", "--out-sr", "3857", "--return", "extent"],
            // Statistics and distinct values: the database selects the rows, GeoSieve aggregates.
            ["--statistics", "count:fid:n,sum:pop_est:people", "--group-by", "continent", "--order-by", "continent"],
            ["--where", "pop_est > 1e7", "--distinct", "--out-fields", "continent", "--order-by", "continent"],
            ["--distinct", "--out-fields", "continent", "--return", "count"],
            // A definition expression goes to the database with the where clause.
            ["--definition-expression", "continent = 'Europe'", "--where", "pop_est > 1e7", "--return", "ids"],
            ["--definition-expression", "continent = 'Europe'", "--statistics", "max:pop_est:most"],
        ]
        for arguments in cases {
            let expected = try SpatialCLITests.json(["query", Self.file] + arguments)
            let answer = try SpatialCLITests.json(["query", url] + arguments)
            #expect(NSDictionary(dictionary: answer).isEqual(to: expected), "\(arguments)")
        }
    }

    @Test func errorsAreOneLine() throws {
        let url = try Self.table.get()
        let unknown = try SpatialCLITests.failure(["query", url, "--where", "popu > 1"])
        #expect(unknown.contains("unknown field \"popu\""))
        let refused = try SpatialCLITests.failure(["query", url, "--where", "UPPER(name) = 'FRANCE'"])
        #expect(refused.contains("cannot render for PostgreSQL: UPPER"))
        let missing = try SpatialCLITests.failure(["query", (ProcessInfo.processInfo.environment["GEOSIEVE_POSTGIS_URL"] ?? "") + "?table=nope"])
        #expect(missing.contains("no table public.nope"))
    }

    @Test func servedTablesAnswerAsTheFile() async throws {
        let url = try Self.table.get()
        let server = try ServeCLITests.Server([url + ":pg", Self.file + ":file"])
        defer { _ = server.stop() }
        for query in ["where=pop_est%3E1e8&returnCountOnly=true", "where=continent%3D%27Asia%27&returnIdsOnly=true", "where=1%3D1&returnExtentOnly=true"] {
            let fromDatabase = try await ServeCLITests.fetch(server.base + "/arcgis/rest/services/pg/FeatureServer/0/query?" + query)
            let fromFile = try await ServeCLITests.fetch(server.base + "/arcgis/rest/services/file/FeatureServer/0/query?" + query)
            #expect(fromDatabase == fromFile, "\(query)")
        }
        let items = try await ServeCLITests.fetch(server.base + "/ogc/collections/pg/items?filter=pop_est%20%3E%201e8&limit=100")
        #expect(items.contains("\"numberMatched\":14"))
        // Served where it lives: read-only without --allow-edits, edited in the database with it.
        let layer = try await ServeCLITests.fetch(server.base + "/arcgis/rest/services/pg/FeatureServer/0?f=json")
        #expect(layer.contains("\"capabilities\":\"Query\""))
        let editing = try ServeCLITests.Server([url + ":pg", "--allow-edits"])
        defer { _ = editing.stop() }
        let editable = try await ServeCLITests.fetch(editing.base + "/arcgis/rest/services/pg/FeatureServer/0?f=json")
        #expect(editable.contains("\"capabilities\":\"Create,Delete,Query,Update,Editing\""))
        // A batch with a missing feature rolls back (other tests read this table: nothing may change).
        let batch = "adds=%5B%7B%22attributes%22%3A%7B%22name%22%3A%22never%22%7D%7D%5D&deletes=999999&f=json"
        let rolledBack = try await ServeCLITests.fetch(editing.base + "/arcgis/rest/services/pg/FeatureServer/0/applyEdits", form: batch)
        #expect(rolledBack.contains("1003") && rolledBack.contains("1019"), "\(rolledBack)")
        let count = try await ServeCLITests.fetch(editing.base + "/arcgis/rest/services/pg/FeatureServer/0/query?where=1%3D1&returnCountOnly=true")
        #expect(count == "{\"count\":177}")
    }

    /// One service of a PostGIS table and a file side by side, configured: layers 0 and 1 of one
    /// FeatureServer, listed by `/layers`, each answering as the file.
    @Test func aServiceOfADatabaseLayerAndAFileLayer() async throws {
        let url = try Self.table.get()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geosieve-mixed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let yaml = """
            services:
              mixed:
                layers:
                  - source: \(url)
                    name: from the database
                  - source: \(CLI.packageRoot.appendingPathComponent(Self.file).path)
                    name: from the file
                    definitionExpression: pop_est > 1e8
            """
        try Data(yaml.utf8).write(to: folder.appendingPathComponent("services.yaml"))
        let server = try ServeCLITests.Server(["--config", folder.appendingPathComponent("services.yaml").path])
        defer { _ = server.stop() }
        let service = server.base + "/arcgis/rest/services/mixed/FeatureServer"
        let layers = try JSONSerialization.jsonObject(with: Data(try await ServeCLITests.fetch(service + "/layers?f=json").utf8)) as? [String: Any]
        let entries = try #require(layers?["layers"] as? [[String: Any]])
        #expect(entries.map { $0["id"] as? Int } == [0, 1])
        #expect(entries.map { $0["name"] as? String } == ["from the database", "from the file"])
        #expect(try await ServeCLITests.fetch(service + "/0/query?where=1%3D1&returnCountOnly=true") == "{\"count\":177}")
        #expect(try await ServeCLITests.fetch(service + "/1/query?where=1%3D1&returnCountOnly=true") == "{\"count\":14}")
        let big = "/query?where=pop_est%3E1e8&outFields=name&orderByFields=name&returnGeometry=false&f=json"
        let fromDatabase = try await ServeCLITests.fetch(service + "/0" + big)
        let fromFile = try await ServeCLITests.fetch(service + "/1" + big)
        #expect(Self.names(fromDatabase) == Self.names(fromFile) && Self.names(fromFile).count == 14)
    }

    static func names(_ json: String) -> [String] {
        let object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any]
        return (object?["features"] as? [[String: Any]] ?? []).compactMap { ($0["attributes"] as? [String: Any])?["name"] as? String }
    }
}
