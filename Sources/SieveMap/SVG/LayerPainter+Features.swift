import SieveGeometry

extension LayerPainter {
    /// Draws row `row` of a column in shape storage with `style`, reading its parts, rings and
    /// positions from `shapes` and its coordinates from `xy` (the column's interleaved x/y).
    /// Returns whether the row was drawn: `false` when its envelope (`xmin`…`ymax`, from the
    /// table's envelope arrays) is outside the extent, or it has no geometry.
    ///
    /// A collection row is not drawn here (it has no rings in the column): draw its materialized
    /// value with ``draw(_:style:)``.
    mutating func drawShapeRow(
        _ row: Int, kind: Geometry.Kind, style: DrawStyle, shapes: GeometryColumn.Shapes,
        xy: UnsafeBufferPointer<Double>, xmin: Double, ymin: Double, xmax: Double, ymax: Double
    ) -> Bool {
        guard let pathKind = PathKind(kind) else { return false }
        let group = group(style, pathKind)
        guard isVisible(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax, pad: groups[group].pad) else { return false }
        switch kind {
        case .point, .multipoint:
            for position in shapes.positions(row: row) {
                drawMarker(group, x: xy[2 * position], y: xy[2 * position + 1])
            }
        case .polyline, .polygon:
            if isBelowPixel(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax) {
                drawMark(group, xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
                return true
            }
            let closed = kind == .polygon
            let clipped = needsClipping(group, xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
            for part in shapes.parts(row: row) {
                let rings = shapes.rings(part: part)
                for ring in rings {
                    drawRing(
                        group, xy, stride: 2, range: shapes.positions(ring: ring), closed: closed,
                        outer: ring == rings.lowerBound, clipped: clipped)
                }
            }
        case .envelope:
            drawRectangle(group, xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
        case .collection:
            return false
        }
        return true
    }

    /// Draws a materialized geometry with `style` (the slow path, for collections, whose
    /// members the column keeps as values): each member in the path of its kind. Returns
    /// whether any part of it reached the extent.
    @discardableResult
    mutating func draw(_ geometry: Geometry, style: DrawStyle) -> Bool {
        if case .collection(let collection) = geometry {
            var drawn = false
            for member in collection.geometries where draw(member, style: style) { drawn = true }
            return drawn
        }
        guard let pathKind = PathKind(geometry.kind) else { return false }
        let envelope = geometry.envelope
        guard !envelope.isEmpty else { return false }
        let group = group(style, pathKind)
        guard
            isVisible(
                xmin: envelope.xmin, ymin: envelope.ymin, xmax: envelope.xmax, ymax: envelope.ymax,
                pad: groups[group].pad)
        else { return false }
        switch geometry {
        case .point(let point):
            drawMarker(group, x: point.x, y: point.y)
        case .multipoint(let multipoint):
            let stride = multipoint.coordinates.layout.stride
            multipoint.coordinates.values.withUnsafeBufferPointer { values in
                for i in 0..<multipoint.coordinates.count {
                    drawMarker(group, x: values[stride * i], y: values[stride * i + 1])
                }
            }
        case .polyline(let polyline):
            let paths = (0..<polyline.pathCount).map { [$0] }
            drawRings(
                group, polyline.coordinates, envelope: envelope, closed: false, parts: paths,
                range: polyline.pathRange)
        case .polygon(let polygon):
            let parts = (0..<polygon.partCount).map { Array(polygon.partRingRange($0)) }
            drawRings(
                group, polygon.coordinates, envelope: envelope, closed: true, parts: parts, range: polygon.ringRange)
        case .envelope(let rectangle):
            drawRectangle(group, xmin: rectangle.xmin, ymin: rectangle.ymin, xmax: rectangle.xmax, ymax: rectangle.ymax)
        case .collection:
            return false
        }
        return true
    }

    /// Draws the rings of `parts` (each part a list of ring numbers, outer ring first) of a
    /// materialized polygon or polyline, as ``drawShapeRow`` does for a row of the column.
    private mutating func drawRings(
        _ group: Int, _ coordinates: CoordinateBuffer, envelope: Envelope, closed: Bool, parts: [[Int]],
        range: (Int) -> Range<Int>
    ) {
        if isBelowPixel(xmin: envelope.xmin, ymin: envelope.ymin, xmax: envelope.xmax, ymax: envelope.ymax) {
            drawMark(group, xmin: envelope.xmin, ymin: envelope.ymin, xmax: envelope.xmax, ymax: envelope.ymax)
            return
        }
        let stride = coordinates.layout.stride
        let clipped = needsClipping(
            group, xmin: envelope.xmin, ymin: envelope.ymin, xmax: envelope.xmax, ymax: envelope.ymax)
        coordinates.values.withUnsafeBufferPointer { values in
            for rings in parts {
                for (index, ring) in rings.enumerated() {
                    drawRing(
                        group, values, stride: stride, range: range(ring), closed: closed, outer: index == 0,
                        clipped: clipped)
                }
            }
        }
    }

    /// Whether a feature of this envelope reaches beyond the clip rectangle of path `group`, so
    /// that its rings are clipped.
    private func needsClipping(_ group: Int, xmin: Double, ymin: Double, xmax: Double, ymax: Double) -> Bool {
        !groups[group].clip.contains(
            minX: view.pixelX(xmin), minY: view.pixelY(ymax), maxX: view.pixelX(xmax), maxY: view.pixelY(ymin))
    }

    /// Draws one ring (`closed`) or path, clipped or not; a path, or an outer ring, that
    /// collapses below a pixel becomes a pixel mark, a hole that collapses is left out.
    private mutating func drawRing(
        _ group: Int, _ coordinates: UnsafeBufferPointer<Double>, stride: Int, range: Range<Int>, closed: Bool,
        outer: Bool, clipped: Bool
    ) {
        let result =
            clipped
            ? appendClippedPath(group, coordinates, stride: stride, range: range, closed: closed)
            : appendPath(group, coordinates, stride: stride, range: range, closed: closed)
        if case .collapsed(let px, let py) = result, !closed || outer {
            drawMark(group, px: px, py: py)
        }
    }
}
