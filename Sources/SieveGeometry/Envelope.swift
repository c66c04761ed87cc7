/// An axis-aligned rectangle: `xmin…xmax × ymin…ymax`, both ends inclusive.
///
/// ``empty`` (no extent at all) has infinite bounds pointing inwards, so that expanding it by a
/// point gives that point's zero-size envelope. A point's envelope has `xmin == xmax` and
/// `ymin == ymax`; it is not empty.
public struct Envelope: Hashable, Sendable, CustomStringConvertible {
    /// The smallest x.
    public var xmin: Double
    /// The smallest y.
    public var ymin: Double
    /// The largest x.
    public var xmax: Double
    /// The largest y.
    public var ymax: Double

    /// Creates an envelope. `xmin <= xmax` and `ymin <= ymax` must hold; use
    /// ``init(validating:_:_:_:)`` for bounds that come from user input.
    public init(xmin: Double, ymin: Double, xmax: Double, ymax: Double) {
        precondition(xmin <= xmax && ymin <= ymax, "envelope bounds are inverted or NaN")
        self.xmin = xmin
        self.ymin = ymin
        self.xmax = xmax
        self.ymax = ymax
    }

    /// Creates an envelope from untrusted bounds, throwing when they are not finite or inverted.
    public init(validating xmin: Double, _ ymin: Double, _ xmax: Double, _ ymax: Double) throws(GeometryError) {
        guard xmin.isFinite, ymin.isFinite, xmax.isFinite, ymax.isFinite else {
            throw GeometryError(.invalidCoordinates, "envelope bounds must be finite numbers")
        }
        guard xmin <= xmax else {
            throw GeometryError(.invalidCoordinates, "envelope xmin \(xmin) is greater than xmax \(xmax)")
        }
        guard ymin <= ymax else {
            throw GeometryError(.invalidCoordinates, "envelope ymin \(ymin) is greater than ymax \(ymax)")
        }
        self.init(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
    }

    private init(uncheckedXmin xmin: Double, ymin: Double, xmax: Double, ymax: Double) {
        self.xmin = xmin
        self.ymin = ymin
        self.xmax = xmax
        self.ymax = ymax
    }

    /// The envelope of nothing.
    public static let empty = Envelope(uncheckedXmin: .infinity, ymin: .infinity, xmax: -.infinity, ymax: -.infinity)

    /// Whether this envelope covers no point at all.
    @inlinable public var isEmpty: Bool { !(xmin <= xmax && ymin <= ymax) }

    /// `xmax - xmin` (0 for the empty envelope).
    public var width: Double { isEmpty ? 0 : xmax - xmin }
    /// `ymax - ymin` (0 for the empty envelope).
    public var height: Double { isEmpty ? 0 : ymax - ymin }
    /// The centre point (``Point/empty`` for the empty envelope).
    public var center: Point {
        isEmpty ? .empty : Point(x: xmin + (xmax - xmin) / 2, y: ymin + (ymax - ymin) / 2)
    }

    /// Grows the envelope to include the position `(x, y)`.
    @inlinable public mutating func expand(x: Double, y: Double) {
        if x < xmin { xmin = x }
        if x > xmax { xmax = x }
        if y < ymin { ymin = y }
        if y > ymax { ymax = y }
    }

    /// Grows the envelope to include another one.
    public mutating func expand(toInclude other: Envelope) {
        guard !other.isEmpty else { return }
        expand(x: other.xmin, y: other.ymin)
        expand(x: other.xmax, y: other.ymax)
    }

    /// The smallest envelope holding both.
    public func union(_ other: Envelope) -> Envelope {
        var result = self
        result.expand(toInclude: other)
        return result
    }

    /// Whether the two rectangles share at least one point (touching edges count).
    /// Always `false` when either is empty.
    @inlinable public func intersects(_ other: Envelope) -> Bool {
        other.xmin <= xmax && other.xmax >= xmin && other.ymin <= ymax && other.ymax >= ymin
            && !isEmpty && !other.isEmpty
    }

    /// Whether `other` lies inside this rectangle (its boundary included).
    /// `false` when either is empty.
    @inlinable public func contains(_ other: Envelope) -> Bool {
        !isEmpty && !other.isEmpty
            && other.xmin >= xmin && other.xmax <= xmax && other.ymin >= ymin && other.ymax <= ymax
    }

    /// Whether the position lies inside this rectangle or on its boundary.
    @inlinable public func contains(x: Double, y: Double) -> Bool {
        x >= xmin && x <= xmax && y >= ymin && y <= ymax
    }

    /// The rectangle as its closed outer ring, counter-clockwise from the lower-left corner.
    public var ring: [Point] {
        [
            Point(x: xmin, y: ymin), Point(x: xmax, y: ymin), Point(x: xmax, y: ymax),
            Point(x: xmin, y: ymax), Point(x: xmin, y: ymin),
        ]
    }

    public var description: String {
        isEmpty ? "Envelope(empty)" : "Envelope(\(xmin), \(ymin), \(xmax), \(ymax))"
    }
}
