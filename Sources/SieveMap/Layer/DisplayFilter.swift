import SieveFeatures
import SieveGeometry
import SieveSQL
import SieveJSON

/// A named where clause that limits which features of a layer are drawn (ArcGIS
/// `DisplayFilter`). A display filter never changes what the layer's queries, counts,
/// statistics or selections see: only what
/// ``FeatureLayer/displayedFeatures(in:scale:returnGeometry:)`` and its count return (and what
/// identify can hit, since it finds drawn features only).
public struct DisplayFilter: Hashable, Sendable {
    /// The filter's name, unique within its definition.
    public var name: String
    /// The where clause a feature must satisfy to be drawn; must not be empty.
    public var whereClause: String

    /// A display filter.
    public init(name: String, whereClause: String) {
        self.name = name
        self.whereClause = whereClause
    }
}

/// A display filter that applies within a scale range (ArcGIS `ScaleRangeDisplayFilter`).
///
/// It applies at a map scale `s` when `s <= minScale` (or `minScale` is 0: no bound when
/// zoomed out) and `s >= maxScale` (or `maxScale` is 0: no bound when zoomed in) — both bounds
/// inclusive, as the Runtime reads them. Scales are denominators: 1:50,000 is 50000, and a
/// larger number is zoomed further out, so `minScale` ≥ `maxScale` unless one is 0.
public struct ScaleRangeDisplayFilter: Hashable, Sendable {
    /// The filter's name.
    public var name: String
    /// The where clause a feature must satisfy to be drawn; must not be empty.
    public var whereClause: String
    /// The most zoomed-out scale the filter applies at; 0 for no bound.
    public var minScale: Double
    /// The most zoomed-in scale the filter applies at; 0 for no bound.
    public var maxScale: Double

    /// A scale-range display filter.
    public init(name: String, whereClause: String, minScale: Double = 0, maxScale: Double = 0) {
        self.name = name
        self.whereClause = whereClause
        self.minScale = minScale
        self.maxScale = maxScale
    }

    /// Whether the filter applies at `scale`.
    public func applies(atScale scale: Double) -> Bool {
        (minScale == 0 || scale <= minScale) && (maxScale == 0 || scale >= maxScale)
    }
}

/// How a layer chooses its display filter (ArcGIS `DisplayFilterDefinition`).
public enum DisplayFilterDefinition: Hashable, Sendable {
    /// One of `availableFilters`, chosen by name (`activeFilterName`), applies at every scale;
    /// `nil` for none (every feature of the definition expression drawn).
    case manual(activeFilterName: String?, availableFilters: [DisplayFilter])
    /// The first filter (in order) whose scale range holds the map scale applies; at a scale
    /// no filter covers, every feature is drawn.
    case scale([ScaleRangeDisplayFilter])

    /// A manual definition with `activeFilter` active (ArcGIS
    /// `ManualDisplayFilterDefinition(activeFilter:availableFilters:)`); `activeFilter` is
    /// added to the available filters when not among them.
    public static func manual(activeFilter: DisplayFilter?, availableFilters: [DisplayFilter]) -> DisplayFilterDefinition {
        var filters = availableFilters
        if let activeFilter, !filters.contains(activeFilter) { filters.insert(activeFilter, at: 0) }
        return .manual(activeFilterName: activeFilter?.name, availableFilters: filters)
    }

    /// The where clause in force at `scale`, or `nil` when no filter applies.
    public func activeWhereClause(atScale scale: Double) -> String? {
        switch self {
        case .manual(let name, let filters):
            guard let name else { return nil }
            return filters.first { $0.name == name }?.whereClause
        case .scale(let filters):
            return filters.first { $0.applies(atScale: scale) }?.whereClause
        }
    }

    /// Every where clause with its filter's name.
    var clauses: [(name: String, whereClause: String)] {
        switch self {
        case .manual(_, let filters): filters.map { ($0.name, $0.whereClause) }
        case .scale(let filters): filters.map { ($0.name, $0.whereClause) }
        }
    }

    /// Checks the definition: names unique and not empty, where clauses not empty, the active
    /// filter among the available ones, scale bounds finite and not negative, `maxScale` not
    /// above `minScale` when both are set.
    /// - Throws: ``FeatureTableError/Kind/invalidQuery`` saying which filter is wrong.
    func validate() throws(FeatureTableError) {
        var names = Set<String>()
        for (name, clause) in clauses {
            guard !name.isEmpty else { throw FeatureTableError(.invalidQuery, "a display filter has an empty name") }
            guard names.insert(name).inserted else {
                throw FeatureTableError(.invalidQuery, "two display filters are named \(JSONKey.quoted(name))")
            }
            guard !clause.allSatisfy(\.isWhitespace) else {
                throw FeatureTableError(.invalidQuery, "display filter \(JSONKey.quoted(name)) has an empty where clause")
            }
        }
        switch self {
        case .manual(let name, _):
            if let name, !names.contains(name) {
                throw FeatureTableError(
                    .invalidQuery, "the active display filter \(JSONKey.quoted(name)) is not among the available filters")
            }
        case .scale(let filters):
            for filter in filters {
                guard filter.minScale.isFinite, filter.maxScale.isFinite, filter.minScale >= 0, filter.maxScale >= 0 else {
                    throw FeatureTableError(
                        .invalidQuery, "display filter \(JSONKey.quoted(filter.name)): scales must be finite and not negative")
                }
                if filter.minScale > 0, filter.maxScale > filter.minScale {
                    throw FeatureTableError(
                        .invalidQuery,
                        "display filter \(JSONKey.quoted(filter.name)): maxScale \(formatNumber(filter.maxScale)) is above "
                            + "minScale \(formatNumber(filter.minScale)) (scales are denominators: maxScale is the zoomed-in bound)")
                }
            }
        }
    }
}
