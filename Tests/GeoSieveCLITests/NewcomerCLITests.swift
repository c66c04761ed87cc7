import Foundation
import Testing
import SieveTestSupport

/// What a new user tries first: chaining answers through `--geometry @FILE`, `info`, the display
/// field identify labels hits with, and errors that name the option and suggest a field.
@Suite("geosieve as a newcomer uses it", .tags(.cli))
struct NewcomerCLITests {
    static let countries = OutputCLITests.countries
    static let cities = OutputCLITests.cities

    /// The object IDs of a `--return ids` answer.
    static func ids(_ arguments: [String]) throws -> Set<Int> {
        let object = try #require(try OutputCLITests.json(OutputCLITests.success(arguments)) as? [String: Any])
        return Set(try #require(object["objectIds"] as? [Int]))
    }

    /// The features of a GeoJSON answer, parsed.
    static func features(_ text: String) throws -> [[String: Any]] {
        let object = try #require(try OutputCLITests.json(text) as? [String: Any])
        return try #require(object["features"] as? [[String: Any]])
    }

    /// `value` as JSON text.
    static func jsonText(_ value: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: value), as: UTF8.self)
    }

    @Test func aFeatureIsQueriedByItsGeometry() throws {
        try OutputCLITests.withFolder { folder in
            let france = try OutputCLITests.success(["query", Self.countries, "--where", "name = 'France'"])
            let collection = "\(folder)/france.geojson"
            try france.write(toFile: collection, atomically: true, encoding: .utf8)
            let feature = try #require(try Self.features(france).first)
            let single = "\(folder)/feature.geojson"
            try Self.jsonText(feature).write(toFile: single, atomically: true, encoding: .utf8)
            let geometry = "\(folder)/geometry.geojson"
            try Self.jsonText(try #require(feature["geometry"])).write(toFile: geometry, atomically: true, encoding: .utf8)
            // The oracle: the geometry object itself, which --geometry always took.
            let expected = try Self.ids(["query", Self.cities, "--geometry", "@\(geometry)", "--return", "ids"])
            #expect(!expected.isEmpty)
            #expect(try Self.ids(["query", Self.cities, "--geometry", "@\(single)", "--return", "ids"]) == expected)
            #expect(try Self.ids(["query", Self.cities, "--geometry", "@\(collection)", "--return", "ids"]) == expected)
        }
    }

    /// Several features are queried as their union: what intersects the union is what
    /// intersects any of them (queried one by one), and what lies within any of them lies within
    /// the union (which may hold more: a point on a shared border).
    @Test(arguments: ["geojson", "esrijson"])
    func aCollectionIsQueriedAsTheUnionOfItsGeometries(format: String) throws {
        try OutputCLITests.withFolder { folder in
            let text = try OutputCLITests.success(["query", Self.countries, "--where", "continent = 'Europe'", "--format", format])
            let collection = "\(folder)/europe.json"
            try text.write(toFile: collection, atomically: true, encoding: .utf8)
            let object = try #require(try OutputCLITests.json(text) as? [String: Any])
            let features = try #require(object["features"] as? [[String: Any]])
            #expect(features.count > 1)
            var intersecting = Set<Int>(), within = Set<Int>()
            for (i, feature) in features.enumerated() {
                var geometry = try #require(feature["geometry"])
                if format == "esrijson", var esri = geometry as? [String: Any] {
                    esri["spatialReference"] = object["spatialReference"]
                    geometry = esri
                }
                let path = "\(folder)/part\(i).json"
                try Self.jsonText(geometry).write(toFile: path, atomically: true, encoding: .utf8)
                intersecting.formUnion(try Self.ids(["query", Self.cities, "--geometry", "@\(path)", "--return", "ids"]))
                within.formUnion(
                    try Self.ids(["query", Self.cities, "--geometry", "@\(path)", "--spatial-rel", "within", "--return", "ids"]))
            }
            #expect(!intersecting.isEmpty)
            #expect(try Self.ids(["query", Self.cities, "--geometry", "@\(collection)", "--return", "ids"]) == intersecting)
            let withinUnion = try Self.ids(["query", Self.cities, "--geometry", "@\(collection)", "--spatial-rel", "within", "--return", "ids"])
            #expect(within.isSubset(of: withinUnion))
            #expect(withinUnion.isSubset(of: intersecting))
        }
    }

    @Test func aCollectionWithoutGeometriesIsAnError() throws {
        try OutputCLITests.withFolder { folder in
            let path = "\(folder)/empty.geojson"
            try #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":null}]}"#
                .write(toFile: path, atomically: true, encoding: .utf8)
            let message = try OutputCLITests.failure(["query", Self.cities, "--geometry", "@\(path)"], status: 2)
            #expect(message.contains("--geometry"))
            #expect(message.contains("no geometry"))
        }
    }

    /// `info` against the file read independently: the feature count, and per property the
    /// features where it is null or missing.
    @Test func infoSummarisesAFile() throws {
        let file = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: fixtureURL("naturalearth_lowres.geojson"))) as? [String: Any])
        let features = try #require(file["features"] as? [[String: Any]])
        let info = try #require(try OutputCLITests.json(OutputCLITests.success(["info", Self.countries])) as? [String: Any])
        let layers = try #require(info["layers"] as? [[String: Any]])
        #expect(layers.count == 1)
        let layer = try #require(layers.first)
        #expect(layer["name"] as? String == "naturalearth_lowres")
        #expect(layer["featureCount"] as? Int == features.count)
        #expect(layer["geometryType"] as? String == "esriGeometryPolygon")
        #expect(layer["displayField"] as? String == "name")
        #expect((layer["spatialReference"] as? [String: Any])?["wkid"] as? Int == 4326)
        let extent = try #require(layer["extent"] as? [String: Double])
        #expect(extent["xmin"] == -180 && extent["ymin"] == -90)
        let fields = try #require(layer["fields"] as? [[String: Any]])
        for field in fields {
            let name = try #require(field["name"] as? String)
            guard name != "OBJECTID" else { continue }
            let nulls = features.filter { feature in
                let properties = feature["properties"] as? [String: Any] ?? [:]
                return properties[name] == nil || properties[name] is NSNull
            }.count
            #expect(field["nullCount"] as? Int == nulls, "\(name)")
        }
    }

    @Test(.enabled(if: OutputCLITests.executable("ogr2ogr") != nil, "needs GDAL's ogr2ogr on PATH"))
    func infoListsEveryLayerOfAGeoPackage() throws {
        let ogr2ogr = try #require(OutputCLITests.executable("ogr2ogr"))
        try OutputCLITests.withFolder { folder in
            let gpkg = "\(folder)/two.gpkg"
            _ = try OutputCLITests.success(["convert", Self.countries, "--output", gpkg, "--layer-name", "countries"])
            let cities = CLI.packageRoot.appendingPathComponent(Self.cities).path
            _ = try OutputCLITests.runTool(ogr2ogr, ["-update", "-f", "GPKG", gpkg, cities, "-nln", "cities"])
            let info = try #require(try OutputCLITests.json(OutputCLITests.success(["info", gpkg])) as? [String: Any])
            let layers = try #require(info["layers"] as? [[String: Any]])
            #expect(Set(layers.compactMap { $0["name"] as? String }) == ["countries", "cities"])
            #expect(layers.first { $0["name"] as? String == "cities" }?["featureCount"] as? Int == 243)
        }
    }

    @Test func identifyLabelsAHitByItsNameField() throws {
        let base = ["identify", Self.countries, "--point", "2.3,46.5", "--map-extent", "-180,-90,180,90", "--size", "1440,720"]
        let hit = try #require(
            (try OutputCLITests.json(OutputCLITests.success(base)) as? [String: Any])?["results"] as? [[String: Any]])
        #expect(hit.first?["displayFieldName"] as? String == "name")
        #expect(hit.first?["value"] as? String == "France")
        let chosen = try #require(
            (try OutputCLITests.json(OutputCLITests.success(base + ["--display-field", "ISO_A3"])) as? [String: Any])?["results"]
                as? [[String: Any]])
        #expect(chosen.first?["displayFieldName"] as? String == "iso_a3")
        #expect(chosen.first?["value"] as? String == "FRA")
        let message = try OutputCLITests.failure(base + ["--display-field", "iso"], status: 2)
        #expect(message == #"error: --display-field: naturalearth_lowres has no field "iso" (did you mean "iso_a3"?)"#)
    }

    @Test func fieldErrorsNameTheOptionAndSuggest() throws {
        #expect(
            try OutputCLITests.failure(["query", Self.countries, "--out-fields", "name,nme"], status: 2)
                == #"error: unknown field "nme" in --out-fields (did you mean "name"?)"#)
        let order = try OutputCLITests.failure(["query", Self.countries, "--order-by", "pop DESC"], status: 2)
        #expect(order.hasPrefix("error: --order-by: "))
        #expect(order.hasSuffix(#"(did you mean "pop_est"?)"#))
        let display = try OutputCLITests.failure(
            ["count", Self.countries, "--map-extent", "-180,-90,180,90", "--size", "1440,720", "--display-filter", "popx > 1"], status: 2)
        #expect(display.hasPrefix("error: --display-filter: "))
        #expect(!display.contains("display filter \""))
    }

    @Test func everyCommandHasExamplesThatFitTheTerminal() throws {
        let overview = try OutputCLITests.success(["help"])
        for command in ["info", "query", "identify", "count", "render", "relate", "convert", "edit", "serve", "pan"] {
            #expect(overview.contains("\n  \(command) "), "\(command) is not in the overview")
            let help = try OutputCLITests.success(["help", command])
            let examples = try #require(help.range(of: "Example")).lowerBound
            let usage = help.range(of: "USAGE:")?.lowerBound ?? help.endIndex
            for line in help[examples..<usage].split(separator: "\n") {
                #expect(line.count <= 80, "\(command): \(line)")
            }
        }
    }
}
