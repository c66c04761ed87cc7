import SieveGeometry

/// A test of each feature's geometry that a bound CQL2 filter reads as a 0/1 field.
///
/// The where-clause core knows nothing of geometries: lowering a CQL2 filter
/// (``CQL2Filter/lowered(geometryPropertyNames:dateOnlyPropertyNames:)``) replaces each spatial function, and each
/// `IS NULL` of the geometry property, with a comparison of a field named ``fieldName``, and
/// lists the tests here. The feature table that runs the filter computes each test's column —
/// through its prepared GEOS geometries and quadtree — before the clause runs, so the spatial
/// functions keep their place in the three-valued logic of `AND`, `OR` and `NOT`.
public struct CQL2GeometryTest: Hashable, Sendable {
    /// What is tested.
    public enum Kind: Hashable, Sendable {
        /// The feature's geometry stands in `relationship` to the literal `geometry`, read feature
        /// first (`S_WITHIN(geom, …)` is ``/SieveGeometry/SpatialRelationship/within``,
        /// `S_WITHIN(…, geom)` is ``/SieveGeometry/SpatialRelationship/contains``). 1 when it does,
        /// 0 when not, NULL for a feature without a geometry. The literal is in the filter's
        /// coordinates (CRS84 unless the caller says otherwise).
        case relationship(SpatialRelationship, Geometry)
        /// Whether the feature has a geometry: 1 or 0, never NULL (`geom IS [NOT] NULL`).
        case present
        /// A spatial function of two literals: `first` stands in `relationship` to `second`,
        /// the same at every feature.
        case literals(SpatialRelationship, Geometry, Geometry)
    }

    /// What is tested.
    public let kind: Kind
    /// The name of the field the lowered tree reads the result by.
    public let fieldName: String

    /// A test.
    public init(kind: Kind, fieldName: String) {
        self.kind = kind
        self.fieldName = fieldName
    }
}
