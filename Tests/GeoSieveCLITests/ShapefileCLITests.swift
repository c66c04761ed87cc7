import Foundation
import Testing
import SieveTestSupport

/// Shapefiles through every command: written by `convert`, read by `query`, `info`, `identify`,
/// `count`, `render` and `serve` with the answers of the GeoJSON they came from.
@Suite("Shapefiles on the command line", .tags(.cli))
struct ShapefileCLITests {
    static let countries = GeoPackageCLITests.countries

    @Test func everyCommandReadsAShapefile() throws {
        try GeoPackageCLITests.withFolder { folder in
            let shp = "\(folder)/countries.shp"
            let converted = try CLI.run(["convert", Self.countries, "--output", shp])
            #expect(converted.status == 0, "\(converted.stderr)")
            #expect(converted.stderr.isEmpty, "\(converted.stderr)")
            let shz = "\(folder)/countries.shz"
            #expect(try CLI.run(["convert", shp, "--output", shz]).status == 0)
            let zip = "\(folder)/countries.shp.zip"
            #expect(try CLI.run(["convert", Self.countries, "--format", "SHP", "--output", zip]).status == 0)
            // The same answers as the GeoJSON for attribute, spatial and output queries; the
            // shapefile's FIDs count from 0, so the features are compared by name.
            let queries: [[String]] = [
                ["--where", "continent = 'Africa' AND pop_est > 5e7", "--out-fields", "name", "--no-return-geometry", "--format", "csv"],
                ["--geometry", "-20,-10,40,20", "--spatial-rel", "within", "--out-fields", "name", "--no-return-geometry", "--format", "csv", "--order-by", "name"],
                ["--where", "name LIKE 'S%'", "--return", "count"],
                ["--geometry", "2,47", "--out-fields", "name,iso_a3,pop_est", "--format", "geojson"],
            ]
            for arguments in queries {
                let expected = try CLI.run(["query", Self.countries] + arguments)
                #expect(expected.status == 0)
                for source in [shp, shz, zip, "\(zip):countries"] {
                    let got = try CLI.run(["query", source] + arguments)
                    #expect(got.status == 0, "\(got.stderr)")
                    #expect(Self.withoutIDs(got.stdout) == Self.withoutIDs(expected.stdout), "\(source) \(arguments)")
                }
            }
            let info = try CLI.run(["info", shp])
            #expect(info.status == 0)
            #expect(info.stdout.contains(#""featureCount":177"#))
            #expect(info.stdout.contains(#""objectIdField":"FID_1""#))  // the file has a field "fid"
            #expect(info.stdout.contains(#""spatialReference":{"wkid":4326}"#))
            let hit = try CLI.run([
                "identify", shp, "--point", "2,47", "--tolerance", "1", "--map-extent", "-10,40,10,50", "--size", "100,100",
            ])
            #expect(hit.stdout.contains(#""layerName":"countries""#), "\(hit.stdout)")
            #expect(hit.stdout.contains("\"France\""))
            let view = ["--map-extent", "-180,-90,180,90", "--size", "1440,720"]
            #expect(try CLI.run(["count", shp] + view).stdout == CLI.run(["count", Self.countries] + view).stdout)
            let svg = "\(folder)/map.svg"
            let rendered = try CLI.run(["render", shp, "--output", svg] + view)
            #expect(rendered.status == 0, "\(rendered.stderr)")
            #expect(try String(contentsOfFile: svg, encoding: .utf8).contains("<svg "))
            // Back to GeoJSON: the same features as the source.
            let back = "\(folder)/back.geojson"
            #expect(try CLI.run(["convert", shp, "--output", back]).status == 0)
            let all = ["--out-fields", "name,pop_est,continent", "--format", "csv", "--order-by", "name"]
            #expect(try CLI.run(["query", back] + all).stdout == CLI.run(["query", Self.countries] + all).stdout)
        }
    }

    /// `edit` rewrites a shapefile: a feature deleted, the FIDs counted from 0 again (as ArcGIS
    /// renumbers a shapefile's), no FID field written; a zip archive and a CSV are refused.
    @Test func editsRewriteAShapefile() throws {
        try GeoPackageCLITests.withFolder { folder in
            let shp = "\(folder)/countries.shp"
            #expect(try CLI.run(["convert", Self.countries, "--output", shp]).status == 0)
            try Data(#"{"deletes":[0]}"#.utf8).write(to: URL(fileURLWithPath: "\(folder)/edits.json"))
            let edited = try CLI.run(["edit", shp, "--edits", "\(folder)/edits.json"])
            #expect(edited.status == 0, "\(edited.stderr)")
            let info = try CLI.run(["info", shp])
            #expect(info.stdout.contains(#""featureCount":176"#), "\(info.stdout)")
            #expect(!info.stdout.contains(#""name":"FID_2""#), "\(info.stdout)")
            #expect(try CLI.run(["query", shp, "--return", "ids"]).stdout.hasPrefix(#"{"objectIdFieldName":"FID_1","objectIds":[0,1,2"#))
            let zip = "\(folder)/countries.zip"
            #expect(try CLI.run(["convert", shp, "--output", "\(folder)/c.shz"]).status == 0)
            try FileManager.default.copyItem(atPath: "\(folder)/c.shz", toPath: zip)
            let refused = try CLI.run(["edit", zip, "--edits", "\(folder)/edits.json"])
            #expect(refused.status == 2)
            #expect(refused.stderr == "error: edit: edits are not saved into a zip archive of shapefiles; write them with --output FILE.shp or FILE.shz\n")
            let served = try CLI.run(["serve", zip, "--allow-edits", "--port", "0"])
            #expect(served.status == 2)
            #expect(served.stderr.contains("--allow-edits: edits are not saved into a zip archive"))
        }
    }

    @Test func errors() throws {
        try GeoPackageCLITests.withFolder { folder in
            let missing = try CLI.run(["query", "\(folder)/none.shp"])
            #expect(missing.status == 1)
            #expect(missing.stderr.hasPrefix("error: "), "\(missing.stderr)")
            let shp = "\(folder)/c.shp"
            try Data("not a shapefile".utf8).write(to: URL(fileURLWithPath: shp))
            let bad = try CLI.run(["query", shp])
            #expect(bad.status == 2)
            #expect(bad.stderr == "error: malformed file in \(shp) (c.shp), byte 0: not a shapefile: the file does not start with the file code 9994\n")
            let stdout = try CLI.run(["query", Self.countries, "--format", "shp"])
            #expect(stdout.status == 2)
            #expect(stdout.stderr.contains("--format shp needs --output FILE.shp"))
            let precision = try CLI.run(["convert", Self.countries, "--output", "\(folder)/p.shp", "--precision", "3"])
            #expect(precision.status == 2)
            let long = "\(folder)/long.geojson"
            try Data(
                #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"a_rather_long_name":1},"geometry":null}]}"#.utf8
            ).write(to: URL(fileURLWithPath: long))
            let renamed = try CLI.run(["convert", long, "--output", "\(folder)/long.shp"])
            #expect(renamed.status == 0)
            #expect(renamed.stderr == "warning: \(folder)/long.shp: field \"a_rather_long_name\" written as \"a_rather_l\" (dBase names hold 10 bytes)\n")
        }
    }

    /// The text without object IDs, which differ by one (the shapefile's count from 0): GeoJSON
    /// `"id"` members and object-ID properties, and the object-ID column of a CSV (the first,
    /// without geometry).
    static func withoutIDs(_ text: String) -> String {
        if text.hasPrefix("FID_1,") || text.hasPrefix("OBJECTID,") {
            return text.split(separator: "\n").map { $0.split(separator: ",", maxSplits: 1).dropFirst().joined() }.joined(separator: "\n")
        }
        return text.replacingOccurrences(of: #""(id|FID_1|OBJECTID)":[0-9]+,?"#, with: "", options: .regularExpression)
    }
}
