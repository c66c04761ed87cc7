internal import CGEOS
import SieveGeometry

/// The spatial relationships of GEOS, read "a REL b" with a = `self`.
///
/// Every method first decides from the two envelopes whatever they can decide (disjoint boxes:
/// no intersection, no containment, no touch, …), and only then calls the GEOS predicate named in
/// its documentation. The answers are GEOS's in all cases: the envelope shortcuts are exact.
/// Both geometries must come from the same ``GEOSContext``.
extension GEOSGeometry {
    private typealias Predicate = (OpaquePointer?, OpaquePointer?, OpaquePointer?) -> CChar

    @inline(__always)
    private func evaluate(_ other: GEOSGeometry, _ predicate: Predicate, _ name: StaticString) throws(GEOSError) -> Bool {
        precondition(other.context === context, "geometries from different GEOS contexts")
        return try context.predicateResult(predicate(context.handle, handle, other.handle), name)
    }

    /// Whether both geometries are non-empty and their envelopes are disjoint, in which case
    /// every predicate but `disjoint` is false.
    @inline(__always)
    private func envelopesSeparate(_ other: GEOSGeometry) -> Bool {
        !isEmpty && !other.isEmpty && !envelope.intersects(other.envelope)
    }

    /// Whether a and b share at least one point (`GEOSIntersects_r`).
    public func intersects(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        if envelopesSeparate(other) { return false }
        // A non-empty geometry whose envelope lies inside a rectangle intersects it.
        if let rectangle, !other.isEmpty, rectangle.contains(other.envelope) { return true }
        if let rectangle = other.rectangle, !isEmpty, rectangle.contains(envelope) { return true }
        return try evaluate(other, GEOSIntersects_r, "GEOSIntersects_r")
    }

    /// Whether a and b share no point (`GEOSDisjoint_r`).
    public func isDisjoint(with other: GEOSGeometry) throws(GEOSError) -> Bool {
        if envelopesSeparate(other) { return true }
        return try evaluate(other, GEOSDisjoint_r, "GEOSDisjoint_r")
    }

    /// Whether b lies in a and their interiors meet (`GEOSContains_r`; boundary-only contact is
    /// not containment).
    public func contains(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        if !isEmpty && !other.isEmpty && !envelope.contains(other.envelope) { return false }
        return try evaluate(other, GEOSContains_r, "GEOSContains_r")
    }

    /// Whether a lies in b and their interiors meet (`GEOSWithin_r`).
    public func isWithin(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        if !isEmpty && !other.isEmpty && !other.envelope.contains(envelope) { return false }
        return try evaluate(other, GEOSWithin_r, "GEOSWithin_r")
    }

    /// Whether no point of b lies outside a (`GEOSCovers_r`).
    public func covers(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        if !isEmpty && !other.isEmpty && !envelope.contains(other.envelope) { return false }
        return try evaluate(other, GEOSCovers_r, "GEOSCovers_r")
    }

    /// Whether no point of a lies outside b (`GEOSCoveredBy_r`).
    public func isCovered(by other: GEOSGeometry) throws(GEOSError) -> Bool {
        if !isEmpty && !other.isEmpty && !other.envelope.contains(envelope) { return false }
        return try evaluate(other, GEOSCoveredBy_r, "GEOSCoveredBy_r")
    }

    /// Whether a and b meet only at their boundaries (`GEOSTouches_r`).
    public func touches(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        if envelopesSeparate(other) { return false }
        return try evaluate(other, GEOSTouches_r, "GEOSTouches_r")
    }

    /// Whether the interiors meet in a geometry of lower dimension than the larger of the two
    /// (`GEOSCrosses_r`).
    public func crosses(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        if envelopesSeparate(other) { return false }
        return try evaluate(other, GEOSCrosses_r, "GEOSCrosses_r")
    }

    /// Whether a and b have the same dimension and their intersection has it too but differs
    /// from both (`GEOSOverlaps_r`).
    public func overlaps(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        if envelopesSeparate(other) { return false }
        return try evaluate(other, GEOSOverlaps_r, "GEOSOverlaps_r")
    }

    /// Whether a and b are the same point set (`GEOSEquals_r`, topological equality: vertex
    /// order and ring start do not matter).
    public func isTopologicallyEqual(to other: GEOSGeometry) throws(GEOSError) -> Bool {
        if !isEmpty && !other.isEmpty && envelope != other.envelope { return false }
        return try evaluate(other, GEOSEquals_r, "GEOSEquals_r")
    }

    /// Whether the envelopes of a and b share a point. Decided in Swift, without GEOS; `false`
    /// when either is empty.
    public func envelopeIntersects(_ other: GEOSGeometry) -> Bool {
        envelope.intersects(other.envelope)
    }

    /// The DE-9IM matrix of a against b (`GEOSRelate_r`).
    public func relate(_ other: GEOSGeometry) throws(GEOSError) -> IntersectionMatrix {
        precondition(other.context === context, "geometries from different GEOS contexts")
        // GEOSRelate_r returns NULL on exception; the string is freed with GEOSFree_r.
        guard let text = GEOSRelate_r(context.handle, handle, other.handle) else {
            throw context.failure("GEOSRelate_r")
        }
        defer { GEOSFree_r(context.handle, text) }
        let string = String(cString: text)
        guard let matrix = IntersectionMatrix(string) else {
            throw GEOSError(.geosException, "GEOS returned the malformed matrix \"\(string)\"", function: "GEOSRelate_r")
        }
        return matrix
    }

    /// Whether the DE-9IM matrix of a against b matches `pattern` (`GEOSRelatePattern_r`).
    /// - Throws: ``GEOSError/Kind/invalidPattern`` for a pattern that is not 9 of `T F * 0 1 2`.
    public func relate(_ other: GEOSGeometry, pattern: String) throws(GEOSError) -> Bool {
        let bytes = try IntersectionMatrix.validatedPattern(pattern)
        precondition(other.context === context, "geometries from different GEOS contexts")
        let result = String(decoding: bytes, as: UTF8.self).withCString { cPattern in
            GEOSRelatePattern_r(context.handle, handle, other.handle, cPattern)
        }
        return try context.predicateResult(result, "GEOSRelatePattern_r")
    }

    /// The shortest Cartesian distance between a and b (`GEOSDistance_r`), in coordinate units;
    /// `Double.infinity` when either is empty.
    public func distance(to other: GEOSGeometry) throws(GEOSError) -> Double {
        if isEmpty || other.isEmpty { return .infinity }
        precondition(other.context === context, "geometries from different GEOS contexts")
        var result = 0.0
        // GEOSDistance_r returns 0 on exception.
        guard GEOSDistance_r(context.handle, handle, other.handle, &result) != 0 else {
            throw context.failure("GEOSDistance_r")
        }
        return result
    }

    /// Whether a and b lie within `distance` of each other (`GEOSDistanceWithin_r`); `false`
    /// when either is empty. The envelopes decide first when they are farther apart.
    public func isWithinDistance(_ distance: Double, of other: GEOSGeometry) throws(GEOSError) -> Bool {
        if isEmpty || other.isEmpty { return false }
        if envelope.distance(to: other.envelope) > distance { return false }
        precondition(other.context === context, "geometries from different GEOS contexts")
        let result = GEOSDistanceWithin_r(context.handle, handle, other.handle, distance)
        return try context.predicateResult(result, "GEOSDistanceWithin_r")
    }

    /// Whether a relationship holds with a = `self`, b = `other`.
    public func satisfies(_ relationship: SpatialRelationship, _ other: GEOSGeometry) throws(GEOSError) -> Bool {
        switch relationship {
        case .intersects: try intersects(other)
        case .contains: try contains(other)
        case .within: try isWithin(other)
        case .touches: try touches(other)
        case .crosses: try crosses(other)
        case .overlaps: try overlaps(other)
        case .equals: try isTopologicallyEqual(to: other)
        case .disjoint: try isDisjoint(with: other)
        case .envelopeIntersects: envelopeIntersects(other)
        case .relate(let pattern): try relate(other, pattern: pattern)
        }
    }
}

extension Envelope {
    /// The shortest distance between two non-empty rectangles (0 when they intersect).
    func distance(to other: Envelope) -> Double {
        let dx = Swift.max(0, Swift.max(other.xmin - xmax, xmin - other.xmax))
        let dy = Swift.max(0, Swift.max(other.ymin - ymax, ymin - other.ymax))
        return (dx * dx + dy * dy).squareRoot()
    }
}
