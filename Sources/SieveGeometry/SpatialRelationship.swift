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

extension SpatialRelationship {
    /// Every relationship without a pattern, in the order of ``description``'s table.
    public static let named: [SpatialRelationship] = [
        .intersects, .contains, .within, .touches, .crosses, .overlaps, .equals, .disjoint, .envelopeIntersects,
    ]

    /// What is wrong with a DE-9IM pattern, or `nil` when it is one: nine characters, each of
    /// `T F * 0 1 2` in any case. Pure text: a query can be checked without linking GEOS.
    public static func patternProblem(_ pattern: String) -> String? {
        let allowed = Set("TF*012tf".utf8)
        guard pattern.utf8.count == 9, pattern.utf8.allSatisfy({ allowed.contains($0) }) else {
            return "\"\(pattern)\" is not a DE-9IM pattern: expected 9 characters from T, F, *, 0, 1, 2"
        }
        return nil
    }

    /// Whether a DE-9IM pattern demands that the geometries share a point (one of the cells II,
    /// IB, BI, BB is `T`, `0`, `1` or `2`), so that disjoint geometries never match it. Invalid
    /// patterns answer `false`.
    public static func patternNeedsIntersection(_ pattern: String) -> Bool {
        let cells = Array(pattern.utf8)
        guard cells.count == 9 else { return false }
        return [0, 1, 3, 4].contains { index in
            switch cells[index] {
            case UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: "0"), UInt8(ascii: "1"), UInt8(ascii: "2"): true
            default: false
            }
        }
    }

    /// Whether a feature disjoint from the query geometry can stand in this relationship
    /// (`disjoint`, or a relate pattern that needs no shared point).
    public var admitsDisjoint: Bool {
        switch self {
        case .disjoint: true
        case .relate(let pattern): !Self.patternNeedsIntersection(pattern)
        default: false
        }
    }
}
