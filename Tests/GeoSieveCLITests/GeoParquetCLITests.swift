import Foundation
import SieveTestSupport
import Testing

/// GeoParquet files through the commands: written by `convert` with each codec, read by `query`
/// (where clauses and boxes, answered as from the GeoJSON they came from, the shapefile and the
/// FlatGeobuf file of the same features), `info`, `count`, `identify`, `render`, edited with
/// `edit`; the errors of bad options and broken files.
@Suite("GeoParquet on the command line", .tags(.cli))
struct GeoParquetCLITests {
    @Test func everyCommandReadsAGeoParquetFile() throws {
        try GeoPackageCLITests.withFolder { folder in
            var sources = [GeoPackageCLITests.countries]
            for codec in ["none", "snappy", "gzip", "zstd"] {
                let parquet = "\(folder)/countries_\(codec).parquet"
                let converted = try CLI.run(["convert", GeoPackageCLITests.countries, "--output", parquet, "--compression", codec, "--row-group-size", "16"])
                #expect(converted.status == 0, "\(converted.stderr)")
                sources.append(parquet)
            }
            for (output, format) in [("countries.shp", "shp"), ("countries.fgb", "fgb")] {
                #expect(try CLI.run(["convert", GeoPackageCLITests.countries, "--output", "\(folder)/\(output)", "--format", format]).status == 0)
                sources.append("\(folder)/\(output)")
            }
            let queries: [[String]] = [
                ["--where", "continent = 'Africa' AND pop_est > 5e7", "--out-fields", "name", "--no-return-geometry", "--format", "csv", "--order-by", "name"],
                ["--where", "pop_est > 1e8 OR gdp_md_est < 100", "--out-fields", "name", "--no-return-geometry", "--format", "csv", "--order-by", "name"],
                ["--geometry", "-20,-10,40,20", "--spatial-rel", "within", "--out-fields", "name", "--no-return-geometry", "--format", "csv", "--order-by", "name"],
                ["--geometry", "100,-50,180,0", "--where", "pop_est BETWEEN 1e6 AND 3e7", "--out-fields", "name,pop_est", "--no-return-geometry", "--format", "csv", "--order-by", "name"],
                ["--where", "name LIKE 'S%'", "--return", "count"],
            ]
            for arguments in queries {
                let expected = try CLI.run(["query", GeoPackageCLITests.countries] + arguments)
                #expect(expected.status == 0, "\(expected.stderr)")
                for source in sources.dropFirst() {
                    let got = try CLI.run(["query", source] + arguments)
                    #expect(got.status == 0, "\(got.stderr)")
                    #expect(ShapefileCLITests.withoutIDs(got.stdout) == ShapefileCLITests.withoutIDs(expected.stdout), "\(source) \(arguments)")
                }
            }
            let parquet = sources[2]
            // A selective where clause skips row groups, and says so.
            let skipping = try CLI.run(["query", parquet, "--where", "pop_est > 1e9", "--return", "count"])
            #expect(skipping.stdout == "{\"count\":2}\n")
            #expect(skipping.stderr.contains("row groups skipped"), "\(skipping.stderr)")
            // Only the columns a query names are read; a misspelt one is still suggested.
            let projected = try CLI.run(["query", parquet, "--where", "pop_est > 1e8", "--out-fields", "name", "--order-by", "gdp_md_est DESC", "--no-return-geometry", "--format", "csv"])
            #expect(projected.stdout.hasPrefix("FID_1,name\n") && projected.stdout.contains("China"), "\(projected.stdout)")
            let misspelt = try CLI.run(["query", parquet, "--where", "pop_esst > 1", "--out-fields", "name"])
            #expect(misspelt.stderr.contains(#"did you mean "pop_est""#), "\(misspelt.stderr)")
            let info = try CLI.run(["info", parquet])
            #expect(info.stdout.contains(#""featureCount":177"#))
            #expect(info.stdout.contains(#""geometryType":"esriGeometryPolygon""#))
            #expect(info.stdout.contains(#""spatialReference":{"wkid":4326}"#))
            let view = ["--map-extent", "-180,-90,180,90", "--size", "1440,720"]
            #expect(try CLI.run(["count", parquet] + view).stdout == CLI.run(["count", GeoPackageCLITests.countries] + view).stdout)
            let hit = try CLI.run(["identify", parquet, "--point", "2,47", "--tolerance", "1", "--map-extent", "-10,40,10,50", "--size", "100,100"])
            #expect(hit.stdout.contains("\"France\""), "\(hit.stdout)")
            let svg = "\(folder)/map.svg"
            let rendered = try CLI.run(["render", parquet, "--output", svg] + view)
            #expect(rendered.status == 0, "\(rendered.stderr)")
            #expect(try String(contentsOfFile: svg, encoding: .utf8).contains("<svg "))
            // Back to GeoJSON: the same features as the source.
            let back = "\(folder)/back.geojson"
            #expect(try CLI.run(["convert", parquet, "--output", back]).status == 0)
            let all = ["--out-fields", "name,pop_est,continent,gdp_md_est", "--format", "csv", "--order-by", "name"]
            #expect(try CLI.run(["query", back] + all).stdout == CLI.run(["query", GeoPackageCLITests.countries] + all).stdout)
        }
    }

    /// `edit` rewrites a GeoParquet file whole: a feature deleted, the FIDs counted from 0 again.
    @Test func editsRewriteAGeoParquetFile() throws {
        try GeoPackageCLITests.withFolder { folder in
            let parquet = "\(folder)/countries.parquet"
            #expect(try CLI.run(["convert", GeoPackageCLITests.countries, "--output", parquet]).status == 0)
            try Data(#"{"deletes":[0]}"#.utf8).write(to: URL(fileURLWithPath: "\(folder)/edits.json"))
            let edited = try CLI.run(["edit", parquet, "--edits", "\(folder)/edits.json"])
            #expect(edited.status == 0, "\(edited.stderr)")
            // Only the columns a query names are read; a misspelt one is still suggested.
            let projected = try CLI.run(["query", parquet, "--where", "pop_est > 1e8", "--out-fields", "name", "--order-by", "gdp_md_est DESC", "--no-return-geometry", "--format", "csv"])
            #expect(projected.stdout.hasPrefix("FID_1,name\n") && projected.stdout.contains("China"), "\(projected.stdout)")
            let misspelt = try CLI.run(["query", parquet, "--where", "pop_esst > 1", "--out-fields", "name"])
            #expect(misspelt.stderr.contains(#"did you mean "pop_est""#), "\(misspelt.stderr)")
            let info = try CLI.run(["info", parquet])
            #expect(info.stdout.contains(#""featureCount":176"#), "\(info.stdout)")
            #expect(try CLI.run(["query", parquet, "--return", "ids"]).stdout.hasPrefix(#"{"objectIdFieldName":"FID_1","objectIds":[0,1,2"#))
        }
    }

    @Test func errors() throws {
        try GeoPackageCLITests.withFolder { folder in
            let bad = "\(folder)/bad.parquet"
            try Data("PAR1 not really a parquet file PAR1".utf8).write(to: URL(fileURLWithPath: bad))
            let broken = try CLI.run(["query", bad])
            #expect(broken.status == 2)
            #expect(broken.stderr.hasPrefix("error: malformed file in \(bad)"), "\(broken.stderr)")
            let missing = try CLI.run(["query", "\(folder)/none.parquet"])
            #expect(missing.status == 1)
            let stdout = try CLI.run(["query", GeoPackageCLITests.countries, "--format", "parquet"])
            #expect(stdout.status == 2)
            #expect(stdout.stderr.contains("--format parquet needs --output FILE"))
            let codec = try CLI.run(["convert", GeoPackageCLITests.countries, "--output", "\(folder)/c.parquet", "--compression", "lz4"])
            #expect(codec.status == 2)
            let misplaced = try CLI.run(["convert", GeoPackageCLITests.countries, "--output", "\(folder)/c.fgb", "--compression", "zstd"])
            #expect(misplaced.status == 2)
            #expect(misplaced.stderr == "error: --compression and --row-group-size apply to --format parquet, not to fgb\n")
            let zero = try CLI.run(["convert", GeoPackageCLITests.countries, "--output", "\(folder)/c.parquet", "--row-group-size", "0"])
            #expect(zero.status == 2)
            #expect(zero.stderr == "error: --row-group-size must be at least 1, not 0\n")
        }
    }
}
