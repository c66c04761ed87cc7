import Foundation
import SieveColumns
import SieveGEOS
import SieveGeometry
import SieveProjection
import SieveTestSupport
import Testing

@testable import SieveFeatures
@testable import SieveEditing
@testable import SieveFormats

/// Tables in a projected reference (EPSG:2263, New York State Plane, US survey feet) queried
/// with WGS 84 geometries, and results returned in another reference.
@Suite("Queries across spatial references")
struct ProjectedTableTests {
    static let stateplane = SpatialReference(wkid: 2263)

    /// A seeded table over New York in 4326: points and small polygons (squares), with their
    /// 4326 geometries kept for the oracle.
    static func grid() throws -> (geographic: [Geometry], table4326: FeatureTable, table2263: FeatureTable) {
        var random = SeededGenerator(seed: 2263)
        var geometries: [Geometry] = []
        for i in 0..<3_000 {
            let x = random.uniform(-74.4, -73.6), y = random.uniform(40.45, 41.0)
            if i.isMultiple(of: 3) {
                let d = random.uniform(0.0005, 0.01)
                geometries.append(
                    .polygon(
                        try Polygon(exterior: [
                            Point(x: x, y: y), Point(x: x + d, y: y), Point(x: x + d, y: y + d), Point(x: x, y: y + d),
                            Point(x: x, y: y),
                        ])))
            } else {
                geometries.append(.point(Point(x: x, y: y)))
            }
        }
        let projector = try Projector(from: .wgs84, to: stateplane)
        let projected = try geometries.map { try projector.project($0) }
        func table(_ geometries: [Geometry], _ reference: SpatialReference) throws -> FeatureTable {
            let schema = try Schema(
                fields: [Field(name: "OBJECTID", type: .oid)], objectIdFieldName: "OBJECTID", geometryType: .polygon,
                spatialReference: reference)
            return try FeatureTable(
                schema: schema, columns: [.integer(Int64Column(values: (1...Int64(geometries.count)).map { $0 }))],
                geometries: geometries)
        }
        return (geometries, try table(geometries, .wgs84), try table(projected, stateplane))
    }

    /// A WGS 84 query polygon over Manhattan and Brooklyn with long slanted edges.
    static func query() throws -> Geometry {
        .polygon(
            try Polygon(exterior: [
                Point(x: -74.25, y: 40.5), Point(x: -73.7, y: 40.55), Point(x: -73.75, y: 40.95), Point(x: -74.2, y: 40.85),
                Point(x: -74.25, y: 40.5),
            ]))
    }

    /// The rows the 2263 table selects for a 4326 query geometry are those GEOS relates to the
    /// query polygon projected and densified directly, for every relationship.
    @Test(arguments: [SpatialRelationship.intersects, .within, .disjoint, .contains, .envelopeIntersects])
    func stateplaneTableAnswersAsGEOS(relationship: SpatialRelationship) throws {
        let (_, _, table) = try Self.grid()
        let ids = try table.queryObjectIDs(
            QueryParameters(geometry: Self.query(), inSpatialReference: .wgs84, spatialRelationship: relationship))
        let projectedQuery = try Projector(from: .wgs84, to: Self.stateplane).project(Self.query(), densification: .standard)
        let expected = try GEOSContext.withCurrent { context throws -> [Int64] in
            let q = try GEOSGeometry(projectedQuery, context: context)
            var ids: [Int64] = []
            for row in 0..<table.count {
                guard let geometry = table.geometry(row: row) else { continue }
                let f = try GEOSGeometry(geometry, context: context)
                let holds =
                    switch relationship {
                    case .intersects: try f.intersects(q)
                    case .within: try f.isWithin(q)
                    case .disjoint: try f.isDisjoint(with: q)
                    case .contains: try f.contains(q)
                    default: f.envelopeIntersects(q)
                    }
                if holds { ids.append(table.objectID(row: row)) }
            }
            return ids
        }
        #expect(ids == expected)
        if relationship != .contains { #expect(!ids.isEmpty) }
    }

    /// Independently of PROJ's densified polygon: a point is selected from the 2263 table exactly
    /// when it lies inside the query polygon in 4326 (GEOS in degrees), for every point farther
    /// than 10⁻⁵° (about a metre) from the boundary; the densified edges stay within
    /// 10⁻⁶ of the query's extent (about 0.15 ft) of the true curves.
    @Test func stateplaneTableAgreesWithGeographicAnswer() throws {
        let (geographic, _, table) = try Self.grid()
        let selected = Set(
            try table.queryObjectIDs(QueryParameters(geometry: Self.query(), inSpatialReference: .wgs84, spatialRelationship: .within)))
        var checked = 0
        try GEOSContext.withCurrent { context throws in
            let q = try GEOSGeometry(Self.query(), context: context)
            guard case .polygon(let polygon) = try Self.query() else {
                Issue.record("expected a polygon")
                return
            }
            let boundary = try GEOSGeometry(.polyline(try Polyline(paths: [polygon.ring(0)])), context: context)
            for (row, geometry) in geographic.enumerated() {
                guard case .point = geometry else { continue }
                let f = try GEOSGeometry(geometry, context: context)
                guard try f.distance(to: boundary) > 1e-5 else { continue }
                checked += 1
                #expect(try f.isWithin(q) == selected.contains(Int64(row + 1)), "row \(row)")
            }
        }
        #expect(checked > 1_500)
    }

    /// The same query on the table in 4326 and on its projection into 2263 selects the same
    /// NYC boroughs, for query boxes away from borough boundaries.
    @Test func boroughsInStateplane() throws {
        let boroughs = try FeatureTable.load(geoJSON: try fixtureText("nybb.geojson"))
        let projector = try Projector(from: .wgs84, to: Self.stateplane)
        let projected = try (0..<boroughs.count).map { row in try boroughs.geometry(row: row).map { try projector.project($0) } }
        let old = boroughs.schema
        let schema = try Schema(
            fields: old.fields, objectIdFieldName: old.objectIdFieldName, geometryType: old.geometryType,
            spatialReference: Self.stateplane)
        let table = try FeatureTable(schema: schema, columns: boroughs.columns, geometries: projected)
        // Midtown Manhattan; Prospect Park (Brooklyn); a box over the whole city; JFK airport.
        let boxes = ["-73.99,40.75,-73.97,40.76", "-73.975,40.655,-73.96,40.67", "-74.3,40.45,-73.6,41", "-73.8,40.63,-73.77,40.65"]
        for text in boxes {
            let (box, _) = try Geometry.parse(text)
            let expected = try boroughs.queryObjectIDs(QueryParameters(geometry: box))
            #expect(try table.queryObjectIDs(QueryParameters(geometry: box, inSpatialReference: .wgs84)) == expected)
            #expect(!expected.isEmpty)
        }
        // And back: the 2263 table's features and extent returned in 4326 match the source to
        // 10⁻⁸° (PROJ's inverse of the conic converges far below that).
        let result = try table.queryFeatures(QueryParameters(outSpatialReference: .wgs84))
        #expect(result.spatialReference == .wgs84)
        for (position, feature) in result.enumerated() {
            let original = try #require(boroughs.geometry(row: feature.row))
            let back = try #require(feature.geometry)
            #expect(result.geometry(at: position) == back)
            guard case .polygon(let a) = original, case .polygon(let b) = back else {
                Issue.record("not polygons")
                continue
            }
            #expect(a.coordinates.count == b.coordinates.count)
            #expect(zip(a.coordinates.values, b.coordinates.values).allSatisfy { abs($0 - $1) < 1e-8 })
        }
        let (count, extent) = try table.queryExtent(QueryParameters(outSpatialReference: .wgs84))
        let (_, sourceExtent) = try boroughs.queryExtent(QueryParameters())
        #expect(count == 5)
        for (a, b) in [(extent.xmin, sourceExtent.xmin), (extent.ymin, sourceExtent.ymin), (extent.xmax, sourceExtent.xmax), (extent.ymax, sourceExtent.ymax)] {
            #expect(abs(a - b) < 1e-8)
        }
        // The writers name the output reference.
        #expect(!result.geoJSON.contains(#""crs""#))
        #expect(result.esriJSON.contains(#""spatialReference":{"wkid":4326}"#))
        let stored = try table.queryFeatures(QueryParameters())
        #expect(stored.geoJSON.contains("urn:ogc:def:crs:EPSG::2263"))
        #expect(stored.esriJSON.contains(#""spatialReference":{"wkid":2263}"#))
    }

    /// Results in Web Mercator take the exact path: the same coordinates as
    /// `Geometry.projected(from:to:)`, and the extent is the projected envelope corners.
    @Test func webMercatorOutputIsExact() throws {
        let (geographic, table4326, _) = try Self.grid()
        let result = try table4326.queryFeatures(QueryParameters(maxFeatures: 50, outSpatialReference: SpatialReference(wkid: 102100)))
        for (position, feature) in result.enumerated() {
            #expect(feature.geometry == (try geographic[feature.row].projected(from: .wgs84, to: .webMercator)))
            #expect(result.geometry(at: position) == feature.geometry)
        }
        #expect(result.geoJSON.contains("urn:ogc:def:crs:EPSG::3857"))
        #expect(result.esriJSON.contains(#""spatialReference":{"wkid":102100,"latestWkid":3857}"#))
        let (_, extent) = try table4326.queryExtent(QueryParameters(outSpatialReference: .webMercator))
        let (_, degrees) = try table4326.queryExtent(QueryParameters())
        let low = WebMercator.forward(longitude: degrees.xmin, latitude: degrees.ymin)
        let high = WebMercator.forward(longitude: degrees.xmax, latitude: degrees.ymax)
        #expect(extent == Envelope(xmin: low.x, ymin: low.y, xmax: high.x, ymax: high.y))
        // No geometries asked for: nothing is projected, and the answer is the same rows.
        let plain = try table4326.queryFeatures(QueryParameters(returnGeometry: false, outSpatialReference: .webMercator))
        #expect(plain.count == table4326.count && plain.geometry(at: 0) == nil)
    }

    /// GeoJSON `crs` members and Esri `wkid`/`latestWkid` reach PROJ: such tables accept WGS 84
    /// query geometries.
    @Test(arguments: [
        #"{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::2263"}},"features":[F]}"#,
        #"{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"EPSG:2263"}},"features":[F]}"#,
        #"{"geometryType":"esriGeometryPoint","spatialReference":{"wkid":2263},"features":[E]}"#,
        #"{"geometryType":"esriGeometryPoint","spatialReference":{"wkid":102718,"latestWkid":2263},"features":[E]}"#,
    ])
    func declaredReferencesReachPROJ(template: String) throws {
        // Times Square in 2263 (ftUS), from the test's own Lambert formulas would be circular;
        // the point is the projection of (-73.9855, 40.758) by PROJ, rounded to a foot.
        let (x, y) = try Projector(from: .wgs84, to: Self.stateplane).project(x: -73.9855, y: 40.758)
        let feature = #"{"type":"Feature","properties":{"name":"Times Square"},"geometry":{"type":"Point","coordinates":[\#(x.rounded()),\#(y.rounded())]}}"#
        let esri = #"{"attributes":{"name":"Times Square"},"geometry":{"x":\#(x.rounded()),"y":\#(y.rounded())}}"#
        let text = template.replacingOccurrences(of: "[F]", with: "[\(feature)]").replacingOccurrences(of: "[E]", with: "[\(esri)]")
        let table = try FeatureTable.load(json: Array(text.utf8))
        #expect(table.spatialReference == Self.stateplane || table.spatialReference.wkid == 102718)
        let (near, _) = try Geometry.parse("-73.99,40.75,-73.98,40.765")
        let (far, _) = try Geometry.parse("-73.98,40.75,-73.97,40.765")
        #expect(try table.queryFeatureCount(QueryParameters(geometry: near, inSpatialReference: .wgs84)) == 1)
        #expect(try table.queryFeatureCount(QueryParameters(geometry: far, inSpatialReference: .wgs84)) == 0)
    }

    /// Unknown references and positions that do not transform are query errors naming them.
    @Test func projectionErrors() throws {
        let (_, table4326, table2263) = try Self.grid()
        let unknownIn = featureTableError {
            _ = try table2263.queryObjectIDs(QueryParameters(geometry: Self.query(), inSpatialReference: SpatialReference(wkid: 123_456)))
        }
        #expect(unknownIn?.kind == .invalidQuery && unknownIn?.message.contains("123456") == true)
        let unknownOut = featureTableError {
            _ = try table4326.queryFeatures(QueryParameters(outSpatialReference: SpatialReference(wkid: 123_456)))
        }
        #expect(unknownOut?.kind == .invalidQuery && unknownOut?.message.contains("123456") == true)
        let unknownExtent = featureTableError {
            _ = try table4326.queryExtent(QueryParameters(outSpatialReference: SpatialReference(wkid: 123_456)))
        }
        #expect(unknownExtent?.kind == .invalidQuery)
        let pole = featureTableError {
            _ = try table2263.queryObjectIDs(QueryParameters(geometry: .point(Point(x: 0, y: -90)), inSpatialReference: .wgs84))
        }
        #expect(pole?.kind == .invalidQuery && pole?.message.contains("(0.0, -90.0)") == true)
        // A feature that does not transform is named by its object ID.
        let schema = try Schema(fields: [Field(name: "OBJECTID", type: .oid)], objectIdFieldName: "OBJECTID", geometryType: .point)
        let table = try FeatureTable(
            schema: schema, columns: [.integer(Int64Column(values: [7, 8]))],
            geometries: [.point(Point(x: -74, y: 40.7)), .point(Point(x: 10, y: -90))])
        let feature = featureTableError { _ = try table.queryFeatures(QueryParameters(outSpatialReference: Self.stateplane)) }
        #expect(feature?.kind == .invalidQuery && feature?.message.contains("OBJECTID 8") == true)
        // Counts do not depend on the output reference.
        #expect(try table.queryFeatureCount(QueryParameters(outSpatialReference: Self.stateplane)) == 2)
    }
}
