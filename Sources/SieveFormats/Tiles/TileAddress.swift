import SieveGeometry

/// A tile of the Web Mercator tile grid (OGC's `WebMercatorQuad`, the grid of web maps): zoom
/// level `zoom`, column `x` from the west, row `y` from the north.
///
/// Zoom 0 is one tile covering the square world from −20037508.34 to 20037508.34 metres
/// (longitude ±180°, latitude ±85.0511°); each zoom level splits every tile in four.
///
/// ```swift
/// let tile = try TileAddress(zoom: 1, x: 1, y: 0)  // the north-east quarter
/// tile.mercatorBounds  // 0, 0, 20037508.34…, 20037508.34…
/// ```
public struct TileAddress: Hashable, Sendable, CustomStringConvertible {
    /// The zoom level, 0 to ``maximumZoom``.
    public let zoom: Int
    /// The column, 0 (west) to 2^zoom − 1.
    public let x: Int
    /// The row, 0 (north) to 2^zoom − 1.
    public let y: Int

    /// The deepest zoom level: 24 (tiles of about 2.4 m).
    public static let maximumZoom = 24

    /// The tile at `zoom`, `x`, `y`.
    /// - Throws: ``VectorTileError`` when the zoom is outside 0…``maximumZoom`` or a column or
    ///   row outside the level.
    public init(zoom: Int, x: Int, y: Int) throws(VectorTileError) {
        guard zoom >= 0, zoom <= Self.maximumZoom else {
            throw VectorTileError("zoom \(zoom) is outside 0…\(Self.maximumZoom)")
        }
        let size = 1 << zoom
        guard x >= 0, x < size, y >= 0, y < size else {
            throw VectorTileError("tile \(zoom)/\(x)/\(y) does not exist: at zoom \(zoom) columns and rows run 0…\(size - 1)")
        }
        self.zoom = zoom
        self.x = x
        self.y = y
    }

    /// `zoom/x/y`.
    public var description: String { "\(zoom)/\(x)/\(y)" }

    /// The width of the tile in Web Mercator metres.
    public var mercatorSize: Double { 2 * WebMercator.halfWorld / Double(1 << zoom) }

    /// The tile's square in Web Mercator metres (EPSG:3857).
    public var mercatorBounds: Envelope {
        let size = mercatorSize
        let xmin = -WebMercator.halfWorld + Double(x) * size
        let ymax = WebMercator.halfWorld - Double(y) * size
        return Envelope(xmin: xmin, ymin: ymax - size, xmax: xmin + size, ymax: ymax)
    }

    /// The tile's box in longitude and latitude (EPSG:4326); a tile of the first or last row
    /// reaches the pole, as Web Mercator draws what lies beyond 85.0511° on its edge.
    public var geographicBounds: Envelope {
        let bounds = mercatorBounds
        let low = WebMercator.inverse(x: bounds.xmin, y: bounds.ymin)
        let high = WebMercator.inverse(x: bounds.xmax, y: bounds.ymax)
        let last = (1 << zoom) - 1
        return Envelope(
            xmin: low.longitude, ymin: y == last ? -90 : low.latitude, xmax: high.longitude, ymax: y == 0 ? 90 : high.latitude)
    }

    /// The columns and rows of the tiles at `zoom` that meet `bounds` (Web Mercator metres),
    /// clamped to the level; `nil` when `bounds` is empty.
    public static func range(covering bounds: Envelope, zoom: Int) -> (x: ClosedRange<Int>, y: ClosedRange<Int>)? {
        guard !bounds.isEmpty, zoom >= 0, zoom <= maximumZoom else { return nil }
        let count = 1 << zoom
        let size = 2 * WebMercator.halfWorld / Double(count)
        func column(_ value: Double) -> Int { Swift.min(Swift.max(Int(((value + WebMercator.halfWorld) / size).rounded(.down)), 0), count - 1) }
        func row(_ value: Double) -> Int { Swift.min(Swift.max(Int(((WebMercator.halfWorld - value) / size).rounded(.down)), 0), count - 1) }
        return (column(bounds.xmin)...column(bounds.xmax), row(bounds.ymax)...row(bounds.ymin))
    }
}

/// A tile that does not exist or a vector tile option out of range.
public struct VectorTileError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
