import Foundation
import Testing
import SieveTestSupport

/// `geosieve query` end to end. Expected IDs and counts were computed independently with
/// Python's `sqlite3` over the fixtures' GeoJSON properties (`PRAGMA case_sensitive_like=ON`),
/// as in SieveFeaturesTests/QueryTests.swift.
@Suite("geosieve query", .tags(.cli))
struct QueryCommandTests {
    static let countries = "Tests/Fixtures/naturalearth_lowres.geojson"
    static let cities = "Tests/Fixtures/naturalearth_cities.geojson"

    /// Runs `geosieve query ARGS`, expecting success and one JSON object on stdout.
    static func json(_ arguments: [String]) throws -> [String: Any] {
        let result = try CLI.run(["query"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.hasSuffix("}\n"))
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return try #require(object as? [String: Any])
    }

    /// Runs `geosieve query ARGS`, expecting failure with `status` and one line on stderr.
    static func failure(_ arguments: [String], status: Int32) throws -> String {
        let result = try CLI.run(["query"] + arguments)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("error: "))
        #expect(result.stderr.hasSuffix("\n") && result.stderr.filter { $0 == "\n" }.count == 1)
        return result.stderr.trimmingCharacters(in: .newlines)
    }

    @Test func count() throws {
        let all = try Self.json([Self.countries, "--return", "count"])
        #expect(all.keys.sorted() == ["count"])
        #expect(all["count"] as? Int == 177)
        let africa = try Self.json([Self.countries, "--where", "continent = 'Africa' AND gdp_md_est < 10000", "--return", "count"])
        #expect(africa["count"] as? Int == 15)
        let cities = try Self.json([Self.cities, "--where", "name LIKE '%an%'", "--return", "count"])
        #expect(cities["count"] as? Int == 44)
        // Paging does not change a count.
        let paged = try Self.json([Self.countries, "--return", "count", "--limit", "3", "--order-by", "name"])
        #expect(paged["count"] as? Int == 177)
    }

    @Test func ids() throws {
        let result = try Self.json([Self.countries, "--where", "pop_est > 100000000", "--return", "ids"])
        #expect(result.keys.sorted() == ["objectIdFieldName", "objectIds"])
        #expect(result["objectIdFieldName"] as? String == "OBJECTID")
        #expect(result["objectIds"] as? [Int] == [5, 9, 19, 28, 30, 57, 99, 100, 103, 140, 148, 156, 164, 166])
        let anded = try Self.json([
            Self.countries, "--where", "continent = 'Africa'", "--object-ids", "177, 9999,1,2,3,4,5,50,100,176", "--return", "ids",
        ])
        #expect(anded["objectIds"] as? [Int] == [2, 3, 50, 177])
        let nocase = try Self.json([Self.countries, "--where", "name LIKE 'united%'", "--collation", "nocase", "--return", "ids"])
        #expect(nocase["objectIds"] as? [Int] == [5, 85, 144])
        let binary = try Self.json([Self.countries, "--where", "name LIKE 'united%'", "--return", "ids"])
        #expect(binary["objectIds"] as? [Int] == [])
    }

    @Test func extent() throws {
        let result = try Self.json([Self.countries, "--where", "continent = 'South America'", "--return", "extent"])
        #expect(result["count"] as? Int == 13)
        let extent = try #require(result["extent"] as? [String: Any])
        #expect(extent.keys.sorted() == ["spatialReference", "xmax", "xmin", "ymax", "ymin"])
        #expect((extent["spatialReference"] as? [String: Any])?["wkid"] as? Int == 4326)
        // Exact text: Foundation's JSON reader on Linux may round the last digit of a double.
        let text = try CLI.run(["query", Self.countries, "--where", "continent = 'South America'", "--return", "extent"]).stdout
        #expect(
            text == #"{"count":13,"extent":{"xmin":-81.41094255239946,"ymin":-55.61183,"xmax":-34.729993455533034,"#
                + #""ymax":12.437303168177309,"spatialReference":{"wkid":4326}}}"# + "\n")
        let empty = try CLI.run(["query", Self.countries, "--where", "1 = 0", "--return", "extent"])
        #expect(
            empty.stdout
                == #"{"count":0,"extent":{"xmin":null,"ymin":null,"xmax":null,"ymax":null,"spatialReference":{"wkid":4326}}}"# + "\n")
    }

    @Test func geoJSONFeatures() throws {
        let result = try Self.json([
            Self.countries, "--where", "continent = 'Africa'", "--order-by", "gdp_md_est DESC", "--offset", "2", "--limit", "5",
            "--out-fields", "name,gdp_md_est",
        ])
        #expect(result["type"] as? String == "FeatureCollection")
        let features = try #require(result["features"] as? [[String: Any]])
        #expect(features.map { $0["id"] as? Int } == [164, 83, 163, 166, 14])
        let first = features[0]
        #expect(first["type"] as? String == "Feature")
        let properties = try #require(first["properties"] as? [String: Any])
        #expect(properties.keys.sorted() == ["OBJECTID", "gdp_md_est", "name"])
        #expect(properties["OBJECTID"] as? Int == 164)
        #expect(((first["geometry"] as? [String: Any])?["type"] as? String).map { ["Polygon", "MultiPolygon"].contains($0) } == true)
        #expect((result["properties"] as? [String: Any])?["exceededTransferLimit"] as? Bool == true)

        let bare = try Self.json([Self.cities, "--where", "name = 'Paris'", "--no-return-geometry"])
        let paris = try #require((bare["features"] as? [[String: Any]])?.first)
        #expect(paris["geometry"] is NSNull)
        #expect((paris["properties"] as? [String: Any])?["name"] as? String == "Paris")
        #expect(bare["properties"] == nil)
    }

    @Test func esriJSONFeatures() throws {
        let result = try Self.json([
            Self.cities, "--where", "name LIKE 'San%'", "--out-fields", "name", "--order-by", "name DESC", "--format", "esrijson",
        ])
        #expect(result["objectIdFieldName"] as? String == "OBJECTID")
        #expect(result["geometryType"] as? String == "esriGeometryPoint")
        #expect((result["spatialReference"] as? [String: Any])?["wkid"] as? Int == 4326)
        let fields = try #require(result["fields"] as? [[String: Any]])
        #expect(fields.map { $0["name"] as? String } == ["OBJECTID", "name"])
        #expect(fields.map { $0["type"] as? String } == ["esriFieldTypeOID", "esriFieldTypeString"])
        let features = try #require(result["features"] as? [[String: Any]])
        #expect(features.count == 7)
        let names = features.compactMap { ($0["attributes"] as? [String: Any])?["name"] as? String }
        #expect(names == names.sorted(by: >))
        let geometry = try #require(features.first?["geometry"] as? [String: Any])
        #expect(geometry["x"] is Double && geometry["y"] is Double)

        let noGeometry = try Self.json([Self.cities, "--object-ids", "1", "--no-return-geometry", "--format", "esrijson"])
        let feature = try #require((noGeometry["features"] as? [[String: Any]])?.first)
        #expect(feature.keys.sorted() == ["attributes"])
        #expect((feature["attributes"] as? [String: Any])?["name"] as? String == "Vatican City")
    }

    @Test func schemaFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("geosieve-query-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fieldsFile = directory.appendingPathComponent("fields.json")
        // fid as the object ID, gdp_md_est as a BigInteger; other properties are dropped.
        try Data(
            #"[{"name":"fid","type":"esriFieldTypeOID"},{"name":"pop_est","type":"esriFieldTypeDouble"},{"name":"gdp_md_est","type":"esriFieldTypeBigInteger"},{"name":"name","type":"esriFieldTypeString","length":50}]"#
                .utf8
        ).write(to: fieldsFile)
        let result = try Self.json([
            Self.countries, "--schema", fieldsFile.path, "--where", "pop_est > 100000000", "--no-return-geometry", "--format", "esrijson",
            "--limit", "1",
        ])
        #expect(result["objectIdFieldName"] as? String == "fid")
        let fields = try #require(result["fields"] as? [[String: Any]])
        #expect(
            fields.map { $0["type"] as? String } == [
                "esriFieldTypeOID", "esriFieldTypeDouble", "esriFieldTypeBigInteger", "esriFieldTypeString",
            ])
        let attributes = try #require((result["features"] as? [[String: Any]])?.first?["attributes"] as? [String: Any])
        #expect(attributes["fid"] as? Int == 5)
        #expect(attributes["continent"] == nil)
        #expect(attributes["gdp_md_est"] as? Int == 21_433_226)
        // An unknown field of the schema-loaded table.
        let line = try Self.failure([Self.countries, "--schema", fieldsFile.path, "--where", "continent = 'Asia'"], status: 2)
        #expect(line.hasPrefix("error: where clause error at 1:1: unknown field \"continent\""))
        let badFields = directory.appendingPathComponent("bad.json")
        try Data(#"[{"name":"x","type":"esriFieldTypeNope"}]"#.utf8).write(to: badFields)
        let bad = try Self.failure([Self.countries, "--schema", badFields.path], status: 2)
        #expect(bad.contains("unknown field type \"esriFieldTypeNope\""))
    }

    @Test func badWhereClause() throws {
        let line = try Self.failure([Self.countries, "--where", "pop_est > 1 AND nmae = 'x'"], status: 2)
        #expect(line == #"error: where clause error at 1:17: unknown field "nmae" (did you mean "name"?)"#)
        let syntax = try Self.failure([Self.countries, "--where", "pop_est >", "--return", "count"], status: 2)
        #expect(syntax.hasPrefix("error: where clause error at 1:"))
        let unterminated = try Self.failure([Self.countries, "--where", "name = 'Fra"], status: 2)
        #expect(unterminated.hasPrefix("error: where clause error at 1:8:"))
    }

    @Test func badArguments() throws {
        let outFields = try Self.failure([Self.countries, "--out-fields", "name,nmae"], status: 2)
        #expect(outFields == #"error: unknown field "nmae" in --out-fields (did you mean "name"?)"#)
        let orderField = try Self.failure([Self.countries, "--order-by", "contnent DESC"], status: 2)
        #expect(orderField == #"error: --order-by: unknown field "contnent" in orderByFields (did you mean "continent"?)"#)
        let orderSyntax = try Self.failure([Self.countries, "--order-by", "name DOWN"], status: 2)
        #expect(orderSyntax == #"error: --order-by: expected ASC or DESC after "name" in orderByFields, not "DOWN""#)
        #expect(try Self.failure([Self.countries, "--limit", "-1"], status: 2) == "error: --limit must not be negative, not -1")
        #expect(try Self.failure([Self.countries, "--offset=-3"], status: 2) == "error: --offset must not be negative, not -3")
        let mode = try Self.failure([Self.countries, "--return", "rows"], status: 2)
        #expect(mode.contains("'rows'") && mode.contains("--return"))
        _ = try Self.failure([Self.countries, "--format", "kml"], status: 2)
        _ = try Self.failure([Self.countries, "--collation", "icu"], status: 2)
        _ = try Self.failure([Self.countries, "--limit", "ten"], status: 2)
        let ids = try Self.failure([Self.countries, "--object-ids", "1,x"], status: 2)
        #expect(ids == #"error: --object-ids: "x" is not an integer object ID"#)
    }

    @Test func unreadableFiles() throws {
        let missing = try Self.failure(["Tests/Fixtures/no-such-file.geojson"], status: 1)
        #expect(missing == "error: cannot read Tests/Fixtures/no-such-file.geojson: no such file")
        let directory = try Self.failure(["Tests/Fixtures", "--return", "count"], status: 1)
        #expect(directory == "error: cannot read Tests/Fixtures: is a directory")
        let schema = try Self.failure([Self.countries, "--schema", "no-such-fields.json"], status: 1)
        #expect(schema == "error: --schema: cannot read no-such-fields.json: no such file")
    }

    @Test func unparsableFile() throws {
        // A file that reads but is not JSON is bad input: status 2.
        let line = try Self.failure(["Package.swift", "--return", "count"], status: 2)
        #expect(line.hasPrefix("error: Package.swift: invalid JSON at line 1, column 1 (byte offset 0)"))
    }
}
