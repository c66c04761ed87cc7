import SieveGeometry

/// How the edges of a geometry are subdivided while it is projected, so that an edge that is
/// straight in the source reference and curved in the target does not cut a corner.
///
/// **The rule.** Each edge a–b of a polyline, polygon ring or envelope is bisected while the
/// projection of its source midpoint (the midpoint of a and b in source coordinates, z and m
/// interpolated) lies farther than the tolerance from the midpoint of the projected ends; the
/// midpoint then becomes a vertex and both halves are tested in turn. An edge is split at most
/// ``maximumDepth`` times deep (at most 2¹⁶ pieces), and one geometry gains at most
/// ``maximumAddedPositions`` positions (2²⁰ by default); beyond that projecting it throws
/// ``ProjectionError/Kind/tooComplex``, so no input makes the work explode.
///
/// **The tolerance** is in target units (metres, US survey feet, degrees, …):
/// - ``Tolerance/relative(_:)`` (the default, 10⁻⁶): that fraction of the larger side of the
///   envelope of the projected vertices of the polyline, polygon or envelope being densified —
///   10 cm for a query polygon 100 km across, 1 m for one 1,000 km across;
/// - ``Tolerance/absolute(_:)``: a fixed distance.
///
/// Either is raised to at least 10⁻¹¹ of the largest projected coordinate, which is above the
/// rounding noise of PROJ's formulas, so that noise never triggers a split. A tolerance that is
/// not a positive number means that floor.
///
/// The midpoint test can miss a bend whose midpoint happens to lie on the chord (an S-shaped
/// image of one edge); map projections do not bend single edges that way at the tolerances
/// above.
public struct Densification: Hashable, Sendable {
    /// A tolerance in target units, fixed or relative to the geometry's projected size.
    public enum Tolerance: Hashable, Sendable {
        /// A distance in target units.
        case absolute(Double)
        /// A fraction of the larger side of the projected vertices' envelope.
        case relative(Double)
    }

    /// The largest distance, in target units, between a projected edge midpoint and the chord
    /// midpoint that is left unsplit.
    public var tolerance: Tolerance

    /// How many times one source edge is bisected at most, nested (2¹⁶ pieces).
    public static let maximumDepth = 16
    /// How many positions densifying one geometry adds at most (default 2²⁰).
    public var maximumAddedPositions: Int
    /// The floor of every tolerance, relative to the largest projected coordinate.
    public static let noiseFloor = 1e-11

    /// A densification rule; the default is ``standard``.
    public init(tolerance: Tolerance = .relative(1e-6), maximumAddedPositions: Int = 1 << 20) {
        self.tolerance = tolerance
        self.maximumAddedPositions = maximumAddedPositions
    }

    /// Relative tolerance 10⁻⁶ of the projected geometry's larger side.
    public static let standard = Densification()

    /// The tolerance for a geometry whose projected vertices span `extent`.
    func resolvedTolerance(extent: Envelope) -> Double {
        guard !extent.isEmpty else { return 0 }
        let largest = Swift.max(abs(extent.xmin), abs(extent.xmax), abs(extent.ymin), abs(extent.ymax))
        let floor = largest * Self.noiseFloor
        let value: Double
        switch tolerance {
        case .absolute(let distance): value = distance
        case .relative(let fraction): value = fraction * Swift.max(extent.width, extent.height)
        }
        return value > floor ? value : floor
    }
}
