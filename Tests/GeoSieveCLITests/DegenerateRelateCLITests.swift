import Foundation
import Testing
import SieveTestSupport

/// `geosieve relate` and `geosieve query --spatial-rel` on the inputs that crashed GEOS 3.11
/// (collections with empty members against rectangles) or answered two ways at once (a
/// zero-length line), and on a polygon too complex for GEOS's relate.
@Suite("geosieve with degenerate geometries", .tags(.cli))
struct DegenerateRelateCLITests {
    static func relate(_ a: String, _ b: String) throws -> [String: String] {
        let result = try CLI.run(["relate", "--a", a, "--b", b])
        #expect(result.status == 0, "\(a) vs \(b): \(result.stderr)")
        #expect(result.stderr.isEmpty)
        return RelateCommandTests.fieldMap(result.stdout)
    }

    @Test func collectionsWithEmptyMembers() throws {
        // Point (1 1) inside the square: within, not touching; the square contains it.
        for a in ["GEOMETRYCOLLECTION (POINT EMPTY, POINT (1 1))", "GEOMETRYCOLLECTION (LINESTRING EMPTY, POINT (1 1))"] {
            let forward = try Self.relate(a, "0,0,2,2")
            #expect(forward["relate"] == "\"0FFFFF212\"")
            #expect(forward["within"] == "true" && forward["intersects"] == "true" && forward["disjoint"] == "false")
            let backward = try Self.relate("0,0,2,2", a)
            #expect(backward["relate"] == "\"0F2FF1FF2\"")
            #expect(backward["contains"] == "true")
        }
        // The segment (0 0)–(1 1) starts on the square's corner and runs inside it.
        let line = "GEOMETRYCOLLECTION (POINT EMPTY, POLYGON EMPTY, LINESTRING (0 0, 1 1))"
        #expect(try Self.relate(line, "0,0,2,2")["relate"] == "\"1FF00F212\"")
        #expect(try Self.relate("0,0,2,2", line)["contains"] == "true")
        // Nothing but empty members: disjoint from everything.
        let nothing = try Self.relate("GEOMETRYCOLLECTION (POINT EMPTY)", "0,0,2,2")
        #expect(nothing["disjoint"] == "true" && nothing["intersects"] == "false" && nothing["relate"] == "\"FFFFFF212\"")
    }

    @Test func aZeroLengthLineIsItsPoint() throws {
        let inside = try Self.relate("LINESTRING (1 1, 1 1)", "0,0,2,2")
        #expect(inside["intersects"] == "true" && inside["disjoint"] == "false" && inside["within"] == "true")
        #expect(inside["relate"] == "\"0FFFFF212\"")
        let corner = try Self.relate("LINESTRING (2 2, 2 2)", "0,0,2,2")
        #expect(corner["intersects"] == "true" && corner["touches"] == "true" && corner["within"] == "false")
        let outside = try Self.relate("LINESTRING (5 5, 5 5)", "0,0,2,2")
        #expect(outside["intersects"] == "false" && outside["disjoint"] == "true")
    }

    @Test func queryContainsOnARectangularFeature() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("geosieve-rectangles-\(UUID().uuidString).geojson")
        defer { try? FileManager.default.removeItem(at: file) }
        let text = #"""
            {"type":"FeatureCollection","features":[
            {"type":"Feature","id":1,"properties":{"name":"square"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[2,0],[2,2],[0,2],[0,0]]]}},
            {"type":"Feature","id":2,"properties":{"name":"far"},"geometry":{"type":"Polygon","coordinates":[[[10,10],[12,10],[12,12],[10,12],[10,10]]]}}]}
            """#
        try Data(text.utf8).write(to: file)
        let query = "GEOMETRYCOLLECTION (POINT EMPTY, POINT (1 1))"
        for (relationship, expected) in [("contains", [1]), ("within", []), ("intersects", [1]), ("touches", []), ("disjoint", [2])] {
            let result = try CLI.run(["query", file.path, "--geometry", query, "--spatial-rel", relationship, "--return", "ids"])
            #expect(result.status == 0, "\(relationship): \(result.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            #expect(object?["objectIds"] as? [Int] == expected, "\(relationship)")
        }
    }

    @Test func aStarTooComplexForGEOSIsAClearError() throws {
        var points: [String] = []
        for i in 0..<60_000 {
            let angle = Double(i) / 60_000 * 2 * Double.pi
            let radius = i.isMultiple(of: 2) ? 10.0 : 6.0
            points.append("\(radius * cos(angle)) \(radius * sin(angle))")
        }
        points.append(points[0])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("geosieve-star-\(UUID().uuidString).wkt")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("POLYGON ((\(points.joined(separator: ", "))))".utf8).write(to: file)
        let result = try CLI.run(["relate", "--a", "@" + file.path, "--b", "1,1"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("error: too complex for GEOS's relate"))
        #expect(result.stderr.filter { $0 == "\n" }.count == 1)
    }
}
