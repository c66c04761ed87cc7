import Foundation
import Testing
import SieveTestSupport

/// `geosieve query --where` with clauses near the size one command-line argument can hold on
/// Linux (128 KiB): they run, and a bad one is reported on one short line.
@Suite("geosieve query with long where clauses", .tags(.cli))
struct LongWhereClauseTests {
    static let countries = "Tests/Fixtures/naturalearth_lowres.geojson"

    /// `fid` numbers the 177 countries 1…177.
    @Test func longInListAndOrChain() throws {
        // 1,000 … 18,999 match nothing; 5 and 170 match one country each.
        let list = "fid IN (" + (1_000..<19_000).map(String.init).joined(separator: ",") + ", 5, 170)"
        #expect(list.utf8.count < 128 * 1024)
        let result = try CLI.run(["query", Self.countries, "--where", list, "--return", "count"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "{\"count\":2}\n")
        let chain = (1_000..<9_000).map { "fid = \($0)" }.joined(separator: " OR ") + " OR fid = 7"
        #expect(chain.utf8.count < 128 * 1024)
        let chained = try CLI.run(["query", Self.countries, "--where", chain, "--return", "count"])
        #expect(chained.status == 0, "\(chained.stderr)")
        #expect(chained.stdout == "{\"count\":1}\n")
    }

    @Test func longUnknownFieldIsReportedBriefly() throws {
        let name = String(repeating: "x", count: 100_000)
        let result = try CLI.run(["query", Self.countries, "--where", "fid = 1 AND " + name + " = 1", "--return", "count"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        let expected = "error: where clause error at 1:13: unknown field \"" + String(repeating: "x", count: 77) + "…\" (100000 characters)\n"
        #expect(result.stderr == expected)
    }

    @Test func deepNestingIsReportedBriefly() throws {
        let result = try CLI.run(["query", Self.countries, "--where", String(repeating: "NOT ", count: 30_000) + "fid = 1"])
        #expect(result.status == 2)
        #expect(result.stderr == "error: where clause error at 1:801: expression nested too deeply (more than 200 levels)\n")
    }
}
