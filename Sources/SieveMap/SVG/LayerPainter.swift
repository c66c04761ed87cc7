import SieveGeometry

/// What a path draws: filled polygons, stroked lines or point markers.
enum PathKind: UInt8, Sendable {
    case area, line, marker

    /// The kind of path a geometry of `kind` is drawn in (`nil` for a collection, whose members
    /// go to the paths of their own kinds).
    init?(_ kind: Geometry.Kind) {
        switch kind {
        case .point, .multipoint: self = .marker
        case .polyline: self = .line
        case .polygon, .envelope: self = .area
        case .collection: return nil
        }
    }

    /// The `class` attribute of the path.
    var className: String {
        switch self {
        case .area: "area"
        case .line: "line"
        case .marker: "marker"
        }
    }
}

/// Map units to pixels: x grows right from the extent's left edge, y grows down from its top
/// edge, both by `scale` pixels per map unit.
struct ViewTransform: Sendable {
    /// The largest pixel coordinate written: farther vertices are clamped to ±`limit`.
    static let limit = 1.0e8

    let originX: Double
    let originY: Double
    let scale: Double

    @inline(__always) func pixelX(_ x: Double) -> Double { min(max((x - originX) * scale, -Self.limit), Self.limit) }
    @inline(__always) func pixelY(_ y: Double) -> Double { min(max((originY - y) * scale, -Self.limit), Self.limit) }
}

/// One `<path>` of a layer: every feature of one style and one path kind.
struct PathGroup: Sendable {
    let style: DrawStyle
    let kind: PathKind
    /// How far, in map units, a feature's envelope may lie outside the extent and still show
    /// (half the stroke, half the marker, one pixel for pixel-sized marks).
    let pad: Double
    /// The marker of a marker path.
    let marker: MarkerTemplate?
    /// The rectangle rings and paths reaching beyond it are clipped to: the view grown by the
    /// stroke width and 2 pixels.
    let clip: PixelRectangle
    /// The `d` attribute.
    var path = SVGBytes()
    /// The cells holding a marker already (marker paths).
    var cells: MarkerCells
}

/// Draws the features of one layer (or one layer's highlight) into one path per style and
/// kind, reading coordinates straight from the geometry column.
struct LayerPainter {
    let view: ViewTransform
    let extent: Envelope
    let width: Int
    let height: Int
    private(set) var groups: [PathGroup] = []
    private var groupIndex: [GroupKey: Int] = [:]
    private var last: (style: DrawStyle, kind: PathKind, group: Int)?

    private struct GroupKey: Hashable {
        let style: DrawStyle
        let kind: PathKind
    }

    init(view: ViewTransform, extent: Envelope, width: Int, height: Int) {
        self.view = view
        self.extent = extent
        self.width = width
        self.height = height
    }

    /// The index of the path of `style` and `kind`, created at the end on first use. Styles
    /// that differ only in NaN or infinite sizes or angle share a path (see
    /// ``DrawStyle/normalized``).
    mutating func group(_ requested: DrawStyle, _ kind: PathKind) -> Int {
        if let last, last.kind == kind, last.style == requested { return last.group }
        let style = requested.normalized
        let key = GroupKey(style: style, kind: kind)
        let index: Int
        if let existing = groupIndex[key] {
            index = existing
        } else {
            index = groups.count
            let strokePixels = style.stroke == nil ? 0 : style.strokeWidthPixels
            var padPixels = strokePixels / 2 + 1
            var marker: MarkerTemplate?
            var margin = 0
            if kind == .marker {
                let template = MarkerTemplate(
                    shape: style.marker, size: style.markerSizePixels, angle: style.markerAngle)
                marker = template
                let stroke =
                    template.isStrokeOnly ? max(style.strokeWidthPixels, DrawStyle.pixelsPerPoint) : strokePixels
                padPixels = max(style.markerSizePixels, 1) / 2 + stroke / 2 + 1
                margin = Int(padPixels.rounded(.up)) + 1
            }
            groups.append(
                PathGroup(
                    style: style, kind: kind, pad: padPixels / view.scale, marker: marker,
                    clip: PixelRectangle(
                        minX: -strokePixels - 2, minY: -strokePixels - 2, maxX: Double(width) + strokePixels + 2,
                        maxY: Double(height) + strokePixels + 2),
                    cells: MarkerCells(width: width, height: height, margin: margin)))
            groupIndex[key] = index
        }
        // Remembered as asked (a normalized style equals itself; one with a NaN never hits).
        last = (requested, kind, index)
        return index
    }

    /// Whether an envelope reaches the extent grown by `pad` map units (never for NaN bounds).
    @inline(__always)
    func isVisible(xmin: Double, ymin: Double, xmax: Double, ymax: Double, pad: Double) -> Bool {
        xmax >= extent.xmin - pad && xmin <= extent.xmax + pad && ymax >= extent.ymin - pad && ymin <= extent.ymax + pad
    }

    /// Whether an envelope is smaller than a pixel both ways.
    @inline(__always)
    func isBelowPixel(xmin: Double, ymin: Double, xmax: Double, ymax: Double) -> Bool {
        (xmax - xmin) * view.scale < 1 && (ymax - ymin) * view.scale < 1
    }

    // MARK: - Markers

    /// Draws the marker of path `group` at map position (`x`, `y`), centred on the pixel the
    /// position falls in, unless that pixel holds the same marker already or a coordinate is
    /// not finite.
    @inline(__always)
    mutating func drawMarker(_ group: Int, x: Double, y: Double) {
        guard x.isFinite, y.isFinite else { return }
        let px = view.pixelX(x)
        let py = view.pixelY(y)
        guard px.isFinite, py.isFinite else { return }
        let cellX = Int(px.rounded(.down))
        let cellY = Int(py.rounded(.down))
        guard groups[group].cells.insert(x: cellX, y: cellY), let marker = groups[group].marker else { return }
        groups[group].path.append(UInt8(ascii: "M"))
        groups[group].path.appendTenths(cellX * 10 + 5 + marker.startX)
        groups[group].path.append(UInt8(ascii: " "))
        groups[group].path.appendTenths(cellY * 10 + 5 + marker.startY)
        groups[group].path.append(marker.tail)
    }

    /// Draws a mark one pixel across centred on the pixel position (`px`, `py`): a square in an
    /// area path, a one-pixel stroke in a line path, a marker in a marker path.
    mutating func drawMark(_ group: Int, px: Double, py: Double) {
        guard px.isFinite, py.isFinite else { return }
        let x = SVGBytes.tenths(px)
        let y = SVGBytes.tenths(py)
        switch groups[group].kind {
        case .area:
            groups[group].path.append(UInt8(ascii: "M"))
            groups[group].path.appendTenths(x - 5)
            groups[group].path.append(UInt8(ascii: " "))
            groups[group].path.appendTenths(y - 5)
            groups[group].path.append("h1v1h-1z")
        case .line:
            groups[group].path.append(UInt8(ascii: "M"))
            groups[group].path.appendTenths(x - 5)
            groups[group].path.append(UInt8(ascii: " "))
            groups[group].path.appendTenths(y)
            groups[group].path.append("h1")
        case .marker:
            drawMarkerAtPixel(group, px: px, py: py)
        }
    }

    private mutating func drawMarkerAtPixel(_ group: Int, px: Double, py: Double) {
        drawMarker(group, x: px / view.scale + view.originX, y: view.originY - py / view.scale)
    }

    /// Draws a mark for a feature smaller than a pixel, at its envelope's centre.
    mutating func drawMark(_ group: Int, xmin: Double, ymin: Double, xmax: Double, ymax: Double) {
        let cx = xmin + (xmax - xmin) / 2
        let cy = ymin + (ymax - ymin) / 2
        guard cx.isFinite, cy.isFinite else { return }
        drawMark(group, px: view.pixelX(cx), py: view.pixelY(cy))
    }

    // MARK: - Paths and rings

    /// What ``appendPath(_:_:stride:range:closed:)`` did.
    enum PathResult {
        /// The subpath is written.
        case written
        /// Too few vertices were left on distinct half-pixel cells (fewer than 3 for a ring, 2
        /// for a path): nothing is written; the centre of the vertices, in pixels, is given.
        case collapsed(px: Double, py: Double)
        /// No vertex has finite coordinates.
        case empty
    }

    /// Writes positions `range` of `coordinates` (x at `stride * i`, y after it) as one subpath
    /// of path `group`: each vertex turned into pixels and written with at most one decimal, a
    /// vertex dropped when it falls on the same half-pixel cell as the vertex written before it,
    /// a vertex with a NaN or infinite coordinate skipped; a closed ring ends with `z` and
    /// without its closing vertices that fall on its first vertex's cell.
    mutating func appendPath(
        _ group: Int, _ coordinates: UnsafeBufferPointer<Double>, stride: Int, range: Range<Int>, closed: Bool
    ) -> PathResult {
        let view = view
        return writeSubpath(group, count: range.count, closed: closed) { i in
            let x = coordinates[stride * (range.lowerBound + i)]
            let y = coordinates[stride * (range.lowerBound + i) + 1]
            guard x.isFinite, y.isFinite else { return nil }
            return (view.pixelX(x), view.pixelY(y))
        }
    }

    /// Writes positions `range` of `coordinates` as ``appendPath(_:_:stride:range:closed:)``
    /// does, clipped to the path's clip rectangle first (see ``PixelRectangle``): a ring as one
    /// ring, a path as its pieces inside the rectangle. The result is `.written` when anything
    /// is written, else the first piece's.
    mutating func appendClippedPath(
        _ group: Int, _ coordinates: UnsafeBufferPointer<Double>, stride: Int, range: Range<Int>, closed: Bool
    ) -> PathResult {
        var pixels: [Double] = []
        pixels.reserveCapacity(2 * range.count)
        for i in range {
            let x = coordinates[stride * i]
            let y = coordinates[stride * i + 1]
            guard x.isFinite, y.isFinite else { continue }
            pixels.append(view.pixelX(x))
            pixels.append(view.pixelY(y))
        }
        let clip = groups[group].clip
        if closed { return appendPixelPath(group, clip.clip(ring: pixels), closed: true) }
        var result = PathResult.empty
        for piece in clip.clip(path: pixels) {
            let pieceResult = appendPixelPath(group, piece, closed: false)
            switch (pieceResult, result) {
            case (.written, _): result = .written
            case (.collapsed, .empty): result = pieceResult
            default: break
            }
        }
        return result
    }

    /// Writes pixel positions (interleaved x, y) as one subpath of path `group`, as
    /// ``appendPath(_:_:stride:range:closed:)`` does with map positions.
    mutating func appendPixelPath(_ group: Int, _ pixels: [Double], closed: Bool) -> PathResult {
        writeSubpath(group, count: pixels.count / 2, closed: closed) { i in (pixels[2 * i], pixels[2 * i + 1]) }
    }

    /// The half-pixel cell of a pixel position.
    @inline(__always)
    private static func cell(_ px: Double, _ py: Double) -> (Int, Int) {
        (Int((px * 2).rounded(.down)), Int((py * 2).rounded(.down)))
    }

    /// Writes `count` vertices, the i-th at pixel position `vertex(i)` (`nil` to skip it), as one
    /// subpath of path `group` (see ``appendPath(_:_:stride:range:closed:)``).
    @inline(__always)
    private mutating func writeSubpath(
        _ group: Int, count: Int, closed: Bool, vertex: (Int) -> (x: Double, y: Double)?
    ) -> PathResult {
        var end = count
        if closed, let first = (0..<count).first(where: { vertex($0) != nil }), let start = vertex(first) {
            // Closing vertices on the first vertex's cell, or without finite coordinates, go.
            let firstCell = Self.cell(start.x, start.y)
            while end - 1 > first {
                if let last = vertex(end - 1), Self.cell(last.x, last.y) != firstCell { break }
                end -= 1
            }
        }
        let start = groups[group].path.count
        var kept = 0
        var lastCell = (Int.min, Int.min)
        var bounds = (minX: Double.infinity, minY: Double.infinity, maxX: -Double.infinity, maxY: -Double.infinity)
        for i in 0..<end {
            guard let (px, py) = vertex(i), px.isFinite, py.isFinite else { continue }
            bounds = (min(bounds.minX, px), min(bounds.minY, py), max(bounds.maxX, px), max(bounds.maxY, py))
            let cell = Self.cell(px, py)
            if cell == lastCell { continue }
            lastCell = cell
            groups[group].path.append(kept == 0 ? UInt8(ascii: "M") : UInt8(ascii: " "))
            groups[group].path.appendTenths(SVGBytes.tenths(px))
            groups[group].path.append(UInt8(ascii: " "))
            groups[group].path.appendTenths(SVGBytes.tenths(py))
            kept += 1
        }
        guard kept >= (closed ? 3 : 2) else {
            groups[group].path.truncate(to: start)
            guard bounds.minX <= bounds.maxX else { return .empty }
            return .collapsed(
                px: bounds.minX + (bounds.maxX - bounds.minX) / 2, py: bounds.minY + (bounds.maxY - bounds.minY) / 2)
        }
        if closed { groups[group].path.append(UInt8(ascii: "z")) }
        return .written
    }

    /// Draws the outline of an envelope as a closed ring.
    mutating func drawRectangle(_ group: Int, xmin: Double, ymin: Double, xmax: Double, ymax: Double) {
        let corners = [xmin, ymin, xmax, ymin, xmax, ymax, xmin, ymax, xmin, ymin]
        corners.withUnsafeBufferPointer { buffer in
            if case .collapsed(let px, let py) = appendPath(group, buffer, stride: 2, range: 0..<5, closed: true) {
                drawMark(group, px: px, py: py)
            }
        }
    }
}
