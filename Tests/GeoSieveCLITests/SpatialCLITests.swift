import Foundation
import Testing
import SieveTestSupport

/// `geosieve query --geometry …` and `geosieve identify` end to end. Expected object IDs come
/// from `Tests/Fixtures/oracle/spatial_query_oracle.json` (Shapely, see
/// `Tests/Fixtures/oracle/make_spatial_query_oracle.py`).
@Suite("geosieve spatial query and identify", .tags(.cli))
struct SpatialCLITests {
    static let countries = "Tests/Fixtures/naturalearth_lowres.geojson"
    static let cities = "Tests/Fixtures/naturalearth_cities.geojson"
    static let europe = "POLYGON ((-12 35, 30 35, 40 50, 30 72, -12 72, -25 60, -12 35))"

    static func json(_ arguments: [String]) throws -> [String: Any] {
        let result = try CLI.run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        #expect(result.stderr.isEmpty)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return try #require(object as? [String: Any])
    }

    static func ids(_ arguments: [String]) throws -> [Int] {
        try #require(try json(["query"] + arguments + ["--return", "ids"])["objectIds"] as? [Int])
    }

    static func failure(_ arguments: [String], status: Int32 = 2) throws -> String {
        let result = try CLI.run(arguments)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("error: "))
        #expect(result.stderr.filter { $0 == "\n" }.count == 1)
        return result.stderr
    }

    /// Web Mercator metres of a longitude/latitude.
    static func mercator(_ lon: Double, _ lat: Double) -> (Double, Double) {
        let r = 6_378_137.0
        return (r * lon * .pi / 180, r * log(tan(.pi / 4 + lat * .pi / 360)))
    }

    /// `--distance` and `--units` (the distances themselves are checked against Vincenty's
    /// formula in the engine's tests): the same cities in every unit; Luxembourg (city 5, 287 km
    /// from Paris) among them; misuse refused.
    @Test func distances() throws {
        let paris = [Self.cities, "--geometry", "2.3522,48.8566"]
        let kilometres = try Self.ids(paris + ["--distance", "500", "--units", "km"])
        #expect(kilometres.count >= 4 && kilometres.contains(5))
        #expect(try Self.ids(paris + ["--distance", "500000"]) == kilometres)
        #expect(try Self.ids(paris + ["--distance", "1640419.9475", "--units", "ft"]) == kilometres)
        #expect(try Self.ids(paris + ["--distance", "250", "--units", "km"]).count < kilometres.count)
        for (arguments, words) in [
            (paris + ["--distance", "-1"], "--distance"), ([Self.cities, "--distance", "5"], "--geometry"),
            (paris + ["--units", "km"], "--units needs --distance"), (paris + ["--distance", "5", "--spatial-rel", "within"], "intersects"),
        ] {
            #expect(try Self.failure(["query"] + arguments).contains(words), "\(arguments)")
        }
    }

    @Test func relationships() throws {
        #expect(try Self.ids([Self.cities, "--geometry", "@Examples/south-africa.geojson", "--spatial-rel", "within"]) == [68, 69, 192, 223])
        #expect(try Self.ids([Self.countries, "--geometry", "@Examples/south-africa.geojson", "--spatial-rel", "touches"]) == [27, 49, 50, 51, 73, 74])
        #expect(try Self.ids([Self.countries, "--geometry", "@Examples/south-africa.geojson", "--spatial-rel", "equals"]) == [26])
        #expect(try Self.ids([Self.countries, "--geometry", "POINT (2.35 46.85)", "--spatial-rel", "contains"]) == [44])
        #expect(try Self.ids([Self.countries, "--geometry", "2.35,46.85"]) == [44])
        #expect(
            try Self.ids([Self.countries, "--geometry", "POINT (2.35 46.85)", "--spatial-rel", "relate", "--relation", "T*****FF*"])
                == [44])
        let count = try Self.json(["query", Self.countries, "--geometry", "-20,-10,40,20", "--spatial-rel", "envelope-intersects", "--return", "count"])
        #expect(count["count"] as? Int == 38)
        let intersects = try Self.json(["query", Self.countries, "--geometry", "-20,-10,40,20", "--return", "count"])
        #expect(intersects["count"] as? Int == 36)
        let line = "LINESTRING (-17 14, 10 5, 25 -5, 40 -20, 51 -25)"
        let crossing = try Self.ids([Self.countries, "--geometry", line, "--spatial-rel", "crosses"])
        #expect(crossing.count == 17)
        #expect(try Self.ids([Self.countries, "--geometry", line]) == crossing)
        // Combined with a where clause and object IDs; features, extent agree.
        let europeIDs = try Self.ids([Self.countries, "--geometry", Self.europe, "--spatial-rel", "within"])
        #expect(europeIDs.count == 33)
        let combined = try Self.ids([
            Self.countries, "--geometry", Self.europe, "--spatial-rel", "within", "--where", "pop_est > 20000000",
            "--object-ids", europeIDs.map(String.init).joined(separator: ","),
        ])
        #expect(!combined.isEmpty && Set(combined).isSubset(of: Set(europeIDs)))
        let features = try Self.json([
            "query", Self.countries, "--geometry", Self.europe, "--spatial-rel", "within", "--where", "pop_est > 20000000",
            "--no-return-geometry", "--format", "esrijson",
        ])
        let featureIDs = (features["features"] as? [[String: Any]])?.compactMap { ($0["attributes"] as? [String: Any])?["OBJECTID"] as? Int }
        #expect(featureIDs == combined)
        let extent = try Self.json(["query", Self.countries, "--geometry", Self.europe, "--spatial-rel", "within", "--return", "extent"])
        #expect(extent["count"] as? Int == 33)
    }

    @Test func inSpatialReference() throws {
        let (x0, y0) = Self.mercator(-20, -10)
        let (x1, y1) = Self.mercator(40, 20)
        let box = "\(x0),\(y0),\(x1),\(y1)"
        #expect(try Self.ids([Self.countries, "--geometry", box, "--in-sr", "3857"]) == (try Self.ids([Self.countries, "--geometry", "-20,-10,40,20"])))
        // The spatial reference of an Esri JSON geometry is used when --in-sr is absent.
        let (px, py) = Self.mercator(2.35, 46.85)
        let esri = #"{"x":\#(px),"y":\#(py),"spatialReference":{"wkid":102100}}"#
        #expect(try Self.ids([Self.countries, "--geometry", esri]) == [44])
        let message = try Self.failure(["query", Self.countries, "--geometry", box, "--in-sr", "999999"])
        #expect(message.contains("999999"))
        _ = try Self.failure(["query", Self.countries, "--geometry", box, "--in-sr", "0"])
        _ = try Self.failure(["query", Self.countries, "--in-sr", "3857"])
    }

    @Test func badSpatialArguments() throws {
        let bad = try Self.failure(["query", Self.countries, "--geometry", "POLYGON ((0 0, 1 1"])
        #expect(bad.contains("--geometry"))
        _ = try Self.failure(["query", Self.countries, "--geometry", "{\"type\":\"Polygon\"}"])
        // A file that cannot be read exits with status 1, as SOURCE does.
        let unreadable = try Self.failure(["query", Self.countries, "--geometry", "@/nonexistent/file.wkt"], status: 1)
        #expect(unreadable == "error: --geometry: cannot read /nonexistent/file.wkt: no such file\n")
        _ = try Self.failure(["query", Self.countries, "--geometry", "1,2,3"])
        let pattern = try Self.failure(["query", Self.countries, "--geometry", "1,2", "--spatial-rel", "relate", "--relation", "T*F"])
        #expect(pattern.contains("T*F"))
        _ = try Self.failure(["query", Self.countries, "--geometry", "1,2", "--spatial-rel", "relate", "--relation", "XXXXXXXXX"])
        let missing = try Self.failure(["query", Self.countries, "--geometry", "1,2", "--spatial-rel", "relate"])
        #expect(missing.contains("--relation"))
        let stray = try Self.failure(["query", Self.countries, "--geometry", "1,2", "--relation", "T********"])
        #expect(stray.contains("--relation"))
        _ = try Self.failure(["query", Self.countries, "--geometry", "1,2", "--spatial-rel", "sideways"])
        _ = try Self.failure(["query", Self.countries, "--spatial-rel", "within"])
        _ = try Self.failure(["query", "Tests/Fixtures/missing.geojson", "--geometry", "1,2"], status: 1)
    }

    static let view = ["--map-extent", "-180,-90,180,90", "--size", "1440,720"]

    @Test func identifyOutput() throws {
        let paris = try Self.json(["identify", Self.cities, "--point", "2.353,48.858", "--tolerance", "5"] + Self.view)
        #expect(paris.keys.sorted() == ["results"])
        let results = try #require(paris["results"] as? [[String: Any]])
        #expect(results.count == 1)
        let hit = try #require(results.first)
        #expect(hit.keys.sorted() == ["attributes", "displayFieldName", "layerId", "layerName", "objectId", "value"])
        #expect(hit["layerId"] as? Int == 0)
        #expect(hit["layerName"] as? String == "naturalearth_cities")
        #expect(hit["objectId"] as? Int == 236)
        #expect(hit["displayFieldName"] as? String == "name")
        #expect(hit["value"] as? String == "Paris")
        #expect((hit["attributes"] as? [String: Any])?.keys.sorted() == ["OBJECTID", "fid", "name"])

        let geometry = try Self.json(["identify", Self.cities, "--point", "2.353,48.858", "--return-geometry"] + Self.view)
        let withGeometry = try #require((geometry["results"] as? [[String: Any]])?.first)
        let point = try #require(withGeometry["geometry"] as? [String: Any])
        #expect(point["x"] is Double && point["y"] is Double)
        #expect((point["spatialReference"] as? [String: Any])?["wkid"] as? Int == 4326)

        // Many hits, nearest first; 0 = all, N = the first N.
        let all = try #require(
            try Self.json(["identify", Self.cities, "--point", "13,42", "--tolerance", "100", "--max-results", "0"] + Self.view)["results"]
                as? [[String: Any]])
        #expect(all.count > 5)
        #expect(all.first?["value"] as? String == "Rome" || all.first?["value"] as? String == "Vatican City")
        let three = try #require(
            try Self.json(["identify", Self.cities, "--point", "13,42", "--tolerance", "100", "--max-results", "3"] + Self.view)["results"]
                as? [[String: Any]])
        #expect(three.compactMap { $0["objectId"] as? Int } == all.prefix(3).compactMap { $0["objectId"] as? Int })
        // --where limits the candidates.
        let filtered = try #require(
            try Self.json(["identify", Self.cities, "--point", "13,42", "--tolerance", "100", "--max-results", "0", "--where", "name = 'Rome'"]
                + Self.view)["results"] as? [[String: Any]])
        #expect(filtered.compactMap { $0["value"] as? String } == ["Rome"])
        // A point inside a country.
        let france = try #require(
            try Self.json(["identify", Self.countries, "--point", "2.35,46.85", "--tolerance", "0"] + Self.view)["results"] as? [[String: Any]])
        #expect(france.compactMap { $0["objectId"] as? Int } == [44])
        #expect((france.first?["attributes"] as? [String: Any])?["name"] as? String == "France")
        // Nothing hit.
        let none = try CLI.run(["identify", Self.cities, "--point", "-140,-60"] + Self.view)
        #expect(none.status == 0)
        #expect(none.stdout == "{\"results\":[]}\n")
    }

    @Test func identifyErrors() throws {
        let base = ["identify", Self.cities, "--point", "2,48"]
        #expect(try Self.failure(base + ["--map-extent", "-180,-90,180,90", "--size", "0,720"]).contains("--size"))
        #expect(try Self.failure(base + ["--map-extent", "-180,-90,180,90", "--size", "1440"]).contains("--size"))
        #expect(try Self.failure(base + ["--tolerance", "101"] + Self.view).contains("--tolerance"))
        #expect(try Self.failure(base + ["--tolerance", "-1"] + Self.view).contains("--tolerance"))
        #expect(try Self.failure(base + ["--map-extent", "10,0,10,5", "--size", "100,100"]).contains("--map-extent"))
        #expect(try Self.failure(["identify", Self.cities, "--point", "2"] + Self.view).contains("--point"))
        _ = try Self.failure(base + ["--max-results", "-1"] + Self.view)
        _ = try Self.failure(base + ["--where", "nosuchfield = 1"] + Self.view)
        _ = try Self.failure(base)  // missing --map-extent and --size
        _ = try Self.failure(["identify", "Tests/Fixtures/missing.geojson", "--point", "2,48"] + Self.view, status: 1)
    }
}
