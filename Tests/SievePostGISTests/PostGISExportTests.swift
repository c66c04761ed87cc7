#if RemoteSources
import Foundation
import Logging
import PostgresNIO
import SieveColumns
import SieveFeatures
import SieveGeometry
import SievePostGIS
import SieveTestSupport
import Testing

/// The export through `COPY … FROM STDIN`: values the text format must escape or spell out come
/// back as they went, read by the import; and what the catalogue says of a table becomes its
/// schema.
@Suite("Export into PostGIS through COPY, and the catalogue read back", .tags(.postgis), .enabled(if: PostGISServer.url != nil, "no PostGIS server (GEOSIEVE_POSTGIS_URL)"))
struct PostGISExportTests {
    @Test func hostileValuesComeBackAsTheyWent() async throws {
        let url = try #require(PostGISServer.url)
        let texts: [String?] = [
            "tab\there", "new\nline", "carriage\rreturn", "back\\slash", "\\N", "", nil, "ünïcødé ✓ 北京", "\"quoted\" 'single'", "end\\",
        ]
        let n = texts.count
        var validity = ValidityBitmap(count: n, allValid: true)
        validity.set(3, valid: false)
        let doubles: [Double] = [.nan, .infinity, -.infinity, 0.1, -0.0, 1e300, 5e-324, 123456789.125, 2, 3]
        // The first two overflow a 64-bit sum.
        let big: [Int64] = [Int64.max, Int64.max - 5, 0, -1, 1 << 53 + 1, 42, 7, 8, 9, Int64.min + 1]
        let dates: [Int64] = [0, -86_400_000 * 365 * 80 + 123, 1_700_000_000_999, 951_782_400_000, 1, 2, 3, 4, 5, 6]
        let days: [Int64] = (0..<Int64(n)).map { $0 * 86_400_000 - 86_400_000 * 3 }
        let schema = try Schema(
            fields: [
                Field(name: "oid", type: .oid), Field(name: "label", type: .string), Field(name: "x", type: .double),
                Field(name: "big", type: .bigInteger), Field(name: "stamp", type: .date), Field(name: "day", type: .dateOnly),
            ],
            objectIdFieldName: "oid", geometryType: .polygon, spatialReference: SpatialReference(wkid: 3857))
        let geometries: [Geometry?] = try [
            Geometry(wkt: "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 2 4, 4 4, 2 2))"), nil,
            Geometry(wkt: "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 0)), ((5 5, 6 5, 6 6, 5 5)))"),
        ] + Array(repeating: try Geometry(wkt: "POLYGON ((1e7 -1e7, 1.5e7 -1e7, 1e7 -0.5e7, 1e7 -1e7))"), count: n - 3)
        let table = try FeatureTable(
            schema: schema,
            columns: [
                .integer(Int64Column(values: (1...Int64(n)).map { $0 })), .string(StringColumn(texts)),
                .double(DoubleColumn(values: doubles, validity: validity)), .integer(Int64Column(values: big)),
                .date(Int64Column(values: dates)), .date(Int64Column(values: days)),
            ],
            geometries: geometries)
        var options = try PostGISConnectionOptions(url: url + "?table=copy_hostile")
        options.table = "copy_hostile"
        let source = try await PostGISFeatureSource.write(table, to: options, replace: true)
        let back = try await source.readTable()
        // Statistics the database groups (dates' minimums and maximums, integer sums within 64
        // bits) and one it cannot sum in 64 bits (GeoSieve then sums it as doubles): each as
        // the table in memory answers it.
        for text in [
            "count:oid:n,min:stamp:first,max:stamp:last,min:day:d0,max:day:d1,count:label:labels", "sum:oid:s,avg:oid:a,max:big:b",
            "sum:big:s,avg:big:a", "avg:x:mean,count:x:n",
        ] {
            let statistics = try StatisticDefinition.list(text)
            for groups in [[], ["day"], ["label"]] {
                let request = QueryRequest(answer: .statistics(StatisticsRequest(statistics: statistics, groupByFields: groups)))
                let definition = StatisticsQueryParameters(statistics: statistics, groupByFields: groups)
                // Grouped by the database unless a double is aggregated (or grouped by).
                #expect((try FeatureTable.preaggregation(definition, schema: schema) != nil) == !text.contains(":x:"), "\(text)")
                guard case .values(let fromDatabase) = try await source.query(request), case .values(let fromMemory) = try table.answer(request)
                else {
                    Issue.record("\(text): not values")
                    continue
                }
                #expect(fromDatabase.esriJSON == fromMemory.esriJSON, "\(text) grouped by \(groups)")
            }
        }
        await source.close()
        #expect(back.count == n)
        for row in 0..<n {
            for (i, field) in schema.fields.enumerated() {
                let (sent, read) = (table.value(row: row, fieldIndex: i), back.value(row: row, fieldIndex: i))
                if case .double(let a) = sent, a.isNaN {
                    guard case .double(let b) = read else {
                        Issue.record("row \(row): NaN came back as \(read)")
                        continue
                    }
                    #expect(b.isNaN)
                } else {
                    #expect(read == sent, "row \(row) \(field.name)")
                }
            }
            #expect(back.geometry(row: row) == table.geometry(row: row), "row \(row) geometry")
        }
    }

    @Test("opening a table reads only its own catalogue: another session replacing another table, uncommitted, does not hold it up; Z and MULTI types read")
    func openingIgnoresOtherTablesDDL() async throws {
        let url = try #require(PostGISServer.url)
        let options = try PostGISConnectionOptions(url: url + "?table=lock_mine")
        let configuration = PostgresConnection.Configuration(
            host: options.host, port: options.port, username: options.user, password: options.password, database: options.database, tls: .disable)
        let holder = try await PostgresConnection.connect(configuration: configuration, id: 12, logger: Logger(label: "test"))
        for sql in [
            "DROP TABLE IF EXISTS lock_mine", "DROP TABLE IF EXISTS lock_other", "DROP TABLE IF EXISTS lock_multi",
            "CREATE TABLE lock_other (id int PRIMARY KEY, geom geometry(Point, 4326))",
            "CREATE TABLE lock_mine (id int PRIMARY KEY, geom geometry(PointZ, 4326))",
            "CREATE TABLE lock_multi (id int PRIMARY KEY, geom geometry(MultiPolygon, 3857))",
            "INSERT INTO lock_other VALUES (1, 'SRID=4326;POINT(1 2)')", "CREATE INDEX ON lock_other USING GIST (geom)",
            "ALTER TABLE lock_other ADD CONSTRAINT positive CHECK (id > 0)",
            // What an export replacing the table does, left uncommitted.
            "BEGIN", "DROP TABLE lock_other",
            "CREATE TABLE lock_other (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, geom geometry(Geometry, 4326))",
        ] {
            try await holder.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "test"))
        }
        // Bounded, so that a wait fails the test instead of hanging it: after 20 s the other
        // session rolls back, which frees a waiting open, and the test fails.
        let opened = try await withThrowingTaskGroup(of: PostGISTable?.self) { group in
            group.addTask {
                try await PostGISFeatureSource.using(options) { $0.table }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(20))
                return nil
            }
            let first = try await group.next() ?? nil
            try await holder.query("ROLLBACK", logger: Logger(label: "test"))
            group.cancelAll()
            return first
        }
        let mine = try #require(opened, "opening lock_mine waited for the other session's DROP and CREATE TABLE")
        #expect(mine.schema.geometryType == .point && mine.srid == 4326 && mine.geometryTypeName == "POINT")
        let multi = try await PostGISFeatureSource.using(try PostGISConnectionOptions(url: url + "?table=lock_multi")) { $0.table }
        #expect(multi.schema.geometryType == .polygon && multi.srid == 3857 && multi.geometryTypeName == "MULTIPOLYGON")
        try await holder.close()
    }

    @Test func theCatalogueGivesNullabilityLengthsAliasesDomainsAndTheDescription() async throws {
        let url = try #require(PostGISServer.url)
        _ = try await PostGISServer.fixture()
        let options = try PostGISConnectionOptions(url: url + "?table=described")
        let configuration = PostgresConnection.Configuration(
            host: options.host, port: options.port, username: options.user, password: options.password, database: options.database, tls: .disable)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 9, logger: Logger(label: "test"))
        for sql in [
            "DROP TABLE IF EXISTS described", "DROP TYPE IF EXISTS road_class",
            "CREATE TYPE road_class AS ENUM ('motorway', 'primary', 'track')",
            "CREATE TABLE described (gid integer PRIMARY KEY, code varchar(12) NOT NULL, kind road_class, note text, lanes int2, geom geometry(LineString, 4326))",
            "COMMENT ON TABLE described IS 'Roads, as surveyed'", "COMMENT ON COLUMN described.code IS 'Road code'",
            "COMMENT ON COLUMN described.gid IS 'Road ID'",
            "INSERT INTO described VALUES (1, 'A1', 'motorway', NULL, 4, 'SRID=4326;LINESTRING(0 0, 1 1)'), (2, 'B7', 'track', 'x', NULL, NULL)",
        ] {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "test"))
        }
        try await connection.close()
        let source = try await PostGISFeatureSource.open(options)
        defer { Task { await source.close() } }
        let schema = source.schema
        #expect(source.table.description == "Roads, as surveyed")
        #expect(schema.fields.map(\.name) == ["gid", "code", "kind", "note", "lanes"])
        #expect(schema.fields.map(\.alias) == ["Road ID", "Road code", "kind", "note", "lanes"])
        #expect(schema.fields.map(\.nullable) == [false, false, true, true, true])
        #expect(schema.fields.map(\.length) == [nil, 12, nil, nil, nil])
        #expect(schema.fields[4].type == .smallInteger)
        #expect(
            schema.fields[2].domain
                == .codedValue(name: "road_class", codes: ["motorway", "primary", "track"].map { CodedValue(name: $0, code: .string($0)) }))
        // The enum's values read as strings, and select as strings.
        #expect(try await source.queryFeatureCount(QueryParameters(whereClause: "kind = 'track'")) == 1)
    }
}
#endif
