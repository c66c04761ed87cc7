import SieveFeatures
import SieveGeometry
import SieveJSON

/// Writes the geometries of a table's rows as GeoJSON, Esri JSON or WKT straight from the
/// ``GeometryColumn``'s arrays: positions from its coordinate buffers, rings oriented from
/// ``GeometryColumn/Shapes/signedDoubleArea(ring:)``, without building a ``Geometry`` or a
/// ``JSONValue`` per row.
///
/// The text is byte for byte what the materializing path writes (the row's `Geometry`, its
/// `geoJSONValue` or `esriJSONValue` laid out by ``JSONLayout`` with coordinate numbers, or its
/// `wkt`): the same types (single or multi by the number of parts), the same ring orientation
/// (RFC 7946 for GeoJSON, clockwise outer rings for Esri JSON, as stored for WKT), the same z,
/// m and `null`/`NaN` rules, the same separators and indentation. Envelope and collection rows,
/// rare in feature tables, are left to the materializing path: the `write…` methods answer
/// `false` for them, and for rows without geometry, writing nothing.
///
/// A class, so that the writers hold and pass one reference rather than copying its arrays'
/// references for every row.
final class StoredGeometryWriter {
    private let column: GeometryColumn
    /// The shape storage's arrays, or `nil` in point storage.
    private let shapes: GeometryColumn.Shapes?
    /// Point storage: x and y per row (empty in shape storage).
    private let pointX: ColumnBuffer<Double>, pointY: ColumnBuffer<Double>
    /// z and m: per row in point storage, per position in shape storage (empty when no row has
    /// them).
    private let z: ColumnBuffer<Double>, m: ColumnBuffer<Double>

    init(_ column: GeometryColumn) {
        self.column = column
        shapes = column.shapes
        pointX = column.pointX
        pointY = column.pointY
        z = column.z
        m = column.m
    }

    /// A point row's coordinates and layout: from the row's element of the point arrays, or from
    /// its one position in shape storage.
    @inline(__always)
    private func point(row: Int) -> (x: Double, y: Double, z: Double?, m: Double?, layout: CoordinateLayout) {
        let layout: CoordinateLayout
        let index: Int
        let x: Double, y: Double
        if let shapes {
            layout = shapes.layout(row: row)
            index = shapes.positions(row: row).lowerBound
            (x, y) = (shapes.x(index), shapes.y(index))
        } else {
            layout = column.layout(row: row)
            index = row
            (x, y) = (pointX[row], pointY[row])
        }
        return (x, y, layout.hasZ ? z[index] : nil, layout.hasM ? m[index] : nil, layout)
    }

    // MARK: - GeoJSON

    /// Appends row `row`'s geometry as the GeoJSON geometry object `layout` writes for
    /// `geometry.geoJSONValue` at `depth` (coordinate numbers); `false`, writing nothing, for a
    /// row without geometry, an envelope or a collection.
    func writeGeoJSON(row: Int, layout: JSONLayout, depth: Int, into bytes: inout [UInt8]) -> Bool {
        guard let shapes else {
            guard !column.isNull(row: row) else { return false }
            writeGeoJSONPoint(row: row, layout: layout, depth: depth, into: &bytes)
            return true
        }
        guard let kind = shapes.kind(row: row) else { return false }
        let rowLayout = shapes.layout(row: row)
        let parts = shapes.parts(row: row)
        switch kind {
        case .point:
            writeGeoJSONPoint(row: row, layout: layout, depth: depth, into: &bytes)
        case .multipoint:
            openGeoJSON(#""MultiPoint""#, layout: layout, depth: depth, into: &bytes)
            let rings = shapes.rings(row: row)
            if let ring = rings.first {
                writeJSONPositions(shapes, ring: ring, reversed: false, rowLayout, geoJSON: true, layout: layout, depth: depth + 1, into: &bytes)
            } else {
                bytes.append(contentsOf: "[]".utf8)
            }
            layout.close(UInt8(ascii: "}"), depth: depth, empty: false, into: &bytes)
        case .polyline:
            openGeoJSON(parts.count > 1 ? #""MultiLineString""# : #""LineString""#, layout: layout, depth: depth, into: &bytes)
            writeGeoJSONParts(parts, layout: layout, depth: depth, into: &bytes) { part, depth, bytes in
                writeJSONPositions(
                    shapes, ring: shapes.rings(part: part).lowerBound, reversed: false, rowLayout, geoJSON: true, layout: layout,
                    depth: depth,
                    into: &bytes)
            }
            layout.close(UInt8(ascii: "}"), depth: depth, empty: false, into: &bytes)
        case .polygon:
            openGeoJSON(parts.count > 1 ? #""MultiPolygon""# : #""Polygon""#, layout: layout, depth: depth, into: &bytes)
            writeGeoJSONParts(parts, layout: layout, depth: depth, into: &bytes) { part, depth, bytes in
                writeGeoJSONRings(shapes, part: part, rowLayout, layout: layout, depth: depth, into: &bytes)
            }
            layout.close(UInt8(ascii: "}"), depth: depth, empty: false, into: &bytes)
        case .envelope, .collection:
            return false
        }
        return true
    }

    /// The coordinates of a row's parts: an array of them when there are several (the Multi
    /// types), the one part's own when there is one, `[]` for none; `writePart` writes part
    /// `part` at a nesting depth.
    @inline(__always)
    private func writeGeoJSONParts(
        _ parts: Range<Int>, layout: JSONLayout, depth: Int, into bytes: inout [UInt8],
        _ writePart: (_ part: Int, _ depth: Int, _ bytes: inout [UInt8]) -> Void
    ) {
        if parts.count > 1 {
            bytes.append(UInt8(ascii: "["))
            for (i, part) in parts.enumerated() {
                layout.element(first: i == 0, depth: depth + 2, into: &bytes)
                writePart(part, depth + 2, &bytes)
            }
            layout.close(UInt8(ascii: "]"), depth: depth + 1, empty: false, into: &bytes)
        } else if let part = parts.first {
            writePart(part, depth + 1, &bytes)
        } else {
            bytes.append(contentsOf: "[]".utf8)
        }
    }

    /// `{"type":TYPE,"coordinates":` (the caller writes the coordinates and closes the object).
    @inline(__always)
    private func openGeoJSON(_ quotedType: StaticString, layout: JSONLayout, depth: Int, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        layout.member(#""type""#, first: true, depth: depth + 1, into: &bytes)
        quotedType.withUTF8Buffer { bytes.append(contentsOf: $0) }
        layout.member(#""coordinates""#, depth: depth + 1, into: &bytes)
    }

    /// A point row: `{"type":"Point","coordinates":[x,y…]}`, `[]` for the empty point.
    private func writeGeoJSONPoint(row: Int, layout: JSONLayout, depth: Int, into bytes: inout [UInt8]) {
        let p = point(row: row)
        openGeoJSON(#""Point""#, layout: layout, depth: depth, into: &bytes)
        if p.x.isNaN || p.y.isNaN {
            bytes.append(contentsOf: "[]".utf8)
        } else {
            writeJSONPosition(x: p.x, y: p.y, z: geoJSONZ(p.z, p.layout), m: p.m, layout: layout, into: &bytes)
        }
        layout.close(UInt8(ascii: "}"), depth: depth, empty: false, into: &bytes)
    }

    /// One JSON position on one line: `[x,y]`, then z when given, then m when given (`null` for
    /// NaN). GeoJSON gives z (0 when absent) whenever the row has z or m
    /// (``geoJSONZ(_:_:)``); Esri JSON gives the ordinates the row has.
    @inline(__always)
    private func writeJSONPosition(x: Double, y: Double, z: Double?, m: Double?, layout: JSONLayout, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        layout.coordinates.appendJSON(x, to: &bytes)
        separator(layout, into: &bytes)
        layout.coordinates.appendJSON(y, to: &bytes)
        if let z {
            separator(layout, into: &bytes)
            layout.coordinates.appendJSON(z, to: &bytes)
        }
        if let m {
            separator(layout, into: &bytes)
            appendMeasure(m, layout: layout, into: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// GeoJSON's third number: z, or 0 when the row has m but no z; none for 2D rows.
    @inline(__always)
    private func geoJSONZ(_ z: Double?, _ rowLayout: CoordinateLayout) -> Double? {
        rowLayout.hasZ || rowLayout.hasM ? (z ?? 0) : nil
    }

    /// An m value: `null` for NaN ("no measure"), else the number.
    @inline(__always)
    private func appendMeasure(_ m: Double, layout: JSONLayout, into bytes: inout [UInt8]) {
        if m.isNaN {
            bytes.append(contentsOf: "null".utf8)
        } else {
            layout.coordinates.appendJSON(m, to: &bytes)
        }
    }

    /// The separator between the numbers of a position: `,`, or `, ` when pretty (positions
    /// stay on one line).
    @inline(__always)
    private func separator(_ layout: JSONLayout, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: ","))
        if layout.pretty { bytes.append(UInt8(ascii: " ")) }
    }

    /// The positions of ring `ring` as a JSON array whose first line is at `depth`, each
    /// position on a line of its own when pretty; in reverse order when `reversed`. `geoJSON`
    /// picks GeoJSON's z rule (``geoJSONZ(_:_:)``) over Esri JSON's.
    private func writeJSONPositions(
        _ shapes: GeometryColumn.Shapes, ring: Int, reversed: Bool, _ rowLayout: CoordinateLayout, geoJSON: Bool,
        layout: JSONLayout, depth: Int, into bytes: inout [UInt8]
    ) {
        let positions = shapes.positions(ring: ring)
        bytes.append(UInt8(ascii: "["))
        var first = true
        func write(_ p: Int) {
            layout.element(first: first, depth: depth + 1, into: &bytes)
            first = false
            let z = rowLayout.hasZ ? shapes.z[p] : nil
            writeJSONPosition(
                x: shapes.x(p), y: shapes.y(p), z: geoJSON ? geoJSONZ(z, rowLayout) : z, m: rowLayout.hasM ? shapes.m[p] : nil,
                layout: layout, into: &bytes)
        }
        if reversed {
            for p in positions.reversed() { write(p) }
        } else {
            for p in positions { write(p) }
        }
        layout.close(UInt8(ascii: "]"), depth: depth, empty: positions.isEmpty, into: &bytes)
    }

    /// Whether ring `ring` (the outer ring of its part when `isOuter`) must be written reversed
    /// to have the wanted orientation: outer rings counter-clockwise when `counterClockwise`,
    /// holes the other way; a ring without area is kept as stored
    /// (``Polygon/outerRingsCounterClockwise(_:)``'s rule).
    @inline(__always)
    private func reverses(_ shapes: GeometryColumn.Shapes, ring: Int, isOuter: Bool, counterClockwise: Bool) -> Bool {
        let area = shapes.signedDoubleArea(ring: ring)
        return area != 0 && (area > 0) != (isOuter == counterClockwise)
    }

    /// The rings of polygon part `part` as an array of position arrays, RFC 7946 oriented.
    private func writeGeoJSONRings(
        _ shapes: GeometryColumn.Shapes, part: Int, _ rowLayout: CoordinateLayout, layout: JSONLayout, depth: Int,
        into bytes: inout [UInt8]
    ) {
        let rings = shapes.rings(part: part)
        bytes.append(UInt8(ascii: "["))
        for ring in rings {
            layout.element(first: ring == rings.lowerBound, depth: depth + 1, into: &bytes)
            let reversed = reverses(shapes, ring: ring, isOuter: ring == rings.lowerBound, counterClockwise: true)
            writeJSONPositions(shapes, ring: ring, reversed: reversed, rowLayout, geoJSON: true, layout: layout, depth: depth + 1, into: &bytes)
        }
        layout.close(UInt8(ascii: "]"), depth: depth, empty: rings.isEmpty, into: &bytes)
    }

    // MARK: - Esri JSON

    /// Appends row `row`'s geometry as the Esri JSON object `layout` writes for
    /// `geometry.esriJSONValue()` at `depth` (coordinate numbers, no spatial reference);
    /// `false`, writing nothing, for a row without geometry, an envelope or a collection.
    func writeEsriJSON(row: Int, layout: JSONLayout, depth: Int, into bytes: inout [UInt8]) -> Bool {
        guard let shapes else {
            guard !column.isNull(row: row) else { return false }
            writeEsriJSONPoint(row: row, layout: layout, depth: depth, into: &bytes)
            return true
        }
        guard let kind = shapes.kind(row: row) else { return false }
        let rowLayout = shapes.layout(row: row)
        let member: StaticString
        switch kind {
        case .point:
            writeEsriJSONPoint(row: row, layout: layout, depth: depth, into: &bytes)
            return true
        case .multipoint: member = #""points""#
        case .polyline: member = #""paths""#
        case .polygon: member = #""rings""#
        case .envelope, .collection: return false
        }
        bytes.append(UInt8(ascii: "{"))
        var first = true
        if rowLayout.hasZ {
            layout.member(#""hasZ""#, first: first, depth: depth + 1, into: &bytes)
            bytes.append(contentsOf: "true".utf8)
            first = false
        }
        if rowLayout.hasM {
            layout.member(#""hasM""#, first: first, depth: depth + 1, into: &bytes)
            bytes.append(contentsOf: "true".utf8)
            first = false
        }
        layout.member(member, first: first, depth: depth + 1, into: &bytes)
        let rings = shapes.rings(row: row)
        if kind == .multipoint {
            // One array of points (the row's one ring, when it has points).
            if let ring = rings.first {
                writeJSONPositions(shapes, ring: ring, reversed: false, rowLayout, geoJSON: false, layout: layout, depth: depth + 1, into: &bytes)
            } else {
                bytes.append(contentsOf: "[]".utf8)
            }
        } else {
            // Every path, or every ring of every part (outer rings clockwise), in one array.
            bytes.append(UInt8(ascii: "["))
            for part in shapes.parts(row: row) {
                let partRings = shapes.rings(part: part)
                for ring in partRings {
                    layout.element(first: ring == rings.lowerBound, depth: depth + 2, into: &bytes)
                    let reversed =
                        kind == .polygon
                        && reverses(shapes, ring: ring, isOuter: ring == partRings.lowerBound, counterClockwise: false)
                    writeJSONPositions(
                        shapes, ring: ring, reversed: reversed, rowLayout, geoJSON: false, layout: layout, depth: depth + 2,
                        into: &bytes)
                }
            }
            layout.close(UInt8(ascii: "]"), depth: depth + 1, empty: rings.isEmpty, into: &bytes)
        }
        layout.close(UInt8(ascii: "}"), depth: depth, empty: false, into: &bytes)
        return true
    }

    /// A point row: `{"x":…,"y":…}` with `"z"` and `"m"` (`null` for NaN) when it has them;
    /// `{"x":null,"y":null}` for the empty point.
    private func writeEsriJSONPoint(row: Int, layout: JSONLayout, depth: Int, into bytes: inout [UInt8]) {
        let p = point(row: row)
        bytes.append(UInt8(ascii: "{"))
        layout.member(#""x""#, first: true, depth: depth + 1, into: &bytes)
        if p.x.isNaN || p.y.isNaN {
            bytes.append(contentsOf: "null".utf8)
            layout.member(#""y""#, depth: depth + 1, into: &bytes)
            bytes.append(contentsOf: "null".utf8)
        } else {
            layout.coordinates.appendJSON(p.x, to: &bytes)
            layout.member(#""y""#, depth: depth + 1, into: &bytes)
            layout.coordinates.appendJSON(p.y, to: &bytes)
            if let z = p.z {
                layout.member(#""z""#, depth: depth + 1, into: &bytes)
                layout.coordinates.appendJSON(z, to: &bytes)
            }
            if let m = p.m {
                layout.member(#""m""#, depth: depth + 1, into: &bytes)
                appendMeasure(m, layout: layout, into: &bytes)
            }
        }
        layout.close(UInt8(ascii: "}"), depth: depth, empty: false, into: &bytes)
    }

    // MARK: - WKT

    /// Appends row `row`'s geometry as ``Geometry/wkt`` writes it, numbers in `format` (NaN m
    /// values as `NaN`); `false`, writing nothing, for a row without geometry, an envelope or a
    /// collection.
    func writeWKT(row: Int, format: CoordinateFormat, into bytes: inout [UInt8]) -> Bool {
        guard let shapes else {
            guard !column.isNull(row: row) else { return false }
            writeWKTPoint(row: row, format: format, into: &bytes)
            return true
        }
        guard let kind = shapes.kind(row: row) else { return false }
        let rowLayout = shapes.layout(row: row)
        let parts = shapes.parts(row: row)
        switch kind {
        case .point:
            writeWKTPoint(row: row, format: format, into: &bytes)
        case .multipoint:
            bytes.append(contentsOf: "MULTIPOINT".utf8)
            writeWKTTag(rowLayout, into: &bytes)
            guard let ring = shapes.rings(row: row).first else {
                bytes.append(contentsOf: "EMPTY".utf8)
                return true
            }
            bytes.append(UInt8(ascii: "("))
            let positions = shapes.positions(ring: ring)
            for p in positions {
                if p > positions.lowerBound { bytes.append(contentsOf: ", ".utf8) }
                bytes.append(UInt8(ascii: "("))
                writeWKTPosition(shapes, p, rowLayout, format: format, into: &bytes)
                bytes.append(UInt8(ascii: ")"))
            }
            bytes.append(UInt8(ascii: ")"))
        case .polyline:
            writeWKTParts(parts, single: "LINESTRING", multi: "MULTILINESTRING", rowLayout, into: &bytes) { part, bytes in
                writeWKTPositionList(shapes, ring: shapes.rings(part: part).lowerBound, rowLayout, format: format, into: &bytes)
            }
        case .polygon:
            writeWKTParts(parts, single: "POLYGON", multi: "MULTIPOLYGON", rowLayout, into: &bytes) { part, bytes in
                bytes.append(UInt8(ascii: "("))
                let rings = shapes.rings(part: part)
                for ring in rings {
                    if ring > rings.lowerBound { bytes.append(contentsOf: ", ".utf8) }
                    writeWKTPositionList(shapes, ring: ring, rowLayout, format: format, into: &bytes)
                }
                bytes.append(UInt8(ascii: ")"))
            }
        case .envelope, .collection:
            return false
        }
        return true
    }

    /// A polyline or polygon row: its tagged type name (multi for several parts), then
    /// `EMPTY`, the one part, or `(part, part, …)`; `writePart` writes one part.
    private func writeWKTParts(
        _ parts: Range<Int>, single: StaticString, multi: StaticString, _ rowLayout: CoordinateLayout, into bytes: inout [UInt8],
        _ writePart: (_ part: Int, _ bytes: inout [UInt8]) -> Void
    ) {
        let isMulti = parts.count > 1
        (isMulti ? multi : single).withUTF8Buffer { bytes.append(contentsOf: $0) }
        writeWKTTag(rowLayout, into: &bytes)
        guard !parts.isEmpty else {
            bytes.append(contentsOf: "EMPTY".utf8)
            return
        }
        if isMulti { bytes.append(UInt8(ascii: "(")) }
        for part in parts {
            if part > parts.lowerBound { bytes.append(contentsOf: ", ".utf8) }
            writePart(part, &bytes)
        }
        if isMulti { bytes.append(UInt8(ascii: ")")) }
    }

    /// `POINT (x y…)`, or `POINT EMPTY` (with the layout's tag either way).
    private func writeWKTPoint(row: Int, format: CoordinateFormat, into bytes: inout [UInt8]) {
        let p = point(row: row)
        bytes.append(contentsOf: "POINT".utf8)
        writeWKTTag(p.layout, into: &bytes)
        if p.x.isNaN || p.y.isNaN {
            bytes.append(contentsOf: "EMPTY".utf8)
            return
        }
        bytes.append(UInt8(ascii: "("))
        writeWKTNumbers(x: p.x, y: p.y, z: p.z, m: p.m, format: format, into: &bytes)
        bytes.append(UInt8(ascii: ")"))
    }

    /// `" Z "`, `" M "`, `" ZM "` or `" "`.
    private func writeWKTTag(_ layout: CoordinateLayout, into bytes: inout [UInt8]) {
        switch (layout.hasZ, layout.hasM) {
        case (false, false): bytes.append(UInt8(ascii: " "))
        case (true, false): bytes.append(contentsOf: " Z ".utf8)
        case (false, true): bytes.append(contentsOf: " M ".utf8)
        case (true, true): bytes.append(contentsOf: " ZM ".utf8)
        }
    }

    /// A number of a WKT position: `NaN` (only an m can be), else in `format`.
    @inline(__always)
    private func writeWKTNumber(_ value: Double, format: CoordinateFormat, into bytes: inout [UInt8]) {
        if value.isNaN {
            bytes.append(contentsOf: "NaN".utf8)
            return
        }
        switch format {
        case .fixed(let digits) where value.isFinite:
            FixedPointText.append(value, fractionDigits: digits, to: &bytes)
        default:
            CoordinateFormat.appendShortest(value, to: &bytes)
        }
    }

    /// Position `p`'s numbers separated by spaces: x, y, then z and m as the row has them.
    @inline(__always)
    private func writeWKTPosition(
        _ shapes: GeometryColumn.Shapes, _ p: Int, _ rowLayout: CoordinateLayout, format: CoordinateFormat,
        into bytes: inout [UInt8]
    ) {
        writeWKTNumbers(
            x: shapes.x(p), y: shapes.y(p), z: rowLayout.hasZ ? shapes.z[p] : nil, m: rowLayout.hasM ? shapes.m[p] : nil,
            format: format, into: &bytes)
    }

    /// `x y`, then z and m when given, separated by spaces.
    @inline(__always)
    private func writeWKTNumbers(x: Double, y: Double, z: Double?, m: Double?, format: CoordinateFormat, into bytes: inout [UInt8]) {
        writeWKTNumber(x, format: format, into: &bytes)
        bytes.append(UInt8(ascii: " "))
        writeWKTNumber(y, format: format, into: &bytes)
        if let z {
            bytes.append(UInt8(ascii: " "))
            writeWKTNumber(z, format: format, into: &bytes)
        }
        if let m {
            bytes.append(UInt8(ascii: " "))
            writeWKTNumber(m, format: format, into: &bytes)
        }
    }

    /// `(x y, x y, …)` of ring `ring`, as stored.
    private func writeWKTPositionList(
        _ shapes: GeometryColumn.Shapes, ring: Int, _ rowLayout: CoordinateLayout, format: CoordinateFormat,
        into bytes: inout [UInt8]
    ) {
        let positions = shapes.positions(ring: ring)
        bytes.append(UInt8(ascii: "("))
        for p in positions {
            if p > positions.lowerBound { bytes.append(contentsOf: ", ".utf8) }
            writeWKTPosition(shapes, p, rowLayout, format: format, into: &bytes)
        }
        bytes.append(UInt8(ascii: ")"))
    }
}
