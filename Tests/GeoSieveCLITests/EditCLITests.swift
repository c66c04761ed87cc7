import Foundation
import Testing
import SieveTestSupport

/// `geosieve edit`: an applyEdits request applied to a real dataset, the REST response on
/// standard output, the edited file written back (GeoJSON, Esri JSON, GeoPackage read by GDAL).
@Suite("geosieve edit", .tags(.cli))
struct EditCLITests {
    static let boroughs = CLI.packageRoot.appendingPathComponent("Tests/Fixtures/nybb.geojson").path

    /// Adds a polygon (Esri JSON), renames borough 1, deletes borough 5.
    static let edits = #"""
        {"adds":[{"attributes":{"BoroCode":6,"BoroName":"Atlantis","Shape_Leng":10.5},
                  "geometry":{"rings":[[[-74.0,40.0],[-73.9,40.0],[-73.9,40.1],[-74.0,40.0]]],"spatialReference":{"wkid":4326}}}],
         "updates":[{"attributes":{"OBJECTID":1,"BoroName":"Staten Is."}}],
         "deletes":[5]}
        """#

    static func write(_ text: String, _ path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test("a REST-shaped edits file applied to GeoJSON, written over the source")
    func editsGeoJSON() throws {
        try GeoPackageCLITests.withFolder { folder in
            let source = "\(folder)/boroughs.geojson"
            try FileManager.default.copyItem(atPath: Self.boroughs, toPath: source)
            try Self.write(Self.edits, "\(folder)/edits.json")
            let run = try CLI.run(["edit", source, "--edits", "\(folder)/edits.json"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == #"{"addResults":[{"objectId":6,"success":true}],"updateResults":[{"objectId":1,"success":true}],"deleteResults":[{"objectId":5,"success":true}]}"# + "\n")
            #expect(try CLI.run(["query", source, "--return", "ids"]).stdout == #"{"objectIdFieldName":"OBJECTID","objectIds":[1,2,3,4,6]}"# + "\n")
            let names = try CLI.run(["query", source, "--where", "BoroName IN ('Staten Is.', 'Atlantis', 'Bronx')", "--return", "ids"])
            #expect(names.stdout == #"{"objectIdFieldName":"OBJECTID","objectIds":[1,6]}"# + "\n")
            // The update kept the geometry: Staten Island still contains this point.
            let point = try CLI.run(["query", source, "--geometry", "-74.15,40.58", "--return", "ids"])
            #expect(point.stdout == #"{"objectIdFieldName":"OBJECTID","objectIds":[1]}"# + "\n")
        }
    }

    @Test("--output - writes the edited table to standard output, the response to standard error")
    func editToStandardOutput() throws {
        try GeoPackageCLITests.withFolder { folder in
            try Self.write(Self.edits, "\(folder)/edits.json")
            let before = try Data(contentsOf: URL(fileURLWithPath: Self.boroughs))
            let file = "\(folder)/edited.geojson"
            let toFile = try CLI.run(["edit", Self.boroughs, "--edits", "\(folder)/edits.json", "--output", file])
            #expect(toFile.status == 0, "\(toFile.stderr)")
            let run = try CLI.run(["edit", Self.boroughs, "--edits", "\(folder)/edits.json", "--output", "-"])
            #expect(run.status == 0)
            #expect(run.stdout == (try String(contentsOfFile: file, encoding: .utf8)))
            #expect(run.stderr == toFile.stdout)
            #expect(try Data(contentsOf: URL(fileURLWithPath: Self.boroughs)) == before)
            #expect(!FileManager.default.fileExists(atPath: CLI.packageRoot.appendingPathComponent("-").path))
        }
    }

    @Test("failed edits: rolled back by default (nothing written), applied in part with --no-rollback")
    func failures() throws {
        try GeoPackageCLITests.withFolder { folder in
            let output = "\(folder)/out.geojson"
            try Self.write(#"{"adds":[{"attributes":{"BoroCode":"x"}}],"deletes":"2,3"}"#, "\(folder)/edits.json")
            let rolledBack = try CLI.run(["edit", Self.boroughs, "--edits", "\(folder)/edits.json", "--output", output])
            #expect(rolledBack.status == 1)
            #expect(rolledBack.stdout.contains(#"{"objectId":-1,"success":false,"error":{"code":1000,"description":"the string \"x\" cannot be stored in field BoroCode of type Integer"}}"#))
            #expect(rolledBack.stdout.contains(#"{"objectId":2,"success":false,"error":{"code":1003,"#))
            #expect(rolledBack.stderr == "error: 3 of 3 edits failed; nothing was changed\n")
            #expect(!FileManager.default.fileExists(atPath: output))
            let partial = try CLI.run(["edit", Self.boroughs, "--edits", "\(folder)/edits.json", "--output", output, "--no-rollback"])
            #expect(partial.status == 1)
            #expect(partial.stdout.hasSuffix(#""deleteResults":[{"objectId":2,"success":true},{"objectId":3,"success":true}]}"# + "\n"))
            #expect(try CLI.run(["query", output, "--return", "ids"]).stdout == #"{"objectIdFieldName":"OBJECTID","objectIds":[1,4,5]}"# + "\n")
        }
    }

    @Test("an unusable edits file exits 2 with where the problem is")
    func unusableEdits() throws {
        try GeoPackageCLITests.withFolder { folder in
            let cases: [(String, String)] = [
                (#"{"adds":[{"attributes":{"BoroCode":6}"#, "error: --edits \(folder)/edits.json: invalid JSON at position 38: "),
                (#"{"adds":[{"attributes":{"BoroCode":[1]}}]}"#, "error: --edits \(folder)/edits.json: invalid edits at position 36: adds[0].attributes.BoroCode: an attribute value must be a string, number, boolean or null, not an array\n"),
                (#"{"deletes":"1,x"}"#, "error: --edits \(folder)/edits.json: invalid edits at position 12: deletes: \"x\" is not an object ID\n"),
                (#"{"updates":{}}"#, "error: --edits \(folder)/edits.json: invalid edits at position 12: updates: must be an array of features, not an object\n"),
                (#"[1]"#, "error: --edits \(folder)/edits.json: invalid edits at position 1: the edits must be a JSON object with adds, updates and deletes, not an array\n"),
            ]
            for (text, message) in cases {
                try Self.write(text, "\(folder)/edits.json")
                let run = try CLI.run(["edit", Self.boroughs, "--edits", "\(folder)/edits.json", "--output", "\(folder)/x.geojson"])
                #expect(run.status == 2, "\(text)")
                #expect(run.stderr.hasPrefix(message), "\(run.stderr)")
                #expect(run.stdout.isEmpty)
            }
        }
    }

    @Test("GeoPackage in and out; GDAL reads the edited layer")
    func geoPackage() throws {
        try GeoPackageCLITests.withFolder { folder in
            let gpkg = "\(folder)/boroughs.gpkg"
            #expect(try CLI.run(["convert", Self.boroughs, "--output", gpkg]).status == 0)
            try Self.write(Self.edits, "\(folder)/edits.json")
            let edited = "\(folder)/edited.gpkg"
            let run = try CLI.run(["edit", gpkg, "--edits", "\(folder)/edits.json", "--output", edited])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try CLI.run(["query", edited, "--return", "ids"]).stdout == #"{"objectIdFieldName":"OBJECTID","objectIds":[1,2,3,4,6]}"# + "\n")
            // Over the source (in place) too.
            #expect(try CLI.run(["edit", gpkg, "--edits", "\(folder)/edits.json"]).status == 0)
            #expect(try CLI.run(["query", gpkg, "--return", "ids"]).stdout == #"{"objectIdFieldName":"OBJECTID","objectIds":[1,2,3,4,6]}"# + "\n")
            guard let ogrinfo = OutputCLITests.executable("ogrinfo") else { return }
            let info = try OutputCLITests.runTool(ogrinfo, ["-ro", "-al", "-geom=NO", edited])
            #expect(info.contains("Feature Count: 5"))
            #expect(info.contains("BoroName (String) = Atlantis"))
            #expect(info.contains("BoroName (String) = Staten Is."))
            #expect(!info.contains("Bronx"))
            // The R-tree holds the five features (the layer keeps the name convert gave it).
            let rtree = try OutputCLITests.runTool(ogrinfo, ["-ro", "-q", edited, "-sql", "SELECT count(*) AS n FROM rtree_nybb_geom"])
            #expect(rtree.contains("n (Integer) = 5"))
        }
    }

    @Test(
        "a GeoPackage source is edited in place: other layers kept, the R-tree updated (GDAL reads both)",
        .enabled(if: OutputCLITests.executable("ogr2ogr") != nil, "needs GDAL's ogr2ogr and ogrinfo on PATH"))
    func geoPackageInPlace() throws {
        let ogr2ogr = try #require(OutputCLITests.executable("ogr2ogr"))
        let ogrinfo = try #require(OutputCLITests.executable("ogrinfo"))
        try GeoPackageCLITests.withFolder { folder in
            let gpkg = "\(folder)/city.gpkg"
            #expect(try CLI.run(["convert", Self.boroughs, "--output", gpkg]).status == 0)
            let cities = CLI.packageRoot.appendingPathComponent("Tests/Fixtures/naturalearth_cities.geojson").path
            _ = try OutputCLITests.runTool(ogr2ogr, ["-update", "-f", "GPKG", gpkg, cities, "-nln", "cities"])
            #expect(try OutputCLITests.runTool(ogrinfo, ["-ro", "-q", gpkg]).contains("cities"))
            try Self.write(Self.edits, "\(folder)/edits.json")
            let run = try CLI.run(["edit", "\(gpkg):nybb", "--edits", "\(folder)/edits.json"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try CLI.run(["query", "\(gpkg):nybb", "--return", "ids"]).stdout == #"{"objectIdFieldName":"OBJECTID","objectIds":[1,2,3,4,6]}"# + "\n")
            #expect(try CLI.run(["query", "\(gpkg):cities", "--return", "count"]).stdout.contains("243"))
            // GDAL's spatial filter goes through the R-tree: the added feature is found there, the
            // deleted one is not.
            let window = try OutputCLITests.runTool(ogrinfo, ["-ro", "-q", "-geom=NO", "-spat", "-74", "40", "-73.9", "40.1", gpkg, "nybb"])
            #expect(window.contains("BoroName (String) = Atlantis"))
            let bronx = try OutputCLITests.runTool(ogrinfo, ["-ro", "-q", "-geom=NO", "-spat", "-73.9", "40.85", "-73.85", "40.88", gpkg, "nybb"])
            #expect(!bronx.contains("Bronx"))
            let rtree = try OutputCLITests.runTool(ogrinfo, ["-ro", "-q", gpkg, "-sql", "SELECT count(*) AS n FROM rtree_nybb_geom"])
            #expect(rtree.contains("n (Integer) = 5"))
            let updated = try OutputCLITests.runTool(ogrinfo, ["-ro", "-q", "-geom=NO", "-where", "OBJECTID = 1", gpkg, "nybb"])
            #expect(updated.contains("BoroName (String) = Staten Is."))
        }
    }

    @Test("an Esri JSON source is written back as Esri JSON")
    func esriJSONSource() throws {
        try GeoPackageCLITests.withFolder { folder in
            let esri = "\(folder)/boroughs.json"
            #expect(try CLI.run(["convert", Self.boroughs, "--output", "\(folder)/b.esrijson"]).status == 0)
            try FileManager.default.moveItem(atPath: "\(folder)/b.esrijson", toPath: esri)
            try Self.write(#"{"deletes":[2]}"#, "\(folder)/edits.json")
            #expect(try CLI.run(["edit", esri, "--edits", "\(folder)/edits.json", "--user", "ann"]).status == 0)
            let text = try String(contentsOfFile: esri, encoding: .utf8)
            #expect(text.hasPrefix(#"{"objectIdFieldName":"OBJECTID","geometryType":"esriGeometryPolygon""#))
            #expect(try CLI.run(["query", esri, "--return", "ids"]).stdout == #"{"objectIdFieldName":"OBJECTID","objectIds":[1,3,4,5]}"# + "\n")
        }
    }
}

/// Saving edits keeps the file's own representation: ids where they were, no field the loader
/// added, property order and number formatting, the feature order.
extension EditCLITests {
    static let cities = CLI.packageRoot.appendingPathComponent("Tests/Fixtures/naturalearth_cities.geojson").path

    /// The `features` of a JSON file, parsed.
    static func features(_ path: String) throws -> [NSDictionary] {
        let root = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? NSDictionary
        return try #require(root?["features"] as? [NSDictionary])
    }

    @Test("a GeoJSON file saved: no OBJECTID added, ids, untouched features and formatting kept")
    func keepsGeoJSONRepresentation() throws {
        try GeoPackageCLITests.withFolder { folder in
            let source = "\(folder)/cities.geojson"
            try FileManager.default.copyItem(atPath: Self.cities, toPath: source)
            // An update that changes nothing: the file is written back byte for byte.
            try Self.write(#"{"updates":[{"attributes":{"OBJECTID":2,"name":"San Marino"}}]}"#, "\(folder)/same.json")
            let same = try CLI.run(["edit", source, "--edits", "\(folder)/same.json"])
            #expect(same.status == 0, "\(same.stderr)")
            #expect(FileManager.default.contentsEqual(atPath: source, andPath: Self.cities))

            try Self.write(
                #"""
                {"updates":[{"attributes":{"OBJECTID":2,"name":"San Marino X"}}],"deletes":[3],
                 "adds":[{"attributes":{"fid":999,"name":"Nowhere"},"geometry":{"x":1.5,"y":2.5}}]}
                """#, "\(folder)/edits.json")
            let run = try CLI.run(["edit", source, "--edits", "\(folder)/edits.json"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(
                run.stdout
                    == #"{"addResults":[{"objectId":244,"success":true}],"updateResults":[{"objectId":2,"success":true}],"deleteResults":[{"objectId":3,"success":true}]}"#
                    + "\n")
            let before = try Self.features(Self.cities)
            let after = try Self.features(source)
            // (a) No OBJECTID property anywhere.
            #expect(after.allSatisfy { ($0["properties"] as? NSDictionary)?["OBJECTID"] == nil })
            // (b, c) Every untouched feature unchanged, ids in `id`, in the file's order; (d) the
            // update applied in place; (e) the added feature last, its new object ID as `id`.
            var expected = before.filter { $0["id"] as? Int != 3 }
            let updated = try #require(expected[1].mutableCopy() as? NSMutableDictionary)
            updated["properties"] = ["fid": 2, "name": "San Marino X"] as NSDictionary
            expected[1] = updated
            expected.append(
                [
                    "type": "Feature", "id": 244, "properties": ["fid": 999, "name": "Nowhere"],
                    "geometry": ["type": "Point", "coordinates": [1.5, 2.5]],
                ] as NSDictionary)
            #expect(after == expected)
            // Byte for byte: the original text with those three changes.
            var text = try String(contentsOfFile: Self.cities, encoding: .utf8)
            text = text.replacingOccurrences(of: #""name":"San Marino"}"#, with: #""name":"San Marino X"}"#)
            let third = try #require(text.range(of: #"{"type":"Feature","id":3,"#))
            let fourth = try #require(text.range(of: #"{"type":"Feature","id":4,"#))
            text.removeSubrange(third.lowerBound..<fourth.lowerBound)
            let end = try #require(text.range(of: "]}", options: .backwards))
            text.insert(
                contentsOf: #",{"type":"Feature","id":244,"properties":{"fid":999,"name":"Nowhere"},"geometry":{"type":"Point","coordinates":[1.5,2.5]}}"#,
                at: end.lowerBound)
            #expect(try String(contentsOfFile: source, encoding: .utf8) == text)
        }
    }

    @Test("whole doubles and coordinates written as 1.0 stay so; an unchanged save of real data is identical")
    func keepsNumberFormatting() throws {
        try GeoPackageCLITests.withFolder { folder in
            for (name, update) in [
                ("naturalearth_lowres", #"{"updates":[{"attributes":{"OBJECTID":1,"pop_est":889953}}]}"#),
                ("nybb", #"{"updates":[{"attributes":{"OBJECTID":2,"BoroName":"Queens"}}]}"#),
            ] {
                let original = CLI.packageRoot.appendingPathComponent("Tests/Fixtures/\(name).geojson").path
                let source = "\(folder)/\(name).geojson"
                try FileManager.default.copyItem(atPath: original, toPath: source)
                try Self.write(update, "\(folder)/edits.json")
                let run = try CLI.run(["edit", source, "--edits", "\(folder)/edits.json"])
                #expect(run.status == 0, "\(run.stderr)")
                #expect(FileManager.default.contentsEqual(atPath: source, andPath: original), "\(name)")
            }
        }
    }

    @Test("an Esri JSON file saved keeps its objectIdFieldName, fields and features as they were")
    func keepsEsriJSONRepresentation() throws {
        try GeoPackageCLITests.withFolder { folder in
            let esri = "\(folder)/boroughs.json"
            #expect(try CLI.run(["convert", Self.boroughs, "--output", "\(folder)/b.esrijson"]).status == 0)
            try FileManager.default.moveItem(atPath: "\(folder)/b.esrijson", toPath: esri)
            let original = try String(contentsOfFile: esri, encoding: .utf8)
            try Self.write(#"{"updates":[{"attributes":{"OBJECTID":4,"BoroName":"Manhattan"}}]}"#, "\(folder)/same.json")
            #expect(try CLI.run(["edit", esri, "--edits", "\(folder)/same.json"]).status == 0)
            #expect(try String(contentsOfFile: esri, encoding: .utf8) == original)
            try Self.write(#"{"deletes":[2]}"#, "\(folder)/edits.json")
            #expect(try CLI.run(["edit", esri, "--edits", "\(folder)/edits.json"]).status == 0)
            let saved = try String(contentsOfFile: esri, encoding: .utf8)
            let head = try #require(original.range(of: #""features":["#))
            #expect(saved.hasPrefix(original[..<head.upperBound]))
            let kept = try Self.esriFeatures(original).filter { ($0["attributes"] as? NSDictionary)?["OBJECTID"] as? Int != 2 }
            #expect(try Self.features(esri) == kept)
        }
    }

    /// The features of Esri JSON text, parsed.
    static func esriFeatures(_ text: String) throws -> [NSDictionary] {
        let root = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary
        return try #require(root?["features"] as? [NSDictionary])
    }
}
