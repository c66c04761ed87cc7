/// How far from the query geometry a feature may lie to be selected
/// (``QueryParameters/distance``): the ArcGIS REST `distance` and `units`.
///
/// A query with a distance selects the features whose geometry comes within that distance of
/// the query geometry (a feature the query geometry touches or crosses is at distance 0):
///
/// - in a **geographic** table (and in Web Mercator, whose metres are not ground metres), the
///   distance is the length of the shortest path on the datum's ellipsoid (``/SieveProjection/Geodesic``)
///   between the feature and the query geometry, each edge taken as the straight line in
///   longitude and latitude it is drawn as. The nearest point of an edge is found to well
///   under a millimetre; a query geometry that is not a point or multipoint is measured from its
///   vertices to the feature's edges and from its edges to the feature's vertices, the nearest
///   pair of edges of two geometries that do not meet lying at a vertex of one of them;
/// - in a **projected** table, the plane distance in the table's unit (US survey feet in 2263),
///   the distance converted from ``unit``.
///
/// This is the ArcGIS REST rule ("buffer the input geometry, geodesic for geographic data"),
/// measured instead of buffered: ArcGIS's buffer polygon has vertices, a distance has none. It
/// applies with ``/SieveGeometry/SpatialRelationship/intersects`` only.
public struct QueryDistance: Hashable, Sendable {
    /// A unit of ``QueryDistance/value``, with ArcGIS's `esriSRUnit_…` names as raw values.
    public enum Unit: String, Hashable, Sendable, CaseIterable {
        /// The metre.
        case meter = "esriSRUnit_Meter"
        /// 1,000 metres.
        case kilometer = "esriSRUnit_Kilometer"
        /// The international foot, 0.3048 m (ArcGIS Enterprise's default).
        case foot = "esriSRUnit_Foot"
        /// The statute mile, 1,609.344 m.
        case statuteMile = "esriSRUnit_StatuteMile"
        /// The international nautical mile, 1,852 m.
        case nauticalMile = "esriSRUnit_NauticalMile"
        /// The US nautical mile, 1,853.248 m.
        case usNauticalMile = "esriSRUnit_USNauticalMile"

        /// Metres in one unit.
        public var metres: Double {
            switch self {
            case .meter: 1
            case .kilometer: 1000
            case .foot: 0.3048
            case .statuteMile: 1609.344
            case .nauticalMile: 1852
            case .usNauticalMile: 1853.248
            }
        }
    }

    /// The distance, in ``unit``; finite and not negative.
    public var value: Double
    /// The unit of ``value``.
    public var unit: Unit

    /// A distance of `value` `unit`s.
    public init(_ value: Double, _ unit: Unit = .meter) {
        self.value = value
        self.unit = unit
    }

    /// The distance in metres.
    public var metres: Double { value * unit.metres }
}
