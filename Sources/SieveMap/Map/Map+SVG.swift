import SieveFeatures
import SieveGeometry
import SieveJSON

extension DrawStyle {
    /// How a renderer symbol is drawn in SVG, or `nil` when it draws nothing visible.
    ///
    /// - `esriSMS` markers: the symbol's colour fills the marker, its outline (unless its style
    ///   is `esriSLSNull`) strokes it; size in points; the REST angle, counter-clockwise, turns
    ///   the marker (SVG turns clockwise, so the sign flips). Offsets are not drawn.
    /// - `esriSLS` lines: the colour and width stroke the line; `esriSLSNull` draws nothing.
    ///   Dash patterns are drawn solid.
    /// - `esriSFS` fills: the colour fills the polygon (`esriSFSNull` and `esriSFSHollow` leave
    ///   it empty; hatch styles are drawn as a solid fill of their colour); the outline strokes
    ///   it.
    public init?(symbol: Symbol) {
        func stroke(_ line: SimpleLineSymbol?) -> (RGBAColor?, Double) {
            guard let line, line.style != .null, let color = line.color else { return (nil, 0) }
            return (color, line.width)
        }
        switch symbol {
        case .marker(let marker):
            let (outline, width) = stroke(marker.outline)
            guard marker.color != nil || outline != nil else { return nil }
            self.init(
                fill: marker.color, stroke: outline, strokeWidth: width, marker: MarkerShape(marker.style),
                markerSize: marker.size, markerAngle: -marker.angle)
        case .line(let line):
            let (color, width) = stroke(line)
            guard let color else { return nil }
            self.init(fill: nil, stroke: color, strokeWidth: width)
        case .fill(let fill):
            let (outline, width) = stroke(fill.outline)
            let inside = fill.style == .null || fill.style == .hollow ? nil : fill.color
            guard inside != nil || outline != nil else { return nil }
            self.init(fill: inside, stroke: outline, strokeWidth: width)
        }
    }
}

extension MarkerShape {
    /// The SVG marker of an `esriSMS` style.
    init(_ style: MarkerStyle) {
        switch style {
        case .circle: self = .circle
        case .square: self = .square
        case .cross: self = .cross
        case .x: self = .x
        case .diamond: self = .diamond
        case .triangle: self = .triangle
        }
    }
}

/// What ``Map/renderSVG(extent:width:height:scale:background:)`` drew.
public struct MapRendering: Sendable {
    /// The standalone SVG document, UTF-8.
    public let svg: [UInt8]
    /// The extent drawn: the one asked for, widened to the view's aspect.
    public let extent: Envelope
    /// The map scale the layers were drawn at.
    public let scale: Double
    /// Per layer, bottom first: its name, how many features it displays in the extent, and how
    /// many of those are selected.
    public let layers: [(name: String, displayed: Int, selected: Int)]
}

extension Map {
    /// Draws the map: every layer drawn at the view's scale, bottom first, each displayed
    /// feature (definition expression, display filter, scale range and visibility apply; the
    /// quadtree culls what lies outside the extent) with the symbol its renderer gives it, and
    /// the selected features highlighted on top.
    ///
    /// The extent is widened to the view's aspect around its centre; the scale is `scale`, or
    /// that of the widened extent at `width` pixels (see ``MapScale``).
    /// - Throws: ``SVGMapError`` for an extent without area or a size out of range;
    ///   ``/SieveFeatures/FeatureTableError/Kind/invalidQuery`` for a layer in another spatial
    ///   reference than the map's (layers are not reprojected when drawn) or a renderer that does
    ///   not bind to its table (a field it does not have); the errors of the layers' queries.
    public func renderSVG(
        extent: Envelope, width: Int, height: Int, scale: Double? = nil, background: RGBAColor? = nil
    ) throws -> MapRendering {
        var writer = try SVGMapWriter(extent: extent, width: width, height: height, background: background)
        let drawn = writer.extent
        let mapScale = try scale ?? self.scale(extent: drawn, width: Double(width))
        var summary: [(name: String, displayed: Int, selected: Int)] = []
        for layer in layers {
            let (rows, table) = try layer.displayedRows(in: drawn, scale: mapScale)
            guard table.spatialReference == spatialReference || rows.isEmpty else {
                throw FeatureTableError(
                    .invalidQuery,
                    "layer \(JSONKey.quoted(layer.name)) is in wkid \(table.spatialReference.wkid), the map in wkid "
                        + "\(spatialReference.wkid): layers are drawn in the map's reference only")
            }
            let bound: BoundRenderer
            do {
                bound = try layer.renderer.bind(to: table)
            } catch {
                throw FeatureTableError(.invalidQuery, "layer \(JSONKey.quoted(layer.name)): \(error)")
            }
            let positions = rows.map(Int.init)
            let classes = bound.classify(rows: positions)
            // Styles by class index + 2 (the not-drawn index is -2, the default class -1).
            let highest = Int(classes.max() ?? 0)
            var styles = [DrawStyle?](repeating: nil, count: max(highest, 0) + 3)
            for index in Set(classes) where index != Renderer.notDrawnClassIndex {
                if let symbol = bound.symbolClass(forClassIndex: index)?.symbol {
                    styles[Int(index) + 2] = DrawStyle(symbol: symbol)
                }
            }
            // A row's style through a dense array over the table's rows (no hashing per row).
            var styleOfRow = [Int32](repeating: Renderer.notDrawnClassIndex, count: table.count)
            for (row, index) in zip(positions, classes) { styleOfRow[row] = index }
            let selected = try layer.selectedRows(in: table)
            try writer.addLayer(
                name: layer.name, table: table, rows: positions,
                style: { row in styles[Int(styleOfRow[row]) + 2] },
                selected: { row in selected.contains(row) }, opacity: layer.opacity)
            summary.append((layer.name, rows.count, selected.isEmpty ? 0 : positions.reduce(0) { $0 + (selected.contains($1) ? 1 : 0) }))
        }
        return MapRendering(svg: writer.svgBytes(), extent: drawn, scale: mapScale, layers: summary)
    }
}
