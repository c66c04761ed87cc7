import Foundation
import Testing
import SieveTestSupport

/// CSV files as SOURCE: written by `query --format csv`, read back by every command with the
/// answers of the GeoJSON they came from; the CSV options.
@Suite("CSV sources on the command line", .tags(.cli))
struct CSVCLITests {
    static let cities = CLI.packageRoot.appendingPathComponent("Tests/Fixtures/naturalearth_cities.geojson").path

    @Test func aCSVOfPointsAnswersAsItsSource() throws {
        try GeoPackageCLITests.withFolder { folder in
            let csv = "\(folder)/cities.csv"
            #expect(try CLI.run(["convert", Self.cities, "--output", csv]).status == 0)
            // WKT, OBJECTID (the object IDs again), fid, name.
            for arguments in [
                ["--where", "name LIKE 'B%'", "--return", "ids"], ["--geometry", "-10,35,30,60", "--return", "count"],
                ["--geometry", "0,40,20,60", "--out-fields", "name", "--format", "geojson"],
            ] {
                let expected = try CLI.run(["query", Self.cities] + arguments)
                let got = try CLI.run(["query", csv] + arguments)
                #expect(got.status == 0, "\(got.stderr)")
                #expect(got.stdout == expected.stdout, "\(arguments)")
            }
            let view = ["--map-extent", "-180,-90,180,90", "--size", "720,360"]
            #expect(try CLI.run(["count", csv] + view).stdout == CLI.run(["count", Self.cities] + view).stdout)
            // x/y columns, named, with their reference and delimiter.
            let xy = "\(folder)/xy.csv"
            try Data("id;easting;northing;label\n1;987000;213000;a\n2;1000000;200000;b\n".utf8).write(to: URL(fileURLWithPath: xy))
            let projected = try CLI.run(["query", xy, "--delimiter", ";", "--x-field", "easting", "--y-field", "northing", "--s-srs", "EPSG:2263", "--out-sr", "4326", "--return", "extent"])
            #expect(projected.status == 0, "\(projected.stderr)")
            #expect(projected.stdout.contains(#""spatialReference":{"wkid":4326}"#))
            let info = try CLI.run(["info", xy, "--s-srs", "2263"])
            #expect(info.stdout.contains(#""geometryType":"esriGeometryPoint""#), "\(info.stdout)")
            #expect(info.stdout.contains(#""spatialReference":{"wkid":2263}"#))
            let bad = try CLI.run(["query", xy, "--wkt-field", "shape"])
            #expect(bad.status == 2)
            #expect(bad.stderr == "error: invalid option in \(xy): the WKT column \"shape\": no such column; the columns are \"id\", \"easting\", \"northing\", \"label\"\n", "\(bad.stderr)")
        }
    }
}
