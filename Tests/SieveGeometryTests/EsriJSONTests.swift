import Testing
@testable import SieveGeometry

@Suite("Esri JSON")
struct EsriJSONTests {
    // MARK: Reading

    @Test func readsPoints() throws {
        let (geometry, reference) = try Geometry.decodeEsriJSON(#"{"x":-118.15,"y":33.8,"spatialReference":{"wkid":4326}}"#)
        #expect(geometry == .point(Point(x: -118.15, y: 33.8)))
        #expect(reference == .wgs84)
        #expect(try Geometry(esriJSON: #"{"x":1,"y":2,"z":3,"m":4}"#) == .point(Point(x: 1, y: 2, z: 3, m: 4)))
        #expect(try Geometry(esriJSON: #"{"x":1,"y":2,"z":null}"#) == .point(Point(x: 1, y: 2)))
        #expect(try Geometry(esriJSON: #"{"x":null,"y":null}"#) == .point(.empty))
        #expect(try Geometry(esriJSON: #"{"x":"NaN","y":"NaN"}"#) == .point(.empty))
        #expect(try Geometry(esriJSON: #"{"x":null}"#) == .point(.empty))
    }

    @Test(arguments: [
        (#"{"wkid":4326}"#, SpatialReference?.some(.wgs84)),
        (#"{"wkid":102100,"latestWkid":3857}"#, SpatialReference(wkid: 102100)),
        (#"{"latestWkid":3857}"#, SpatialReference.webMercator),
        (#"{"wkt":"PROJCS[\"x\"]"}"#, nil),
        ("null", nil),
        (#"{"wkid":2263.0}"#, SpatialReference(wkid: 2263)),
    ] as [(String, SpatialReference?)])
    func readsSpatialReferences(json: String, expected: SpatialReference?) throws {
        let decoded = try Geometry.decodeEsriJSON(#"{"x":1,"y":2,"spatialReference":"# + json + "}")
        #expect(decoded.spatialReference == expected)
        #expect(decoded.spatialReference?.wkid == expected?.wkid)
    }

    @Test func readsMultipointsWithFlags() throws {
        #expect(
            try Geometry(esriJSON: #"{"points":[[1,2],[3,4]]}"#) == .multipoint(try Multipoint(points: points([(1, 2), (3, 4)]))))
        // Without flags extra ordinates are ignored.
        #expect(
            try Geometry(esriJSON: #"{"points":[[1,2,3],[3,4,5]]}"#)
                == .multipoint(try Multipoint(points: points([(1, 2), (3, 4)]))))
        #expect(
            try Geometry(esriJSON: #"{"hasZ":true,"points":[[1,2,3]]}"#)
                == .multipoint(try Multipoint(points: [Point(x: 1, y: 2, z: 3)])))
        // hasM alone: the 3rd number is m.
        #expect(
            try Geometry(esriJSON: #"{"hasM":true,"points":[[1,2,3]]}"#)
                == .multipoint(try Multipoint(points: [Point(x: 1, y: 2, m: 3)])))
        #expect(
            try Geometry(esriJSON: #"{"hasZ":true,"hasM":true,"points":[[1,2,3,4]]}"#)
                == .multipoint(try Multipoint(points: [Point(x: 1, y: 2, z: 3, m: 4)])))
        guard case .multipoint(let withNullM) = try Geometry(esriJSON: #"{"hasM":true,"points":[[1,2,null]]}"#) else {
            Issue.record("expected a multipoint")
            return
        }
        #expect(withNullM.coordinates[0].m?.isNaN == true)
        #expect(try Geometry(esriJSON: #"{"points":[]}"#) == .multipoint(try Multipoint(points: [])))
    }

    @Test func readsPaths() throws {
        let geometry = try Geometry(esriJSON: #"{"paths":[[[0,0],[1,1]],[[2,2],[3,3],[4,2]]],"spatialReference":{"wkid":3857}}"#)
        #expect(geometry == .polyline(try Polyline(paths: [points([(0, 0), (1, 1)]), points([(2, 2), (3, 3), (4, 2)])])))
        #expect(try Geometry(esriJSON: #"{"paths":[]}"#) == .polyline(.empty))
    }

    @Test func readsRingsIntoPartsWithHoles() throws {
        // Two clockwise outer rings, the second with a counter-clockwise hole, listed hole first.
        let text = #"""
            {"rings":[
              [[22,2],[28,2],[28,8],[22,8],[22,2]],
              [[0,0],[0,10],[10,10],[10,0],[0,0]],
              [[20,0],[20,10],[30,10],[30,0],[20,0]]
            ]}
            """#
        guard case .polygon(let polygon) = try Geometry(esriJSON: text) else {
            Issue.record("expected a polygon")
            return
        }
        #expect(polygon.partCount == 2)
        #expect(polygon.parts[0] == [points([(0, 0), (0, 10), (10, 10), (10, 0), (0, 0)])])
        #expect(polygon.parts[1].count == 2)
        #expect(polygon.parts[1][1] == points([(22, 2), (28, 2), (28, 8), (22, 8), (22, 2)]))
        #expect(try Geometry(esriJSON: #"{"rings":[]}"#) == .polygon(.empty))
    }

    @Test func closesUnclosedRings() throws {
        let geometry = try Geometry(esriJSON: #"{"rings":[[[0,0],[0,10],[10,10],[10,0]]]}"#)
        #expect(geometry == .polygon(try Polygon(exterior: points([(0, 0), (0, 10), (10, 10), (10, 0), (0, 0)]))))
        // A triangle given by its three corners.
        guard case .polygon(let triangle) = try Geometry(esriJSON: #"{"rings":[[[0,0],[0,1],[1,0]]]}"#) else {
            Issue.record("expected a polygon")
            return
        }
        #expect(triangle.coordinates.count == 4)
    }

    @Test func readsEnvelopes() throws {
        #expect(
            try Geometry(esriJSON: #"{"xmin":-1,"ymin":-2,"xmax":3,"ymax":4,"spatialReference":{"wkid":4326}}"#)
                == .envelope(Envelope(xmin: -1, ymin: -2, xmax: 3, ymax: 4)))
        #expect(try Geometry(esriJSON: #"{"xmin":null,"ymin":null,"xmax":null,"ymax":null}"#) == .envelope(.empty))
        #expect(try Geometry(esriJSON: #"{"xmin":"NaN","ymin":"NaN","xmax":"NaN","ymax":"NaN"}"#) == .envelope(.empty))
        #expect(try Geometry(esriJSON: #"{"xmin":5,"ymin":5,"xmax":5,"ymax":5}"#) == .envelope(Envelope(xmin: 5, ymin: 5, xmax: 5, ymax: 5)))
    }

    // MARK: Errors

    @Test(arguments: [
        ("{}", 1, "", "not an Esri JSON geometry: expected x/y, points, paths, rings or xmin/ymin/xmax/ymax"),
        (#"{"y":1}"#, 1, "", "not an Esri JSON geometry: expected x/y, points, paths, rings or xmin/ymin/xmax/ymax"),
        ("[]", 1, "", "expected an Esri JSON geometry object, found an array"),
        (#"{"x":1}"#, 1, "y", #"missing member "y""#),
        (#"{"x":"1","y":2}"#, 6, "x", #""x" must be a number, found a string"#),
        (#"{"x":1,"y":"NaN"}"#, 12, "y", #""y" must be a number, found a string"#),
        (#"{"x":1,"y":2,"z":"NaN"}"#, 18, "z", #""z" must be a number, found a string"#),
        (#"{"x":1e999,"y":2}"#, 6, "x", #""x" must be a finite number"#),
        (#"{"points":{}}"#, 11, "points", "expected an array of positions, found an object"),
        (#"{"points":[[1]]}"#, 12, "points[0]", "a position needs 2 numbers (x, y, as hasZ and hasM say), found 1"),
        (#"{"hasZ":true,"points":[[1,2]]}"#, 24, "points[0]",
         "a position needs 3 numbers (x, y, z, as hasZ and hasM say), found 2"),
        (#"{"hasZ":"yes","points":[]}"#, 9, "hasZ", #""hasZ" must be true or false, found a string"#),
        (#"{"paths":[[[0,0],[1,"a"]]]}"#, 21, "paths[0][1][1]", "expected a number, found a string"),
        (#"{"paths":[[[0,0]]]}"#, 11, "paths[0]", "path 0 has 1 point(s); a path needs at least 2"),
        (#"{"paths":[[[0,0],[1,1]],[[0,"NaN"],[1,1]]]}"#, 29, "paths[1][0][1]", "expected a number, found a string"),
        (#"{"rings":[[[0,0],[1,1]]]}"#, 11, "rings[0]", "ring 0 has 2 point(s); a closed ring needs at least 4"),
        (#"{"rings":[[[0,0],[0,1],[1,1],[0,0]],[[5,5],[6,6],[5,5]]]}"#, 37, "rings[1]",
         "ring 1 has 3 point(s); a closed ring needs at least 4"),
        (#"{"rings":[[[0,0],[0,1],[1,1],[1e999,0]]]}"#, 31, "rings[0][3][0]", "polygon coordinates must be finite numbers"),
        (#"{"rings":null}"#, 10, "rings", "expected an array of arrays of positions, found null"),
        (#"{"curveRings":[[[0,0],{"a":[[1,1],[2,0]]}]]}"#, 15, "curveRings",
         "curveRings (Esri JSON curves) are not supported; densify the geometry into paths or rings first"),
        (#"{"curvePaths":[]}"#, 15, "curvePaths",
         "curvePaths (Esri JSON curves) are not supported; densify the geometry into paths or rings first"),
        (#"{"xmin":3,"ymin":0,"xmax":1,"ymax":1}"#, 1, "", "envelope xmin 3.0 is greater than xmax 1.0"),
        (#"{"xmin":0,"ymin":"NaN","xmax":1,"ymax":1}"#, 18, "ymin", #""ymin" must be a number, found a string"#),
        (#"{"xmin":0,"ymin":0,"xmax":1}"#, 1, "ymax", #"missing member "ymax""#),
        (#"{"x":1,"y":2,"spatialReference":4326}"#, 33, "spatialReference",
         #""spatialReference" must be an object, found a number"#),
        (#"{"x":1,"y":2,"spatialReference":{"wkid":"4326"}}"#, 41, "spatialReference.wkid",
         #""wkid" must be an integer, found a string"#),
    ] as [(String, Int, String, String)])
    func errors(input: String, position: Int, path: String, message: String) {
        #expect(throws: GeometryError(.invalidEsriJSON, message, position: position, path: path)) {
            try Geometry(esriJSON: input)
        }
    }

    @Test func errorPathsBuildOnTheGivenPath() throws {
        let document = try JSONReader.parse(#"[{"rings":[[[0,0],[1,1]]]}]"#)
        let geometry = try #require(document.arrayValue?.first)
        #expect(
            throws: GeometryError(
                .invalidEsriJSON, "ring 0 has 2 point(s); a closed ring needs at least 4", position: 12,
                path: "features[0].geometry.rings[0]")
        ) {
            try Geometry.decodeEsriJSON(geometry, path: "features[0].geometry")
        }
    }

    // MARK: Writing

    @Test(arguments: [
        (Geometry.point(Point(x: 1, y: 2)), SpatialReference?.some(.wgs84), #"{"x":1,"y":2,"spatialReference":{"wkid":4326}}"#),
        (.point(Point(x: 1.5, y: 2, z: 3, m: 4)), nil, #"{"x":1.5,"y":2,"z":3,"m":4}"#),
        (.point(.empty), nil, #"{"x":null,"y":null}"#),
        (.point(Point(x: 1, y: 2)), SpatialReference(wkid: 102100),
         #"{"x":1,"y":2,"spatialReference":{"wkid":102100,"latestWkid":3857}}"#),
        (.envelope(Envelope(xmin: 0, ymin: 1, xmax: 2, ymax: 3)), nil, #"{"xmin":0,"ymin":1,"xmax":2,"ymax":3}"#),
        (.envelope(.empty), nil, #"{"xmin":null,"ymin":null,"xmax":null,"ymax":null}"#),
        (.polyline(.empty), nil, #"{"paths":[]}"#),
        (.polygon(.empty), nil, #"{"rings":[]}"#),
    ] as [(Geometry, SpatialReference?, String)])
    func writesSimpleGeometries(geometry: Geometry, reference: SpatialReference?, expected: String) throws {
        #expect(try geometry.esriJSON(spatialReference: reference) == expected)
        let decoded = try Geometry.decodeEsriJSON(expected)
        #expect(decoded.geometry == geometry)
        #expect(decoded.spatialReference?.wkid == reference?.wkid)
    }

    @Test func writesFlagsAndPositions() throws {
        let multipoint = Geometry.multipoint(try Multipoint(points: [Point(x: 1, y: 2, z: 3, m: 4), Point(x: 5, y: 6, z: 7, m: .nan)]))
        let text = try multipoint.esriJSON()
        #expect(text == #"{"hasZ":true,"hasM":true,"points":[[1,2,3,4],[5,6,7,null]]}"#)
        guard case .multipoint(let reread) = try Geometry(esriJSON: text) else {
            Issue.record("expected a multipoint")
            return
        }
        #expect(reread.coordinates[0] == Point(x: 1, y: 2, z: 3, m: 4))
        #expect(reread.coordinates[1].m?.isNaN == true)

        let measured = Geometry.polyline(try Polyline(paths: [[Point(x: 0, y: 0, m: 1), Point(x: 1, y: 0, m: 2)]]))
        #expect(try measured.esriJSON() == #"{"hasM":true,"paths":[[[0,0,1],[1,0,2]]]}"#)
        #expect(try Geometry(esriJSON: try measured.esriJSON()) == measured)
    }

    @Test func writesOuterRingsClockwiseAndHolesCounterClockwise() throws {
        // GeoJSON orientation in: outer counter-clockwise, hole clockwise.
        let outer = points([(0, 0), (10, 0), (10, 10), (0, 10), (0, 0)])
        let hole = points([(2, 2), (2, 8), (8, 8), (8, 2), (2, 2)])
        let other = points([(20, 0), (30, 0), (30, 10), (20, 0)])
        let geometry = Geometry.polygon(try Polygon(parts: [[outer, hole], [other]]))
        let text = try geometry.esriJSON(spatialReference: .wgs84)
        #expect(
            text == #"{"rings":[[[0,0],[0,10],[10,10],[10,0],[0,0]],[[2,2],[8,2],[8,8],[2,8],[2,2]],"#
                + #"[[20,0],[30,10],[30,0],[20,0]]],"spatialReference":{"wkid":4326}}"#)
        let rings = try #require(try JSONReader.parse(text)["rings"]?.arrayValue)
        #expect(try rings.map { try signedDoubleArea(ofJSONRing: $0) < 0 } == [true, false, true])
        // Holes stay holes of the same part.
        guard case .polygon(let reread) = try Geometry(esriJSON: text) else {
            Issue.record("expected a polygon")
            return
        }
        #expect(reread.partCount == 2)
        #expect(reread.partRingRange(0).count == 2)
        #expect(normalized(.polygon(reread)) == geometry)
    }

    @Test func collectionsHaveNoEsriJSONForm() {
        let collection = Geometry.collection(GeometryCollection([.point(Point(x: 1, y: 2))]))
        #expect(
            throws: GeometryError(
                .invalidEsriJSON, "a geometry collection has no Esri JSON form; write its members one by one")
        ) {
            try collection.esriJSON()
        }
    }

    // MARK: Fixtures

    @Test(arguments: fixtureNames)
    func fixtureRoundTripsThroughEsriJSON(name: String) throws {
        for feature in try fixtureFeatures(name) {
            let geometry = try Geometry(geoJSON: feature.geometry, path: feature.path)
            let text = try geometry.esriJSON(spatialReference: .wgs84)
            let decoded = try Geometry.decodeEsriJSON(text)
            #expect(decoded.spatialReference == .wgs84)
            #expect(normalized(decoded.geometry) == normalized(geometry), "fid \(feature.fid)")
            // Esri orientation: outer rings clockwise, holes counter-clockwise, part by part.
            if case .polygon(let polygon) = geometry {
                let rings = try #require(try JSONReader.parse(text)["rings"]?.arrayValue)
                #expect(rings.count == polygon.ringCount)
                for p in 0..<polygon.partCount {
                    for r in polygon.partRingRange(p) {
                        let area = try signedDoubleArea(ofJSONRing: rings[r])
                        #expect(r == polygon.partOffsets[p] ? area < 0 : area > 0, "fid \(feature.fid) ring \(r)")
                    }
                }
            }
        }
    }

    @Test func southAfricaKeepsLesothoAsAHole() throws {
        let feature = try #require(try fixtureFeatures("naturalearth_lowres.geojson").first { $0.fid == 26 })
        let geometry = try Geometry(geoJSON: feature.geometry, path: feature.path)
        guard case .polygon(let polygon) = try Geometry(esriJSON: try geometry.esriJSON()) else {
            Issue.record("expected a polygon")
            return
        }
        #expect(polygon.partCount == 1)
        #expect(polygon.ringCount == 2)
        #expect(polygon.signedDoubleArea(ofRing: 0) < 0)
        #expect(polygon.signedDoubleArea(ofRing: 1) > 0)
        #expect(normalized(.polygon(polygon)) == normalized(geometry))
    }

    @Test func geoJSONMultiPolygonWithHolesKeepsThemThroughEsriRings() throws {
        let text = #"""
            {"type":"MultiPolygon","coordinates":[
              [[[0,0],[10,0],[10,10],[0,10],[0,0]],[[2,2],[2,4],[4,4],[4,2],[2,2]],[[6,6],[6,8],[8,8],[8,6],[6,6]]],
              [[[20,0],[30,0],[30,10],[20,10],[20,0]],[[22,2],[22,8],[28,8],[28,2],[22,2]]],
              [[[24,4],[26,4],[26,6],[24,6],[24,4]]]
            ]}
            """#
        let geometry = try Geometry(geoJSON: text)
        let esri = try geometry.esriJSON()
        guard case .polygon(let polygon) = try Geometry(esriJSON: esri) else {
            Issue.record("expected a polygon")
            return
        }
        #expect(polygon.partCount == 3)
        #expect((0..<3).map { polygon.partRingRange($0).count } == [3, 2, 1])
        #expect(normalized(.polygon(polygon)) == normalized(geometry))
        #expect(try Geometry(geoJSON: Geometry.polygon(polygon).geoJSON) == normalized(geometry))
    }
}
