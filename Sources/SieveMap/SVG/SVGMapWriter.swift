import SieveFeatures
import SieveGeometry

/// Draws feature tables into a standalone SVG 1.1 document: a map of `width` × `height` pixels
/// showing `extent`.
///
/// ```swift
/// var map = try SVGMapWriter(extent: table.extent, width: 1000, height: 500, background: .white)
/// try map.addLayer(name: "countries", table: table, rows: table.liveRows,
///                  style: { _ in DrawStyle(fill: RGBAColor(red: 200, green: 220, blue: 180)) },
///                  selected: { table.objectID(row: $0) == 42 })
/// let svg = map.svg()
/// ```
///
/// **View.** Map units go right and up; pixels go right and down from the top-left corner. The
/// extent keeps its aspect: when its width / height differs from the view's, it is widened
/// around its centre (never cropped), as map viewers do, and ``extent`` is the widened one.
/// ``scale`` is the pixels per map unit on both axes; ``pixel(x:y:)`` turns a position into
/// pixels.
///
/// **Layers.** Each ``addLayer(name:table:rows:style:selected:opacity:)`` draws the given rows into one
/// `<g id="name" class="layer">`, later layers on top of earlier ones. Within a layer, every
/// feature of one style and one kind of geometry (areas, lines, markers) goes into one
/// `<path>`, in the order of the rows; the paths follow each other in the order their styles
/// first occur. Selected features are drawn again, with ``highlight``, in a
/// `<g class="selection">` after every layer, so a selection is never hidden by a layer drawn
/// later (one `<g id="selection-of-name" class="layer-selection">` per layer that has any).
///
/// **Drawing.** Coordinates are written in pixels with at most one decimal. Polygons are one
/// subpath per ring with `fill-rule="evenodd"`, so holes stay empty whatever the rings'
/// orientation. Along a ring or path, a vertex falling on the same half-pixel cell as the vertex
/// before it is dropped, and so are a ring's closing vertices on its first vertex's cell.
/// A feature smaller than a pixel both ways, a polygon part or a line path whose vertices
/// collapse to fewer than 3 (2 for a path) cells, is drawn as a mark one pixel across rather
/// than dropped; a hole that collapses is left out. Points and multipoints are markers centred
/// on the pixel they fall in, and a pixel that already holds the same marker (same style) is
/// not drawn again, so a million overlapping points stay a small document.
///
/// **Culling and clipping.** A feature whose envelope (from the table's envelope arrays) lies
/// outside the extent, grown by half its stroke or marker, is not drawn; deleted rows
/// (``/SieveFeatures/FeatureTable/isDeleted(row:)``), rows without geometry, and positions with a
/// NaN or infinite coordinate are never drawn. The rings and lines of a feature reaching beyond the
/// view grown by its stroke width and 2 pixels are clipped to that rectangle (a ring stays one
/// ring, with edges along the rectangle where it went outside, never seen; a line is cut into its
/// pieces inside), so a zoomed-in view does not carry the vertices it cannot show. Pixel positions
/// are first clamped to ±10⁸.
public struct SVGMapWriter: Sendable {
    /// The extent asked for, before it was widened to the view's aspect.
    public let requestedExtent: Envelope
    /// The extent the view shows: ``requestedExtent`` widened around its centre to the view's
    /// aspect.
    public let extent: Envelope
    /// The view's width in pixels.
    public let width: Int
    /// The view's height in pixels.
    public let height: Int
    /// The colour the view is filled with before any layer, or `nil` for a transparent view.
    public let background: RGBAColor?
    /// Pixels per map unit (the same on both axes).
    public let scale: Double
    /// The style selected features are highlighted with: its colours and stroke width, with the
    /// feature's own marker shape, size and angle (see ``DrawStyle/highlighting(_:)``).
    /// Changing it affects the layers added afterwards.
    public var highlight: DrawStyle = .highlight

    /// The largest width and height, in pixels.
    public static let maximumSize = 100_000

    private let view: ViewTransform
    private var layers: [DrawnLayer] = []
    private var usedIDs: Set<String> = []

    /// A layer's drawn paths and highlighted ones.
    private struct DrawnLayer: Sendable {
        let name: String
        let paths: SVGBytes
        let highlight: SVGBytes
        let opacity: Double
    }

    /// Creates a writer for a view of `width` × `height` pixels showing `extent`.
    ///
    /// - Parameters:
    ///   - extent: The map area to show, in the tables' coordinates; widened to the view's
    ///     aspect (see ``extent``).
    ///   - width: The view's width in pixels, 1…``maximumSize``.
    ///   - height: The view's height in pixels, 1…``maximumSize``.
    ///   - background: The colour to fill the view with, or `nil` for none.
    /// - Throws: ``SVGMapError/Kind/invalidSize`` for a width or height out of range;
    ///   ``SVGMapError/Kind/invalidExtent`` for an empty extent, one with zero width or height,
    ///   with non-finite bounds, or too small or large to scale to the view.
    public init(extent: Envelope, width: Int, height: Int, background: RGBAColor? = nil) throws(SVGMapError) {
        guard width > 0, height > 0, width <= Self.maximumSize, height <= Self.maximumSize else {
            throw SVGMapError(
                .invalidSize, "the view must be 1…\(Self.maximumSize) pixels each way, not \(width) × \(height)")
        }
        guard !extent.isEmpty else { throw SVGMapError(.invalidExtent, "the extent is empty") }
        guard extent.xmin.isFinite, extent.ymin.isFinite, extent.xmax.isFinite, extent.ymax.isFinite else {
            throw SVGMapError(.invalidExtent, "the extent's bounds must be finite numbers, not \(extent)")
        }
        let extentWidth = extent.xmax - extent.xmin
        let extentHeight = extent.ymax - extent.ymin
        guard extentWidth > 0, extentHeight > 0 else {
            throw SVGMapError(
                .invalidExtent,
                "the extent has zero \(extentWidth > 0 ? "height" : "width") (\(extentWidth) × \(extentHeight))")
        }
        guard extentWidth.isFinite, extentHeight.isFinite else {
            throw SVGMapError(.invalidExtent, "the extent is too large to draw: \(extent)")
        }
        let viewAspect = Double(width) / Double(height)
        var adjusted = extent
        if extentWidth / extentHeight < viewAspect {
            let wider = extentHeight * viewAspect
            let centre = extent.xmin + extentWidth / 2
            adjusted.xmin = centre - wider / 2
            adjusted.xmax = centre + wider / 2
        } else if extentWidth / extentHeight > viewAspect {
            let taller = extentWidth / viewAspect
            let centre = extent.ymin + extentHeight / 2
            adjusted.ymin = centre - taller / 2
            adjusted.ymax = centre + taller / 2
        }
        let scale = Double(width) / (adjusted.xmax - adjusted.xmin)
        guard adjusted.xmin.isFinite, adjusted.xmax.isFinite, adjusted.ymin.isFinite, adjusted.ymax.isFinite,
            scale.isFinite, scale > 0
        else {
            throw SVGMapError(
                .invalidExtent, "the extent \(extent) cannot be scaled to a view of \(width) × \(height) pixels")
        }
        self.requestedExtent = extent
        self.extent = adjusted
        self.width = width
        self.height = height
        self.background = background
        self.scale = scale
        self.view = ViewTransform(originX: adjusted.xmin, originY: adjusted.ymax, scale: scale)
    }

    /// The pixel position of map position (`x`, `y`): x from the view's left edge, y down from
    /// its top edge (unrounded, not clamped).
    public func pixel(x: Double, y: Double) -> (x: Double, y: Double) {
        ((x - extent.xmin) * scale, (extent.ymax - y) * scale)
    }

    /// The names of the layers added, in drawing order.
    public var layerNames: [String] { layers.map(\.name) }

    /// Draws rows of a table as a layer on top of the layers added before.
    ///
    /// - Parameters:
    ///   - name: The layer's name, written (XML-escaped) as its group's `id`; unique in the map.
    ///   - table: The features.
    ///   - rows: The rows to draw, in drawing order (each a row number of `table`). Deleted rows
    ///     and rows without geometry are skipped.
    ///   - style: The style of a row, or `nil` to leave the row out. Asked once per live row
    ///     listed, in order, before the row's envelope is tested against the extent.
    ///   - selected: Whether a row is selected; asked once per row drawn. Selected rows are
    ///     drawn a second time with ``highlight`` above every layer.
    ///   - opacity: The layer's opacity, 0 (invisible) to 1 (opaque, the default), written as
    ///     its group's `opacity` when below 1 (a layer's transparency: its features blend with
    ///     what is under them as one image, as a map draws a translucent layer).
    /// - Returns: What was drawn (see ``SVGLayerStatistics``).
    /// - Throws: ``SVGMapError/Kind/duplicateLayerName`` when a layer of that name was added
    ///   already; ``SVGMapError/Kind/rowOutOfRange`` when a row is not a row of `table` (nothing
    ///   is drawn then).
    @discardableResult
    public mutating func addLayer(
        name: String, table: FeatureTable, rows: [Int], style: (Int) -> DrawStyle?,
        selected: (Int) -> Bool = { _ in false }, opacity: Double = 1
    ) throws(SVGMapError) -> SVGLayerStatistics {
        let selectionID = "selection-of-" + name
        guard !usedIDs.contains(name), !usedIDs.contains(selectionID) else {
            throw SVGMapError(.duplicateLayerName, "the map has a layer named \(name.debugDescription) already")
        }
        if let bad = rows.first(where: { $0 < 0 || $0 >= table.count }) {
            throw SVGMapError(.rowOutOfRange, "row \(bad) is not a row of the table (0..<\(table.count))")
        }
        var statistics = SVGLayerStatistics()
        var chosen: [(row: Int, style: DrawStyle)] = []
        var painter = LayerPainter(view: view, extent: extent, width: width, height: height)
        let skipDeleted = table.deletedRowCount > 0
        paint(table: table, count: rows.count, into: &painter, statistics: &statistics) { i in
            let row = rows[i]
            guard !skipDeleted || !table.isDeleted(row: row), let rowStyle = style(row) else { return nil }
            return (row, rowStyle)
        } drawn: { row, rowStyle in
            if selected(row) { chosen.append((row, rowStyle)) }
        }
        var highlighter = LayerPainter(view: view, extent: extent, width: width, height: height)
        var highlightStatistics = SVGLayerStatistics()
        let highlight = highlight
        paint(
            table: table, count: chosen.count, into: &highlighter, statistics: &highlightStatistics,
            feature: { i in (chosen[i].row, highlight.highlighting(chosen[i].style)) }, drawn: { _, _ in })
        statistics.highlighted = highlightStatistics.drawn
        statistics.paths = painter.pathCount
        statistics.highlightPaths = highlighter.pathCount
        var paths = SVGBytes()
        painter.writePaths(into: &paths)
        var highlighted = SVGBytes()
        highlighter.writePaths(into: &highlighted)
        layers.append(DrawnLayer(name: name, paths: paths, highlight: highlighted, opacity: opacity.isNaN ? 1 : min(max(opacity, 0), 1)))
        usedIDs.insert(name)
        usedIDs.insert(selectionID)
        return statistics
    }

    /// Draws `count` features into `painter`: `feature(i)` gives the i-th one's row and style
    /// (`nil` to skip it); `drawn` hears of each one that reached the extent.
    private func paint(
        table: FeatureTable, count: Int, into painter: inout LayerPainter, statistics: inout SVGLayerStatistics,
        feature: (Int) -> (row: Int, style: DrawStyle)?, drawn: (Int, DrawStyle) -> Void
    ) {
        guard count > 0 else { return }
        let column = table.geometryColumn
        guard let shapes = column.shapes else {
            column.pointX.withUnsafeBufferPointer { xs in
                column.pointY.withUnsafeBufferPointer { ys in
                    for i in 0..<count {
                        guard let (row, style) = feature(i) else { continue }
                        let x = xs[row]
                        let y = ys[row]
                        guard !x.isNaN, !y.isNaN else { continue }
                        let group = painter.group(style, .marker)
                        let pad = painter.groups[group].pad
                        guard painter.isVisible(xmin: x, ymin: y, xmax: x, ymax: y, pad: pad) else {
                            statistics.culled += 1
                            continue
                        }
                        painter.drawMarker(group, x: x, y: y)
                        statistics.drawn += 1
                        drawn(row, style)
                    }
                }
            }
            return
        }
        let (xmin, ymin, xmax, ymax) = (table.xmin, table.ymin, table.xmax, table.ymax)
        shapes.xy.withUnsafeBufferPointer { xy in
            for i in 0..<count {
                guard let (row, style) = feature(i), let kind = shapes.kind(row: row) else { continue }
                let visible: Bool
                if kind == .collection {
                    guard let geometry = table.geometry(row: row) else { continue }
                    visible = painter.draw(geometry, style: style)
                } else {
                    guard !xmin[row].isNaN else { continue }
                    visible = painter.drawShapeRow(
                        row, kind: kind, style: style, shapes: shapes, xy: xy,
                        xmin: xmin[row], ymin: ymin[row], xmax: xmax[row], ymax: ymax[row])
                }
                guard visible else {
                    statistics.culled += 1
                    continue
                }
                statistics.drawn += 1
                drawn(row, style)
            }
        }
    }

    /// The SVG document, as UTF-8 bytes.
    public func svgBytes() -> [UInt8] {
        var out = SVGBytes()
        out.reserveCapacity(layers.reduce(512) { $0 + $1.paths.count + $1.highlight.count + 128 })
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        out.append("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"")
        out.appendInteger(width)
        out.append("\" height=\"")
        out.appendInteger(height)
        out.append("\" viewBox=\"0 0 ")
        out.appendInteger(width)
        out.append(" ")
        out.appendInteger(height)
        out.append("\">\n")
        if let background {
            out.append("<rect class=\"background\" x=\"0\" y=\"0\" width=\"")
            out.appendInteger(width)
            out.append("\" height=\"")
            out.appendInteger(height)
            out.append("\" fill=\"")
            out.append(background.hex)
            out.append("\"")
            if background.alpha < 255 {
                out.append(" fill-opacity=\"")
                out.append(LayerPainter.opacityText(background.alpha))
                out.append("\"")
            }
            out.append("/>\n")
        }
        for layer in layers {
            out.append("<g id=\"")
            out.appendEscaped(layer.name)
            out.append("\" class=\"layer\"")
            if layer.opacity < 1 {
                out.append(" opacity=\"")
                out.append(LayerPainter.opacityText(UInt8((layer.opacity * 255).rounded())))
                out.append("\"")
            }
            out.append(">\n")
            out.append(layer.paths)
            out.append("</g>\n")
        }
        if layers.contains(where: { !$0.highlight.isEmpty }) {
            out.append("<g class=\"selection\">\n")
            for layer in layers where !layer.highlight.isEmpty {
                out.append("<g id=\"selection-of-")
                out.appendEscaped(layer.name)
                out.append("\" class=\"layer-selection\">\n")
                out.append(layer.highlight)
                out.append("</g>\n")
            }
            out.append("</g>\n")
        }
        out.append("</svg>\n")
        return out.bytes
    }

    /// The SVG document.
    public func svg() -> String {
        String(decoding: svgBytes(), as: UTF8.self)
    }
}

/// What ``SVGMapWriter/addLayer(name:table:rows:style:selected:opacity:)`` drew.
public struct SVGLayerStatistics: Sendable, Hashable {
    /// The features drawn (their envelope reached the extent).
    public var drawn = 0
    /// The features with a style and a geometry left out because their envelope lies outside
    /// the extent.
    public var culled = 0
    /// The selected features highlighted.
    public var highlighted = 0
    /// The `<path>` elements of the layer's group.
    public var paths = 0
    /// The `<path>` elements of the layer's highlight group.
    public var highlightPaths = 0

    /// No features drawn.
    public init() {}
}
