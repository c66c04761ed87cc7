// Needs the RemoteSources trait (on by default).
#if RemoteSources
import Foundation
import SieveCQL
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import SievePostGIS
import SieveSQL
import SieveTestSupport
import Testing

/// The PostGIS source against the in-memory table, on a real PostgreSQL + PostGIS server
/// (`Scripts/postgis-server.sh`, which `.ci/run` starts; the URL comes in `GEOSIEVE_POSTGIS_URL`).
///
/// The Natural Earth fixtures are written to the server (the export), read back (the import)
/// and queried both ways: the CQL2 evaluation oracle's 724 filters (whose expected IDs come from
/// cql2-rs and Shapely: with the two engines, three answers that must agree) and thousands of
/// seeded random where clauses must select the same object IDs in memory and through PostGIS —
/// a thousand of them, in the subset SQLite shares, also in SQLite; counts, extents, ordered pages
/// and spatial filters must be equal.
///
/// Documented differences, which the clauses avoid or the test expects: PostgreSQL refuses
/// nothing GeoSieve accepts except what `CompiledWhereClause.postgreSQL` lists as refused
/// (CASEI, ACCENTI, UPPER, LOWER, CONCAT, SUBSTRING, rounding doubles, date arithmetic, casts,
/// the nocase collation) — such filters are checked to be refused, not run.
@Suite("PostGIS source against the in-memory table", .tags(.postgis), .enabled(if: PostGISServer.url != nil, "no PostGIS server (GEOSIEVE_POSTGIS_URL)"))
struct PostGISDifferentialTests {
    @Test func importGivesBackTheExportedTables() async throws {
        let fixture = try await PostGISServer.fixture()
        for (layer, table) in fixture.tables {
            let source = try #require(fixture.sources[layer])
            let back = try await source.readTable()
            #expect(back.count == table.featureCount)
            #expect(back.schema.fields.map(\.name) == table.schema.fields.map(\.name))
            for row in 0..<table.count {
                let id = table.objectID(row: row)
                let other = try #require(back.row(forObjectID: id))
                for (i, field) in table.schema.fields.enumerated() {
                    #expect(back.value(row: other, fieldIndex: i) == table.value(row: row, fieldIndex: i), "\(layer) \(id) \(field.name)")
                }
                #expect(back.geometry(row: other) == table.geometry(row: row), "\(layer) \(id) geometry")
            }
        }
    }

    @Test func cql2OracleFiltersSelectTheSameFeatures() async throws {
        let fixture = try await PostGISServer.fixture()
        var refused: [String] = []
        var overflowed: [String] = []
        var compared = 0
        for line in try PostGISServer.oracleLines() {
            let table = try #require(fixture.tables[line.layer]), source = try #require(fixture.sources[line.layer])
            let query = QueryParameters(filter: try CQL2Filter(line.text))
            let memory = try table.queryObjectIDs(query)
            #expect(memory == line.ids, "\(line.id) in memory: \(line.text)")
            do {
                let database = try await source.queryObjectIDs(query)
                #expect(database == line.ids, "\(line.id) through PostGIS: \(line.text)")
                compared += 1
            } catch let error as PostgreSQLRenderingError {
                refused.append("\(line.id): \(error.message)")
                // Only the documented refusals: CQL2's folding functions, the remainder of doubles.
                let documented = ["CASEI:", "ACCENTI:", "MOD: the remainder of doubles"]
                #expect(documented.contains { error.message.hasPrefix($0) }, "\(line.id) refused: \(error.message)")
            } catch let error as PostGISError {
                // The documented difference: a double operation that overflows is PostgreSQL's
                // error where GeoSieve gives NULL.
                overflowed.append(line.id)
                #expect(error.message.hasSuffix("value out of range: overflow"), "\(line.id): \(error.message)")
                #expect(line.text.contains("*") || line.text.contains("^") || line.text.contains("+"), "\(line.id): \(line.text)")
            }
        }
        #expect(compared > 600, "only \(compared) of the oracle's filters ran through PostGIS; refused: \(refused.prefix(5))")
        #expect(overflowed.count < 20, "overflow errors: \(overflowed)")
    }

    /// The predicates of the CQL2 standard's conformance tests (`Tests/Fixtures/cql2/ats`) on its
    /// test dataset, in memory and through PostGIS: the same features, or a documented refusal
    /// (CASEI, ACCENTI). The places' `date` column is a PostgreSQL `date` (a date-only field),
    /// so the temporal functions take it as whole days there too.
    @Test func cql2ConformancePredicatesSelectTheSameFeatures() async throws {
        let url = try #require(PostGISServer.url)
        let fixture = try await PostGISServer.fixture()
        let places = try FeatureTable.load(
            geoJSON: String(contentsOf: PostGISServer.fixturesDirectory.appendingPathComponent("cql2/ats/ne_110m_populated_places_simple.geojson"), encoding: .utf8),
            schema: [
                Field(name: "fid", type: .oid), Field(name: "name", type: .string), Field(name: "nameascii", type: .string),
                Field(name: "pop_max", type: .integer), Field(name: "pop_min", type: .integer), Field(name: "pop_other", type: .integer),
                Field(name: "date", type: .dateOnly), Field(name: "start", type: .date), Field(name: "end", type: .date),
                Field(name: "boolean", type: .smallInteger),
            ])
        let rivers = try FeatureTable.load(
            contentsOf: PostGISServer.fixturesDirectory.appendingPathComponent("cql2/ats/ne_110m_rivers_lake_centerlines.geojson"))
        var tables = ["ne_110m_admin_0_countries": try #require(fixture.tables["naturalearth_lowres"])]
        var sources = ["ne_110m_admin_0_countries": try #require(fixture.sources["naturalearth_lowres"])]
        for (name, table) in [("ne_110m_populated_places_simple", places), ("ne_110m_rivers_lake_centerlines", rivers)] {
            var options = try PostGISConnectionOptions(url: url + "?table=" + name)
            options.table = name
            tables[name] = table
            sources[name] = try await PostGISFeatureSource.write(table, to: options, replace: true)
        }
        // The two written here are closed when done (a connection must be).
        let written = [sources["ne_110m_populated_places_simple"], sources["ne_110m_rivers_lake_centerlines"]].compactMap { $0 }
        do {
            try await Self.compareConformancePredicates(tables: tables, sources: sources)
        } catch {
            for source in written { await source.close() }
            throw error
        }
        for source in written { await source.close() }
    }

    private static func compareConformancePredicates(
        tables: [String: FeatureTable], sources: [String: PostGISFeatureSource]
    ) async throws {
        let placesSource = try #require(sources["ne_110m_populated_places_simple"])
        #expect(placesSource.table.schema.field(named: "date")?.type == .dateOnly)
        var compared = 0, refused = 0
        let cases = try CQL2ConformanceCase.read(
            String(contentsOf: PostGISServer.fixturesDirectory.appendingPathComponent("cql2/ats/ats.jsonl"), encoding: .utf8))
        for test in cases {
            let table = try #require(tables[test.collection]), source = try #require(sources[test.collection])
            let query = QueryParameters(filter: try CQL2Filter(test.filter))
            let memory = try table.queryObjectIDs(query)
            do {
                #expect(try await source.queryObjectIDs(query) == memory, "\(test)")
                compared += 1
            } catch let error as PostgreSQLRenderingError {
                refused += 1
                #expect(["CASEI:", "ACCENTI:"].contains { error.message.hasPrefix($0) }, "\(test) refused: \(error.message)")
            }
        }
        #expect(compared + refused == 351)
        #expect(refused < 25, "\(refused) refused")
    }

    /// Date-only fields through PostgreSQL: a `date` column, its days compared with literals,
    /// with other days and with itself as in memory; a day against an instant field needs date
    /// arithmetic, which is refused.
    @Test func dateOnlyTemporalFunctionsSelectTheSameFeatures() async throws {
        let url = try #require(PostGISServer.url)
        let text = """
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{"OBJECTID":1,"DAY":"2022-04-16","LATER":"2022-04-17","AT":"2022-04-16T00:00:00Z"},"geometry":{"type":"Point","coordinates":[1,1]}},
            {"type":"Feature","properties":{"OBJECTID":2,"DAY":"2022-04-17","LATER":"2022-04-17","AT":"2022-04-16T10:13:19Z"},"geometry":{"type":"Point","coordinates":[2,2]}},
            {"type":"Feature","properties":{"OBJECTID":3,"DAY":null,"LATER":"2022-04-18","AT":null},"geometry":{"type":"Point","coordinates":[3,3]}}]}
            """
        let table = try FeatureTable.load(
            geoJSON: text,
            schema: [
                Field(name: "OBJECTID", type: .oid), Field(name: "DAY", type: .dateOnly), Field(name: "LATER", type: .dateOnly),
                Field(name: "AT", type: .date),
            ])
        var options = try PostGISConnectionOptions(url: url + "?table=days")
        options.table = "days"
        let source = try await PostGISFeatureSource.write(table, to: options, replace: true)
        do {
            #expect(source.table.schema.fields.map(\.type) == [.oid, .dateOnly, .dateOnly, .date])
            for filter in [
                "T_EQUALS(DAY, DATE('2022-04-16'))", "T_AFTER(DAY, TIMESTAMP('2022-04-16T23:59:59.999Z'))",
                "T_MEETS(DAY, LATER)", "T_BEFORE(DAY, LATER)", "T_EQUALS(DAY, LATER)", "T_INTERSECTS(DAY, LATER)",
                "T_DISJOINT(INTERVAL(DAY, DAY), LATER)", "T_DURING(INTERVAL('2022-04-16T01:00:00Z', '2022-04-16T02:00:00Z'), DAY)",
                "DAY = DATE('2022-04-16')", "DAY < LATER",
            ] {
                let query = QueryParameters(filter: try CQL2Filter(filter))
                #expect(try await source.queryObjectIDs(query) == table.queryObjectIDs(query), "\(filter)")
            }
            await #expect(throws: PostgreSQLRenderingError.self) {
                try await source.queryObjectIDs(QueryParameters(filter: try CQL2Filter("T_BEFORE(DAY, AT)")))
            }
        } catch {
            await source.close()
            throw error
        }
        await source.close()
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func randomWhereClausesSelectTheSameFeatures(seed: UInt64) async throws {
        let fixture = try await PostGISServer.fixture()
        var clauses = RandomClauses(seed: seed)
        let table = try #require(fixture.tables["naturalearth_lowres"]), source = try #require(fixture.sources["naturalearth_lowres"])
        var nonEmpty = 0
        for _ in 0..<500 {
            let clause = clauses.condition(depth: 3)
            let query = QueryParameters(whereClause: clause)
            let memory: [Int64]
            do {
                memory = try table.queryObjectIDs(query)
            } catch {
                Issue.record("\(clause) does not run in memory: \(error)")
                continue
            }
            if !memory.isEmpty { nonEmpty += 1 }
            do {
                let database = try await source.queryObjectIDs(query)
                #expect(database == memory, "\(clause)")
            } catch let error as PostgreSQLRenderingError {
                Issue.record("\(clause) refused: \(error.message)")
            }
        }
        #expect(nonEmpty > 100)
    }

    /// The SQL subset the three engines share: the same seeded clauses in memory, through
    /// PostGIS and in SQLite (the fixture copied into an in-memory table, LIKE case-sensitive).
    @Test(arguments: [UInt64(11), 12])
    func randomClausesAgreeAcrossThreeEngines(seed: UInt64) async throws {
        let fixture = try await PostGISServer.fixture()
        let table = try #require(fixture.tables["naturalearth_lowres"]), source = try #require(fixture.sources["naturalearth_lowres"])
        let sqlite = try SQLiteTestDatabase()
        try sqlite.run("PRAGMA case_sensitive_like = ON")
        try sqlite.run("CREATE TABLE countries (fid INTEGER, pop_est REAL, continent TEXT, name TEXT, iso_a3 TEXT, gdp_md_est INTEGER)")
        var rows: [[SQLiteTestCell]] = []
        for row in table.liveRows {
            rows.append(
                ["fid", "pop_est", "continent", "name", "iso_a3", "gdp_md_est"].map { field in
                    switch table.value(row: row, field: field) {
                    case .integer(let x): .integer(x)
                    case .double(let x): .real(x)
                    case .string(let s): .text(s)
                    default: .null
                    }
                })
        }
        try sqlite.run("INSERT INTO countries VALUES (?, ?, ?, ?, ?, ?)", parameters: rows)
        var clauses = RandomClauses(seed: seed, sqlite: true)
        for _ in 0..<500 {
            let clause = clauses.condition(depth: 3)
            let query = QueryParameters(whereClause: clause)
            let memory = try table.queryObjectIDs(query)
            let database = try await source.queryObjectIDs(query)
            let lite = try sqlite.run("SELECT fid FROM countries WHERE \(RandomClauses.forSQLite(clause)) ORDER BY fid").compactMap { row -> Int64? in
                if case .integer(let x) = row.first { return x }
                return nil
            }
            #expect(database == memory, "PostGIS: \(clause)")
            #expect(lite == memory, "SQLite: \(clause)")
        }
    }

    @Test func pagesCountsExtentsAndSpatialFiltersAgree() async throws {
        let fixture = try await PostGISServer.fixture()
        let table = try #require(fixture.tables["naturalearth_lowres"]), source = try #require(fixture.sources["naturalearth_lowres"])
        var queries: [QueryParameters] = []
        queries.append(QueryParameters(whereClause: "pop_est > 1e7", orderBy: [SortField("continent"), SortField("pop_est", ascending: false)]))
        queries.append(QueryParameters(whereClause: "continent <> 'Asia'", outFields: ["name", "pop_est"], orderBy: [SortField("name")], resultOffset: 10, maxFeatures: 7))
        queries.append(QueryParameters(objectIDs: [3, 5, 8, 1000], returnGeometry: false))
        let franceRow = try #require(table.row(forObjectID: 44))
        let france = try #require(table.geometry(row: franceRow))
        for relationship in [SpatialRelationship.intersects, .touches, .disjoint, .within, .contains, .envelopeIntersects, .relate(pattern: "F***1****")] {
            queries.append(QueryParameters(geometry: france, spatialRelationship: relationship))
        }
        queries.append(QueryParameters(geometry: .envelope(Envelope(xmin: -1e6, ymin: 4e6, xmax: 2e6, ymax: 7e6)), inSpatialReference: SpatialReference(wkid: 3857)))
        queries.append(QueryParameters(whereClause: "gdp_md_est < 20000", outSpatialReference: SpatialReference(wkid: 3857)))
        for query in queries {
            let memory = try table.queryFeatures(query), database = try await source.queryFeatures(query)
            #expect(database.rows.map { database.table.objectID(row: $0) } == memory.rows.map { memory.table.objectID(row: $0) }, "\(query.whereClause)")
            #expect(database.exceededTransferLimit == memory.exceededTransferLimit)
            #expect(database.fieldIndices.map { database.table.schema.fields[$0].name } == memory.fieldIndices.map { memory.table.schema.fields[$0].name })
            for position in memory.rows.indices {
                #expect(database.geometry(at: position) == memory.geometry(at: position))
            }
            #expect(try await source.queryFeatureCount(query) == (try table.queryFeatureCount(query)))
            let (count, extent) = try await source.queryExtent(query)
            let expected = try table.queryExtent(query)
            #expect(count == expected.count)
            #expect(extent == expected.extent)
        }
    }

    @Test func badQueriesAreErrorsNotCrashes() async throws {
        let fixture = try await PostGISServer.fixture()
        let source = try #require(fixture.sources["naturalearth_lowres"])
        await #expect(throws: WhereClauseError.self) { try await source.queryFeatureCount(QueryParameters(whereClause: "popu > 1")) }
        await #expect(throws: CQL2Error.self) { try await source.queryFeatureCount(QueryParameters(filter: try CQL2Filter("popu > 1"))) }
        await #expect(throws: (any Error).self) { try await source.queryFeatures(QueryParameters(orderBy: [SortField("nope")])) }
        // A hostile string is a value: it selects nothing and the table is still there.
        let hostile = "x'; DROP TABLE \"naturalearth_lowres\"; --"
        #expect(try await source.queryFeatureCount(QueryParameters(whereClause: "name = '\(hostile.replacingOccurrences(of: "'", with: "''"))'")) == 0)
        #expect(try await source.queryFeatureCount(QueryParameters()) == 177)
        await #expect(throws: PostGISError.self) {
            var options = try PostGISConnectionOptions(url: try #require(PostGISServer.url))
            options.table = "no_such_table"
            _ = try await PostGISFeatureSource.open(options)
        }
    }
}

/// Seeded random where clauses over the countries fixture (fields fid, pop_est, continent,
/// name, iso_a3, gdp_md_est), within what PostgreSQL renders alike. With `sqlite`, only what
/// SQLite (with `PRAGMA case_sensitive_like = ON`) also answers alike, written in its words:
/// no integer overflow (SQLite turns it into a double), no functions it lacks or spells
/// differently except `CHAR_LENGTH` (its `length`).
struct RandomClauses {
    var generator: SeededGenerator
    let sqlite: Bool

    static let continents = ["Asia", "Africa", "Europe", "Oceania", "North America", "South America", "Antarctica", "Seven seas (open ocean)"]
    static let names = ["France", "Fiji", "Chile", "Côte d'Ivoire", "United States of America", "Brazil", "N. Cyprus", "eSwatini"]

    init(seed: UInt64, sqlite: Bool = false) {
        generator = SeededGenerator(seed: seed)
        self.sqlite = sqlite
    }

    mutating func pick<T>(_ items: [T]) -> T { items[Int(generator.next() % UInt64(items.count))] }

    static func quoted(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    /// The clause in SQLite's words.
    static func forSQLite(_ clause: String) -> String { clause.replacingOccurrences(of: "CHAR_LENGTH(", with: "length(") }

    mutating func number() -> String {
        switch generator.next() % 6 {
        case 0: return String(Int64(generator.next() % 200_000_000))
        case 1: return String(Double(generator.next() % 2_000_000) / 10 + 0.5)
        case 2: return "\(generator.next() % 100)e6"
        case 3: return sqlite ? "2147483647" : "9223372036854775807"
        case 4: return "-\(generator.next() % 1000)"
        default: return String(generator.next() % 50_000)
        }
    }

    mutating func numeric(depth: Int) -> String {
        let field = pick(["pop_est", "gdp_md_est", "fid"])
        guard depth > 0 else { return generator.next() % 3 == 0 ? number() : field }
        switch generator.next() % 9 {
        case 0: return "(\(numeric(depth: depth - 1)) + \(numeric(depth: depth - 1)))"
        case 1: return "(\(numeric(depth: depth - 1)) - \(number()))"
        case 2: return "(\(field) * \(pick(sqlite ? ["2", "1000", "0.5", "-3"] : ["2", "1000000000000", "0.5", "-3", "9223372036854775807"])))"
        case 3: return "(\(field) / \(pick(["7", "0", "2.5", "-1", "fid"])))"
        case 4: return "ABS(\(numeric(depth: depth - 1)))"
        case 5:
            if sqlite { return "(\(pick(["gdp_md_est", "fid"])) / \(pick(["3", "-2"])))" }
            return "MOD(\(pick(["gdp_md_est", "fid"])), \(pick(["7", "0", "-1", "fid"])))"
        case 6: return "CHAR_LENGTH(\(pick(["name", "continent", "iso_a3"])))"
        case 7: return "COALESCE(\(field), 0)"
        default:
            if sqlite { return "NULLIF(\(field), \(number()))" }
            return pick(["LOG10(pop_est + 1)", "SIGN(gdp_md_est - 5000)", "CEILING(pop_est / 1000)", "FLOOR(gdp_md_est)", "POSITION('a' IN name)"])
        }
    }

    mutating func condition(depth: Int) -> String {
        if depth > 0 {
            switch generator.next() % 7 {
            case 0: return "(\(condition(depth: depth - 1)) AND \(condition(depth: depth - 1)))"
            case 1: return "(\(condition(depth: depth - 1)) OR \(condition(depth: depth - 1)))"
            case 2: return "NOT (\(condition(depth: depth - 1)))"
            default: break
            }
        }
        let operators = ["=", "<>", "<", "<=", ">", ">="]
        switch generator.next() % 10 {
        case 0, 1, 2:
            return "\(numeric(depth: 1)) \(pick(operators)) \(number())"
        case 3:
            return "continent \(pick(operators)) \(Self.quoted(pick(Self.continents)))"
        case 4:
            let pattern = pick(["%a%", "A%", "%ia", "_r%", "Fr_nce", "%'%", "% %", "%.%", "C%d%"])
            return "name \(generator.next() % 3 == 0 ? "NOT " : "")LIKE \(Self.quoted(pattern))"
        case 5:
            let count = generator.next() % 2 == 0 ? 3 : 9
            var items: [String] = []
            for _ in 0..<count { items.append(Self.quoted(pick(Self.names + Self.continents))) }
            return "\(pick(["name", "continent"])) \(generator.next() % 2 == 0 ? "NOT " : "")IN (\(items.joined(separator: ", ")))"
        case 6:
            var items: [String] = []
            for _ in 0..<(generator.next() % 2 == 0 ? 2 : 10) { items.append(String(generator.next() % 200)) }
            return "fid IN (\(items.joined(separator: ", ")))"
        case 7:
            return "\(pick(["pop_est", "gdp_md_est"])) \(generator.next() % 2 == 0 ? "NOT " : "")BETWEEN \(number()) AND \(number())"
        case 8:
            return "\(pick(["NULLIF(gdp_md_est, 0)", "name", "CASE WHEN pop_est > 1e7 THEN fid END"])) IS \(generator.next() % 2 == 0 ? "NOT " : "")NULL"
        default:
            return "TRIM(\(pick(["name", "iso_a3"]))) \(pick(operators)) \(Self.quoted(pick(Self.names + ["-99", "FRA", "N"])))"
        }
    }
}

/// The test server and the fixtures written to it, once per test run.
enum PostGISServer {
    static let url: String? = {
        let value = ProcessInfo.processInfo.environment["GEOSIEVE_POSTGIS_URL"]
        if value == nil {
            print("note: GEOSIEVE_POSTGIS_URL is not set; the PostGIS tests are skipped (Scripts/postgis-server.sh starts a server)")
        }
        return value
    }()

    struct Fixture: Sendable {
        let tables: [String: FeatureTable]
        let sources: [String: PostGISFeatureSource]
    }

    private static let shared = Task<Fixture, any Error> {
        guard let url else { throw PostGISError("no GEOSIEVE_POSTGIS_URL") }
        var tables: [String: FeatureTable] = [:]
        var sources: [String: PostGISFeatureSource] = [:]
        for layer in ["naturalearth_lowres", "naturalearth_cities"] {
            let table = try FeatureTable.load(contentsOf: fixturesDirectory.appendingPathComponent(layer + ".geojson"))
            var options = try PostGISConnectionOptions(url: url + "?table=" + layer)
            options.table = layer
            tables[layer] = table
            sources[layer] = try await PostGISFeatureSource.write(table, to: options, replace: true)
        }
        return Fixture(tables: tables, sources: sources)
    }

    static func fixture() async throws -> Fixture { try await shared.value }

    struct OracleLine: Decodable {
        let id: String
        let layer: String
        let text: String
        let ids: [Int64]
    }

    static func oracleLines() throws -> [OracleLine] {
        let text = try String(contentsOf: fixturesDirectory.appendingPathComponent("cql2/eval_oracle.jsonl"), encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONDecoder().decode(OracleLine.self, from: Data($0.utf8)) }
    }

    /// `Tests/Fixtures`.
    static let fixturesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
}
#endif
