import Foundation
import Testing
import SieveTestSupport

@Suite("geosieve relate", .tags(.cli))
struct RelateCommandTests {
    /// The flat JSON object as key → value text, in order.
    static func fields(_ json: String) -> [(String, String)] {
        let body = json.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst().dropLast()
        return body.split(separator: ",").map { pair in
            let parts = pair.split(separator: ":", maxSplits: 1)
            return (parts[0].trimmingCharacters(in: CharacterSet(charactersIn: "\"")), parts.count > 1 ? String(parts[1]) : "")
        }
    }

    static func fieldMap(_ json: String) -> [String: String] {
        Dictionary(fields(json), uniquingKeysWith: { first, _ in first })
    }

    @Test func overlappingSquares() throws {
        let result = try CLI.run(["relate", "--a", "POLYGON ((0 0, 2 0, 2 2, 0 2, 0 0))", "--b", "1,1,3,3"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        let expected = """
            {"intersects":true,"contains":false,"within":false,"touches":false,"crosses":false,\
            "overlaps":true,"equals":false,"disjoint":false,"envelopeIntersects":true,"relate":"212101212"}

            """
        #expect(result.stdout == expected)
    }

    @Test func keysInContractOrder() throws {
        let result = try CLI.run(["relate", "--a", "1,1", "--b", #"{"type":"Point","coordinates":[1,1]}"#])
        #expect(Self.fields(result.stdout).map(\.0) == [
            "intersects", "contains", "within", "touches", "crosses", "overlaps", "equals", "disjoint",
            "envelopeIntersects", "relate",
        ])
        #expect(Self.fieldMap(result.stdout)["relate"] == "\"0FFFFFFF2\"")
        #expect(Self.fieldMap(result.stdout)["equals"] == "true")
    }

    @Test func withinReadsFromA() throws {
        // Pretoria lies within South Africa.
        let result = try CLI.run(["relate", "--a", "POINT (28.2274832 -25.7049747)", "--b", "@Examples/south-africa.geojson"])
        #expect(result.status == 0, "\(result.stderr)")
        let fields = Self.fieldMap(result.stdout)
        #expect(fields["within"] == "true")
        #expect(fields["contains"] == "false")
        #expect(fields["relate"] == "\"0FFFFF212\"")
    }

    @Test func holeOfARealPolygon() throws {
        // Maseru lies in Lesotho, the hole of South Africa (matrices from Shapely).
        let result = try CLI.run(["relate", "--a", "@Examples/south-africa.geojson", "--b", "POINT (27.4832731 -29.3166744)"])
        let fields = Self.fieldMap(result.stdout)
        #expect(fields["disjoint"] == "true")
        #expect(fields["envelopeIntersects"] == "true")
        #expect(fields["relate"] == "\"FF2FF10F2\"")
        let touching = try CLI.run(["relate", "--a", "@Examples/lesotho.geojson", "--b", "@Examples/south-africa.geojson"])
        let touchingFields = Self.fieldMap(touching.stdout)
        #expect(touchingFields["touches"] == "true")
        #expect(touchingFields["relate"] == "\"FF2F1F212\"")
    }

    @Test func esriJSONInWebMercatorIsProjectedIntoA() throws {
        // b is the point (1°, 1°) written in Web Mercator metres; a is a square in degrees in
        // Esri JSON with wkid 4326, so b is projected into 4326 before the test.
        let a = #"{"rings":[[[0,0],[0,2],[2,2],[2,0],[0,0]]],"spatialReference":{"wkid":4326}}"#
        let b = #"{"x":111319.49079327357,"y":111325.14286638486,"spatialReference":{"wkid":102100}}"#
        let result = try CLI.run(["relate", "--a", a, "--b", b])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.fieldMap(result.stdout)["contains"] == "true")
    }

    static let badInputs: [([String], String)] = [
        (["relate", "--a", "POINT (1 2", "--b", "POINT (1 2)"], "error: --a: invalid WKT at position 11: expected ')'"),
        (["relate", "--a", "POINT (1 2)", "--b", "CIRCLE (1 2)"], "error: --b: invalid WKT"),
        (["relate", "--a", "POINT (nan 2)", "--b", "POINT (1 2)"], "error: --a: invalid WKT"),
        (["relate", "--a", "POLYGON ((0 0, 1 0, 0 0))", "--b", "POINT (1 2)"], "ring 0 has 3 point(s)"),
        (["relate", "--a", #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}"#, "--b", "1,1"], "error: --a: invalid GeoJSON"),
        (["relate", "--a", #"{"type":"Circle","coordinates":[0,0]}"#, "--b", "1,1"], "error: --a: invalid GeoJSON"),
        (["relate", "--a", #"{"type":"Point","coordinates":[0,0]"#, "--b", "1,1"], "error: --a: invalid JSON"),
        (["relate", "--a", #"{"x":"NaN","y":1e999}"#, "--b", "1,1"], "error: --a:"),
        (["relate", "--a", #"{"curveRings":[]}"#, "--b", "1,1"], "error: --a: invalid Esri JSON"),
        (["relate", "--a", "3,0,1,2", "--b", "1,1"], "error: --a: invalid coordinates"),
        (["relate", "--a", "1,inf", "--b", "1,1"], "error: --a:"),
        (["relate", "--a", "", "--b", "1,1"], "error: --a:"),
        (["relate", "--a", "1,1"], "error: Missing expected argument '--b <b>'"),
        (["relate", "--a", "1,1", "--b", "1,1", "--c", "2"], "error: Unknown option '--c'"),
        (["relate", "--a", #"{"x":1,"y":1,"spatialReference":{"wkid":999999}}"#, "--b", #"{"x":1,"y":1,"spatialReference":{"wkid":4326}}"#], "error: --a: unknown spatial reference: wkid 999999"),
        (["relate", "--a", #"{"x":1,"y":1,"spatialReference":{"wkid":2263}}"#, "--b", #"{"x":1,"y":1,"spatialReference":{"wkid":999999}}"#], "error: --b: unknown spatial reference: wkid 999999"),
        (["relate", "--a", #"{"x":1,"y":1,"spatialReference":{"wkid":2263}}"#, "--b", #"{"x":0,"y":-90,"spatialReference":{"wkid":4326}}"#], "error: --b: transformation failed: cannot project (0.0, -90.0)"),
        (["frobnicate"], "error: "),
    ]

    @Test(arguments: badInputs)
    func badInputExitsWithStatus2(arguments: [String], message: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix(message) || result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stderr.filter { $0 == "\n" }.count == 1, "one line: \(result.stderr)")
    }

    @Test func helpExitsZero() throws {
        let result = try CLI.run(["relate", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("--a"))
    }
}
