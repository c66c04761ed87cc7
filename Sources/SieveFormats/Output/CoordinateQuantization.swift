import SieveFeatures
import SieveGeometry
import SieveJSON

/// Integer coordinates on a grid, as the ArcGIS REST API returns them for a query's
/// `quantizationParameters` and in every `f=pbf` answer: each x and y becomes the number of
/// grid cells (of side ``tolerance``) between it and an origin at a corner of ``extent``.
///
/// ```swift
/// let grid = CoordinateQuantization(
///     mode: .view, originPosition: .upperLeft, tolerance: 0.01,
///     extent: Envelope(xmin: 0, ymin: 0, xmax: 100, ymax: 50))
/// grid.x(12.345)  // 1235: (12.345 − 0) / 0.01, rounded
/// grid.y(40)      // 1000: (50 − 40) / 0.01, counted down from the top
/// ```
///
/// A client gets a position back as `x = translate.x + qx × tolerance` and, from the upper
/// left, `y = translate.y − qy × tolerance` (from the lower left, `+`), with `translate` the
/// ``origin``. The rules:
///
/// - **Rounding**: a quotient is rounded to the nearest integer, halves away from zero.
///   Quotients beyond ±2⁵³ (a coordinate more than 2⁵³ cells from the origin) are clamped
///   there, where a double still holds every integer and a client reads them back exactly.
/// - **Parts**: a point is one position; a multipoint one part of all its points; a polyline
///   one part per path; a polygon one part per ring, outer rings clockwise and holes
///   counter-clockwise as Esri JSON orients them. A geometry collection is taken in its Esri
///   form (the multi-part geometry of its dimension) and an envelope as its polygon.
/// - **View mode** drops a position that falls in the same cell as the one kept before it in
///   its part (what a screen cannot tell apart); **edit mode** keeps every position. A part
///   never loses its first position, and a polygon ring whose positions all fall in fewer
///   than three cells keeps its first and last positions.
/// - **Dimensions**: x and y only; z and m are not quantized and not returned.
public struct CoordinateQuantization: Sendable, Hashable {
    /// Whether positions that fall in one cell are merged (view) or kept (edit).
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Drawing: consecutive positions in one cell are written once.
        case view
        /// Editing: every position is written.
        case edit
    }

    /// The corner of ``extent`` the grid counts from.
    public enum OriginPosition: String, Sendable, Hashable, CaseIterable {
        /// From the upper left (`xmin`, `ymax`): y counts down, as screen rows do.
        case upperLeft
        /// From the lower left (`xmin`, `ymin`): y counts up.
        case lowerLeft
    }

    /// View or edit.
    public var mode: Mode
    /// The grid's origin corner.
    public var originPosition: OriginPosition
    /// The side of a grid cell, in the units of the output spatial reference (for a map, the
    /// size of one pixel); greater than zero.
    public var tolerance: Double
    /// The extent whose corner is the origin, in the output spatial reference.
    public var extent: Envelope

    /// A grid of cells `tolerance` wide counted from a corner of `extent`.
    public init(mode: Mode = .view, originPosition: OriginPosition = .upperLeft, tolerance: Double, extent: Envelope) {
        self.mode = mode
        self.originPosition = originPosition
        self.tolerance = tolerance
        self.extent = extent
    }

    /// The grid a `f=pbf` answer uses when the request gave none: edit mode (every position
    /// kept), from the upper left of `extent`, with cells 2⁻⁴⁰ of its larger side (a
    /// 360-degree world gets cells of 3.3 × 10⁻¹⁰ degrees, well under a millimetre), or 10⁻⁹
    /// for an empty or single-point extent.
    public static func fine(for extent: Envelope) -> CoordinateQuantization {
        let usable = !extent.isEmpty && extent.xmin.isFinite && extent.ymin.isFinite && extent.xmax.isFinite && extent.ymax.isFinite
        let side = usable ? Swift.max(extent.width, extent.height) : 0
        let tolerance = side > 0 ? side / 1_099_511_627_776 : 1e-9
        return CoordinateQuantization(
            mode: .edit, originPosition: .upperLeft, tolerance: tolerance,
            extent: usable ? extent : Envelope(xmin: 0, ymin: 0, xmax: 0, ymax: 0))
    }

    /// The origin: the `translate` of the Esri JSON and protocol buffer `transform`.
    public var origin: (x: Double, y: Double) {
        (extent.xmin, originPosition == .upperLeft ? extent.ymax : extent.ymin)
    }

    /// The largest quotient kept: 2⁵³.
    static let limit = 9_007_199_254_740_992.0

    /// `x` in grid cells from the origin.
    @inline(__always)
    public func x(_ x: Double) -> Int64 { Self.cells((x - extent.xmin) / tolerance) }

    /// `y` in grid cells from the origin (downwards from the upper left).
    @inline(__always)
    public func y(_ y: Double) -> Int64 {
        Self.cells(originPosition == .upperLeft ? (extent.ymax - y) / tolerance : (y - extent.ymin) / tolerance)
    }

    /// A quotient rounded half away from zero and clamped to ±2⁵³ (NaN: 0).
    @inline(__always)
    static func cells(_ quotient: Double) -> Int64 {
        guard !quotient.isNaN else { return 0 }
        return Int64(Swift.min(Swift.max(quotient.rounded(.toNearestOrAwayFromZero), -limit), limit))
    }

    /// The Esri JSON `transform` member's value:
    /// `{"originPosition":"upperLeft","scale":[t,t,0,0],"translate":[x,y,0,0]}`.
    package var transformJSON: JSONValue {
        let (x, y) = origin
        var object = JSONObject()
        object.append("originPosition", .string(originPosition.rawValue))
        object.append("scale", .array([.double(tolerance), .double(tolerance), .integer(0), .integer(0)]))
        object.append("translate", .array([.double(x), .double(y), .integer(0), .integer(0)]))
        return .object(object)
    }

    /// A geometry on the grid: its kind in Esri terms, the number of positions of each part,
    /// and the positions' absolute cell numbers (x, y, x, y, …).
    public struct Parts: Sendable, Hashable {
        /// The Esri geometry type the parts make.
        public var type: EsriGeometryType
        /// How many positions each part holds, in order.
        public var lengths: [Int]
        /// x and y of every position, part after part, in cells from the origin.
        public var cells: [Int64]
    }

    /// The Esri geometry types a quantized geometry takes.
    public enum EsriGeometryType: Sendable, Hashable {
        case point, multipoint, polyline, polygon
    }

    /// `geometry` on the grid; `nil` for an empty geometry (or a collection with no Esri form),
    /// which has no position to write.
    public func parts(of geometry: Geometry) -> Parts? {
        guard let form = geometry.esriJSONForm, !form.isEmpty else { return nil }
        var parts = Parts(type: .point, lengths: [], cells: [])
        switch form {
        case .point(let point):
            parts.cells = [x(point.x), y(point.y)]
            parts.lengths = [1]
        case .multipoint(let multipoint):
            parts.type = .multipoint
            append(multipoint.coordinates, 0..<multipoint.coordinates.count, ring: false, to: &parts)
        case .polyline(let polyline):
            parts.type = .polyline
            for p in 0..<(polyline.pathOffsets.count - 1) {
                append(polyline.coordinates, polyline.pathOffsets[p]..<polyline.pathOffsets[p + 1], ring: false, to: &parts)
            }
        case .polygon(let polygon):
            parts.type = .polygon
            let oriented = polygon.outerRingsCounterClockwise(false)
            for r in 0..<oriented.ringCount {
                append(oriented.coordinates, oriented.ringRange(r), ring: true, to: &parts)
            }
        case .envelope(let envelope):
            // As its polygon, oriented as Esri JSON orients an outer ring.
            guard let polygon = try? Polygon(exterior: envelope.ring) else { return nil }
            return self.parts(of: .polygon(polygon))
        case .collection:
            return nil
        }
        return parts.lengths.isEmpty ? nil : parts
    }

    /// Appends the positions `range` of `coordinates` as one part (nothing for an empty
    /// range), dropping in view mode each position in the cell of the one kept before it; a
    /// ring left with fewer than three cells keeps its first and last positions.
    private func append(_ coordinates: CoordinateBuffer, _ range: Range<Int>, ring: Bool, to parts: inout Parts) {
        guard !range.isEmpty else { return }
        let start = parts.cells.count
        var last: (Int64, Int64)?
        for i in range {
            let cell = (x(coordinates.x(at: i)), y(coordinates.y(at: i)))
            if mode == .view, let last, last == cell { continue }
            parts.cells.append(cell.0)
            parts.cells.append(cell.1)
            last = cell
        }
        var count = (parts.cells.count - start) / 2
        if mode == .view, ring, count < 3, range.count >= 2 {
            // Fewer than three cells: the ring has no area on the grid; keep its ends, so that a
            // client still sees a closed ring.
            parts.cells.removeSubrange(start...)
            for i in [range.lowerBound, range.upperBound - 1] {
                parts.cells.append(x(coordinates.x(at: i)))
                parts.cells.append(y(coordinates.y(at: i)))
            }
            count = 2
        }
        parts.lengths.append(count)
    }
}

extension CoordinateQuantization.Parts {
    /// The Esri JSON geometry of the parts at `depth`: `{"x":…,"y":…}` for a point,
    /// `{"points":…}`, `{"paths":…}` or `{"rings":…}` otherwise, each part's first position in
    /// cells and each following one as its difference from the one before.
    func writeEsriJSON(layout: JSONLayout, depth: Int, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        if type == .point {
            layout.member(#""x""#, first: true, depth: depth + 1, into: &bytes)
            JSONOutput.appendInteger(cells[0], to: &bytes)
            layout.member(#""y""#, depth: depth + 1, into: &bytes)
            JSONOutput.appendInteger(cells[1], to: &bytes)
            layout.close(UInt8(ascii: "}"), depth: depth, empty: false, into: &bytes)
            return
        }
        switch type {
        case .multipoint: layout.member(#""points""#, first: true, depth: depth + 1, into: &bytes)
        case .polyline: layout.member(#""paths""#, first: true, depth: depth + 1, into: &bytes)
        default: layout.member(#""rings""#, first: true, depth: depth + 1, into: &bytes)
        }
        // A multipoint's points are one array of positions; paths and rings an array of them.
        let nested = type != .multipoint
        if nested { bytes.append(UInt8(ascii: "[")) }
        var position = 0
        for (p, length) in lengths.enumerated() {
            let partDepth = nested ? depth + 2 : depth + 1
            if nested { layout.element(first: p == 0, depth: partDepth, into: &bytes) }
            bytes.append(UInt8(ascii: "["))
            var previous: (Int64, Int64) = (0, 0)
            for i in 0..<length {
                let cell = (cells[2 * (position + i)], cells[2 * (position + i) + 1])
                layout.element(first: i == 0, depth: partDepth + 1, into: &bytes)
                bytes.append(UInt8(ascii: "["))
                JSONOutput.appendInteger(cell.0 &- previous.0, to: &bytes)
                bytes.append(UInt8(ascii: ","))
                if layout.pretty { bytes.append(UInt8(ascii: " ")) }
                JSONOutput.appendInteger(cell.1 &- previous.1, to: &bytes)
                bytes.append(UInt8(ascii: "]"))
                previous = cell
            }
            layout.close(UInt8(ascii: "]"), depth: partDepth, empty: length == 0, into: &bytes)
            position += length
        }
        if nested { layout.close(UInt8(ascii: "]"), depth: depth + 1, empty: lengths.isEmpty, into: &bytes) }
        layout.close(UInt8(ascii: "}"), depth: depth, empty: false, into: &bytes)
    }
}
