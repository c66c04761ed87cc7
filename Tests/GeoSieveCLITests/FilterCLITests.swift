import Foundation
import Testing
import SieveTestSupport

/// `geosieve query --filter` end to end: CQL2 text and JSON, errors, the antimeridian box.
/// Expected counts come from the fixture read by Foundation's JSON parser.
@Suite("geosieve query --filter (CQL2)", .tags(.cli))
struct FilterCLITests {
    static let countries = SpatialCLITests.countries

    func count(_ arguments: [String]) throws -> Int? {
        try SpatialCLITests.json(["query", Self.countries, "--return", "count"] + arguments)["count"] as? Int
    }

    func ids(_ arguments: [String]) throws -> Set<Int> {
        let document = try SpatialCLITests.json(["query", Self.countries, "--return", "ids"] + arguments)
        return Set(document["objectIds"] as? [Int] ?? [])
    }

    @Test func textAndJSONFiltersCountAlike() throws {
        let records = try LayerCLITests.countryRecords()
        let expected = records.filter { $0.continent == "Africa" && $0.population > 5e7 }.count
        #expect(try count(["--filter", "continent = 'Africa' AND pop_est > 5e7"]) == expected)
        let json = #"{"op":"and","args":[{"op":"=","args":[{"property":"continent"},"Africa"]},{"op":">","args":[{"property":"pop_est"},5e7]}]}"#
        #expect(try count(["--filter", json]) == expected)
        #expect(try count(["--filter", json, "--filter-lang", "cql2-json"]) == expected)
        // ANDed with --where.
        #expect(try count(["--filter", "continent = 'Africa'", "--where", "pop_est > 5e7"]) == expected)
        // CQL2 is case-sensitive unless CASEI says otherwise.
        #expect(try count(["--filter", "continent = 'africa'"]) == 0)
        #expect(try count(["--filter", "CASEI(continent) = CASEI('africa')"]) == records.filter { $0.continent == "Africa" }.count)
    }

    @Test func boxesAcrossTheAntimeridianAreTheUnionOfTheirHalves() throws {
        let across = try ids(["--filter", "S_INTERSECTS(geometry, BBOX(170, -20, -170, 0))"])
        let east = try ids(["--filter", "S_INTERSECTS(geometry, BBOX(170, -20, 180, 0))"])
        let west = try ids(["--filter", "S_INTERSECTS(geometry, BBOX(-180, -20, -170, 0))"])
        #expect(!across.isEmpty)
        #expect(across == east.union(west))
        // Not the box from -170 to 170 that normalizing would give.
        let normalized = try ids(["--filter", "S_INTERSECTS(geometry, BBOX(-170, -20, 170, 0))"])
        #expect(normalized.count > across.count)
    }

    @Test func badFiltersExitWithStatusTwo() throws {
        let unknown = try SpatialCLITests.failure(["query", Self.countries, "--filter", "popu > 1"])
        #expect(unknown.contains("cql2-text error: unknown field \"popu\""))
        let syntax = try SpatialCLITests.failure(["query", Self.countries, "--filter", "pop_est >"])
        #expect(syntax.contains("cql2-text error at 1:"))
        let json = try SpatialCLITests.failure(["query", Self.countries, "--filter", "pop_est > 1", "--filter-lang", "cql2-json"])
        #expect(json.contains("cql2-json error"))
        let lonely = try SpatialCLITests.failure(["query", Self.countries, "--filter-crs", "3857"])
        #expect(lonely.contains("need --filter"))
    }
}
