internal import CGEOS
import SieveGeometry

/// A geometry prepared for many tests against other geometries (`GEOSPrepare_r`).
///
/// Preparation builds GEOS's internal indexes of the geometry's segments once, so that each
/// later test costs about the logarithm of the vertex count instead of the count itself:
/// for a point against a polygon of a thousand vertices the difference is one to two orders of
/// magnitude. Prepare a query geometry once per query.
///
/// Each test reads "prepared REL other". The envelope shortcuts of ``GEOSGeometry`` apply here
/// too. The prepared geometry keeps its ``geometry`` alive.
///
/// Not `Sendable`: use it only in the isolation region of its ``GEOSContext``.
public final class PreparedGeometry {
    /// The geometry that was prepared.
    public let geometry: GEOSGeometry
    /// The prepared geometry's envelope (stored, so the inlined point test reads it directly).
    public let envelope: Envelope
    private let handle: OpaquePointer

    /// Prepares a geometry (`GEOSPrepare_r`).
    /// - Throws: ``GEOSError`` if GEOS fails.
    public init(_ geometry: GEOSGeometry) throws(GEOSError) {
        self.geometry = geometry
        self.envelope = geometry.envelope
        // GEOSPrepare_r returns NULL on exception; the prepared geometry refers to, and does not
        // own, the base geometry.
        guard let handle = GEOSPrepare_r(geometry.context.handle, geometry.handle) else {
            throw geometry.context.failure("GEOSPrepare_r")
        }
        self.handle = handle
    }

    /// Converts and prepares a geometry in one step.
    public convenience init(_ geometry: Geometry, context: GEOSContext) throws(GEOSError) {
        try self.init(GEOSGeometry(geometry, context: context))
    }

    deinit {
        GEOSPreparedGeom_destroy_r(geometry.context.handle, handle)
    }

    /// The envelope shortcut first, then the prepared GEOS predicate.
    @inline(__always)
    private func evaluate(
        _ kind: EnvelopeShortcut, _ other: GEOSGeometry, _ predicate: GEOSGeometry.Predicate, _ name: StaticString,
        _ derived: (Relationships) -> Bool
    ) throws(GEOSError) -> Bool {
        if let decided = kind.decide(geometry, other) { return decided }
        let context = geometry.context
        precondition(other.context === context, "geometries from different GEOS contexts")
        // Where GEOS's shortcuts cannot be trusted, the matrix answers (see GEOSGeometry).
        if geometry.needsMatrix(other) { return derived(try geometry.relationships(other, costLimit: nil)) }
        return try context.predicateResult(predicate(context.handle, handle, other.handle), name)
    }

    /// The point `(x, y)` related to the geometry through the DE-9IM matrix.
    private func pointRelationships(x: Double, y: Double) throws(GEOSError) -> Relationships {
        try geometry.relationships(GEOSGeometry(.point(Point(x: x, y: y)), context: geometry.context), costLimit: nil)
    }

    /// Whether the geometries share a point (`GEOSPreparedIntersects_r`).
    public func intersects(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        try evaluate(.intersects, other, GEOSPreparedIntersects_r, "GEOSPreparedIntersects_r", \.intersects)
    }

    /// Whether the prepared geometry contains `other` (`GEOSPreparedContains_r`).
    public func contains(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        try evaluate(.contains, other, GEOSPreparedContains_r, "GEOSPreparedContains_r", \.contains)
    }

    /// Whether `other` lies in the interior of the prepared geometry, not touching its boundary
    /// (`GEOSPreparedContainsProperly_r`).
    public func containsProperly(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        try evaluate(.contains, other, GEOSPreparedContainsProperly_r, "GEOSPreparedContainsProperly_r",
            { (try? $0.matrix.matches("T**FF*FF*")) ?? false })
    }

    /// Whether the prepared geometry lies within `other` (`GEOSPreparedWithin_r`).
    public func isWithin(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        try evaluate(.within, other, GEOSPreparedWithin_r, "GEOSPreparedWithin_r", \.within)
    }

    /// Whether the prepared geometry covers `other` (`GEOSPreparedCovers_r`).
    public func covers(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        try evaluate(.contains, other, GEOSPreparedCovers_r, "GEOSPreparedCovers_r", \.covers)
    }

    /// Whether the prepared geometry is covered by `other` (`GEOSPreparedCoveredBy_r`).
    public func isCovered(by other: GEOSGeometry) throws(GEOSError) -> Bool {
        try evaluate(.within, other, GEOSPreparedCoveredBy_r, "GEOSPreparedCoveredBy_r", \.coveredBy)
    }

    /// Whether the geometries meet only at their boundaries (`GEOSPreparedTouches_r`).
    public func touches(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        try evaluate(.meets, other, GEOSPreparedTouches_r, "GEOSPreparedTouches_r", \.touches)
    }

    /// Whether the geometries cross (`GEOSPreparedCrosses_r`).
    public func crosses(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        try evaluate(.meets, other, GEOSPreparedCrosses_r, "GEOSPreparedCrosses_r", \.crosses)
    }

    /// Whether the geometries overlap (`GEOSPreparedOverlaps_r`).
    public func overlaps(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        try evaluate(.meets, other, GEOSPreparedOverlaps_r, "GEOSPreparedOverlaps_r", \.overlaps)
    }

    /// Whether the geometries share no point: exactly `!intersects(other)` (see
    /// ``GEOSGeometry/isDisjoint(with:)``).
    public func isDisjoint(with other: GEOSGeometry) throws(GEOSError) -> Bool {
        try !intersects(other)
    }

    /// Whether the geometries lie within `distance` of each other
    /// (`GEOSPreparedDistanceWithin_r`); `false` when either is empty.
    public func isWithinDistance(_ distance: Double, of other: GEOSGeometry) throws(GEOSError) -> Bool {
        if let decided = EnvelopeShortcut.decideWithinDistance(distance, geometry, other) { return decided }
        let context = geometry.context
        precondition(other.context === context, "geometries from different GEOS contexts")
        let result = GEOSPreparedDistanceWithin_r(context.handle, handle, other.handle, distance)
        return try context.predicateResult(result, "GEOSPreparedDistanceWithin_r")
    }

    /// Whether the point `(x, y)` intersects the prepared geometry: it lies in its interior or on
    /// its boundary.
    ///
    /// Points outside the envelope are rejected without GEOS. Inside it, GEOS 3.12+ answers
    /// with `GEOSPreparedIntersectsXY_r`; on older GEOS a temporary point geometry is made and
    /// destroyed around `GEOSPreparedIntersects_r`. No Swift object is allocated.
    ///
    /// Like every geometry GEOS sees, the point is rounded to the grid of `GEOSResolution`
    /// first (which changes only coordinates below about 1.3·10⁻¹³⁸).
    @inlinable
    public func intersects(x: Double, y: Double) throws(GEOSError) -> Bool {
        // Coordinates this small (0 included) may need rounding: the rare path.
        if abs(x) < 0x1p-459 || abs(y) < 0x1p-459 { return try intersectsRounding(x: x, y: y) }
        guard envelope.contains(x: x, y: y) else { return false }
        return try intersectsInsideEnvelope(x: x, y: y)
    }

    @usableFromInline
    func intersectsRounding(x: Double, y: Double) throws(GEOSError) -> Bool {
        let x = GEOSResolution.snap(x), y = GEOSResolution.snap(y)
        guard envelope.contains(x: x, y: y) else { return false }
        return try intersectsInsideEnvelope(x: x, y: y)
    }

    @usableFromInline
    func intersectsInsideEnvelope(x: Double, y: Double) throws(GEOSError) -> Bool {
        if geometry.answersFromMatrix { return try pointRelationships(x: x, y: y).intersects }
        let context = geometry.context
        return try context.predicateResult(
            cgeos_prepared_intersects_xy(context.handle, handle, x, y), "GEOSPreparedIntersects_r")
    }

    /// Whether the point `(x, y)` lies in the interior of the prepared geometry (on the
    /// boundary is not contained). The point is rounded to the grid of `GEOSResolution`
    /// first.
    public func contains(x: Double, y: Double) throws(GEOSError) -> Bool {
        let x = GEOSResolution.snap(x), y = GEOSResolution.snap(y)
        guard envelope.contains(x: x, y: y) else { return false }
        if geometry.answersFromMatrix { return try pointRelationships(x: x, y: y).contains }
        let context = geometry.context
        return try context.predicateResult(
            cgeos_prepared_contains_xy(context.handle, handle, x, y), "GEOSPreparedContains_r")
    }

    /// Whether a relationship holds with a = the prepared geometry, b = `other`. Relationships
    /// GEOS does not prepare (`equals`, `relate`) are answered by the unprepared geometry.
    public func satisfies(_ relationship: SpatialRelationship, _ other: GEOSGeometry) throws(GEOSError) -> Bool {
        switch relationship {
        case .intersects: try intersects(other)
        case .contains: try contains(other)
        case .within: try isWithin(other)
        case .touches: try touches(other)
        case .crosses: try crosses(other)
        case .overlaps: try overlaps(other)
        case .disjoint: try isDisjoint(with: other)
        case .equals, .envelopeIntersects, .relate: try geometry.satisfies(relationship, other)
        }
    }
}

/// Prepared geometries are not `Sendable`: they belong to their context's thread.
@available(*, unavailable)
extension PreparedGeometry: Sendable {}
