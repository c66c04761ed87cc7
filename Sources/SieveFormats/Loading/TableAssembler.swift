import SieveFeatures
import SieveColumns
import SieveGeometry

/// What the loaders share about object IDs.
enum TableAssembler {
    /// The name of a synthesized object-ID field.
    static let synthesizedObjectIDName = "OBJECTID"
}

extension GeometryType {
    /// The type of a table holding geometries of this type and of `other`: the same type, or
    /// multipoint for points and multipoints; `nil` when the two cannot share a table.
    package func merging(_ other: GeometryType) -> GeometryType? {
        switch (self, other) {
        case _ where self == other: self
        case (.point, .multipoint), (.multipoint, .point): .multipoint
        default: nil
        }
    }
}

/// Decides the geometry type of a table from its features' geometries, one at a time.
///
/// Point and multipoint, and (in GeoJSON) LineString and MultiLineString, Polygon and
/// MultiPolygon may mix; any other mix is an error naming the offending feature and both
/// types.
package struct GeometryTypeTracker {
    /// The type so far (`nil` before the first geometry).
    private(set) var type: GeometryType?
    /// Whether some geometry was a single point (to be stored as a 1-point multipoint when the
    /// table turns out to be a multipoint table).
    private(set) var sawPoint = false
    private var first: (index: Int, name: String)?
    /// The first feature with a geometry (its index and type name), for messages.
    var firstFeature: (index: Int, name: String)? { first }

    /// Whether the type is point and a point was seen: another point changes nothing.
    var settledOnPoints: Bool { type == .point && sawPoint }

    /// Whether the type was asked for (``require(_:)``): no other type may join it.
    private var required = false

    /// Asks for a table of `type`: geometries of other types are errors (a point still fits a
    /// multipoint table).
    mutating func require(_ type: GeometryType) {
        self.type = type
        first = (-1, type.rawValue)
        required = true
    }

    /// Records the geometry of feature `index`, whose type is named `name` in the input.
    mutating func add(
        _ geometry: Geometry, name: String, index: Int, objectID: Int64?
    ) throws(FeatureTableError) {
        let kind: GeometryType
        switch geometry {
        case .point: kind = .point
        case .multipoint: kind = .multipoint
        case .polyline: kind = .polyline
        case .polygon: kind = .polygon
        case .envelope: kind = .envelope
        case .collection:
            throw FeatureTableError(
                .invalidGeometry, "a \(name) cannot be stored in a feature table (one geometry type per table)",
                featureIndex: index, objectID: objectID)
        }
        if kind == .point { sawPoint = true }
        guard let current = type, let first else {
            type = kind
            first = (index, name)
            return
        }
        guard let merged = current.merging(kind), !required || merged == current else {
            throw FeatureTableError(
                .mixedGeometryTypes,
                "the feature has a \(name) geometry but features[\(first.index)] has a \(first.name) geometry; "
                    + "a table holds one geometry type (only single and multi types of the same dimension may mix)",
                featureIndex: index, objectID: objectID)
        }
        type = merged
    }

    /// The geometries with every point turned into a 1-point multipoint (an empty point into an
    /// empty multipoint, in the point's layout).
    static func pointsAsMultipoints(_ geometries: [Geometry?], objectIDs: [Int64]? = nil) throws(FeatureTableError) -> [Geometry?] {
        try pointsAsMultipoints(geometries) { (error, i) in
            FeatureTableError(.invalidGeometry, error.message, featureIndex: i, objectID: objectIDs?[i])
        }
    }

    /// The geometries with every point turned into a 1-point multipoint; `failure` makes the
    /// error for the geometry at an index that cannot be one.
    package static func pointsAsMultipoints<Failure: Error>(
        _ geometries: [Geometry?], failure: (GeometryError, Int) -> Failure
    ) throws(Failure) -> [Geometry?] {
        var result = geometries
        for (i, geometry) in geometries.enumerated() {
            guard case .point(let point) = geometry else { continue }
            do throws(GeometryError) {
                result[i] = .multipoint(try Multipoint(points: point.isEmpty ? [] : [point], layout: point.layout))
            } catch {
                throw failure(error, i)
            }
        }
        return result
    }
}
