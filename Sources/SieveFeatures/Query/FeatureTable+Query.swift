import SieveColumns
import SieveGeometry
import SieveSQL

extension FeatureTable {
    /// The features a query selects, ordered and paged, as a light view over this table (no
    /// value is copied): see ``FeatureQueryResult``.
    ///
    /// Selection: rows whose where clause is TRUE and, when ``QueryParameters/objectIDs`` is
    /// given, whose object ID is listed, and, when ``QueryParameters/geometry`` is given, whose
    /// geometry stands in ``QueryParameters/spatialRelationship`` to the query geometry (read
    /// from the feature's side; rows without geometry never pass). Order: ascending object ID without
    /// ``QueryParameters/orderBy``; otherwise by the sort fields (NULL first ascending, last
    /// descending; strings under the query's or else the table's ``collation``), ties in
    /// ascending object-ID order. Then ``QueryParameters/resultOffset`` rows are skipped and
    /// at most ``QueryParameters/maxFeatures`` kept;
    /// ``FeatureQueryResult/exceededTransferLimit`` says whether rows were left off after the
    /// page.
    ///
    /// ```swift
    /// let result = try table.queryFeatures(QueryParameters(
    ///     whereClause: "continent = 'Africa'", orderBy: [SortField("pop_est", ascending: false)],
    ///     maxFeatures: 3))
    /// result.map(\.objectID)  // the three most populous African countries
    /// ```
    ///
    /// - Throws: `WhereClauseError` (SieveSQL) for a where clause that does not parse or bind;
    ///   ``FeatureTableError`` of kind ``FeatureTableError/Kind/invalidQuery`` for an unknown
    ///   field in ``QueryParameters/outFields`` or ``QueryParameters/orderBy``, a negative
    ///   offset or limit, a query geometry GEOS rejects or that cannot be projected to the
    ///   table's spatial reference, or an invalid relate pattern; of kind
    ///   ``FeatureTableError/Kind/invalidGeometry`` when GEOS fails on a feature's geometry.
    public func queryFeatures(_ query: QueryParameters) throws -> FeatureQueryResult {
        try PreparedQuery(query, table: self).features(in: self)
    }

    /// How many rows the query selects (where clause AND object IDs AND spatial filter).
    ///
    /// Like ArcGIS `returnCountOnly`, the count ignores ordering and paging
    /// (``QueryParameters/resultOffset``, ``QueryParameters/maxFeatures``), which are
    /// nevertheless checked, as are the out fields.
    /// - Throws: As ``queryFeatures(_:)``.
    public func queryFeatureCount(_ query: QueryParameters) throws -> Int {
        try PreparedQuery(query, table: self).count(in: self)
    }

    /// The object IDs of the rows the query selects, ascending.
    ///
    /// Like ArcGIS `returnIdsOnly` (which has no record limit), ordering and paging do not
    /// apply, though they are checked.
    /// - Throws: As ``queryFeatures(_:)``.
    public func queryObjectIDs(_ query: QueryParameters) throws -> [Int64] {
        try PreparedQuery(query, table: self).objectIDs(in: self)
    }

    /// How many rows the query selects and the union of their envelopes.
    ///
    /// Rows without a geometry (or with an empty one) are counted but add nothing to the
    /// extent; when no selected row has a geometry the extent is `Envelope.empty` (its
    /// `isEmpty` is true). Like ArcGIS `returnExtentOnly`, ordering and paging do
    /// not apply, though they are checked. With ``QueryParameters/outSpatialReference``, the
    /// extent is that of the selected geometries projected into it.
    /// - Throws: As ``queryFeatures(_:)``.
    public func queryExtent(_ query: QueryParameters) throws -> (count: Int, extent: Envelope) {
        try PreparedQuery(query, table: self).extent(in: self)
    }
}

/// The features a ``FeatureTable/queryFeatures(_:)`` call selected: the rows in result order,
/// the fields returned, and whether geometries are — a view over the table, nothing copied.
///
/// It is a random-access collection of ``Feature`` values:
///
/// ```swift
/// for feature in result {
///     print(feature.objectID, feature.value(ofField: "name"), feature.geometry as Any)
/// }
/// ```
///
/// Write it out with `geoJSON` or `esriJSON` (or the byte-appending forms), or in any
/// `FeatureOutputFormat` with `FeatureWriterOptions` through `text(_:options:)` and the
/// streaming `write(_:options:chunkSize:progress:flush:)` (module SieveFormats).
public struct FeatureQueryResult: RandomAccessCollection, Sendable {
    /// The table queried.
    public let table: FeatureTable
    /// The selected rows of ``table``, in result order.
    public let rows: [Int]
    /// The schema indices of the returned fields, in output order (the object-ID field always
    /// among them).
    public let fieldIndices: [Int]
    /// Whether features carry geometries (the query asked for them and the table has a
    /// geometry type).
    public let returnsGeometry: Bool
    /// Whether the page ended before the last selected row (more rows follow: ask again with a
    /// larger ``QueryParameters/resultOffset``), as ArcGIS's `exceededTransferLimit`.
    public let exceededTransferLimit: Bool
    /// The spatial reference of the returned geometries: the query's
    /// ``QueryParameters/outSpatialReference``, else the table's.
    public let spatialReference: SpatialReference
    /// The returned geometries projected into ``spatialReference``, by position, when it is not
    /// the table's; `nil` when the table's geometries are returned as stored (the writers then
    /// read them from the table's geometry column).
    package let projectedGeometries: [Geometry?]?

    /// The same result saying whether rows were left off after it (a source that paged it
    /// elsewhere, as in a database, knows).
    package func marking(exceededTransferLimit: Bool) -> FeatureQueryResult {
        FeatureQueryResult(
            table: table, rows: rows, fieldIndices: fieldIndices, returnsGeometry: returnsGeometry,
            exceededTransferLimit: exceededTransferLimit, spatialReference: spatialReference, projectedGeometries: projectedGeometries)
    }

    /// Creates a result; ``FeatureTable/queryFeatures(_:)`` is the way to get one.
    package init(
        table: FeatureTable, rows: [Int], fieldIndices: [Int], returnsGeometry: Bool, exceededTransferLimit: Bool,
        spatialReference: SpatialReference? = nil, projectedGeometries: [Geometry?]? = nil
    ) {
        self.table = table
        self.rows = rows
        self.fieldIndices = fieldIndices
        self.returnsGeometry = returnsGeometry
        self.exceededTransferLimit = exceededTransferLimit
        self.spatialReference = spatialReference ?? table.spatialReference
        self.projectedGeometries = projectedGeometries
    }

    /// The geometry of the feature at `position` (0-based, in result order) in
    /// ``spatialReference``, when the result returns geometries and the feature has one, as a
    /// `Geometry` value (materialized from the table's geometry column). The writers read
    /// geometries returned as stored straight from the column, and projected ones through this.
    public func geometry(at position: Int) -> Geometry? {
        guard returnsGeometry else { return nil }
        if let projectedGeometries { return projectedGeometries[position] }
        return table.geometry(row: rows[position])
    }

    /// The returned fields, in output order.
    public var fields: [Field] { fieldIndices.map { table.schema.fields[$0] } }

    /// The object IDs of the features, in result order.
    public var objectIDs: [Int64] {
        let ids = table.objectIDs
        return rows.map { ids[$0] }
    }

    /// The first position, 0.
    public var startIndex: Int { 0 }
    /// The number of features.
    public var endIndex: Int { rows.count }

    /// The feature at `position` (0-based, in result order).
    public subscript(position: Int) -> Feature {
        Feature(result: self, position: position)
    }

    /// One feature of a ``FeatureQueryResult``: a row of the table seen through the result's
    /// fields.
    public struct Feature: Sendable {
        /// The result it belongs to.
        private let result: FeatureQueryResult
        /// The position in the result.
        private let position: Int
        /// The row of the table.
        public let row: Int

        init(result: FeatureQueryResult, position: Int) {
            self.result = result
            self.position = position
            self.row = result.rows[position]
        }

        /// The feature's object ID.
        public var objectID: Int64 { result.table.objectID(row: row) }

        /// The geometry, when the result returns geometries and the feature has one, in the
        /// result's ``FeatureQueryResult/spatialReference``.
        public var geometry: Geometry? { result.geometry(at: position) }

        /// The values of the result's fields, in the result's field order.
        public var values: [ScalarValue] { result.fieldIndices.map { result.table.columns[$0][row] } }

        /// The value of the field named `name` (ignoring case), or `nil` when the result does not
        /// return that field.
        public func value(ofField name: String) -> ScalarValue? {
            guard let index = result.table.schema.index(ofField: name), result.fieldIndices.contains(index) else {
                return nil
            }
            return result.table.columns[index][row]
        }

        /// The (field name, value) pairs of the result's fields, in order.
        public var attributes: [(name: String, value: ScalarValue)] {
            result.fieldIndices.map { (result.table.schema.fields[$0].name, result.table.columns[$0][row]) }
        }
    }
}
