import SieveCQL
import SieveGEOS
import SieveGeometry
import SieveSQL
import SieveJSON

/// What a query over a ``FeatureTable`` asks for, after the ArcGIS REST `query` operation:
/// which rows (``whereClause`` AND ``objectIDs``), which fields (``outFields``), whether
/// geometries come back (``returnGeometry``), in what order (``orderBy``) and which page
/// (``resultOffset``, ``maxFeatures``).
///
/// ```swift
/// var query = QueryParameters(whereClause: "continent = 'Africa'")
/// query.outFields = ["name", "pop_est"]
/// query.orderBy = try SortField.list("pop_est DESC, name")
/// query.maxFeatures = 10
/// let result = try table.queryFeatures(query)
/// ```
///
/// Semantics (see ``FeatureTable/queryFeatures(_:)``):
/// - A row is selected when the where clause is TRUE for it and, when ``objectIDs`` is given,
///   its object ID is in that list (object IDs the table does not hold simply match nothing),
///   and, when ``geometry`` is given, its geometry stands in ``spatialRelationship`` to it
///   (read from the feature's side: `within` selects the features inside the query geometry).
/// - Without ``orderBy`` rows come in ascending object-ID order; with it, rows are ordered by
///   the sort fields in turn (NULL before every value ascending, after every value
///   descending; strings under the query's collation), and rows that tie on every sort field
///   keep ascending object-ID order.
/// - ``resultOffset`` and ``maxFeatures`` cut the ordered rows: rows
///   `offset ..< offset + maxFeatures`.
public struct QueryParameters: Hashable, Sendable {
    /// The SQL where clause, e.g. `pop_est > 1000000 AND continent = 'Asia'`. `1=1` (the
    /// default) or empty text selects every row.
    public var whereClause: String
    /// When given, only rows with one of these object IDs are selected (ANDed with the where
    /// clause). Unknown IDs match nothing; repeated IDs count once; the order does not matter.
    public var objectIDs: [Int64]?
    /// The fields of each returned feature, by name (case-insensitive); `nil` or a list
    /// containing `*` means every field. The object-ID field is always returned (first, unless
    /// the list names it elsewhere); repeated names count once.
    public var outFields: [String]?
    /// Whether features carry their geometries.
    public var returnGeometry: Bool
    /// The sort fields, most significant first; empty for ascending object-ID order.
    public var orderBy: [SortField]
    /// How many of the ordered rows to skip (`nil` for 0). Must not be negative.
    public var resultOffset: Int?
    /// At most how many rows to return after the offset (`nil` for all). Must not be negative;
    /// 0 returns no row.
    public var maxFeatures: Int?
    /// The string collation for the where clause and ordering; `nil` for the table's
    /// ``FeatureTable/collation``.
    public var collation: Collation?
    /// The query geometry of a spatial filter, or `nil` for none. Rows without a geometry (or
    /// with an empty one) never pass a spatial filter.
    public var geometry: Geometry?
    /// The spatial reference ``geometry`` is written in; `nil` for the table's own. A geometry
    /// in another reference is projected into the table's (see `Projector` in
    /// SieveProjection): 4326 ⇄ 3857 exactly, every other pair through PROJ with densified
    /// edges. A reference PROJ does not know, or a geometry that does not transform, is an
    /// error (``FeatureTableError/Kind/invalidQuery``).
    public var inSpatialReference: SpatialReference?
    /// The spatial reference of the returned geometries and extent; `nil` for the table's own.
    /// ``FeatureTable/queryFeatures(_:)`` projects each returned geometry vertex by vertex
    /// (no densification) and ``FeatureTable/queryExtent(_:)`` gives the extent of the
    /// projected geometries; counts and object IDs do not depend on it. An unknown reference,
    /// or a geometry that does not transform, is an error (``FeatureTableError/Kind/invalidQuery``).
    public var outSpatialReference: SpatialReference?
    /// How a row's geometry (a) must relate to ``geometry`` (b), read "feature REL query
    /// geometry": `.within` selects features lying within the query geometry, `.contains`
    /// features containing it, `.relate(pattern:)` matches the DE-9IM matrix of feature
    /// against query geometry. Default `.intersects`.
    public var spatialRelationship: SpatialRelationship
    /// With ``geometry``: how far from it a selected feature may lie (``QueryDistance``), or
    /// `nil` for the relationship alone. Only with ``spatialRelationship`` `.intersects`.
    public var distance: QueryDistance?
    /// A CQL2 filter every selected feature must also pass (OGC API's `filter`), or `nil` for
    /// none. It runs after the where clause, spatial filter and object IDs, as
    /// ``FeatureFilter`` says.
    public var filter: CQL2Filter?
    /// The spatial reference of ``filter``'s geometry literals (`filter-crs`); WGS 84
    /// longitude/latitude (CRS84) when `nil`.
    public var filterSpatialReference: SpatialReference?

    /// Creates query parameters; every parameter has the default of the ArcGIS REST API.
    public init(
        whereClause: String = "1=1", objectIDs: [Int64]? = nil, outFields: [String]? = nil,
        returnGeometry: Bool = true, orderBy: [SortField] = [], resultOffset: Int? = nil, maxFeatures: Int? = nil,
        collation: Collation? = nil, geometry: Geometry? = nil, inSpatialReference: SpatialReference? = nil,
        spatialRelationship: SpatialRelationship = .intersects, outSpatialReference: SpatialReference? = nil,
        filter: CQL2Filter? = nil, filterSpatialReference: SpatialReference? = nil
    ) {
        self.filter = filter
        self.filterSpatialReference = filterSpatialReference
        self.outSpatialReference = outSpatialReference
        self.geometry = geometry
        self.inSpatialReference = inSpatialReference
        self.spatialRelationship = spatialRelationship
        self.distance = nil
        self.whereClause = whereClause
        self.objectIDs = objectIDs
        self.outFields = outFields
        self.returnGeometry = returnGeometry
        self.orderBy = orderBy
        self.resultOffset = resultOffset
        self.maxFeatures = maxFeatures
        self.collation = collation
    }
}

/// One sort field of ``QueryParameters/orderBy``: a field name (case-insensitive) and a
/// direction.
public struct SortField: Hashable, Sendable, CustomStringConvertible {
    /// The most sort fields a list may give (``list(_:schema:)``): more are an error, not a
    /// sort that takes minutes.
    public static let maximumCount = 100

    /// The field's name, matched ignoring case.
    public var field: String
    /// Ascending (the default; NULL first) or descending (NULL last).
    public var ascending: Bool

    /// A sort field.
    public init(_ field: String, ascending: Bool = true) {
        self.field = field
        self.ascending = ascending
    }

    /// `field ASC` or `field DESC`.
    public var description: String { field + (ascending ? " ASC" : " DESC") }

    /// Reads an ArcGIS `orderByFields` text: `f1 DESC, f2, "f 3" ASC` — comma-separated field
    /// names, each optionally followed by `ASC` or `DESC` (any case). A name may be written in
    /// double quotes (`""` inside for a quote). Empty text (or only spaces) is no ordering.
    ///
    /// With `schema`, each name must name one of its fields (ignoring case) and is replaced by
    /// the field's canonical name.
    ///
    /// ```swift
    /// try SortField.list("pop_est DESC, name")  // [pop_est DESC, name ASC]
    /// ```
    /// - Throws: ``FeatureTableError/Kind/invalidQuery`` for an empty item (`a,,b`), a
    ///   missing name, an unterminated quote, a word other than ASC/DESC after the name, more
    ///   than ``maximumCount`` items, or (with `schema`) an unknown field, with a suggestion when
    ///   one is close.
    public static func list(_ text: String, schema: Schema? = nil) throws(FeatureTableError) -> [SortField] {
        if text.allSatisfy(\.isWhitespace) { return [] }
        let items = splitItems(text)
        guard items.count <= maximumCount else {
            throw FeatureTableError(.invalidQuery, "orderByFields lists \(items.count) fields; at most \(maximumCount) are allowed")
        }
        var result: [SortField] = []
        for (i, item) in items.enumerated() {
            var rest = Substring(item.trimmingWhitespace())
            guard !rest.isEmpty else {
                throw FeatureTableError(.invalidQuery, "orderByFields item \(i + 1) is empty in \(JSONKey.quoted(text))")
            }
            let name: String
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var collected = ""
                var closed = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if character == "\"" {
                        if rest.first == "\"" {
                            collected.append("\"")
                            rest = rest.dropFirst()
                        } else {
                            closed = true
                            break
                        }
                    } else {
                        collected.append(character)
                    }
                }
                guard closed else {
                    throw FeatureTableError(.invalidQuery, "unterminated quoted field name in orderByFields \(JSONKey.quoted(text))")
                }
                guard !collected.isEmpty else {
                    throw FeatureTableError(.invalidQuery, "empty field name in orderByFields \(JSONKey.quoted(text))")
                }
                name = collected
            } else {
                let end = rest.firstIndex(where: \.isWhitespace) ?? rest.endIndex
                name = String(rest[..<end])
                rest = rest[end...]
            }
            let words = rest.split(whereSeparator: \.isWhitespace)
            var ascending = true
            if let word = words.first {
                switch word.uppercased() {
                case "ASC": ascending = true
                case "DESC": ascending = false
                default:
                    throw FeatureTableError(
                        .invalidQuery, "expected ASC or DESC after \(JSONKey.quoted(name)) in orderByFields, not \(JSONKey.quoted(String(word)))")
                }
            }
            guard words.count <= 1 else {
                throw FeatureTableError(
                    .invalidQuery, "unexpected \(JSONKey.quoted(String(words[1]))) after \(JSONKey.quoted(name + " " + words[0])) in orderByFields")
            }
            var field = SortField(name, ascending: ascending)
            if let schema {
                field.field = try QueryPlan.resolve(name, in: schema, parameter: "orderByFields").name
            }
            result.append(field)
        }
        return result
    }

    /// The comma-separated items of `text`, not splitting inside double quotes.
    private static func splitItems(_ text: String) -> [Substring] {
        var items: [Substring] = []
        var start = text.startIndex
        var inQuotes = false
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "\"" {
                inQuotes.toggle()
            } else if character == ",", !inQuotes {
                items.append(text[start..<index])
                start = text.index(after: index)
            }
            index = text.index(after: index)
        }
        items.append(text[start...])
        return items
    }
}

extension StringProtocol {
    /// The text without leading and trailing white space.
    package func trimmingWhitespace() -> SubSequence {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
            let last = lastIndex(where: { !$0.isWhitespace })
        else { return self[endIndex...] }
        return self[first...last]
    }
}

extension FeatureTableError.Kind {
    /// Query parameters that cannot be honoured: an unknown field in `outFields` or
    /// `orderByFields`, a malformed `orderByFields` text, a negative `resultOffset` or
    /// `maxFeatures`. (A bad where clause throws the `WhereClauseError` of SieveSQL instead.)
    public static let invalidQuery = FeatureTableError.Kind(rawValue: "invalid query")
}

extension FeatureTableError {
    /// See ``Kind/invalidQuery``.
    public static var invalidQuery: Kind { .invalidQuery }
}
