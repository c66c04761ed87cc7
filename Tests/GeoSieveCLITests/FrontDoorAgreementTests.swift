import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
import SieveTestSupport
#endif

/// The command line and the server are two front doors to one query operation: for every
/// combination of answer kind, where clause, spatial filter, order and page, `geosieve query`
/// prints the document the ArcGIS REST `query` route answers with (compared as parsed JSON).
@Suite(.tags(.cli)) struct FrontDoorAgreementTests {
    /// One combination: the command line's arguments and the REST parameters that ask the same.
    struct Combination: CustomStringConvertible {
        var cli: [String]
        var rest: [(String, String)]
        var description: String { cli.joined(separator: " ") }
    }

    /// Every answer kind over the selections and pages.
    static func combinations() -> [Combination] {
        let wheres = ["1=1", "continent = 'Africa'", "pop_est > 5e7 AND continent <> 'Asia'"]
        let answers: [(cli: [String], rest: [(String, String)])] = [
            (["--format", "esrijson", "--out-fields", "name,continent"], [("outFields", "name,continent")]),
            (["--return", "ids"], [("returnIdsOnly", "true")]),
            (["--return", "count"], [("returnCountOnly", "true")]),
            (["--return", "extent"], [("returnExtentOnly", "true")]),
            (["--distinct", "--out-fields", "continent", "--order-by", "continent"],
             [("returnDistinctValues", "true"), ("outFields", "continent"), ("orderByFields", "continent")]),
            (["--distinct", "--out-fields", "continent", "--return", "count"],
             [("returnDistinctValues", "true"), ("outFields", "continent"), ("returnCountOnly", "true")]),
            (["--statistics", "count:name:n,max:pop_est:most", "--group-by", "continent", "--order-by", "most DESC"],
             [("outStatistics", #"[{"statisticType":"count","onStatisticField":"name","outStatisticFieldName":"n"},{"statisticType":"max","onStatisticField":"pop_est","outStatisticFieldName":"most"}]"#),
              ("groupByFieldsForStatistics", "continent"), ("orderByFields", "most DESC")]),
        ]
        var result: [Combination] = []
        for whereClause in wheres {
            for spatial in [false, true] {
                for paged in [false, true] {
                    for answer in answers {
                        var cli = ["query", "Tests/Fixtures/naturalearth_lowres.geojson", "--where", whereClause] + answer.cli
                        var rest = [("where", whereClause), ("f", "json")] + answer.rest
                        if spatial {
                            cli += ["--geometry", "-20,-40,60,40"]
                            rest += [("geometry", "-20,-40,60,40"), ("geometryType", "esriGeometryEnvelope")]
                        }
                        // A page (with its order, unless the answer has its own): ignored by the
                        // answers that are never paged, on both doors.
                        if paged, !answer.cli.contains("--order-by") {
                            cli += ["--order-by", "name DESC", "--offset", "2", "--limit", "5"]
                            rest += [("orderByFields", "name DESC"), ("resultOffset", "2"), ("resultRecordCount", "5")]
                        } else if paged {
                            cli += ["--offset", "1", "--limit", "2"]
                            rest += [("resultOffset", "1"), ("resultRecordCount", "2")]
                        }
                        result.append(Combination(cli: cli, rest: rest))
                    }
                }
            }
        }
        return result
    }

    /// `text` parsed as JSON (for a comparison that ignores member order and number spelling).
    static func parsed(_ text: String) throws -> NSObject {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) as? NSObject)
    }

    /// A query string of `parameters`.
    static func query(_ parameters: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return parameters.map { name, value in
            name + "=" + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)
        }.joined(separator: "&")
    }

    @Test func theCommandLineAndTheServerAnswerAlike() async throws {
        let server = try ServeCLITests.Server(["Tests/Fixtures/naturalearth_lowres.geojson:countries"])
        defer { _ = server.stop() }
        let route = server.base + "/arcgis/rest/services/countries/FeatureServer/0/query?"
        var compared = 0
        for combination in Self.combinations() {
            let cli = try CLI.run(combination.cli)
            #expect(cli.status == 0, "\(combination): \(cli.stderr)")
            guard cli.status == 0 else { continue }
            let served = try await ServeCLITests.fetch(route + Self.query(combination.rest))
            #expect(try Self.parsed(cli.stdout) == Self.parsed(served), "\(combination)")
            compared += 1
        }
        #expect(compared == 84)
    }
}
