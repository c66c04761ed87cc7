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
        let bytes = Array(pattern.uppercased().utf8)
        let allowed = Set("TF*012".utf8)
        guard bytes.count == 9, bytes.allSatisfy({ allowed.contains($0) }) else {
            throw GEOSError(
                .invalidPattern,
                "\"\(pattern)\" is not a DE-9IM pattern: expected 9 characters from T, F, *, 0, 1, 2")
        }
        return bytes
    }

    private func matching(_ pattern: String) -> Bool {
        (try? matches(pattern)) ?? false
    }

    /// `FF*FF****`.
    public var isDisjoint: Bool { matching("FF*FF****") }
    /// Not disjoint.
    public var isIntersects: Bool { !isDisjoint }
    /// `T*F**FFF*`.
    public var isEquals: Bool { matching("T*F**FFF*") }
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
