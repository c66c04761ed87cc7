import Foundation
import Testing
import SieveTestSupport

/// `geosieve convert` and GeoPackage sources of `query` and `identify`.
@Suite("GeoPackage on the command line", .tags(.cli))
struct GeoPackageCLITests {
    static let countries = CLI.packageRoot.appendingPathComponent("Tests/Fixtures/naturalearth_lowres.geojson").path

    static func withFolder<T>(_ body: (String) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geosieve-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder.path)
    }

    /// GeoJSON → GeoPackage → GeoJSON: the same answers at every step.
    @Test func convertAndQuery() throws {
        try Self.withFolder { folder in
            let gpkg = "\(folder)/countries.gpkg"
            let converted = try CLI.run(["convert", Self.countries, "--output", gpkg])
            #expect(converted.status == 0, "\(converted.stderr)")
            #expect(converted.stdout.isEmpty)
            let queries: [[String]] = [
                ["--where", "continent = 'Africa' AND pop_est > 5e7", "--return", "ids"],
                ["--geometry", "-20,-10,40,20", "--spatial-rel", "within", "--return", "ids"],
                ["--where", "name LIKE 'S%'", "--return", "count"],
                ["--object-ids", "3,4,5", "--out-fields", "name", "--no-return-geometry"],
            ]
            let back = "\(folder)/back.geojson"
            #expect(try CLI.run(["convert", "\(gpkg):naturalearth_lowres", "--output", back]).status == 0)
            for arguments in queries {
                let expected = try CLI.run(["query", Self.countries] + arguments)
                #expect(expected.status == 0)
                for source in [gpkg, "\(gpkg):naturalearth_lowres", "\(gpkg):NATURALEARTH_LOWRES", back] {
                    let got = try CLI.run(["query", source] + arguments)
                    #expect(got.stdout == expected.stdout, "\(source) \(arguments)")
                }
            }
            // A filtered conversion keeps exactly the selected features, in a named layer.
            let africa = "\(folder)/africa.gpkg"
            let filtered = try CLI.run([
                "convert", gpkg, "--output", africa, "--where", "continent = 'Africa'", "--layer-name", "africa",
            ])
            #expect(filtered.status == 0)
            let expected = try CLI.run(["query", Self.countries, "--where", "continent = 'Africa'", "--return", "ids"])
            #expect(try CLI.run(["query", "\(africa):africa", "--return", "ids"]).stdout == expected.stdout)
            let esri = "\(folder)/africa.esrijson"
            #expect(try CLI.run(["convert", africa, "--output", esri]).status == 0)
            #expect(try CLI.run(["query", esri, "--return", "ids"]).stdout == expected.stdout)
            // Identify names the layer (by default the source's, as ogr2ogr names it).
            let hit = try CLI.run([
                "identify", gpkg, "--point", "2,47", "--tolerance", "1", "--map-extent", "-10,40,10,50", "--size", "100,100",
            ])
            #expect(hit.stdout.contains("\"layerName\":\"naturalearth_lowres\""))
            #expect(hit.stdout.contains("\"value\":\"Europe\"") || hit.stdout.contains("\"France\""))
        }
    }

    @Test func errors() throws {
        try Self.withFolder { folder in
            let gpkg = "\(folder)/c.gpkg"
            #expect(try CLI.run(["convert", Self.countries, "--output", gpkg]).status == 0)
            let missingLayer = try CLI.run(["query", "\(gpkg):lakes"])
            #expect(missingLayer.status == 2)
            #expect(missingLayer.stderr == "error: layer not found in \(gpkg): no feature table \"lakes\"; its feature tables: \"naturalearth_lowres\"\n")
            let missingFile = try CLI.run(["query", "\(folder)/none.gpkg"])
            #expect(missingFile.status == 1)
            #expect(missingFile.stderr == "error: cannot read \(folder)/none.gpkg: no such file\n")
            let fields = "\(folder)/fields.json"
            try Data(#"[{"name":"OBJECTID","type":"esriFieldTypeOID"}]"#.utf8).write(to: URL(fileURLWithPath: fields))
            let schema = try CLI.run(["query", gpkg, "--schema", fields])
            #expect(schema.status == 2)
            #expect(schema.stderr.hasPrefix("error: --schema applies to GeoJSON and Esri JSON sources"))
            try FileManager.default.removeItem(atPath: fields)
            let badExtension = try CLI.run(["convert", gpkg, "--output", "\(folder)/out.txt"])
            #expect(badExtension.status == 2)
            #expect(badExtension.stderr.hasPrefix("error: --output: cannot tell the format"))
            let badFolder = try CLI.run(["convert", gpkg, "--output", "\(folder)/no/such/out.gpkg"])
            #expect(badFolder.status == 1)
            let badWhere = try CLI.run(["convert", gpkg, "--output", "\(folder)/w.gpkg", "--where", "nope = 1"])
            #expect(badWhere.status == 2)
            #expect(badWhere.stderr.hasPrefix("error: where clause error"))
            let reserved = try CLI.run(["convert", gpkg, "--output", "\(folder)/r.gpkg", "--layer-name", "gpkg_x"])
            #expect(reserved.status == 2)
            // Nothing but the first output is left in the folder.
            let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            #expect(names == ["c.gpkg"])
            let notGeoPackage = "\(folder)/text.gpkg"
            try Data("not sqlite".utf8).write(to: URL(fileURLWithPath: notGeoPackage))
            let bad = try CLI.run(["query", notGeoPackage])
            #expect(bad.status == 2)
            #expect(bad.stderr.contains("not a GeoPackage"))
            try FileManager.default.removeItem(atPath: notGeoPackage)
        }
    }
}
