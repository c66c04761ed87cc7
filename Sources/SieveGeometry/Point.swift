/// A single position: x and y, with an optional z (height) and m (measure).
///
/// In geographic coordinates x is the longitude and y the latitude, in degrees.
/// The empty point (``empty``, `POINT EMPTY` in WKT) has NaN for x and y; every other point has
/// finite coordinates when it comes from a codec, which rejects NaN and infinities.
public struct Point: Hashable, Sendable, CustomStringConvertible {
    /// The x coordinate (longitude in a geographic spatial reference).
    public var x: Double
    /// The y coordinate (latitude in a geographic spatial reference).
    public var y: Double
    /// The z coordinate, when the point has one.
    public var z: Double?
    /// The m (measure) value, when the point has one.
    public var m: Double?

    /// Creates a point.
    public init(x: Double, y: Double, z: Double? = nil, m: Double? = nil) {
        self.x = x
        self.y = y
        self.z = z
        self.m = m
    }

    /// The empty point.
    public static let empty = Point(x: .nan, y: .nan)

    /// Whether this is the empty point (x or y is NaN).
    public var isEmpty: Bool { x.isNaN || y.isNaN }

    /// Whether every coordinate present is finite.
    public var isFinite: Bool {
        x.isFinite && y.isFinite && (z?.isFinite ?? true) && (m?.isFinite ?? true)
    }

    /// The point as a zero-size envelope (``Envelope/empty`` for the empty point).
    public var envelope: Envelope {
        isEmpty ? .empty : Envelope(xmin: x, ymin: y, xmax: x, ymax: y)
    }

    /// The coordinate layout this point has (which of z and m are present).
    public var layout: CoordinateLayout { CoordinateLayout(hasZ: z != nil, hasM: m != nil) }

    public static func == (lhs: Point, rhs: Point) -> Bool {
        if lhs.isEmpty || rhs.isEmpty { return lhs.isEmpty && rhs.isEmpty }
        return lhs.x == rhs.x && lhs.y == rhs.y && lhs.z == rhs.z && lhs.m == rhs.m
    }

    public func hash(into hasher: inout Hasher) {
        if isEmpty {
            hasher.combine(0 as UInt8)
            return
        }
        hasher.combine(x)
        hasher.combine(y)
        hasher.combine(z)
        hasher.combine(m)
    }

    public var description: String {
        if isEmpty { return "POINT EMPTY" }
        var parts = ["\(x)", "\(y)"]
        if let z { parts.append("\(z)") }
        if let m { parts.append("\(m)") }
        return "(" + parts.joined(separator: " ") + ")"
    }
}
