import SieveGeometry

/// A DE-9IM intersection matrix: for each pair of (interior, boundary, exterior) of two
/// geometries a and b, the dimension of their intersection.
///
/// The string form is GEOS's and the OGC's: nine characters, row by row
/// (`II IB IE BI BB BE EI EB EE`), each `F` (empty), `0`, `1` or `2`. Two overlapping squares
/// give `212101212`.
///
/// The named relationships are defined on the matrix as in the OGC Simple Features
/// specification, so a matrix answers them on its own (``isIntersects``, ``isContains``, …).
public struct IntersectionMatrix: Hashable, Sendable, CustomStringConvertible {
    /// The dimension of one intersection.
    public enum Dimension: Hashable, Sendable {
        /// The intersection is empty (`F`).
        case empty
        /// Points (`0`).
        case point
        /// Lines (`1`).
        case line
        /// Areas (`2`).
        case area

        init?(_ character: UInt8) {
            switch character {
            case UInt8(ascii: "F"): self = .empty
            case UInt8(ascii: "0"): self = .point
            case UInt8(ascii: "1"): self = .line
            case UInt8(ascii: "2"): self = .area
            default: return nil
            }
        }

        var character: Character {
            switch self {
            case .empty: "F"
            case .point: "0"
            case .line: "1"
            case .area: "2"
            }
        }
    }

    /// The nine entries, row by row.
    public let entries: [Dimension]

    /// Reads a matrix from its nine-character form; `nil` if it is not nine of `F 0 1 2`.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 9 else { return nil }
        var entries: [Dimension] = []
        for byte in bytes {
            guard let dimension = Dimension(byte) else { return nil }
            entries.append(dimension)
        }
        self.entries = entries
    }

    /// The nine-character form, e.g. `212101212`.
    public var description: String { String(entries.map(\.character)) }

    /// Whether the matrix matches a DE-9IM pattern: nine characters, each `T` (non-empty),
    /// `F` (empty), `*` (anything), or `0`, `1`, `2` (exactly that dimension).
    /// - Throws: ``GEOSError/Kind/invalidPattern`` for any other pattern.
    public func matches(_ pattern: String) throws(GEOSError) -> Bool {
        let bytes = try IntersectionMatrix.validatedPattern(pattern)
        for (entry, symbol) in zip(entries, bytes) {
            switch symbol {
            case UInt8(ascii: "*"): continue
            case UInt8(ascii: "T"): if entry == .empty { return false }
            default: if Dimension(symbol) != entry { return false }
            }
        }
        return true
    }

    /// Checks that `pattern` is a DE-9IM pattern: nine characters from `T F * 0 1 2` (any case).
    /// - Throws: ``GEOSError/Kind/invalidPattern`` saying what is wrong.
    public static func validate(pattern: String) throws(GEOSError) {
        _ = try validatedPattern(pattern)
    }

    /// Checks a DE-9IM pattern and returns it upper-cased as bytes.
    static func validatedPattern(_ pattern: String) throws(GEOSError) -> [UInt8] {
        if let problem = SpatialRelationship.patternProblem(pattern) {
            throw GEOSError(.invalidPattern, problem)
        }
        return Array(pattern.uppercased().utf8)
    }

    private func matching(_ pattern: String) -> Bool {
        (try? matches(pattern)) ?? false
    }

    /// `FF*FF****`.
    public var isDisjoint: Bool { matching("FF*FF****") }
    /// Not disjoint.
    public var isIntersects: Bool { !isDisjoint }
    /// `T*F**FFF*`, or `FFFFFFFF2` (two empty geometries are the same point set, as GEOS's
    /// `equals` and Shapely answer).
    public var isEquals: Bool { matching("T*F**FFF*") || description == "FFFFFFFF2" }
    /// `T*F**F***`: a lies within b.
    public var isWithin: Bool { matching("T*F**F***") }
    /// `T*****FF*`: a contains b.
    public var isContains: Bool { matching("T*****FF*") }
    /// `T*****FF*`, `*T****FF*`, `***T**FF*` or `****T*FF*`: a covers b.
    public var isCovers: Bool {
        matching("T*****FF*") || matching("*T****FF*") || matching("***T**FF*") || matching("****T*FF*")
    }
    /// `T*F**F***`, `*TF**F***`, `**FT*F***` or `**F*TF***`: a is covered by b.
    public var isCoveredBy: Bool {
        matching("T*F**F***") || matching("*TF**F***") || matching("**FT*F***") || matching("**F*TF***")
    }
    /// `FT*******`, `F**T*****` or `F***T****`: the geometries meet only at their boundaries.
    public var isTouches: Bool { matching("FT*******") || matching("F**T*****") || matching("F***T****") }

    /// Whether a crosses b, given the dimensions of a and b: `T*T******` when a has the lower
    /// dimension, `T*****T**` when b does, `0********` for two lines; never for equal
    /// dimensions other than lines.
    public func isCrosses(dimensionA: Int, dimensionB: Int) -> Bool {
        if dimensionA < dimensionB { return matching("T*T******") }
        if dimensionA > dimensionB { return matching("T*****T**") }
        if dimensionA == 1 { return matching("0********") }
        return false
    }

    /// Whether a overlaps b, given their dimensions: `T*T***T**` for two point sets or two
    /// areas, `1*T***T**` for two lines; never for different dimensions.
    public func isOverlaps(dimensionA: Int, dimensionB: Int) -> Bool {
        guard dimensionA == dimensionB else { return false }
        return dimensionA == 1 ? matching("1*T***T**") : matching("T*T***T**")
    }
}

extension IntersectionMatrix {
    /// Every named relationship the matrix decides, for geometries of the given dimensions (see
    /// ``Relationships``).
    ///
    /// - Parameters:
    ///   - dimensionA: The dimension of a (0, 1 or 2; `nil` for an empty collection).
    ///   - dimensionB: The dimension of b.
    public func relationships(dimensionA: Int?, dimensionB: Int?) -> Relationships {
        Relationships(matrix: self, dimensionA: dimensionA, dimensionB: dimensionB)
    }

    /// Whether `relationship` holds for geometries of the given dimensions whose matrix this
    /// is; `nil` for ``/SieveGeometry/SpatialRelationship/envelopeIntersects``, which is about
    /// envelopes, not point sets.
    /// - Throws: ``GEOSError/Kind/invalidPattern`` for a relate pattern that is not one.
    public func satisfies(_ relationship: SpatialRelationship, dimensionA: Int?, dimensionB: Int?) throws(GEOSError) -> Bool? {
        switch relationship {
        case .intersects: return isIntersects
        case .disjoint: return isDisjoint
        case .contains: return isContains
        case .within: return isWithin
        case .touches: return isTouches
        case .crosses, .overlaps:
            guard let dimensionA, let dimensionB else { return false }
            return relationship == .crosses
                ? isCrosses(dimensionA: dimensionA, dimensionB: dimensionB)
                : isOverlaps(dimensionA: dimensionA, dimensionB: dimensionB)
        case .equals: return isEquals
        case .envelopeIntersects: return nil
        case .relate(let pattern): return try matches(pattern)
        }
    }
}

/// Every named relationship of a against b ("a REL b"), derived from their one DE-9IM matrix
/// with the OGC Simple Features definitions.
///
/// Computing the matrix once (``GEOSGeometry/relationships(_:costLimit:)``) and reading every
/// relationship off it costs one GEOS call where asking each predicate costs one each. The
/// definitions, with dim(a), dim(b) the dimensions of the geometries:
///
/// | relationship | pattern |
/// |---|---|
/// | disjoint | `FF*FF****` |
/// | intersects | not disjoint |
/// | contains | `T*****FF*` |
/// | within | `T*F**F***` |
/// | covers | `T*****FF*`, `*T****FF*`, `***T**FF*` or `****T*FF*` |
/// | coveredBy | `T*F**F***`, `*TF**F***`, `**FT*F***` or `**F*TF***` |
/// | touches | `FT*******`, `F**T*****` or `F***T****` |
/// | crosses | `T*T******` if dim(a) < dim(b); `T*****T**` if dim(a) > dim(b); `0********` for two lines; never otherwise |
/// | overlaps | `T*T***T**` for two point sets or two areas; `1*T***T**` for two lines; never for different dimensions |
/// | equals | `T*F**FFF*`, or both empty (`FFFFFFFF2`) |
public struct Relationships: Hashable, Sendable {
    /// The DE-9IM matrix of a against b.
    public let matrix: IntersectionMatrix
    /// The dimension of a (0, 1, 2; `nil` for an empty collection).
    public let dimensionA: Int?
    /// The dimension of b.
    public let dimensionB: Int?

    /// Derives the relationships from a matrix and the two dimensions.
    public init(matrix: IntersectionMatrix, dimensionA: Int?, dimensionB: Int?) {
        self.matrix = matrix
        self.dimensionA = dimensionA
        self.dimensionB = dimensionB
    }

    /// a and b share at least one point.
    public var intersects: Bool { matrix.isIntersects }
    /// a and b share no point.
    public var disjoint: Bool { matrix.isDisjoint }
    /// b lies in a, interiors meeting.
    public var contains: Bool { matrix.isContains }
    /// a lies in b, interiors meeting.
    public var within: Bool { matrix.isWithin }
    /// No point of b lies outside a.
    public var covers: Bool { matrix.isCovers }
    /// No point of a lies outside b.
    public var coveredBy: Bool { matrix.isCoveredBy }
    /// a and b meet only at their boundaries.
    public var touches: Bool { matrix.isTouches }
    /// The interiors meet in a lower dimension than the larger of the two.
    public var crosses: Bool {
        guard let dimensionA, let dimensionB else { return false }
        return matrix.isCrosses(dimensionA: dimensionA, dimensionB: dimensionB)
    }
    /// Same dimension, and the intersection has it too but differs from both.
    public var overlaps: Bool {
        guard let dimensionA, let dimensionB else { return false }
        return matrix.isOverlaps(dimensionA: dimensionA, dimensionB: dimensionB)
    }
    /// a and b are the same point set.
    public var equals: Bool { matrix.isEquals }
}
