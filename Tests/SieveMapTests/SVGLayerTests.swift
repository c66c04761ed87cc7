import Foundation
import SieveColumns
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import SieveTestSupport
import Testing

@testable import SieveMap

@Suite("SVG writer: layers, selection, edits and real data")
struct SVGLayerTests {
    @Test("selected features are drawn again with the highlight, above every layer")
    func selection() throws {
        let parcels = try svgTable([
            "POLYGON ((1 1, 2 1, 2 2, 1 1))", "POLYGON ((3 3, 4 3, 4 4, 3 3))", "POLYGON ((5 5, 6 5, 6 6, 5 5))",
        ])
        let roads = try svgTable(["LINESTRING (0 3.5, 10 3.5)"], geometryType: .polyline)
        var map = try squareMap()
        let statistics = try map.addLayer(
            name: "parcels", table: parcels, rows: [0, 1, 2], style: { _ in DrawStyle(fill: .white) },
            selected: { $0 == 1 })
        try map.addLayer(name: "roads", table: roads, rows: [0], style: { _ in DrawStyle(stroke: .black) })
        #expect(statistics.drawn == 3 && statistics.highlighted == 1 && statistics.highlightPaths == 1)
        let elements = try parseSVG(map.svg())
        let paths = elements.filter { $0.name == "path" }
        #expect(paths.count == 3)
        // Drawn in order: the parcels, the road over them, then the highlight over both.
        #expect(paths[0].isInside("id", "parcels") && paths[1].isInside("id", "roads"))
        let highlight = paths[2]
        #expect(highlight.isInside("class", "selection") && highlight.isInside("id", "selection-of-parcels"))
        // Row 1 alone: (3,3) (4,3) (4,4) → (30,70) (40,70) (40,60).
        #expect(highlight.attributes["d"] == "M30 70 40 70 40 60z")
        #expect(paths[0].attributes["d"] == "M10 90 20 90 20 80zM30 70 40 70 40 60zM50 50 60 50 60 40z")
        // ArcGIS's highlight: cyan outline (2 pt = 2.67 px) and cyan fill at a quarter opacity.
        #expect(highlight.attributes["stroke"] == "#00ffff" && highlight.attributes["stroke-width"] == "2.7")
        #expect(highlight.attributes["fill"] == "#00ffff" && highlight.attributes["fill-opacity"] == "0.251")
    }

    @Test("a selected point keeps its marker shape in the highlight; the highlight style can be changed")
    func selectedMarkers() throws {
        let table = try svgTable(["POINT (5 5)", "POINT (7 7)"], geometryType: .point)
        var map = try squareMap()
        map.highlight = DrawStyle(fill: nil, stroke: RGBAColor(red: 255, green: 255, blue: 0), strokeWidth: 3)
        try map.addLayer(
            name: "points", table: table, rows: [0, 1],
            style: { _ in DrawStyle(fill: .black, marker: .square, markerSize: 1.5) }, selected: { $0 == 0 })
        let paths = try svgPaths(map.svg())
        #expect(paths.count == 2)
        // (5,5) → pixel (50,50): the same 2 px square, outlined in yellow (3 pt = 4 px), unfilled.
        #expect(paths[1].attributes["d"] == "M49.5 49.5l2 0 0 2 -2 0z")
        #expect(paths[1].attributes["stroke"] == "#ffff00" && paths[1].attributes["stroke-width"] == "4")
        #expect(paths[1].attributes["fill"] == "none")
    }

    @Test("deleted rows are never drawn, even when listed")
    func deletedRows() throws {
        let text = featureCollectionOfPoints([(1, 1), (5, 5), (9, 9)])
        let editable = try EditableFeatureTable(try FeatureTable.load(geoJSON: text))
        let results = editable.deleteFeatures(objectIDs: [2])
        #expect(results.allSatisfy { $0.error == nil })
        let snapshot = editable.snapshot
        #expect(snapshot.count == 3 && snapshot.isDeleted(row: 1))
        var map = try squareMap()
        let statistics = try map.addLayer(
            name: "points", table: snapshot, rows: Array(0..<snapshot.count),
            style: { _ in DrawStyle(fill: .black, stroke: nil, marker: .square, markerSize: 1.5) }, selected: { _ in true })
        #expect(statistics.drawn == 2 && statistics.highlighted == 2)
        let paths = try svgPaths(map.svg())
        // (1,1) → pixel (10,90) and (9,9) → pixel (90,10); nothing at (50,50).
        #expect(paths.first?.attributes["d"] == "M9.5 89.5l2 0 0 2 -2 0zM89.5 9.5l2 0 0 2 -2 0z")
        #expect(paths.allSatisfy { !($0.attributes["d"] ?? "").contains("M49.5 49.5") })
    }

    @Test("the countries: one path per continent, one subpath per polygon part and hole")
    func countries() throws {
        let table = try FeatureTable.load(contentsOf: fixtureURL("naturalearth_lowres.geojson"))
        var colours: [String: RGBAColor] = [:]
        let continents = (0..<table.count).map { row -> String in
            guard case .string(let name) = table.value(row: row, field: "continent") else { return "" }
            return name
        }
        for name in continents where colours[name] == nil {
            let shade = UInt8(20 + 25 * colours.count)
            colours[name] = RGBAColor(red: shade, green: 255 - shade, blue: 128)
        }
        var map = try SVGMapWriter(
            extent: Envelope(xmin: -180, ymin: -90, xmax: 180, ymax: 90), width: 1000, height: 500, background: .white)
        let statistics = try map.addLayer(
            name: "countries", table: table, rows: table.liveRows,
            style: { DrawStyle(fill: colours[continents[$0]], stroke: .black, strokeWidth: 0.5) })
        let svg = map.svg()
        let paths = try svgPaths(svg)
        // 8 continents (with "Seven seas (open ocean)").
        #expect(colours.count == 8)
        #expect(paths.count == 8 && statistics.paths == 8)
        #expect(Set(paths.compactMap { $0.attributes["fill"] }).count == 8)
        #expect(statistics.drawn == 177 && statistics.culled == 0)
        // The 177 countries have 287 polygon parts and one hole (Lesotho, in South Africa, about
        // 6 × 6 pixels here). Every part is a subpath (a ring, or a pixel mark for the one part
        // smaller than a pixel); the hole is one more.
        let (parts, holes) = partsAndHoles(table)
        #expect(parts == 287 && holes == 1)
        #expect(paths.reduce(0) { $0 + subpathCount($1.attributes["d"] ?? "") } == 288)
        #expect(svg.contains("h1v1h-1z"))
    }

    @Test("NaN and infinite coordinates are skipped; far vertices are clamped")
    func nonFiniteCoordinates() {
        var painter = LayerPainter(
            view: ViewTransform(originX: 0, originY: 10, scale: 10), extent: Envelope(xmin: 0, ymin: 0, xmax: 10, ymax: 10),
            width: 100, height: 100)
        let area = painter.group(DrawStyle(fill: .black), .area)
        let ring: [Double] = [1, 1, .nan, 5, 9, 1, .infinity, 3, 9, 9, 1, 9, 3, .nan, 1, 1]
        let written = ring.withUnsafeBufferPointer { painter.appendPath(area, $0, stride: 2, range: 0..<8, closed: true) }
        guard case .written = written else {
            Issue.record("the ring was not written: \(written)")
            return
        }
        #expect(String(decoding: painter.groups[area].path.bytes, as: UTF8.self) == "M10 90 90 90 90 10 10 10z")
        let nothing: [Double] = [.nan, 1, 2, .nan, .infinity, 3]
        let empty = nothing.withUnsafeBufferPointer { painter.appendPath(area, $0, stride: 2, range: 0..<3, closed: false) }
        guard case .empty = empty else {
            Issue.record("a path without finite vertices gave \(empty)")
            return
        }
        let far: [Double] = [1, 1, 1e300, 1, 1, -1e300]
        _ = far.withUnsafeBufferPointer { painter.appendPath(area, $0, stride: 2, range: 0..<3, closed: true) }
        #expect(
            String(decoding: painter.groups[area].path.bytes, as: UTF8.self)
                == "M10 90 90 90 90 10 10 10zM10 90 100000000 90 10 100000000z")
        let markers = painter.group(DrawStyle(fill: .black), .marker)
        painter.drawMarker(markers, x: .nan, y: 1)
        painter.drawMarker(markers, x: 1, y: -.infinity)
        #expect(painter.groups[markers].path.isEmpty)
    }

    @Test("a million random points render to one path (time printed, not asserted)")
    func millionPoints() throws {
        let count = 1_000_000
        var generator = SeededGenerator(seed: 20_240_601)
        var column = GeometryColumn(storage: .points)
        column.reserveCapacity(count)
        for _ in 0..<count { column.appendPoint(x: generator.uniform(0, 1000), y: generator.uniform(0, 500)) }
        let schema = try Schema(
            fields: [Field(name: "OBJECTID", type: .oid)], objectIdFieldName: "OBJECTID", geometryType: .point)
        let ids = Int64Column(values: (1...Int64(count)).map { $0 })
        let table = try FeatureTable(schema: schema, columns: [.integer(ids)], geometryColumn: column)
        let rows = Array(0..<count)
        let style = DrawStyle(fill: RGBAColor(red: 200, green: 0, blue: 0), stroke: nil, markerSize: 3)
        let clock = ContinuousClock()
        var map = try SVGMapWriter(extent: Envelope(xmin: 0, ymin: 0, xmax: 1000, ymax: 500), width: 1000, height: 500)
        var statistics = SVGLayerStatistics()
        var bytes: [UInt8] = []
        let elapsed = try clock.measure {
            statistics = try map.addLayer(name: "points", table: table, rows: rows, style: { _ in style })
            bytes = map.svgBytes()
        }
        print("SVG: 1,000,000 points in a 1000 × 500 view rendered in \(elapsed) (\(bytes.count) bytes)")
        #expect(statistics.drawn == count && statistics.paths == 1)
        // At most one marker per pixel: 500,000 pixels, about 1 − e⁻² of them hit.
        let markers = bytes.lazy.filter { $0 == UInt8(ascii: "M") }.count
        #expect(markers > 400_000 && markers <= 500_000)
        #expect(String(decoding: bytes, as: UTF8.self).components(separatedBy: "<path").count == 2)
    }
}

/// A GeoJSON feature collection of points.
private func featureCollectionOfPoints(_ points: [(Double, Double)]) -> String {
    let features = points.map { point in
        #"{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[\#(point.0),\#(point.1)]}}"#
    }
    return #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
}

/// The number of polygon parts and of holes of a table's rows, from the materialized geometries.
private func partsAndHoles(_ table: FeatureTable) -> (parts: Int, holes: Int) {
    var parts = 0
    var holes = 0
    for row in table.liveRows {
        guard case .polygon(let polygon)? = table.geometry(row: row) else { continue }
        parts += polygon.partCount
        holes += polygon.ringCount - polygon.partCount
    }
    return (parts, holes)
}
