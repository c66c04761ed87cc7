/// One or more paths (line strings), stored flat: all vertices in one buffer, and
/// ``pathOffsets`` marking where each path starts.
///
/// GeoJSON `LineString` and `MultiLineString`, WKT `LINESTRING` and `MULTILINESTRING` and Esri
/// JSON `paths` all read into a `Polyline`; one path writes back as a `LineString`, several as a
/// `MultiLineString`.
public struct Polyline: Hashable, Sendable {
    /// All vertices of all paths.
    public let coordinates: CoordinateBuffer
    /// `pathOffsets[i] ..< pathOffsets[i + 1]` are the vertices of path `i`; the array has one
    /// more element than there are paths, and starts with 0.
    public let pathOffsets: [Int]
    /// The bounding box of all vertices, computed once.
    public let envelope: Envelope

    /// Creates a polyline from flat storage.
    /// - Throws: ``GeometryError/Kind/invalidCoordinates`` when a coordinate is not finite or a
    ///   path has fewer than two vertices.
    public init(coordinates: CoordinateBuffer, pathOffsets: [Int]) throws(GeometryError) {
        precondition(pathOffsets.first == 0 && pathOffsets.last == coordinates.count, "path offsets do not span the buffer")
        guard coordinates.isFinite else {
            throw GeometryError(.invalidCoordinates, "polyline coordinates must be finite numbers")
        }
        for i in 0..<(pathOffsets.count - 1) where pathOffsets[i + 1] - pathOffsets[i] < 2 {
            var error = GeometryError(
                .invalidCoordinates,
                "path \(i) has \(pathOffsets[i + 1] - pathOffsets[i]) point(s); a path needs at least 2")
            error.componentIndex = i
            throw error
        }
        self.coordinates = coordinates
        self.pathOffsets = pathOffsets
        self.envelope = coordinates.envelope
    }

    /// Creates a polyline from paths of points, in the layout of the first point.
    public init(paths: [[Point]], layout: CoordinateLayout? = nil) throws(GeometryError) {
        let layout = layout ?? paths.first?.first?.layout ?? .xy
        var buffer = CoordinateBuffer(layout: layout)
        var offsets = [0]
        for path in paths {
            for point in path { buffer.append(point) }
            offsets.append(buffer.count)
        }
        try self.init(coordinates: buffer, pathOffsets: offsets)
    }

    /// A polyline from paths already checked (by a reader, or taken from a valid polyline).
    package init(trusted coordinates: CoordinateBuffer, pathOffsets: [Int], envelope: Envelope) {
        self.coordinates = coordinates
        self.pathOffsets = pathOffsets
        self.envelope = envelope
    }

    /// The empty polyline (no paths).
    public static let empty = Polyline(uncheckedEmpty: ())

    private init(uncheckedEmpty: Void) {
        coordinates = CoordinateBuffer()
        pathOffsets = [0]
        envelope = .empty
    }

    /// Number of paths.
    public var pathCount: Int { pathOffsets.count - 1 }
    /// The vertex index range of path `i`.
    public func pathRange(_ i: Int) -> Range<Int> { pathOffsets[i]..<pathOffsets[i + 1] }
    /// The paths as arrays of points.
    public var paths: [[Point]] { (0..<pathCount).map { i in pathRange(i).map { coordinates[$0] } } }
    /// Whether there are no paths.
    public var isEmpty: Bool { pathCount == 0 }
}
