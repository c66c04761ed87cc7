/// A spatial relationship between two geometries a and b, read "a REL b".
///
/// At the feature-table level the feature is a and the query geometry is b ("the cities
/// *within* California": city within state).
public enum SpatialRelationship: Hashable, Sendable, CustomStringConvertible {
    /// a and b share at least one point.
    case intersects
    /// b lies in a, interiors meeting.
    case contains
    /// a lies in b, interiors meeting.
    case within
    /// a and b meet only at their boundaries.
    case touches
    /// Interiors meet in a lower dimension than the larger of the two.
    case crosses
    /// Same dimension, intersection of that dimension different from both.
    case overlaps
    /// Topologically equal.
    case equals
    /// No point in common.
    case disjoint
    /// The envelopes share a point.
    case envelopeIntersects
    /// The DE-9IM matrix of a against b matches the pattern.
    case relate(pattern: String)

    /// The relationship names as used on the command line and in JSON output.
    public var description: String {
        switch self {
        case .intersects: "intersects"
        case .contains: "contains"
        case .within: "within"
        case .touches: "touches"
        case .crosses: "crosses"
        case .overlaps: "overlaps"
        case .equals: "equals"
        case .disjoint: "disjoint"
        case .envelopeIntersects: "envelopeIntersects"
        case .relate(let pattern): "relate(\(pattern))"
        }
    }
}
