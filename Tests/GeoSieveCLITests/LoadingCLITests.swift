import Foundation
import Testing
import SieveTestSupport

/// Loading through the command line: standard input, GeoJSONSeq, --on-invalid, --geometry-type.
@Suite("geosieve loading", .tags(.cli))
struct LoadingCLITests {
    static let sequence = """
        {"type":"Feature","properties":{"a":1},"geometry":{"type":"Point","coordinates":[1,2]}}
        \u{1E}{"type":"Feature","id":"x7","properties":{"a":2.5},"geometry":{"type":"Point","coordinates":[3,4]}}
        {"type":"Feature","properties":{"a":3},"geometry":{"type":"LineString","coordinates":[[3,4],[5,6]]}}
        {"type":"Feature","properties":{"a":4},"geometry":{"type":"MultiPoint","coordinates":[[7,8]]}}

        """

    @Test func standardInputAndSkipping() throws {
        let input = Data(Self.sequence.utf8)
        // Strict: the LineString is the first bad feature (line 3), exit 2.
        let strict = try ArgumentTests.failure(["query", "-", "--return", "count"], status: 2, stdin: input)
        #expect(strict.hasPrefix("error: standard input: mixed geometry types at line 3, column "))
        // Skipped: a note on stderr (never a progress line: stderr is not a terminal), the rest
        // loads; points and multipoints make a multipoint table.
        let result = try ArgumentTests.run(["query", "-", "--on-invalid", "skip", "--return", "ids"], stdin: input)
        #expect(result.status == 0)
        #expect(result.stdout == #"{"objectIdFieldName":"OBJECTID","objectIds":[1,2,4]}"# + "\n")
        #expect(result.stderr.hasPrefix("note: standard input: skipped 1 invalid feature:\n  mixed geometry types at line 3"))
        // --geometry-type point: the multipoint is invalid too.
        let points = try ArgumentTests.run(
            ["query", "-", "--on-invalid", "skip", "--geometry-type", "Point", "--return", "count", "--quiet"], stdin: input)
        #expect(points.stdout == #"{"count":2}"# + "\n")
        #expect(points.stderr.contains("skipped 2 invalid features:"))
        let badType = try ArgumentTests.failure(["query", "-", "--geometry-type", "circle"], status: 2, stdin: input)
        #expect(badType.hasPrefix(#"error: --geometry-type: "circle" is not a geometry type"#))
    }
}
