import Foundation
import Testing
import SieveTestSupport

/// FlatGeobuf files through the commands: written by `convert` (with and without the index), read
/// by `query`, `info`, `count` and `identify` with the answers of the GeoJSON they came from.
@Suite("FlatGeobuf on the command line", .tags(.cli))
struct FlatGeobufCLITests {
    @Test func everyCommandReadsAFlatGeobufFile() throws {
        try GeoPackageCLITests.withFolder { folder in
            let fgb = "\(folder)/countries.fgb"
            let converted = try CLI.run(["convert", GeoPackageCLITests.countries, "--output", fgb])
            #expect(converted.status == 0, "\(converted.stderr)")
            let plain = "\(folder)/plain.fgb"
            #expect(try CLI.run(["convert", GeoPackageCLITests.countries, "--output", plain, "--no-index"]).status == 0)
            let queries: [[String]] = [
                ["--where", "continent = 'Africa' AND pop_est > 5e7", "--out-fields", "name", "--no-return-geometry", "--format", "csv", "--order-by", "name"],
                ["--geometry", "-20,-10,40,20", "--spatial-rel", "within", "--out-fields", "name", "--no-return-geometry", "--format", "csv", "--order-by", "name"],
                ["--where", "name LIKE 'S%'", "--return", "count"],
            ]
            for arguments in queries {
                let expected = try CLI.run(["query", GeoPackageCLITests.countries] + arguments)
                for source in [fgb, plain] {
                    let got = try CLI.run(["query", source] + arguments)
                    #expect(got.status == 0, "\(got.stderr)")
                    #expect(ShapefileCLITests.withoutIDs(got.stdout) == ShapefileCLITests.withoutIDs(expected.stdout), "\(source) \(arguments)")
                }
            }
            let info = try CLI.run(["info", fgb])
            #expect(info.stdout.contains(#""featureCount":177"#))
            #expect(info.stdout.contains(#""geometryType":"esriGeometryPolygon""#))
            let view = ["--map-extent", "-180,-90,180,90", "--size", "1440,720"]
            #expect(try CLI.run(["count", fgb] + view).stdout == CLI.run(["count", GeoPackageCLITests.countries] + view).stdout)
            let hit = try CLI.run(["identify", fgb, "--point", "2,47", "--tolerance", "1", "--map-extent", "-10,40,10,50", "--size", "100,100"])
            #expect(hit.stdout.contains("\"France\""))
            let precision = try CLI.run(["convert", GeoPackageCLITests.countries, "--output", "\(folder)/p.fgb", "--precision", "3"])
            #expect(precision.status == 2)
            #expect(precision.stderr == "error: --precision applies to text formats; a FlatGeobuf file stores coordinates as binary doubles\n")
        }
    }
}
