import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import SieveMap
import Testing

@Suite("SVG writer: view, document and errors")
struct SVGMapWriterTests {
    @Test("map positions become pixels: x right from the left edge, y down from the top edge")
    func transformation() throws {
        // 0…100 × 0…50 on 200 × 100 pixels: the same aspect, 2 pixels per unit.
        let map = try SVGMapWriter(extent: Envelope(xmin: 0, ymin: 0, xmax: 100, ymax: 50), width: 200, height: 100)
        #expect(map.scale == 2)
        #expect(map.extent == map.requestedExtent)
        #expect(map.pixel(x: 0, y: 0) == (0, 100))
        #expect(map.pixel(x: 100, y: 50) == (200, 0))
        #expect(map.pixel(x: 25, y: 10) == (50, 80))
        #expect(map.pixel(x: -10, y: 60) == (-20, -20))
    }

    @Test("an extent narrower than the view is widened around its centre")
    func widenedHorizontally() throws {
        // A square extent on a 2:1 view: 200 units wide around x = 50, 1 pixel per unit.
        let map = try SVGMapWriter(extent: Envelope(xmin: 0, ymin: 0, xmax: 100, ymax: 100), width: 200, height: 100)
        #expect(map.extent == Envelope(xmin: -50, ymin: 0, xmax: 150, ymax: 100))
        #expect(map.requestedExtent == Envelope(xmin: 0, ymin: 0, xmax: 100, ymax: 100))
        #expect(map.scale == 1)
        #expect(map.pixel(x: 50, y: 50) == (100, 50))
        #expect(map.pixel(x: -50, y: 100) == (0, 0))
        #expect(map.pixel(x: 0, y: 0) == (50, 100))
    }

    @Test("an extent wider than the view is made taller around its centre")
    func widenedVertically() throws {
        // 400 × 100 units on a 2:1 view: 200 units tall around y = 50, half a pixel per unit.
        let map = try SVGMapWriter(extent: Envelope(xmin: 0, ymin: 0, xmax: 400, ymax: 100), width: 200, height: 100)
        #expect(map.extent == Envelope(xmin: 0, ymin: -50, xmax: 400, ymax: 150))
        #expect(map.scale == 0.5)
        #expect(map.pixel(x: 0, y: 150) == (0, 0))
        #expect(map.pixel(x: 400, y: -50) == (200, 100))
        // The drawing uses the widened extent: (200, 50) is the view's centre.
        let table = try svgTable(["POINT (200 50)"], geometryType: .point)
        var drawing = map
        try drawing.addLayer(
            name: "p", table: table, rows: [0], style: { _ in DrawStyle(fill: .black, marker: .square, markerSize: 1.5) })
        #expect(try svgPaths(drawing.svg()).first?.attributes["d"] == "M99.5 49.5l2 0 0 2 -2 0z")
    }

    @Test("the document is standalone SVG 1.1 with the view's size, a background and one group per layer")
    func document() throws {
        let table = try svgTable(
            ["POLYGON ((1 1, 4 1, 4 4, 1 1))", "LINESTRING (5 5, 9 9)", "POINT (2 8)", "MULTIPOINT ((7 2), (8 2))"],
            geometryType: nil)
        var map = try SVGMapWriter(
            extent: Envelope(xmin: 0, ymin: 0, xmax: 10, ymax: 10), width: 300, height: 200,
            background: RGBAColor(red: 250, green: 250, blue: 240, alpha: 128))
        try map.addLayer(
            name: "first", table: table, rows: [0, 1, 2, 3], style: { _ in DrawStyle(fill: .white) }, selected: { $0 == 2 })
        try map.addLayer(name: "second", table: table, rows: [3], style: { _ in DrawStyle(fill: .black) })
        let svg = map.svg()
        #expect(svg.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg "))
        #expect(map.svgBytes() == Array(svg.utf8))
        let elements = try parseSVG(svg)
        let root = try #require(elements.first)
        #expect(root.name == "svg")
        #expect(root.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(root.attributes["version"] == "1.1")
        #expect(root.attributes["width"] == "300" && root.attributes["height"] == "200")
        #expect(root.attributes["viewBox"] == "0 0 300 200")
        let background = try #require(elements.first { $0.name == "rect" })
        #expect(background.attributes["fill"] == "#fafaf0" && background.attributes["fill-opacity"] == "0.502")
        let groups = elements.filter { $0.name == "g" }.map { $0.attributes["id"] ?? $0.attributes["class"] ?? "" }
        #expect(groups == ["first", "second", "selection", "selection-of-first"])
        #expect(map.layerNames == ["first", "second"])
        // Layer "first": one path per kind of geometry, in the order they first occur.
        let firstPaths = elements.filter { $0.name == "path" && $0.isInside("id", "first") }
        #expect(firstPaths.map { $0.attributes["class"] } == ["area", "line", "marker"])
    }

    @Test("a hostile layer name is escaped and reads back unchanged")
    func hostileLayerName() throws {
        let name = "<script>&\"'"
        let table = try svgTable(["POINT (5 5)"], geometryType: .point)
        var map = try squareMap()
        try map.addLayer(name: name, table: table, rows: [0], style: { _ in DrawStyle() }, selected: { _ in true })
        let svg = map.svg()
        #expect(svg.contains(#"<g id="&lt;script&gt;&amp;&quot;&apos;" class="layer">"#))
        #expect(svg.contains(#"<g id="selection-of-&lt;script&gt;&amp;&quot;&apos;" class="layer-selection">"#))
        #expect(!svg.contains("<script"))
        let ids = try parseSVG(svg).compactMap { $0.attributes["id"] }
        #expect(ids == [name, "selection-of-" + name])
    }

    @Test("characters XML cannot hold are replaced, not written")
    func controlCharacters() throws {
        let table = try svgTable(["POINT (5 5)"], geometryType: .point)
        var map = try squareMap()
        try map.addLayer(name: "a\u{0}b\u{1B}c\td\u{FFFF}", table: table, rows: [0], style: { _ in DrawStyle() })
        let ids = try parseSVG(map.svg()).compactMap { $0.attributes["id"] }
        // XMLParser normalizes the tab in an attribute value to a space.
        #expect(ids == ["a\u{FFFD}b\u{FFFD}c d\u{FFFD}"])
    }

    @Test("a view that cannot be drawn is a thrown error", arguments: [
        (Envelope.empty, 100, 100, SVGMapError.Kind.invalidExtent),
        (Envelope(xmin: 1, ymin: 0, xmax: 1, ymax: 5), 100, 100, .invalidExtent),
        (Envelope(xmin: 0, ymin: 2, xmax: 5, ymax: 2), 100, 100, .invalidExtent),
        (Envelope(xmin: 3, ymin: 3, xmax: 3, ymax: 3), 100, 100, .invalidExtent),
        (Envelope(xmin: -.infinity, ymin: 0, xmax: 1, ymax: 1), 100, 100, .invalidExtent),
        (Envelope(xmin: -1e308, ymin: 0, xmax: 1e308, ymax: 1), 100, 100, .invalidExtent),
        (Envelope(xmin: 0, ymin: 0, xmax: .leastNonzeroMagnitude, ymax: .leastNonzeroMagnitude), 100, 100, .invalidExtent),
        (Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1), 0, 100, .invalidSize),
        (Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1), 100, -1, .invalidSize),
        (Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1), 200_000, 100, .invalidSize),
    ])
    func invalidViews(extent: Envelope, width: Int, height: Int, kind: SVGMapError.Kind) {
        let error = #expect(throws: SVGMapError.self) {
            _ = try SVGMapWriter(extent: extent, width: width, height: height)
        }
        #expect(error?.kind == kind)
    }

    @Test("an extent with a NaN bound is a thrown error")
    func nanExtent() {
        var extent = Envelope(xmin: 0, ymin: 0, xmax: 1, ymax: 1)
        extent.ymax = .nan
        let error = #expect(throws: SVGMapError.self) {
            _ = try SVGMapWriter(extent: extent, width: 10, height: 10)
        }
        #expect(error?.kind == .invalidExtent)
    }

    @Test("a repeated layer name or a row outside the table is a thrown error, and adds nothing")
    func invalidLayers() throws {
        let table = try svgTable(["POINT (5 5)", "POINT (6 6)"], geometryType: .point)
        var map = try squareMap()
        try map.addLayer(name: "points", table: table, rows: [0, 1], style: { _ in DrawStyle() })
        let duplicate = #expect(throws: SVGMapError.self) {
            try map.addLayer(name: "points", table: table, rows: [0], style: { _ in DrawStyle() })
        }
        #expect(duplicate?.kind == .duplicateLayerName)
        for rows in [[0, 2], [-1]] {
            let outside = #expect(throws: SVGMapError.self) {
                try map.addLayer(name: "more", table: table, rows: rows, style: { _ in DrawStyle() })
            }
            #expect(outside?.kind == .rowOutOfRange)
        }
        #expect(map.layerNames == ["points"])
    }

    @Test("style sizes are points at 96 DPI and colours are written in hexadecimal")
    func styleUnits() {
        #expect(DrawStyle.pixels(points: 72) == 96)
        #expect(DrawStyle(strokeWidth: 0.75).strokeWidthPixels == 1)
        #expect(DrawStyle(markerSize: 6).markerSizePixels == 8)
        #expect(DrawStyle(strokeWidth: -1).strokeWidthPixels == 0)
        #expect(DrawStyle(markerSize: .nan).markerSizePixels == 0)
        #expect(DrawStyle(markerSize: 1e300).markerSizePixels == DrawStyle.maximumPixels)
        #expect(RGBAColor(red: 255, green: 8, blue: 171).hex == "#ff08ab")
        #expect(DrawStyle.highlight.stroke == .cyan && DrawStyle.highlight.fill?.alpha == 64)
    }
}
