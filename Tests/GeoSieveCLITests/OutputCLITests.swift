import Foundation
import Testing
import SieveTestSupport

/// `--format`, `--output`, `--pretty`, `--precision` on `query`, `convert` (and `--out-sr` on
/// `convert`), `--output` and `--pretty` on `identify`.
@Suite("Output options on the command line", .tags(.cli))
struct OutputCLITests {
    static let countries = "Tests/Fixtures/naturalearth_lowres.geojson"
    static let cities = "Tests/Fixtures/naturalearth_cities.geojson"
    static let boroughs = "Tests/Fixtures/nybb.geojson"

    static func withFolder<T>(_ body: (String) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("geosieve-out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder.path)
    }

    /// Runs geosieve expecting success and nothing on stderr; returns stdout.
    static func success(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try CLI.run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.isEmpty, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        return result.stdout
    }

    /// Runs geosieve expecting `status` and one `error:` line; returns it.
    static func failure(_ arguments: [String], status: Int32, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try CLI.run(arguments)
        #expect(result.status == status, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("error: "), sourceLocation: sourceLocation)
        #expect(result.stderr.filter { $0 == "\n" }.count == 1, "one line: \(result.stderr)", sourceLocation: sourceLocation)
        return result.stderr.trimmingCharacters(in: .newlines)
    }

    static func json(_ text: String) throws -> NSObject {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) as? NSObject)
    }

    static func ids(_ arguments: [String]) throws -> [Int] {
        let object = try json(try success(["query"] + arguments + ["--return", "ids"]))
        return try #require((object as? [String: Any])?["objectIds"] as? [Int])
    }

    static func file(_ path: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
    }

    /// Every format: stdout and `--output` give the same bytes, and what is written reads back
    /// with the same features.
    @Test func everyFormatToStdoutAndFile() throws {
        try Self.withFolder { folder in
            let selection = ["--where", "continent = 'South America'"]
            let expected = try Self.ids([Self.countries] + selection)
            #expect(expected.count == 13)
            for format in ["geojson", "geojsonseq", "esrijson", "csv"] {
                let stdout = try Self.success(["query", Self.countries, "--format", format] + selection)
                let path = "\(folder)/out.\(format)"
                #expect(try Self.success(["query", Self.countries, "--format", format, "--output", path] + selection).isEmpty)
                #expect(try Self.file(path) == stdout, "\(format)")
                switch format {
                case "geojson", "esrijson":
                    #expect(try Self.ids([path]) == expected)
                case "geojsonseq":
                    let lines = stdout.split(separator: "\n")
                    #expect(lines.count == expected.count)
                    // Each line is one feature of the collection.
                    let collection = try Self.json(try Self.success(["query", Self.countries] + selection))
                    let features = try #require((collection as? [String: Any])?["features"] as? [NSObject])
                    #expect(try lines.map { try Self.json(String($0)) } == features)
                default:
                    let records = stdout.split(separator: "\n")
                    #expect(records.count == expected.count + 1)
                    #expect(records[0] == "WKT,OBJECTID,fid,pop_est,continent,name,iso_a3,gdp_md_est")
                    #expect(records[1].hasPrefix("\"MULTIPOLYGON ((("))
                }
            }
            // GeoPackage: to a file only, and the same features back.
            let gpkg = "\(folder)/sa.gpkg"
            #expect(try Self.success(["query", Self.countries, "--format", "gpkg", "--output", gpkg] + selection).isEmpty)
            #expect(try Self.ids([gpkg]) == expected)
            #expect(try Self.success(["query", gpkg, "--no-return-geometry"]) == Self.success(["query", Self.countries, "--no-return-geometry"] + selection))
        }
    }

    /// `query --output` takes the format from the extension unless `--format` says otherwise;
    /// an unknown extension writes GeoJSON.
    @Test func queryFormatFromExtension() throws {
        try Self.withFolder { folder in
            let base = ["query", Self.cities, "--where", "name LIKE 'Par%'"]
            _ = try Self.success(base + ["--output", "\(folder)/a.csv"])
            #expect(try Self.file("\(folder)/a.csv").hasPrefix("WKT,OBJECTID,fid,name\n"))
            _ = try Self.success(base + ["--output", "\(folder)/b.csv", "--format", "geojson"])
            #expect(try Self.file("\(folder)/b.csv").hasPrefix(#"{"type":"FeatureCollection""#))
            _ = try Self.success(base + ["--output", "\(folder)/c.txt"])
            #expect(try Self.file("\(folder)/c.txt") == Self.success(base))
            _ = try Self.success(base + ["--output", "\(folder)/d.gpkg"])
            #expect(try Self.ids(["\(folder)/d.gpkg"]) == [60, 236])
        }
    }

    /// convert picks the format from the extension as ogr2ogr does; `.geojsons` gets RS
    /// separators (RFC 8142), `.geojsonl` and `.geojsonseq` none.
    @Test func convertFormatsFromExtensions() throws {
        try Self.withFolder { folder in
            let geojson = try Self.success(["query", Self.cities])
            let seq = try Self.success(["query", Self.cities, "--format", "geojsonseq"])
            let csv = try Self.success(["query", Self.cities, "--format", "csv"])
            let esri = try Self.success(["query", Self.cities, "--format", "esrijson"])
            let cases: [(String, String)] = [
                ("a.geojson", geojson), ("a.JSON", geojson), ("a.geojsonl", seq), ("a.geojsonseq", seq), ("a.csv", csv),
                ("a.esrijson", esri),
            ]
            for (name, expected) in cases {
                #expect(try Self.success(["convert", Self.cities, "--output", "\(folder)/\(name)"]).isEmpty)
                #expect(try Self.file("\(folder)/\(name)") == expected, "\(name)")
            }
            _ = try Self.success(["convert", Self.cities, "--output", "\(folder)/a.geojsons"])
            let rs = try Self.file("\(folder)/a.geojsons")
            #expect(rs == seq.split(separator: "\n").map { "\u{1E}" + $0 + "\n" }.joined())
            // --format overrides the extension.
            _ = try Self.success(["convert", Self.cities, "--output", "\(folder)/b.geojson", "--format", "csv"])
            #expect(try Self.file("\(folder)/b.geojson") == csv)
        }
    }

    /// convert --out-sr: text formats and GeoPackages hold the projected geometries, and the
    /// GeoPackage's SRS is the output's.
    @Test func convertOutSR() throws {
        try Self.withFolder { folder in
            let gpkg = "\(folder)/nybb3857.gpkg"
            _ = try Self.success(["convert", Self.boroughs, "--output", gpkg, "--out-sr", "3857"])
            let extent = try Self.success(["query", gpkg, "--return", "extent"])
            let projected = try Self.success(["query", Self.boroughs, "--return", "extent", "--out-sr", "3857"])
            #expect(extent == projected)
            #expect(extent.contains(#""spatialReference":{"wkid":3857}"#))
            // The features as `query --out-sr` writes them.
            #expect(try Self.success(["query", gpkg]) == Self.success(["query", Self.boroughs, "--out-sr", "3857"]))
            let geojson = "\(folder)/nybb3857.geojson"
            _ = try Self.success(["convert", Self.boroughs, "--output", geojson, "--out-sr", "3857"])
            #expect(try Self.file(geojson) == Self.success(["query", Self.boroughs, "--out-sr", "3857"]))
            // A State Plane GeoPackage from a WGS 84 source, checked by GDAL when it is there.
            let stateplane = "\(folder)/nybb2263.gpkg"
            _ = try Self.success(["convert", Self.boroughs, "--output", stateplane, "--out-sr", "2263", "--layer-name", "boroughs"])
            if let ogrinfo = Self.executable("ogrinfo") {
                let info = try Self.runTool(ogrinfo, ["-so", "-al", stateplane])
                #expect(info.contains("Layer name: boroughs"))
                #expect(info.contains("Feature Count: 5"))
                #expect(info.contains(#"ID["EPSG",2263]"#) || info.contains(#"AUTHORITY["EPSG","2263"]"#))
            }
            #expect(
                try Self.success(["query", stateplane, "--return", "extent"])
                    == Self.success(["query", Self.boroughs, "--return", "extent", "--out-sr", "2263"]))
            _ = try Self.failure(["convert", Self.boroughs, "--output", "\(folder)/x.gpkg", "--out-sr", "999999"], status: 2)
            #expect(!FileManager.default.fileExists(atPath: "\(folder)/x.gpkg"))
        }
    }

    /// --precision rounds coordinates, not attributes, in every text format.
    @Test func precision() throws {
        let base = ["query", Self.cities, "--where", "name = 'Paris'", "--precision", "3"]
        // Paris is at 2.3529924615392135, 48.85809231626911.
        #expect(try Self.success(base).contains(#""coordinates":[2.353,48.858]"#))
        #expect(try Self.success(base + ["--format", "esrijson"]).contains(#""geometry":{"x":2.353,"y":48.858}"#))
        #expect(try Self.success(base + ["--format", "geojsonseq"]).contains(#""coordinates":[2.353,48.858]"#))
        #expect(try Self.success(base + ["--format", "csv"]) == "WKT,OBJECTID,fid,name\nPOINT (2.353 48.858),236,236,Paris\n")
        #expect(try Self.success(base + ["--precision", "0", "--format", "csv"]).contains("POINT (2 49)"))
        // Attributes keep their digits; Fiji starts at (180, -16.067132663642447),
        // (179.4135093629971, -16.379054277547404).
        let fiji = try Self.success(["query", Self.countries, "--where", "name = 'Fiji'", "--precision", "1"])
        #expect(fiji.contains(#""coordinates":[[[[180,-16.1],[179.4,-16.4],"#))
        #expect(fiji.contains(#""pop_est":889953.0,"#))
    }

    /// Pretty output is the same JSON as compact output, for features and the other documents,
    /// and for identify.
    @Test func prettyParsesToTheSameValue() throws {
        let runs: [[String]] = [
            ["query", Self.countries, "--where", "continent = 'Oceania'"],
            ["query", Self.countries, "--where", "continent = 'Oceania'", "--format", "esrijson", "--precision", "2"],
            ["query", Self.boroughs, "--out-sr", "2263", "--limit", "2"],
            ["query", Self.countries, "--return", "ids"],
            ["query", Self.countries, "--return", "count"],
            ["query", Self.countries, "--return", "extent", "--format", "esrijson"],
            [
                "identify", Self.countries, "--point", "2,47", "--tolerance", "3", "--map-extent", "-10,40,10,50", "--size",
                "100,100", "--return-geometry",
            ],
        ]
        for arguments in runs {
            let compact = try Self.success(arguments)
            let pretty = try Self.success(arguments + ["--pretty"])
            #expect(pretty.hasPrefix("{\n  \""), "\(arguments)")
            #expect(pretty.hasSuffix("\n}\n"), "\(arguments)")
            #expect(try Self.json(pretty) == Self.json(compact), "\(arguments)")
        }
    }

    @Test func identifyToAFile() throws {
        try Self.withFolder { (folder: String) throws -> Void in
            let arguments = ["identify", Self.countries, "--point", "2,47", "--tolerance", "3", "--map-extent", "-10,40,10,50", "--size", "100,100"]
            let path = "\(folder)/hit.json"
            #expect(try Self.success(arguments + ["--output", path]).isEmpty)
            #expect(try Self.file(path) == Self.success(arguments))
        }
    }

    /// A GeoJSONSeq not in WGS 84 is written, with one warning line.
    @Test func geoJSONSeqOutsideWGS84Warns() throws {
        let result = try CLI.run(["query", Self.boroughs, "--format", "geojsonseq", "--out-sr", "3857"])
        #expect(result.status == 0)
        #expect(result.stdout.split(separator: "\n").count == 5)
        #expect(result.stderr.hasPrefix("warning: geojsonseq is WGS 84"))
        #expect(result.stderr.contains("wkid 3857"))
        #expect(result.stderr.filter { $0 == "\n" }.count == 1)
        #expect(try Self.success(["query", Self.boroughs, "--format", "geojsonseq", "--out-sr", "3857", "--no-return-geometry"]).count > 0)
    }

    @Test func errors() throws {
        try Self.withFolder { folder in
            let gpkgStdout = try Self.failure(["query", Self.cities, "--format", "gpkg"], status: 2)
            #expect(gpkgStdout == "error: --format gpkg needs --output FILE: a GeoPackage cannot be written to standard output")
            let seq = try Self.failure(["query", Self.cities, "--format", "geojsonseq", "--pretty"], status: 2)
            #expect(seq == "error: --pretty does not apply to geojsonseq: each feature must be one line (RFC 8142)")
            _ = try Self.failure(["query", Self.cities, "--format", "csv", "--pretty"], status: 2)
            #expect(try Self.failure(["query", Self.cities, "--precision", "18"], status: 2) == "error: --precision must be 0…17 digits, not 18")
            #expect(try Self.failure(["query", Self.cities, "--precision", "-1"], status: 2) == "error: --precision must be 0…17 digits, not -1")
            _ = try Self.failure(["query", Self.cities, "--precision", "2", "--output", "\(folder)/p.gpkg"], status: 2)
            let count = try Self.failure(["query", Self.cities, "--return", "count", "--format", "csv"], status: 2)
            #expect(count == "error: --format csv writes features; --return ids, count and extent print JSON")
            #expect(try Self.failure(["convert", Self.cities], status: 2) == "error: convert needs --output FILE")
            _ = try Self.failure(["convert", Self.cities, "--output", "\(folder)/x.txt"], status: 2)
            // A folder that does not exist: exit 1, nothing left behind.
            let missing = try Self.failure(["query", Self.cities, "--output", "\(folder)/no/such/out.geojson"], status: 1)
            #expect(missing.hasPrefix("error: cannot write \(folder)/no/such/out.geojson: "))
            // A failed query leaves an existing output untouched, and no temporary file.
            let existing = "\(folder)/keep.geojson"
            try Data("old\n".utf8).write(to: URL(fileURLWithPath: existing))
            _ = try Self.failure(["query", Self.cities, "--where", "nope = 1", "--output", existing], status: 2)
            _ = try Self.failure(["query", Self.cities, "--out-fields", "nope", "--output", existing], status: 2)
            #expect(try Self.file(existing) == "old\n")
            // A successful one replaces it.
            _ = try Self.success(["query", Self.cities, "--return", "count", "--output", existing])
            #expect(try Self.file(existing) == "{\"count\":243}\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["keep.geojson"])
        }
    }

    /// GDAL reads the CSV and GeoJSONSeq we write (when ogrinfo is on PATH): the same feature
    /// count and extent as the source.
    @Test(.enabled(if: executable("ogrinfo") != nil, "needs GDAL's ogrinfo on PATH"))
    func gdalReadsCSVAndGeoJSONSeq() throws {
        let ogrinfo = try #require(Self.executable("ogrinfo"))
        try Self.withFolder { folder in
            let source = try Self.runTool(ogrinfo, ["-so", "-al", Self.packagePath(Self.countries)])
            let sourceExtent = source.split(separator: "\n").first { $0.hasPrefix("Extent:") }
            for name in ["c.csv", "c.geojsonl", "c.geojsons"] {
                let path = "\(folder)/\(name)"
                _ = try Self.success(["convert", Self.countries, "--output", path])
                var arguments = ["-so", "-al", path]
                if name.hasSuffix(".csv") { arguments += ["-oo", "GEOM_POSSIBLE_NAMES=WKT", "-oo", "KEEP_GEOM_COLUMNS=NO"] }
                let info = try Self.runTool(ogrinfo, arguments)
                #expect(info.contains("Feature Count: 177"), "\(name): \(info)")
                #expect(info.split(separator: "\n").first { $0.hasPrefix("Extent:") } == sourceExtent, "\(name)")
            }
        }
    }

    static func packagePath(_ relative: String) -> String {
        CLI.packageRoot.appendingPathComponent(relative).path
    }

    static func executable(_ name: String) -> URL? {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let url = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    static func runTool(_ executable: URL, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = CLI.packageRoot
        let out = Pipe()
        process.standardOutput = out
        process.standardError = Pipe()
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
