import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import SieveColumns
import SieveMap
import SieveTestSupport
import Testing

/// Geometries drawn on a 100 × 100 pixel view of 0…10 map units (10 pixels per unit, y down
/// from 10) unless a test says otherwise.
@Suite("SVG writer: geometry drawing")
struct SVGGeometryTests {
    @Test("a square with a square hole is one path of two rings, even-odd filled")
    func polygonWithHole() throws {
        let table = try svgTable(["POLYGON ((1 1, 9 1, 9 9, 1 9, 1 1), (3 3, 3 7, 7 7, 7 3, 3 3))"])
        let style = DrawStyle(fill: RGBAColor(red: 255, green: 0, blue: 0), stroke: .black, strokeWidth: 0.75)
        let (svg, paths, statistics) = try renderSquare(table, style: style)
        // Outer ring (1,1) (9,1) (9,9) (1,9) → pixels (10,90) (90,90) (90,10) (10,10), the closing
        // vertex dropped for `z`; the hole (3,3) (3,7) (7,7) (7,3) → (30,70) (30,30) (70,30) (70,70).
        // 0.75 pt is 1 px.
        let expected =
            ##"<path class="area" fill="#ff0000" fill-rule="evenodd" stroke="#000000" stroke-width="1" "##
            + ##"stroke-linejoin="round" stroke-linecap="round" d="M10 90 90 90 90 10 10 10zM30 70 30 30 70 30 70 70z"/>"##
        #expect(svg.contains(expected))
        #expect(paths.count == 1)
        #expect(statistics.drawn == 1 && statistics.culled == 0 && statistics.paths == 1)
    }

    @Test("a multipolygon's parts go into the same path; no fill and an 8-bit alpha are written")
    func multipolygon() throws {
        let table = try svgTable([
            "MULTIPOLYGON (((0 0, 2 0, 2 2, 0 2, 0 0)), ((5 5, 6 5, 6 6, 5 5)))",
            "POLYGON ((8 8, 9 8, 9 9, 8 8))",
        ])
        let style = DrawStyle(fill: nil, stroke: RGBAColor(red: 0, green: 128, blue: 0, alpha: 128), strokeWidth: 1.5)
        let (_, paths, _) = try renderSquare(table, style: style)
        let path = try #require(paths.first)
        #expect(paths.count == 1)
        #expect(path.attributes["d"] == "M0 100 20 100 20 80 0 80zM50 50 60 50 60 40zM80 20 90 20 90 10z")
        #expect(path.attributes["fill"] == "none")
        #expect(path.attributes["stroke"] == "#008000")
        // 128 / 255 = 0.50196… → 0.502; 1.5 pt = 2 px.
        #expect(path.attributes["stroke-opacity"] == "0.502")
        #expect(path.attributes["stroke-width"] == "2")
    }

    @Test("lines and multilines share one unfilled path; coordinates keep one decimal")
    func lines() throws {
        let table = try svgTable(
            ["LINESTRING (0.5 0.5, 5.04 5, 9.96 9.5)", "MULTILINESTRING ((1 1, 2 2), (3 3, 4 4))"],
            geometryType: .polyline)
        let style = DrawStyle(stroke: RGBAColor(red: 0, green: 0, blue: 255), strokeWidth: 1.5)
        let (_, paths, _) = try renderSquare(table, style: style)
        let path = try #require(paths.first)
        #expect(paths.count == 1)
        #expect(path.attributes["class"] == "line")
        // (0.5, 0.5) → (5, 95); (5.04, 5) → (50.4, 50); (9.96, 9.5) → (99.6, 5).
        #expect(path.attributes["d"] == "M5 95 50.4 50 99.6 5M10 90 20 80M30 70 40 60")
        #expect(path.attributes["fill"] == "none")
        #expect(path.attributes["stroke"] == "#0000ff")
        #expect(path.attributes["stroke-width"] == "2")
        #expect(path.attributes["fill-rule"] == nil)
    }

    @Test("markers are centred on the pixel their point falls in", arguments: [
        // 3 pt = 4 px: corners 2 px from the centre (10.5, 79.5) of pixel (10, 79).
        (MarkerShape.square, 3.0, 0.0, "M8.5 77.5l4 0 0 4 -4 0z"),
        // 6 pt = 8 px: a circle of radius 4 drawn as two half arcs from its left point.
        (.circle, 6, 0, "M6.5 79.5a4 4 0 1 0 8 0a4 4 0 1 0 -8 0z"),
        (.cross, 3, 0, "M8.5 79.5l4 0m-2 -2l0 4"),
        (.triangle, 3, 0, "M10.5 77.5l2 4 -4 0z"),
        // Turned half a turn, the triangle points down.
        (.triangle, 3, 180, "M10.5 81.5l-2 -4 4 0z"),
        (.diamond, 3, 0, "M10.5 77.5l2 2 -2 2 -2 -2z"),
        // The x: arms to (±√2, ±√2) → 1.4 px.
        (.x, 3, 0, "M9.1 78.1l2.8 2.8m-2.8 0l2.8 -2.8"),
    ])
    func markers(shape: MarkerShape, size: Double, angle: Double, expected: String) throws {
        // 100 pixels for 100 units: (10.2, 20.7) → pixel position (10.2, 79.3), pixel (10, 79).
        let table = try svgTable(["POINT (10.2 20.7)"], geometryType: .point)
        let style = DrawStyle(
            fill: RGBAColor(red: 255, green: 255, blue: 0), stroke: .black, marker: shape, markerSize: size,
            markerAngle: angle)
        let (_, paths, _) = try renderSquare(table, style: style, size: 100, pixels: 100)
        let path = try #require(paths.first)
        #expect(path.attributes["class"] == "marker")
        #expect(path.attributes["d"] == expected)
        if shape == .cross || shape == .x {
            // Strokes only: drawn with the stroke colour, not filled.
            #expect(path.attributes["fill"] == "none")
            #expect(path.attributes["stroke"] == "#000000")
        } else {
            #expect(path.attributes["fill"] == "#ffff00")
        }
    }

    @Test("multipoints are one marker per point, in the points' path")
    func multipoints() throws {
        let table = try svgTable(["MULTIPOINT ((10 10), (50.5 50.5))", "POINT (90 90)"], geometryType: .multipoint)
        let style = DrawStyle(fill: .black, stroke: nil, marker: .square, markerSize: 1.5)
        let (_, paths, _) = try renderSquare(table, style: style, size: 100, pixels: 100)
        // 1.5 pt = 2 px: corners 1 px from the pixel centres (10.5, 90.5), (50.5, 49.5), (90.5, 10.5).
        #expect(paths.map { $0.attributes["d"] } == ["M9.5 89.5l2 0 0 2 -2 0zM49.5 48.5l2 0 0 2 -2 0zM89.5 9.5l2 0 0 2 -2 0z"])
        #expect(paths.first?.attributes["stroke"] == "none")
    }

    @Test("features whose envelope is outside the extent (grown by half the marker) are culled")
    func culling() throws {
        let polygons = try svgTable([
            "POLYGON ((1 1, 2 1, 2 2, 1 1))",  // inside
            "POLYGON ((20 20, 30 20, 30 30, 20 20))",  // far outside
            "POLYGON ((9 9, 15 9, 15 15, 9 9))",  // partly inside
            "POLYGON ((-5 2, -1 2, -1 3, -5 2))",  // outside on the left
        ])
        let (_, areaPaths, areaStatistics) = try renderSquare(polygons, style: DrawStyle(fill: .black))
        #expect(areaStatistics.drawn == 2 && areaStatistics.culled == 2)
        // The partly inside one, (90,10) (150,10) (150,-50) in pixels, is clipped to the view grown
        // by the stroke (1 px) and 2 px: -3…103 both ways.
        #expect(areaPaths.first?.attributes["d"] == "M10 90 20 90 20 80zM90 10 103 10 103 -3z")

        // An 8 px circle reaches 4 px (0.4 units) beyond its point.
        let points = try svgTable(["POINT (10.125 5)", "POINT (12 5)", "POINT (5 -0.25)", "POINT (5 -3)"], geometryType: .point)
        let (_, markerPaths, markerStatistics) = try renderSquare(points, style: DrawStyle(fill: .black, markerSize: 6))
        #expect(markerStatistics.drawn == 2 && markerStatistics.culled == 2)
        // (10.125, 5) → (101.25, 50): pixel (101, 50), centre (101.5, 50.5); (5, -0.25) → (50, 102.5):
        // pixel (50, 102).
        #expect(markerPaths.first?.attributes["d"]?.hasPrefix("M97.5 50.5a4 4") == true)
        #expect(markerPaths.first?.attributes["d"]?.contains("M46.5 102.5a4 4") == true)
    }

    @Test("rings and lines reaching beyond the view are clipped to it, grown by the stroke and 2 px")
    func clipping() throws {
        let table = try svgTable(
            [
                // Around the whole view: (-10000, 10100) … (10000, -9900) in pixels.
                "POLYGON ((-1000 -1000, 1000 -1000, 1000 1000, -1000 1000, -1000 -1000))",
                // Across the view: (-1000, 50) to (1000, 50).
                "LINESTRING (-100 5, 100 5)",
                // Out through the right side and back: (50,50) (500,50) (500,40) (50,40).
                "LINESTRING (5 5, 50 5, 50 6, 5 6)",
                // Entirely inside: not clipped.
                "LINESTRING (1 1, 2 2)",
            ], geometryType: nil)
        let (_, paths, statistics) = try renderSquare(table, style: DrawStyle(fill: .white, stroke: .black))
        #expect(statistics.drawn == 4)
        // A 1 px stroke: the rectangle is -3…103 both ways.
        #expect(
            paths.map { $0.attributes["d"] } == [
                "M-3 -3 -3 103 103 103 103 -3z", "M-3 50 103 50M50 50 103 50M103 40 50 40M10 90 20 80",
            ])
    }

    @Test("consecutive vertices on the same half-pixel cell are dropped")
    func pixelGridSimplification() throws {
        // 1 px per unit. (10,10) → (10,90), cell (20,180); (10.1,9.9) → (10.1,90.1), cell (20,180);
        // (10.4,9.6) → (10.4,90.4), cell (20,180); (20,10) → (20,90), cell (40,180);
        // (20.3,9.9) → (20.3,90.1), cell (40,180); (30,30) → (30,70).
        let table = try svgTable(
            [
                "LINESTRING (10 10, 10.1 9.9, 10.4 9.6, 20 10, 20.3 9.9, 30 30)",
                // The ring's last vertex before closing, (10.1, 9.9), shares the first one's cell.
                "POLYGON ((10 10, 50 10, 50 50, 10 50, 10.1 9.9, 10 10))",
            ], geometryType: nil)
        let (_, paths, _) = try renderSquare(table, style: DrawStyle(fill: .white), size: 100, pixels: 100)
        #expect(paths.map { $0.attributes["d"] } == ["M10 90 20 90 30 70", "M10 90 50 90 50 50 10 50z"])
    }

    @Test("a feature smaller than a pixel is drawn as a pixel-sized mark, not dropped")
    func subPixelFeatures() throws {
        let table = try svgTable([
            // 0.4 px square: a mark centred on (50.2, 49.8).
            "POLYGON ((50 50, 50.4 50, 50.4 50.4, 50 50.4, 50 50))",
            // A large part and one collapsing to two cells: the small part is a mark at the centre
            // (80.1, 19.9) of its vertices.
            "MULTIPOLYGON (((0 0, 20 0, 20 20, 0 20, 0 0)), ((80 80, 80.2 80, 80.2 80.2, 80 80.2, 80 80)))",
        ])
        let (_, paths, statistics) = try renderSquare(table, style: DrawStyle(fill: .black), size: 100, pixels: 100)
        #expect(statistics.drawn == 2)
        #expect(paths.map { $0.attributes["d"] } == ["M49.7 49.3h1v1h-1zM0 100 20 100 20 80 0 80zM79.6 19.4h1v1h-1z"])

        let lines = try svgTable(["LINESTRING (50 50, 50.4 50.2)"], geometryType: .polyline)
        let (_, linePaths, _) = try renderSquare(lines, style: DrawStyle(stroke: .black), size: 100, pixels: 100)
        // A one-pixel stroke through the centre (50.2, 50.1) → pixel position (50.2, 49.9).
        #expect(linePaths.map { $0.attributes["d"] } == ["M49.7 49.9h1"])
    }

    @Test("points on the same pixel with the same style are drawn once")
    func pointDeduplication() throws {
        // 1000 points in pixel (50, 49) of the 1-unit-per-pixel view, one in pixel (60, 49).
        var wkts = (0..<1000).map { i in "POINT (\(50.05 + Double(i % 10) * 0.09) \(50.05 + Double(i / 100) * 0.09))" }
        wkts.append("POINT (60.5 50.5)")
        let table = try svgTable(wkts, geometryType: .point)
        let red = DrawStyle(fill: RGBAColor(red: 255, green: 0, blue: 0), stroke: nil, marker: .square, markerSize: 1.5)
        let blue = DrawStyle(fill: RGBAColor(red: 0, green: 0, blue: 255), stroke: nil, marker: .square, markerSize: 1.5)
        var map = try squareMap(size: 100, pixels: 100)
        let statistics = try map.addLayer(
            name: "points", table: table, rows: Array(0..<table.count), style: { $0 < 500 ? red : blue })
        #expect(statistics.drawn == 1001)
        let paths = try svgPaths(map.svg())
        // Red: rows 0..<500, all in pixel (50, 49). Blue: rows 500..<1000 in the same pixel (a
        // different style, so its own marker) and row 1000 in pixel (60, 49).
        #expect(paths.map { $0.attributes["d"] } == ["M49.5 48.5l2 0 0 2 -2 0z", "M49.5 48.5l2 0 0 2 -2 0zM59.5 48.5l2 0 0 2 -2 0z"])
        #expect(paths.map { $0.attributes["fill"] } == ["#ff0000", "#0000ff"])
    }

    @Test("styles with NaN sizes or angle draw as 0 and share one path")
    func nanStyles() throws {
        let table = try svgTable(["POINT (1 1)", "POINT (5 5)", "POINT (9 9)"], geometryType: .point)
        let style = DrawStyle(fill: .black, strokeWidth: .nan, marker: .square, markerSize: 1.5, markerAngle: .nan)
        let (_, paths, statistics) = try renderSquare(table, style: style)
        #expect(statistics.drawn == 3 && statistics.paths == 1)
        // No outline (a NaN width is 0), squares not turned.
        #expect(paths.first?.attributes["stroke"] == "none")
        #expect(paths.first?.attributes["d"] == "M9.5 89.5l2 0 0 2 -2 0zM49.5 49.5l2 0 0 2 -2 0zM89.5 9.5l2 0 0 2 -2 0z")
    }

    @Test("rows without geometry, empty geometries and rows with a nil style are not drawn")
    func nothingToDraw() throws {
        let table = try svgTable([nil, "POINT EMPTY", "POLYGON EMPTY", "POINT (5 5)", "POINT (6 6)"], geometryType: nil)
        var map = try squareMap()
        let statistics = try map.addLayer(
            name: "mixed", table: table, rows: Array(0..<table.count),
            style: { $0 == 4 ? nil : DrawStyle(fill: .black, markerSize: 0.75) })
        #expect(statistics.drawn == 1 && statistics.culled == 0)
        // 0.75 pt = 1 px: radius 0.5 around the centre (50.5, 50.5) of pixel (50, 50).
        #expect(try svgPaths(map.svg()).map { $0.attributes["d"] } == ["M50 50.5a0.5 0.5 0 1 0 1 0a0.5 0.5 0 1 0 -1 0z"])
    }

    @Test("infinite coordinates that reach a table through the public API are not drawn")
    func infinitePoints() throws {
        let schema = try Schema(
            fields: [Field(name: "OBJECTID", type: .oid)], objectIdFieldName: "OBJECTID", geometryType: .point)
        let geometries: [Geometry?] = [
            .point(Point(x: .infinity, y: 1)), .point(Point(x: 1, y: -.infinity)), .point(Point(x: 5, y: 5)),
        ]
        let table = try FeatureTable(
            schema: schema, columns: [.integer(Int64Column(values: [1, 2, 3]))], geometries: geometries)
        let (svg, paths, statistics) = try renderSquare(table, style: DrawStyle(fill: .black, marker: .square, markerSize: 1.5))
        #expect(statistics.drawn == 1)
        #expect(paths.map { $0.attributes["d"] } == ["M49.5 49.5l2 0 0 2 -2 0z"])
        #expect(!svg.contains("nan") && !svg.contains("inf"))
    }

    @Test("random geometries of every kind, most reaching outside the view, give well-formed SVG")
    func randomGeometries() throws {
        var generator = SeededGenerator(seed: 7)
        var wkts: [String?] = []
        func coordinate() -> String {
            "\(generator.uniform(-20, 30)) \(generator.uniform(-20, 30))"
        }
        for i in 0..<300 {
            switch i % 5 {
            case 0: wkts.append("POINT (\(coordinate()))")
            case 1: wkts.append("MULTIPOINT ((\(coordinate())), (\(coordinate())))")
            case 2: wkts.append("LINESTRING (\(coordinate()), \(coordinate()), \(coordinate()))")
            case 3:
                let (x, y) = (generator.uniform(-20, 30), generator.uniform(-20, 30))
                let size = generator.uniform(0.001, 8)
                wkts.append("POLYGON ((\(x) \(y), \(x + size) \(y), \(x + size) \(y + size), \(x) \(y)))")
            default: wkts.append(nil)
            }
        }
        let table = try svgTable(wkts, geometryType: nil)
        var map = try SVGMapWriter(extent: Envelope(xmin: 0, ymin: 0, xmax: 10, ymax: 10), width: 640, height: 480)
        var styles: [DrawStyle] = []
        for shape in MarkerShape.allCases {
            styles.append(DrawStyle(fill: .white, stroke: .black, marker: shape, markerSize: 4, markerAngle: 30))
        }
        let statistics = try map.addLayer(
            name: "random", table: table, rows: Array(0..<table.count), style: { styles[$0 % styles.count] },
            selected: { $0 % 7 == 0 })
        #expect(statistics.drawn + statistics.culled == 240)
        #expect(statistics.drawn > 0 && statistics.culled > 0 && statistics.highlighted > 0)
        let paths = try svgPaths(map.svg())
        #expect(paths.count == statistics.paths + statistics.highlightPaths)
        // Every coordinate is a number with at most one decimal.
        for path in paths {
            let d = path.attributes["d"] ?? ""
            let numbers = d.split(whereSeparator: { "Mlmahvz ".contains($0) })
            #expect(!numbers.isEmpty)
            for number in numbers {
                let pieces = number.split(separator: ".", omittingEmptySubsequences: false)
                let wellFormed = Double(number) != nil && pieces.count <= 2 && (pieces.count == 1 || pieces[1].count == 1)
                #expect(wellFormed, "\(number) in \(d.prefix(80))")
            }
        }
    }
}
