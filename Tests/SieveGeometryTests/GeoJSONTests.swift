import Foundation
import Testing
@testable import SieveGeometry
import SieveJSON

/// Points from (x, y) pairs.
func points(_ pairs: [(Double, Double)]) -> [Point] {
    pairs.map { Point(x: $0.0, y: $0.1) }
}

/// The geometry with polygon rings in GeoJSON orientation (for comparing geometries read from
/// formats that orient rings differently).
func normalized(_ geometry: Geometry) -> Geometry {
    switch geometry {
    case .polygon(let polygon): .polygon(polygon.outerRingsCounterClockwise(true))
    case .collection(let collection): .collection(GeometryCollection(collection.geometries.map(normalized)))
    default: geometry
    }
}

/// The features of a fixture FeatureCollection: their `fid` property, geometry object and path.
func fixtureFeatures(_ name: String) throws -> [(fid: Int, geometry: JSONValue, path: String)] {
    let document = try JSONReader.parse(try fixtureText(name))
    let features = try #require(document["features"]?.arrayValue)
    return try features.enumerated().map { i, feature in
        let fid = try #require(feature["properties"]?["fid"]?.numberValue?.exactInt)
        let geometry = try #require(feature["geometry"])
        return (fid, geometry, "features[\(i)].geometry")
    }
}

/// Twice the signed area of a ring given as JSON positions.
func signedDoubleArea(ofJSONRing ring: JSONValue) throws -> Double {
    let positions = try #require(ring.arrayValue)
    var values: [Double] = []
    for position in positions {
        let numbers = try #require(position.arrayValue)
        values.append(try #require(numbers[0].doubleValue))
        values.append(try #require(numbers[1].doubleValue))
    }
    let buffer = CoordinateBuffer(values: values, layout: .xy)
    return buffer.signedDoubleArea(of: 0..<buffer.count)
}

let fixtureNames = ["naturalearth_lowres.geojson", "naturalearth_cities.geojson", "nybb.geojson"]

@Suite("GeoJSON")
struct GeoJSONTests {
    // MARK: Reading

    @Test func readsPoints() throws {
        #expect(try Geometry(geoJSON: #"{"type":"Point","coordinates":[12.5,41.9]}"#) == .point(Point(x: 12.5, y: 41.9)))
        #expect(try Geometry(geoJSON: #"{"type":"Point","coordinates":[1,2,3]}"#) == .point(Point(x: 1, y: 2, z: 3)))
        #expect(try Geometry(geoJSON: #"{"type":"Point","coordinates":[1,2,3,4]}"#) == .point(Point(x: 1, y: 2, z: 3, m: 4)))
        #expect(try Geometry(geoJSON: #"{"type":"Point","coordinates":[]}"#) == .point(.empty))
        // Other members (bbox, foreign members) are ignored.
        #expect(
            try Geometry(geoJSON: #" { "bbox": [1,2,1,2], "coordinates": [1, 2], "type": "Point", "x": true } "#)
                == .point(Point(x: 1, y: 2)))
    }

    @Test func readsMultiPoint() throws {
        let geometry = try Geometry(geoJSON: #"{"type":"MultiPoint","coordinates":[[1,2],[3,4]]}"#)
        #expect(geometry == .multipoint(try Multipoint(points: points([(1, 2), (3, 4)]))))
        #expect(try Geometry(geoJSON: #"{"type":"MultiPoint","coordinates":[]}"#) == .multipoint(try Multipoint(points: [])))
    }

    @Test func readsLines() throws {
        let line = try Geometry(geoJSON: #"{"type":"LineString","coordinates":[[0,0],[1,1],[2,0]]}"#)
        #expect(line == .polyline(try Polyline(paths: [points([(0, 0), (1, 1), (2, 0)])])))
        let multi = try Geometry(geoJSON: #"{"type":"MultiLineString","coordinates":[[[0,0],[1,1]],[[5,5],[6,6],[7,5]]]}"#)
        guard case .polyline(let polyline) = multi else {
            Issue.record("expected a polyline")
            return
        }
        #expect(polyline.pathCount == 2)
        #expect(polyline.paths[1] == points([(5, 5), (6, 6), (7, 5)]))
        #expect(try Geometry(geoJSON: #"{"type":"LineString","coordinates":[]}"#) == .polyline(.empty))
        #expect(try Geometry(geoJSON: #"{"type":"MultiLineString","coordinates":[]}"#) == .polyline(.empty))
    }

    @Test func readsPolygons() throws {
        let outer = points([(0, 0), (10, 0), (10, 10), (0, 10), (0, 0)])
        let hole = points([(2, 2), (2, 8), (8, 8), (8, 2), (2, 2)])
        let text = #"{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]],[[2,2],[2,8],[8,8],[8,2],[2,2]]]}"#
        #expect(try Geometry(geoJSON: text) == .polygon(try Polygon(exterior: outer, holes: [hole])))

        let multi = try Geometry(
            geoJSON: #"""
                {"type":"MultiPolygon","coordinates":[
                  [[[0,0],[10,0],[10,10],[0,10],[0,0]],[[2,2],[2,8],[8,8],[8,2],[2,2]]],
                  [[[20,0],[30,0],[30,10],[20,0]]]
                ]}
                """#)
        guard case .polygon(let polygon) = multi else {
            Issue.record("expected a polygon")
            return
        }
        #expect(polygon.partCount == 2)
        #expect(polygon.ringCount == 3)
        #expect(polygon.parts[0] == [outer, hole])
        #expect(try Geometry(geoJSON: #"{"type":"Polygon","coordinates":[]}"#) == .polygon(.empty))
        #expect(try Geometry(geoJSON: #"{"type":"MultiPolygon","coordinates":[]}"#) == .polygon(.empty))
    }

    @Test func readsCollections() throws {
        let geometry = try Geometry(
            geoJSON: #"""
                {"type":"GeometryCollection","geometries":[
                  {"type":"Point","coordinates":[1,2]},
                  {"type":"GeometryCollection","geometries":[{"type":"LineString","coordinates":[[0,0],[1,1]]}]}
                ]}
                """#)
        let expected = Geometry.collection(
            GeometryCollection([
                .point(Point(x: 1, y: 2)),
                .collection(GeometryCollection([.polyline(try Polyline(paths: [points([(0, 0), (1, 1)])]))])),
            ]))
        #expect(geometry == expected)
        #expect(try Geometry(geoJSON: #"{"type":"GeometryCollection","geometries":[]}"#) == .collection(GeometryCollection([])))
    }

    @Test func collectionNestingLimit() throws {
        func nested(_ depth: Int) -> String {
            String(repeating: #"{"type":"GeometryCollection","geometries":["#, count: depth)
                + String(repeating: "]}", count: depth)
        }
        guard case .collection(let collection) = try Geometry(geoJSON: nested(32)) else {
            Issue.record("expected a collection")
            return
        }
        #expect(collection.nestingDepth == 32)
        #expect(throws: GeometryError.self) { try Geometry(geoJSON: nested(33)) }
        do {
            _ = try Geometry(geoJSON: nested(33))
        } catch {
            #expect(error.kind == .invalidGeoJSON)
            #expect(error.message == "geometry collections nest deeper than 32")
            #expect(error.path == Array(repeating: "geometries[0]", count: 32).joined(separator: "."))
        }
    }

    @Test func positionLayouts() throws {
        // Mixed lengths: z for all, 0 where missing; m NaN where missing.
        guard case .multipoint(let multipoint) = try Geometry(
            geoJSON: #"{"type":"MultiPoint","coordinates":[[1,2],[3,4,5],[6,7,8,9],[1,1,1,null]]}"#)
        else {
            Issue.record("expected a multipoint")
            return
        }
        #expect(multipoint.coordinates.layout == .xyzm)
        #expect(multipoint.coordinates[0].z == 0)
        #expect(multipoint.coordinates[0].m?.isNaN == true)
        #expect(multipoint.coordinates[2] == Point(x: 6, y: 7, z: 8, m: 9))
        #expect(multipoint.coordinates[3].m?.isNaN == true)
    }

    // MARK: Errors

    @Test(arguments: [
        (#"{"type":"Circle","coordinates":[0,0]}"#, 9, "type",
         #"unknown geometry type "Circle"; expected Point, MultiPoint, LineString, MultiLineString, Polygon, MultiPolygon or GeometryCollection"#),
        (#"{"type":"Point","coordinates":null}"#, 31, "coordinates", #""coordinates" must be an array, found null"#),
        (#"{"type":"Point"}"#, 1, "coordinates", #"missing member "coordinates""#),
        (#"{"coordinates":[1,2]}"#, 1, "type", #"missing member "type""#),
        (#"{"type":7}"#, 9, "type", #""type" must be a string, found a number"#),
        ("[1,2]", 1, "", "expected a GeoJSON geometry object, found an array"),
        (#"{"type":"Feature","geometry":null}"#, 9, "type",
         #"a Feature is not a geometry object; expected a geometry such as its "geometry" member"#),
        (#"{"type":"MultiPoint","coordinates":[[1]]}"#, 37, "coordinates[0]",
         "a position needs 2 to 4 numbers (x, y, z, m), found 1"),
        (#"{"type":"Point","coordinates":[1,2,3,4,5]}"#, 31, "coordinates",
         "a position needs 2 to 4 numbers (x, y, z, m), found 5"),
        (#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[0,0]]]}"#, 34, "coordinates[0]",
         "ring 0 has 3 point(s); a closed ring needs at least 4"),
        (#"{"type":"Polygon", "coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}"#, 35, "coordinates[0]",
         "ring 0 is not closed: its first and last points differ"),
        (#"{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[[[5,5],[6,5],[5,5]]]]}"#, 68,
         "coordinates[1][0]", "ring 1 has 3 point(s); a closed ring needs at least 4"),
        (#"{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[]]}"#, 67, "coordinates[1]",
         "polygon part 1 has no ring"),
        (#"{"type":"LineString","coordinates":[[0,0],[1,"2"]]}"#, 46, "coordinates[1][1]",
         "expected a number, found a string"),
        (#"{"type":"Point","coordinates":["NaN",0]}"#, 32, "coordinates[0]", "expected a number, found a string"),
        (#"{"type":"Point","coordinates":[1e999,0]}"#, 32, "coordinates[0]", "point coordinates must be finite numbers"),
        (#"{"type":"LineString","coordinates":[[0,0],[1,-1e400]]}"#, 46, "coordinates[1][1]",
         "polyline coordinates must be finite numbers"),
        (#"{"type":"LineString","coordinates":[[0,0]]}"#, 36, "coordinates", "path 0 has 1 point(s); a path needs at least 2"),
        (#"{"type":"MultiLineString","coordinates":[[[0,0],[1,1]],[]]}"#, 56, "coordinates[1]",
         "path 1 has 0 point(s); a path needs at least 2"),
        (#"{"type":"Polygon","coordinates":[[0,0]]}"#, 35, "coordinates[0][0]",
         "expected a position (an array of numbers), found a number"),
        (#"{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[]},{"type":"Point"}]}"#, 78,
         "geometries[1].coordinates", #"missing member "coordinates""#),
        (#"{"type":"GeometryCollection"}"#, 1, "geometries", #"missing member "geometries""#),
    ] as [(String, Int, String, String)])
    func errors(input: String, position: Int, path: String, message: String) {
        #expect(throws: GeometryError(.invalidGeoJSON, message, position: position, path: path)) {
            try Geometry(geoJSON: input)
        }
    }

    @Test func errorDescriptionNamesPositionAndPath() {
        do {
            _ = try Geometry(geoJSON: #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[0,0]]]}"#)
            Issue.record("expected an error")
        } catch {
            #expect(
                error.description
                    == "invalid GeoJSON at position 34 (coordinates[0]): ring 0 has 3 point(s); a closed ring needs at least 4")
        }
    }

    @Test func errorPathsBuildOnTheGivenPath() throws {
        let document = try JSONReader.parse(#"{"geometry": {"type":"LineString","coordinates":[[0,0],[1]]}}"#)
        let geometry = try #require(document["geometry"])
        #expect(
            throws: GeometryError(
                .invalidGeoJSON, "a position needs 2 to 4 numbers (x, y, z, m), found 1", position: 56,
                path: "features[0].geometry.coordinates[1]")
        ) {
            try Geometry(geoJSON: geometry, path: "features[0].geometry")
        }
    }

    @Test func malformedJSONIsAJSONError() {
        #expect(throws: GeometryError(.invalidJSON, "expected ',' or '}', found ']'", position: 36)) {
            try Geometry(geoJSON: #"{"type":"Point","coordinates":[1,2]]"#)
        }
    }

    // MARK: Writing

    @Test(arguments: [
        (Geometry.point(Point(x: 1, y: 2)), #"{"type":"Point","coordinates":[1,2]}"#),
        (.point(Point(x: 1.5, y: -2.25, z: 3)), #"{"type":"Point","coordinates":[1.5,-2.25,3]}"#),
        (.point(Point(x: 1, y: 2, z: 3, m: 4)), #"{"type":"Point","coordinates":[1,2,3,4]}"#),
        (.point(Point(x: 1, y: 2, m: 4)), #"{"type":"Point","coordinates":[1,2,0,4]}"#),
        (.point(.empty), #"{"type":"Point","coordinates":[]}"#),
        (.envelope(Envelope(xmin: 0, ymin: 1, xmax: 2, ymax: 3)),
         #"{"type":"Polygon","coordinates":[[[0,1],[2,1],[2,3],[0,3],[0,1]]]}"#),
        (.envelope(.empty), #"{"type":"Polygon","coordinates":[]}"#),
        (.polyline(.empty), #"{"type":"LineString","coordinates":[]}"#),
        (.polygon(.empty), #"{"type":"Polygon","coordinates":[]}"#),
        (.collection(GeometryCollection([])), #"{"type":"GeometryCollection","geometries":[]}"#),
    ])
    func writesSimpleGeometries(geometry: Geometry, expected: String) {
        #expect(geometry.geoJSON == expected)
    }

    @Test func writesMultiGeometries() throws {
        let multipoint = Geometry.multipoint(try Multipoint(points: points([(1, 2), (0.1, 1e-5)])))
        #expect(multipoint.geoJSON == #"{"type":"MultiPoint","coordinates":[[1,2],[0.1,1e-05]]}"#)

        let line = Geometry.polyline(try Polyline(paths: [points([(0, 0), (1, 1)])]))
        #expect(line.geoJSON == #"{"type":"LineString","coordinates":[[0,0],[1,1]]}"#)
        let lines = Geometry.polyline(try Polyline(paths: [points([(0, 0), (1, 1)]), points([(2, 2), (3, 3)])]))
        #expect(lines.geoJSON == #"{"type":"MultiLineString","coordinates":[[[0,0],[1,1]],[[2,2],[3,3]]]}"#)

        let lineZM = Geometry.polyline(
            try Polyline(paths: [[Point(x: 0, y: 0, z: 1, m: .nan), Point(x: 1, y: 1, z: 2, m: 7)]]))
        #expect(lineZM.geoJSON == #"{"type":"LineString","coordinates":[[0,0,1,null],[1,1,2,7]]}"#)
        let reread = try Geometry(geoJSON: lineZM.geoJSON)
        guard case .polyline(let polyline) = reread else {
            Issue.record("expected a polyline")
            return
        }
        #expect(polyline.coordinates.layout == .xyzm)
        #expect(polyline.coordinates[0].m?.isNaN == true)
        #expect(polyline.coordinates[1] == Point(x: 1, y: 1, z: 2, m: 7))

        let collection = Geometry.collection(GeometryCollection([.point(Point(x: 1, y: 2)), line]))
        #expect(
            collection.geoJSON
                == #"{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[1,2]},{"type":"LineString","coordinates":[[0,0],[1,1]]}]}"#
        )
    }

    @Test func writesPolygonsCounterClockwiseWithClockwiseHoles() throws {
        // Outer rings clockwise, holes counter-clockwise: the opposite of RFC 7946.
        let outerCW = points([(0, 0), (0, 10), (10, 10), (10, 0), (0, 0)])
        let holeCCW = points([(2, 2), (8, 2), (8, 8), (2, 8), (2, 2)])
        let outer2CW = points([(20, 0), (20, 10), (30, 10), (20, 0)])
        let single = Geometry.polygon(try Polygon(exterior: outerCW, holes: [holeCCW]))
        #expect(
            single.geoJSON
                == #"{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]],[[2,2],[2,8],[8,8],[8,2],[2,2]]]}"#
        )
        let multi = Geometry.polygon(try Polygon(parts: [[outerCW, holeCCW], [outer2CW]]))
        let value = try JSONReader.parse(multi.geoJSON)
        #expect(value["type"] == .string("MultiPolygon"))
        let parts = try #require(value["coordinates"]?.arrayValue)
        #expect(parts.count == 2)
        for part in parts {
            let rings = try #require(part.arrayValue)
            for (i, ring) in rings.enumerated() {
                let area = try signedDoubleArea(ofJSONRing: ring)
                #expect(i == 0 ? area > 0 : area < 0)
            }
        }
    }

    // MARK: Fixtures

    @Test func fixtureCounts() throws {
        #expect(try fixtureFeatures("naturalearth_lowres.geojson").count == 177)
        #expect(try fixtureFeatures("naturalearth_cities.geojson").count == 243)
        #expect(try fixtureFeatures("nybb.geojson").count == 5)
    }

    @Test(arguments: fixtureNames)
    func fixtureRoundTrips(name: String) throws {
        for feature in try fixtureFeatures(name) {
            let geometry = try Geometry(geoJSON: feature.geometry, path: feature.path)
            #expect(!geometry.isEmpty)
            let text = geometry.geoJSON
            let reread = try Geometry(geoJSON: text)
            #expect(reread == normalized(geometry), "fid \(feature.fid)")
            #expect(reread.geoJSON == text, "fid \(feature.fid)")
            // The written text is the original geometry object, up to number formatting and
            // orientation: compare it value by value with the source.
            if case .point = geometry {
                #expect(try JSONReader.parse(text) == feature.geometry)
            }
        }
    }

    @Test(arguments: fixtureNames)
    func fixtureRingsAreWrittenInRFC7946Orientation(name: String) throws {
        for feature in try fixtureFeatures(name) {
            let geometry = try Geometry(geoJSON: feature.geometry, path: feature.path)
            guard case .polygon = geometry else { continue }
            let value = try JSONReader.parse(geometry.geoJSON)
            let coordinates = try #require(value["coordinates"]?.arrayValue)
            let parts = value["type"] == .string("Polygon") ? [JSONValue.array(coordinates)] : coordinates
            for part in parts {
                for (i, ring) in try #require(part.arrayValue).enumerated() {
                    let area = try signedDoubleArea(ofJSONRing: ring)
                    #expect(i == 0 ? area > 0 : area < 0, "fid \(feature.fid) ring \(i)")
                }
            }
        }
    }

    @Test func fixtureKinds() throws {
        var kinds: [Geometry.Kind: Int] = [:]
        for feature in try fixtureFeatures("naturalearth_lowres.geojson") {
            kinds[try Geometry(geoJSON: feature.geometry, path: feature.path).kind, default: 0] += 1
        }
        #expect(kinds == [.polygon: 177])
        for feature in try fixtureFeatures("naturalearth_cities.geojson") {
            #expect(try Geometry(geoJSON: feature.geometry, path: feature.path).kind == .point)
        }
        var vertices = 0
        for feature in try fixtureFeatures("nybb.geojson") {
            guard case .polygon(let polygon) = try Geometry(geoJSON: feature.geometry, path: feature.path) else {
                Issue.record("expected a polygon")
                continue
            }
            vertices += polygon.coordinates.count
        }
        #expect(vertices == 76_063)
    }

    @Test func southAfricaKeepsLesothoAsAHole() throws {
        let feature = try #require(try fixtureFeatures("naturalearth_lowres.geojson").first { $0.fid == 26 })
        let geometry = try Geometry(geoJSON: feature.geometry, path: feature.path)
        guard case .polygon(let polygon) = geometry else {
            Issue.record("expected a polygon")
            return
        }
        #expect(polygon.partCount == 1)
        #expect(polygon.ringCount == 2)
        guard case .polygon(let reread) = try Geometry(geoJSON: geometry.geoJSON) else {
            Issue.record("expected a polygon")
            return
        }
        #expect(reread.partCount == 1)
        #expect(reread.ringCount == 2)
        #expect(reread.signedDoubleArea(ofRing: 0) > 0)
        #expect(reread.signedDoubleArea(ofRing: 1) < 0)
    }

    @Test func largeFixtureDecodesQuickly() throws {
        let text = try fixtureText("nybb.geojson")
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
            let document = try JSONReader.parse(text)
            for (i, feature) in try #require(document["features"]?.arrayValue).enumerated() {
                _ = try Geometry(geoJSON: try #require(feature["geometry"]), path: "features[\(i)].geometry")
            }
        }
        // Generous for debug builds; release builds take a small fraction of this.
        #expect(elapsed < .seconds(10))
    }
}
