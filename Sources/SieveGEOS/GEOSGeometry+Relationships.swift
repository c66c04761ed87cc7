internal import CGEOS
import SieveGeometry

/// The spatial relationships of GEOS, read "a REL b" with a = `self`.
///
/// Every method first decides from the two envelopes whatever they can decide (disjoint boxes:
/// no intersection, no containment, no touch, …), and only then calls the GEOS predicate named in
/// its documentation. The answers are GEOS's in all cases: the envelope shortcuts are exact.
/// Both geometries must come from the same ``GEOSContext``.
extension GEOSGeometry {
    typealias Predicate = (OpaquePointer?, OpaquePointer?, OpaquePointer?) -> CChar

    /// The envelope shortcut first, then the GEOS predicate, or the matrix where GEOS's
    /// predicate cannot be trusted (``needsMatrix(_:)``).
    @inline(__always)
    private func evaluate(
        _ kind: EnvelopeShortcut, _ other: GEOSGeometry, _ predicate: Predicate, _ name: StaticString,
        _ derived: (Relationships) -> Bool
    ) throws(GEOSError) -> Bool {
        if let decided = kind.decide(self, other) { return decided }
        precondition(other.context === context, "geometries from different GEOS contexts")
        if needsMatrix(other) { return derived(try relationships(other, costLimit: nil)) }
        return try context.predicateResult(predicate(context.handle, handle, other.handle), name)
    }

    /// Whether the relationships of this pair must be read off the DE-9IM matrix rather than
    /// asked of GEOS's predicates: when either has a collapsed polygon ring (GEOS's shortcuts
    /// and its matrix disagree about those), when either is a collection with point members
    /// (whose matrix GeoSieve assembles, see ``pointAssembledMatrix(_:)``), or when either is a
    /// collection and the envelopes do not meet (GEOS 3.10–3.12's predicates throw there;
    /// GeoSieve computes that matrix).
    @inline(__always)
    func needsMatrix(_ other: GEOSGeometry) -> Bool {
        answersFromMatrix || other.answersFromMatrix
            || ((collectionBoundaryDimension != nil || other.collectionBoundaryDimension != nil)
                && !envelope.intersects(other.envelope))
    }

    /// Whether every relationship of this geometry, with any other, is read off the DE-9IM
    /// matrix.
    var answersFromMatrix: Bool { hasCollapsedRing || hasPointMembers }

    /// Whether a and b share at least one point (`GEOSIntersects_r`).
    public func intersects(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        try evaluate(.intersects, other, GEOSIntersects_r, "GEOSIntersects_r", \.intersects)
    }

    /// Whether a and b share no point: exactly `!intersects(other)`, the OGC definition.
    ///
    /// Not GEOS's `GEOSDisjoint_r`, which computes the DE-9IM matrix: for invalid polygons
    /// (self-crossing shells, holes outside their shell) GEOS's matrix and the fast paths of
    /// `GEOSIntersects_r` (rectangles, prepared geometries) read the polygon differently, and
    /// the two answered `false` at once. Deriving one from the other keeps them opposite on
    /// every input.
    public func isDisjoint(with other: GEOSGeometry) throws(GEOSError) -> Bool {
        try !intersects(other)
    }

    /// Whether b lies in a and their interiors meet (`GEOSContains_r`; boundary-only contact is
    /// not containment).
    public func contains(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        try evaluate(.contains, other, GEOSContains_r, "GEOSContains_r", \.contains)
    }

    /// Whether a lies in b and their interiors meet (`GEOSWithin_r`).
    public func isWithin(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        try evaluate(.within, other, GEOSWithin_r, "GEOSWithin_r", \.within)
    }

    /// Whether no point of b lies outside a (`GEOSCovers_r`).
    public func covers(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        try evaluate(.contains, other, GEOSCovers_r, "GEOSCovers_r", \.covers)
    }

    /// Whether no point of a lies outside b (`GEOSCoveredBy_r`).
    public func isCovered(by other: GEOSGeometry) throws(GEOSError) -> Bool {
        try evaluate(.within, other, GEOSCoveredBy_r, "GEOSCoveredBy_r", \.coveredBy)
    }

    /// Whether a and b meet only at their boundaries (`GEOSTouches_r`).
    public func touches(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        try evaluate(.meets, other, GEOSTouches_r, "GEOSTouches_r", \.touches)
    }

    /// Whether the interiors meet in a geometry of lower dimension than the larger of the two
    /// (`GEOSCrosses_r`).
    public func crosses(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        try evaluate(.meets, other, GEOSCrosses_r, "GEOSCrosses_r", \.crosses)
    }

    /// Whether a and b have the same dimension and their intersection has it too but differs
    /// from both (`GEOSOverlaps_r`).
    public func overlaps(_ other: GEOSGeometry) throws(GEOSError) -> Bool {
        try evaluate(.meets, other, GEOSOverlaps_r, "GEOSOverlaps_r", \.overlaps)
    }

    /// Whether a and b are the same point set (`GEOSEquals_r`, topological equality: vertex
    /// order and ring start do not matter).
    public func isTopologicallyEqual(to other: GEOSGeometry) throws(GEOSError) -> Bool {
        try evaluate(.equals, other, GEOSEquals_r, "GEOSEquals_r", \.equals)
    }

    /// Whether the envelopes of a and b share a point. Decided in Swift, without GEOS; `false`
    /// when either is empty.
    public func envelopeIntersects(_ other: GEOSGeometry) -> Bool {
        envelope.intersects(other.envelope)
    }

    /// The DE-9IM matrix of a against b (`GEOSRelate_r`).
    ///
    /// When a collection takes part and the envelopes do not meet (an empty geometry's meets
    /// nothing), the matrix is that of two disjoint point sets and is computed here from the
    /// dimensions of the geometries and of their boundaries: GEOS 3.10–3.12 throw on it. When a
    /// collection with point members takes part, the matrix is assembled from GEOS's matrix of
    /// the other members and the locations of the points (`pointAssembledMatrix(_:)`):
    /// GEOS 3.10–3.12 miss contacts of such points.
    public func relate(_ other: GEOSGeometry) throws(GEOSError) -> IntersectionMatrix {
        precondition(other.context === context, "geometries from different GEOS contexts")
        if (collectionBoundaryDimension != nil || other.collectionBoundaryDimension != nil)
            && !envelope.intersects(other.envelope)
        {
            return try disjointMatrix(other)
        }
        if hasPointMembers || other.hasPointMembers { return try pointAssembledMatrix(other) }
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

    /// Every named relationship of a against b, derived from their DE-9IM matrix computed once
    /// (one `GEOSRelate_r` call instead of one GEOS call per predicate; see ``Relationships``
    /// for the definitions).
    ///
    /// The answers equal those of the individual predicates (``intersects(_:)``,
    /// ``contains(_:)``, …), which GEOS computes from the same matrix.
    ///
    /// GEOS 3.10–3.12 compute the matrix in time that grows with the square of the vertex count
    /// on some shapes (a star of a million spikes takes hours, a circle of a million vertices a
    /// tenth of a second). With a `costLimit`, pairs whose estimated cost (``RelateCost``) is
    /// above it are refused before GEOS is called.
    /// - Parameter other: The geometry b, made with the same context.
    /// - Parameter costLimit: The largest ``RelateCost/total`` to hand to GEOS
    ///   (``RelateCost/defaultLimit``, about a second); `nil` for no limit.
    /// - Throws: ``GEOSError/Kind/tooComplex`` above the limit; ``GEOSError`` if GEOS fails.
    public func relationships(
        _ other: GEOSGeometry, costLimit: Int? = RelateCost.defaultLimit
    ) throws(GEOSError) -> Relationships {
        if let costLimit {
            let cost = RelateCost(geometry, other.geometry, limit: costLimit)
            guard cost.total <= costLimit else {
                throw GEOSError(
                    .tooComplex,
                    "computing the DE-9IM matrix of these geometries would take GEOS at least an estimated "
                        + "\(cost.total) steps; the limit is \(costLimit)")
            }
        }
        return Relationships(matrix: try relate(other), dimensionA: dimension, dimensionB: other.dimension)
    }

    /// The matrix of two geometries whose envelopes do not meet: only exteriors meet
    /// interiors and boundaries.
    private func disjointMatrix(_ other: GEOSGeometry) throws(GEOSError) -> IntersectionMatrix {
        func symbol(_ dimension: Int?) -> Character { dimension.map { Character(String($0)) } ?? "F" }
        let interiorA = isEmpty ? nil : dimension, interiorB = other.isEmpty ? nil : other.dimension
        let boundaryA = isEmpty ? nil : try boundaryDimension()
        let boundaryB = other.isEmpty ? nil : try other.boundaryDimension()
        let text = "FF\(symbol(interiorA))FF\(symbol(boundaryA))\(symbol(interiorB))\(symbol(boundaryB))2"
        guard let matrix = IntersectionMatrix(text) else {
            throw GEOSError(.geosException, "malformed disjoint matrix \"\(text)\"", function: "GEOSBoundary_r")
        }
        return matrix
    }

    /// The dimension of the geometry's boundary, `nil` when it has none: GeoSieve's for a
    /// collection, GEOS's (`GEOSBoundary_r`) otherwise.
    func boundaryDimension() throws(GEOSError) -> Int? {
        if let collectionBoundaryDimension { return collectionBoundaryDimension }
        let h = context.handle
        guard let boundary = GEOSBoundary_r(h, handle) else { throw context.failure("GEOSBoundary_r") }
        defer { GEOSGeom_destroy_r(h, boundary) }
        switch GEOSisEmpty_r(h, boundary) {
        case 1: return nil
        case 0: return Int(GEOSGeom_getDimensions_r(h, boundary))
        default: throw context.failure("GEOSisEmpty_r")
        }
    }

    /// Whether the DE-9IM matrix of a against b matches `pattern` (`GEOSRelatePattern_r`).
    /// - Throws: ``GEOSError/Kind/invalidPattern`` for a pattern that is not 9 of `T F * 0 1 2`.
    public func relate(_ other: GEOSGeometry, pattern: String) throws(GEOSError) -> Bool {
        let bytes = try IntersectionMatrix.validatedPattern(pattern)
        precondition(other.context === context, "geometries from different GEOS contexts")
        if needsMatrix(other) { return try relate(other).matches(pattern) }
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
        if let decided = EnvelopeShortcut.decideWithinDistance(distance, self, other) { return decided }
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
    ///
    /// Scaled by the larger offset before squaring, so that offsets beyond 10¹⁵⁴ do not
    /// overflow to infinity (which made far but finite distances look infinite).
    func distance(to other: Envelope) -> Double {
        let dx = Swift.max(0, Swift.max(other.xmin - xmax, xmin - other.xmax))
        let dy = Swift.max(0, Swift.max(other.ymin - ymax, ymin - other.ymax))
        let larger = Swift.max(dx, dy)
        guard larger > 0, larger.isFinite else { return larger }
        let (a, b) = (dx / larger, dy / larger)
        return larger * (a * a + b * b).squareRoot()
    }
}

/// What the envelopes of two geometries decide about a relationship on their own, shared by
/// ``GEOSGeometry`` and ``PreparedGeometry`` so that both take exactly the same shortcuts.
///
/// Each case names the envelope condition a relationship needs; when the condition fails the
/// answer is known without GEOS. Empty geometries are always left to GEOS.
enum EnvelopeShortcut {
    /// Needs intersecting envelopes; true outright when one operand is a rectangle whose
    /// interior-or-boundary holds the other's envelope.
    case intersects
    /// a's envelope must contain b's (contains, covers, contains properly).
    case contains
    /// b's envelope must contain a's (within, covered by).
    case within
    /// Needs intersecting envelopes (touches, crosses, overlaps).
    case meets
    /// Needs equal envelopes.
    case equals

    /// The answer, or `nil` when GEOS must decide.
    @inline(__always)
    func decide(_ a: GEOSGeometry, _ b: GEOSGeometry) -> Bool? {
        guard !a.isEmpty, !b.isEmpty else { return nil }
        let boxA = a.envelope, boxB = b.envelope
        switch self {
        case .intersects:
            if !boxA.intersects(boxB) { return false }
            // A non-empty geometry whose envelope lies inside a rectangle intersects it.
            if let rectangle = a.rectangle, rectangle.contains(boxB) { return true }
            if let rectangle = b.rectangle, rectangle.contains(boxA) { return true }
            return nil
        case .contains: return boxA.contains(boxB) ? nil : false
        case .within: return boxB.contains(boxA) ? nil : false
        case .meets: return boxA.intersects(boxB) ? nil : false
        case .equals: return boxA == boxB ? nil : false
        }
    }

    /// Within-distance: false for empty operands and for envelopes farther apart than
    /// `distance`; otherwise `nil`.
    @inline(__always)
    static func decideWithinDistance(_ distance: Double, _ a: GEOSGeometry, _ b: GEOSGeometry) -> Bool? {
        if a.isEmpty || b.isEmpty { return false }
        return a.envelope.distance(to: b.envelope) > distance ? false : nil
    }
}
