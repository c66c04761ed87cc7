/// An unordered set of points, stored flat.
public struct Multipoint: Hashable, Sendable {
    /// The points' coordinates.
    public let coordinates: CoordinateBuffer
    /// The bounding box of all points, computed once.
    public let envelope: Envelope

    /// Creates a multipoint from a coordinate buffer.
    /// - Throws: ``GeometryError/Kind/invalidCoordinates`` when a coordinate is NaN or infinite.
    public init(coordinates: CoordinateBuffer) throws(GeometryError) {
        guard coordinates.isFinite else {
            throw GeometryError(.invalidCoordinates, "multipoint coordinates must be finite numbers")
        }
        self.coordinates = coordinates
        self.envelope = coordinates.envelope
    }

    /// Creates a multipoint from points, in the layout of the first point (`.xy` when empty).
    /// - Throws: ``GeometryError/Kind/invalidCoordinates`` when a coordinate is NaN or infinite.
    public init(points: [Point], layout: CoordinateLayout? = nil) throws(GeometryError) {
        try self.init(coordinates: CoordinateBuffer(points: points, layout: layout ?? points.first?.layout ?? .xy))
    }

    /// A multipoint from positions already checked (by a reader, or taken from a multipoint).
    package init(trusted coordinates: CoordinateBuffer, envelope: Envelope) {
        self.coordinates = coordinates
        self.envelope = envelope
    }

    /// The points.
    public var points: [Point] { Array(coordinates) }
    /// Whether there are no points.
    public var isEmpty: Bool { coordinates.isEmpty }
}
