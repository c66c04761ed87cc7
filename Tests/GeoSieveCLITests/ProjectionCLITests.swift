import Foundation
import Testing
import SieveTestSupport

/// `--in-sr` and `--out-sr` with any EPSG or ESRI code, end to end.
@Suite("geosieve across spatial references", .tags(.cli))
struct ProjectionCLITests {
    static let boroughs = "Tests/Fixtures/nybb.geojson"

    /// The boroughs written in EPSG:2263 by `--out-sr`, to a temporary file.
    static func stateplaneBoroughs() throws -> URL {
        let result = try CLI.run(["query", boroughs, "--out-sr", "2263"])
        #expect(result.status == 0, "\(result.stderr)")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("nybb-2263-\(UUID().uuidString).geojson")
        try Data(result.stdout.utf8).write(to: url)
        return url
    }

    /// A State Plane table answers a WGS 84 query as the WGS 84 table does (boxes away from
    /// borough boundaries), and its output names its reference.
    @Test func stateplaneTableWithWGS84Geometry() throws {
        let url = try Self.stateplaneBoroughs()
        defer { try? FileManager.default.removeItem(at: url) }
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.hasPrefix(#"{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::2263"}}"#))
        for box in ["-73.99,40.75,-73.97,40.76", "-73.975,40.655,-73.96,40.67", "-74.3,40.45,-73.6,41"] {
            let expected = try SpatialCLITests.ids([Self.boroughs, "--geometry", box])
            #expect(try SpatialCLITests.ids([url.path, "--geometry", box, "--in-sr", "4326"]) == expected)
            #expect(!expected.isEmpty)
        }
        // An Esri JSON geometry names its own reference.
        let esri = #"{"x":-73.9855,"y":40.758,"spatialReference":{"wkid":4326}}"#
        #expect(try SpatialCLITests.ids([url.path, "--geometry", esri]) == [4])
        // And an ESRI code for the same zone.
        #expect(try SpatialCLITests.ids([url.path, "--geometry", esri, "--out-sr", "102718"]) == [4])
        // Extent back in WGS 84: the source's extent to 10⁻⁸°.
        let extent = try #require(try SpatialCLITests.json(["query", url.path, "--return", "extent", "--out-sr", "4326"])["extent"] as? [String: Any])
        let source = try #require(try SpatialCLITests.json(["query", Self.boroughs, "--return", "extent"])["extent"] as? [String: Any])
        for key in ["xmin", "ymin", "xmax", "ymax"] {
            let a = try #require(extent[key] as? Double), b = try #require(source[key] as? Double)
            #expect(abs(a - b) < 1e-8, "\(key)")
        }
        #expect((extent["spatialReference"] as? [String: Any])?["wkid"] as? Int == 4326)
    }

    /// A State Plane table converted to a GeoPackage carries PROJ's WKT 1 definition of its
    /// reference (not `undefined`), and reads back with the same answers.
    @Test func geoPackageOfAStateplaneTableDefinesItsReference() throws {
        let url = try Self.stateplaneBoroughs()
        let gpkg = FileManager.default.temporaryDirectory.appendingPathComponent("nybb-2263-\(UUID().uuidString).gpkg")
        defer {
            try? FileManager.default.removeItem(at: url)
            try? FileManager.default.removeItem(at: gpkg)
        }
        let converted = try CLI.run(["convert", url.path, "--output", gpkg.path])
        #expect(converted.status == 0, "\(converted.stderr)")
        // SQLite stores short texts as they are: the definition's CRS name is in the file.
        let bytes = try Data(contentsOf: gpkg)
        #expect(bytes.range(of: Data(#"PROJCS["NAD83 / New York Long Island (ftUS)""#.utf8)) != nil)
        let box = "-73.99,40.75,-73.97,40.76"
        #expect(try SpatialCLITests.ids([gpkg.path, "--geometry", box, "--in-sr", "4326"]) == (try SpatialCLITests.ids([Self.boroughs, "--geometry", box])))
    }

    /// `--out-sr 3857` gives Web Mercator output by the exact formulas.
    @Test func webMercatorOutput() throws {
        let extent = try #require(try SpatialCLITests.json(["query", Self.boroughs, "--return", "extent", "--out-sr", "102100"])["extent"] as? [String: Any])
        let source = try #require(try SpatialCLITests.json(["query", Self.boroughs, "--return", "extent"])["extent"] as? [String: Any])
        let (x0, y0) = SpatialCLITests.mercator(try #require(source["xmin"] as? Double), try #require(source["ymin"] as? Double))
        #expect(abs(try #require(extent["xmin"] as? Double) - x0) < 1e-6)
        #expect(abs(try #require(extent["ymin"] as? Double) - y0) < 1e-6)
        let reference = try #require(extent["spatialReference"] as? [String: Any])
        #expect(reference["wkid"] as? Int == 102100 && reference["latestWkid"] as? Int == 3857)
        let esri = try SpatialCLITests.json(["query", Self.boroughs, "--format", "esrijson", "--out-sr", "3857", "--limit", "1"])
        #expect((esri["spatialReference"] as? [String: Any])?["wkid"] as? Int == 3857)
    }

    /// Unknown codes and positions that do not transform: exit 2, one line naming them.
    @Test func projectionErrorsExit2() throws {
        let unknownIn = try SpatialCLITests.failure(["query", Self.boroughs, "--geometry", "1,1", "--in-sr", "999999"])
        #expect(unknownIn.hasPrefix("error: --in-sr: unknown spatial reference: wkid 999999"))
        let unknownOut = try SpatialCLITests.failure(["query", Self.boroughs, "--out-sr", "999999", "--return", "count"])
        #expect(unknownOut.hasPrefix("error: --out-sr: unknown spatial reference: wkid 999999"))
        _ = try SpatialCLITests.failure(["query", Self.boroughs, "--out-sr", "0"])
        let esri = #"{"x":1,"y":1,"spatialReference":{"wkid":999999}}"#
        #expect(try SpatialCLITests.failure(["query", Self.boroughs, "--geometry", esri]).contains("999999"))
        let url = try Self.stateplaneBoroughs()
        defer { try? FileManager.default.removeItem(at: url) }
        let pole = try SpatialCLITests.failure(["query", url.path, "--geometry", "0,-90", "--in-sr", "4326"])
        #expect(pole.contains("cannot project (0.0, -90.0) from wkid 4326 to wkid 2263"))
        // A feature that does not transform into the output reference is named.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pole-\(UUID().uuidString).geojson")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(
            #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[0,-90]}}]}"#
                .utf8
        ).write(to: file)
        let feature = try SpatialCLITests.failure(["query", file.path, "--out-sr", "2263"])
        #expect(feature.contains("OBJECTID 1") && feature.contains("2263"))
    }

    /// `relate` projects b into a's reference through PROJ.
    @Test func relateAcrossReferences() throws {
        // Times Square in WGS 84 against a 2263 box around midtown (feet).
        let box = #"{"xmin":985000,"ymin":210000,"xmax":995000,"ymax":220000,"spatialReference":{"wkid":2263}}"#
        let point = #"{"x":-73.9855,"y":40.758,"spatialReference":{"wkid":4326}}"#
        let result = try CLI.run(["relate", "--a", box, "--b", point])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#""contains":true"#))
    }
}
