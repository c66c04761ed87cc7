import Foundation
import Testing
import SieveTestSupport

/// `geosieve count`, `identify` over several layers and `query --definition-expression` end to
/// end. Expected counts come from the fixture read by Foundation's JSON parser.
@Suite("geosieve layers: count, multi-layer identify, definition expressions", .tags(.cli))
struct LayerCLITests {
    static let countries = SpatialCLITests.countries
    static let cities = SpatialCLITests.cities
    static let world = ["--map-extent", "-180,-90,180,90", "--size", "1440,720"]

    /// (continent, pop_est) of every country, by Foundation.
    static func countryRecords() throws -> [(continent: String, population: Double)] {
        let data = try Data(contentsOf: CLI.packageRoot.appendingPathComponent(countries))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let features = try #require(root["features"] as? [[String: Any]])
        return features.compactMap { feature in
            guard let p = feature["properties"] as? [String: Any], let c = p["continent"] as? String,
                let n = p["pop_est"] as? NSNumber
            else { return nil }
            return (c, n.doubleValue)
        }
    }

    @Test func countIgnoresTheDisplayFilterDisplayedCountDoesNot() throws {
        let all = try Self.countryRecords()
        let africa = all.filter { $0.continent == "Africa" }
        let plain = try SpatialCLITests.json(["count", Self.countries] + Self.world)
        #expect(plain["count"] as? Int == all.count)
        #expect(plain["displayedCount"] as? Int == all.count)
        let both = try SpatialCLITests.json(
            ["count", Self.countries, "--definition-expression", "continent = 'Africa'", "--display-filter", "pop_est > 5e7"]
                + Self.world)
        #expect(both["count"] as? Int == africa.count)
        #expect(both["displayedCount"] as? Int == africa.filter { $0.population > 5e7 }.count)
        // Outside the layer's scale range nothing is drawn; the count stays.
        let zoomedOut = try SpatialCLITests.json(["count", Self.countries, "--min-scale", "1000000"] + Self.world)
        #expect(zoomedOut["count"] as? Int == all.count)
        #expect(zoomedOut["displayedCount"] as? Int == 0)
        let scaled = try SpatialCLITests.json(["count", Self.countries, "--min-scale", "1000000", "--scale", "500000"] + Self.world)
        #expect(scaled["displayedCount"] as? Int == all.count)
    }

    @Test func countErrors() throws {
        let bad = try SpatialCLITests.failure(["count", Self.countries, "--definition-expression", "nope = 1"] + Self.world)
        #expect(bad.contains("--definition-expression"))
        let filter = try SpatialCLITests.failure(["count", Self.countries, "--display-filter", "pop_est >"] + Self.world)
        #expect(filter.contains("--display-filter"))
        _ = try SpatialCLITests.failure(["count", Self.countries, "--map-extent", "1,1,0,0", "--size", "10,10"])
        _ = try SpatialCLITests.failure(["count", Self.countries, "--scale", "-3"] + Self.world)
    }

    @Test func identifyAcrossLayersTopFirst() throws {
        let tap = ["--point", "2.353,48.858", "--tolerance", "4"] + Self.world
        let visible = try SpatialCLITests.json(
            ["identify", Self.countries, Self.cities + ":towns", "--layer-option", "visible"] + tap)
        let results = try #require(visible["results"] as? [[String: Any]])
        #expect(results.map { $0["layerName"] as? String } == ["towns", "naturalearth_lowres"])
        #expect(results.map { $0["layerId"] as? Int } == [1, 0])
        #expect((results[0]["attributes"] as? [String: Any])?["name"] as? String == "Paris")
        #expect((results[1]["attributes"] as? [String: Any])?["name"] as? String == "France")
        let top = try SpatialCLITests.json(["identify", Self.countries, Self.cities] + tap)
        #expect((top["results"] as? [[String: Any]])?.map { $0["layerId"] as? Int } == [1])
        // The definition expression limits every layer.
        let limited = try SpatialCLITests.json(
            ["identify", Self.countries, Self.cities, "--layer-option", "all", "--definition-expression", "name <> 'Paris'"] + tap)
        let names = (limited["results"] as? [[String: Any]])?.compactMap { ($0["attributes"] as? [String: Any])?["name"] as? String }
        #expect(names == ["France"])
    }

    @Test func queryWithADefinitionExpression() throws {
        let all = try Self.countryRecords()
        let count = try SpatialCLITests.json(
            ["query", Self.countries, "--definition-expression", "continent = 'Asia'", "--where", "pop_est > 1e8", "--return", "count"])
        #expect(count["count"] as? Int == all.filter { $0.continent == "Asia" && $0.population > 1e8 }.count)
        let bad = try SpatialCLITests.failure(["query", Self.countries, "--definition-expression", "continent ="])
        #expect(bad.contains("--definition-expression"))
    }

    @Test func statisticsGroupedHavingOrdered() throws {
        let all = try Self.countryRecords().filter { $0.population > 1e6 }
        let object = try SpatialCLITests.json([
            "query", Self.countries, "--definition-expression", "pop_est > 1000000",
            "--statistics", "count:fid:n,sum:pop_est:total,max:pop_est", "--group-by", "continent",
            "--having", "COUNT(fid) > 10", "--order-by", "n DESC",
        ])
        let features = try #require(object["features"] as? [[String: Any]])
        let rows = features.compactMap { $0["attributes"] as? [String: Any] }
        // The oracle: group the Foundation-read records by continent.
        var groups: [String: [Double]] = [:]
        for record in all { groups[record.continent, default: []].append(record.population) }
        let expected = groups.filter { $0.value.count > 10 }
            .sorted { $0.value.count > $1.value.count || ($0.value.count == $1.value.count && $0.key < $1.key) }
        #expect(rows.map { $0["continent"] as? String } == expected.map(\.key))
        #expect(rows.map { $0["n"] as? Int } == expected.map(\.value.count))
        for (row, group) in zip(rows, expected) {
            let total = try #require(row["total"] as? Double)
            #expect(abs(total - group.value.reduce(0, +)) <= 1e-6 * total)
            #expect(row["MAX_pop_est"] as? Double == group.value.max())
        }
        let fields = try #require(object["fields"] as? [[String: Any]])
        #expect(fields.map { $0["name"] as? String } == ["continent", "n", "total", "MAX_pop_est"])
    }

    @Test func distinctValuesAndStatisticsErrors() throws {
        let continents = Set(try Self.countryRecords().map(\.continent)).sorted()
        let object = try SpatialCLITests.json(["query", Self.countries, "--distinct", "--out-fields", "continent"])
        let values = (object["features"] as? [[String: Any]])?.compactMap { ($0["attributes"] as? [String: Any])?["continent"] as? String }
        #expect(values == continents)
        #expect(try SpatialCLITests.failure(["query", Self.countries, "--statistics", "bogus:fid"]).contains("bogus"))
        #expect(try SpatialCLITests.failure(["query", Self.countries, "--group-by", "continent"]).contains("--statistics"))
        #expect(try SpatialCLITests.failure(["query", Self.countries, "--distinct"]).contains("--out-fields"))
        #expect(
            try SpatialCLITests.failure(["query", Self.countries, "--statistics", "count:fid", "--return", "count"]).contains("--return"))
        #expect(
            try SpatialCLITests.failure(["query", Self.countries, "--statistics", "sum:name"]).contains("name"))
        #expect(
            try SpatialCLITests.failure([
                "query", Self.countries, "--statistics", "count:fid", "--group-by", "continent", "--having", "pop_est > 3",
            ]).contains("pop_est"))
    }

    @Test func renderWritesAnSVGAndSummary() throws {
        let all = try Self.countryRecords()
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("render-\(UUID().uuidString).svg").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let summary = try SpatialCLITests.json([
            "render", Self.countries, Self.cities + ":towns", "--renderer", "Examples/continents-renderer.json",
            "--renderer", "Examples/cities-renderer.json", "--definition-expression", "continent <> 'Antarctica'",
            "--select", "pop_est > 1e8", "--output", output,
        ] + Self.world)
        let layers = try #require(summary["layers"] as? [[String: Any]])
        #expect(layers.map { $0["name"] as? String } == ["naturalearth_lowres", "towns"])
        // The definition expression names a field only the countries have: it limits them alone.
        #expect(layers[0]["displayed"] as? Int == all.filter { $0.continent != "Antarctica" }.count)
        #expect(layers[0]["selected"] as? Int == all.filter { $0.population > 1e8 }.count)
        #expect((layers[1]["displayed"] as? Int ?? 0) > 200)
        let svg = try String(contentsOfFile: output, encoding: .utf8)
        #expect(svg.hasPrefix("<?xml"))
        #expect(svg.contains("fill=\"#e6ab02\""))  // Africa's colour from the renderer file
        #expect(svg.hasSuffix("</svg>\n") || svg.hasSuffix("</svg>"))
        // Errors: a filter no layer can take, renderers for only some layers, a bad size.
        #expect(try SpatialCLITests.failure(["render", Self.countries, "--select", "nope > 1", "--output", output] + Self.world)
            .contains("--select"))
        _ = try SpatialCLITests.failure(
            ["render", Self.countries, Self.cities, Self.countries, "--renderer", "Examples/cities-renderer.json", "--renderer",
             "Examples/cities-renderer.json", "--output", output] + Self.world)
        _ = try SpatialCLITests.failure(["render", Self.countries, "--map-extent", "0,0,1,1", "--size", "10.5,3", "--output", output])
    }
}
