/// A geometry of any kind: the value every codec reads and writes and every spatial
/// relationship takes.
///
/// The kinds follow the ArcGIS geometry model (point, multipoint, polyline, polygon, envelope),
/// plus ``GeometryCollection`` for GeoJSON `GeometryCollection` and WKT `GEOMETRYCOLLECTION`
/// input. Multi-part lines and polygons are single values with several parts (``Polyline``,
/// ``Polygon``).
public enum Geometry: Hashable, Sendable {
    /// A single position.
    case point(Point)
    /// A set of positions.
    case multipoint(Multipoint)
    /// One or more paths.
    case polyline(Polyline)
    /// One or more polygons with holes.
    case polygon(Polygon)
    /// An axis-aligned rectangle (a polygon for every spatial relationship).
    case envelope(Envelope)
    /// A heterogeneous collection.
    case collection(GeometryCollection)

    /// The kind of a ``Geometry``.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case point, multipoint, polyline, polygon, envelope, collection
    }

    /// The kind of this geometry.
    public var kind: Kind {
        switch self {
        case .point: .point
        case .multipoint: .multipoint
        case .polyline: .polyline
        case .polygon: .polygon
        case .envelope: .envelope
        case .collection: .collection
        }
    }

    /// The bounding box (computed when the geometry was built; O(1) except for collections).
    public var envelope: Envelope {
        switch self {
        case .point(let point): point.envelope
        case .multipoint(let multipoint): multipoint.envelope
        case .polyline(let polyline): polyline.envelope
        case .polygon(let polygon): polygon.envelope
        case .envelope(let envelope): envelope
        case .collection(let collection): collection.envelope
        }
    }

    /// Whether the geometry holds no position at all.
    public var isEmpty: Bool {
        switch self {
        case .point(let point): point.isEmpty
        case .multipoint(let multipoint): multipoint.isEmpty
        case .polyline(let polyline): polyline.isEmpty
        case .polygon(let polygon): polygon.isEmpty
        case .envelope(let envelope): envelope.isEmpty
        case .collection(let collection): collection.geometries.allSatisfy(\.isEmpty)
        }
    }

    /// The topological dimension: 0 for points, 1 for lines, 2 for areas; for a collection the
    /// largest of its non-empty members' (an empty member adds no point, so it cannot raise the
    /// dimension: `GEOMETRYCOLLECTION (POLYGON EMPTY, POINT (1 1))` has dimension 0); `nil` for a
    /// collection with no non-empty member. Other empty geometries keep their type's dimension.
    public var dimension: Int? {
        switch self {
        case .point, .multipoint: 0
        case .polyline: 1
        case .polygon, .envelope: 2
        case .collection(let collection): collection.geometries.lazy.filter { !$0.isEmpty }.compactMap(\.dimension).max()
        }
    }

    /// Which ordinates the geometry's positions carry (`.xy` for envelopes; for a collection, z
    /// or m when any member has them).
    public var layout: CoordinateLayout {
        switch self {
        case .point(let point): point.layout
        case .multipoint(let multipoint): multipoint.coordinates.layout
        case .polyline(let polyline): polyline.coordinates.layout
        case .polygon(let polygon): polygon.coordinates.layout
        case .envelope: .xy
        case .collection(let collection):
            collection.geometries.reduce(CoordinateLayout.xy) { layout, member in
                let other = member.layout
                return CoordinateLayout(hasZ: layout.hasZ || other.hasZ, hasM: layout.hasM || other.hasM)
            }
        }
    }
}

/// A list of geometries of any kinds, as GeoJSON `GeometryCollection` and WKT
/// `GEOMETRYCOLLECTION` carry them.
public struct GeometryCollection: Hashable, Sendable {
    /// The members.
    public let geometries: [Geometry]
    /// The bounding box of all members.
    public let envelope: Envelope

    /// Creates a collection.
    public init(_ geometries: [Geometry]) {
        self.geometries = geometries
        self.envelope = geometries.reduce(Envelope.empty) { $0.union($1.envelope) }
    }

    /// How deeply collections nest inside this one (1 for a collection of simple geometries).
    public var nestingDepth: Int {
        1 + (geometries.map { member -> Int in
            if case .collection(let inner) = member { return inner.nestingDepth }
            return 0
        }.max() ?? 0)
    }
}
