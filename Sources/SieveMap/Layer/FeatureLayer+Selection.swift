import SieveFeatures
import SieveGeometry
import SieveSQL

/// How a selection by query combines with the current selection (ArcGIS `SelectionMode`).
public enum SelectionMode: String, Hashable, Sendable, CaseIterable {
    /// The query's features replace the selection.
    case new
    /// The query's features are added to the selection.
    case add
    /// The query's features are removed from the selection.
    case subtract
}

extension FeatureLayer {
    /// Selects the layer's features `query` finds (the definition expression applies), combined
    /// with the current selection as `mode` says, and returns the features the query found
    /// (ordered and paged as it asks; paging limits the returned features and the selection
    /// alike, as the selection is made of the returned page).
    /// - Throws: As ``queryFeatures(_:)``; the selection is unchanged then.
    @discardableResult
    public mutating func selectFeatures(_ query: QueryParameters, mode: SelectionMode = .new) throws -> FeatureQueryResult {
        let result = try queryFeatures(query)
        var ids = result.objectIDs
        ids.sort()
        switch mode {
        case .new: selection = Self.unique(ids)
        case .add: selection = Self.merge(selection, Self.unique(ids))
        case .subtract: selection = Self.subtract(selection, ids)
        }
        return result
    }

    /// Adds the features with these object IDs to the selection; IDs of features the layer
    /// does not show (absent, deleted, or excluded by the definition expression) are ignored.
    public mutating func selectFeatures(objectIDs: [Int64]) throws {
        let found = try queryObjectIDs(QueryParameters(objectIDs: objectIDs, returnGeometry: false))
        selection = Self.merge(selection, found)
    }

    /// Removes the features with these object IDs from the selection.
    public mutating func unselectFeatures(objectIDs: [Int64]) {
        selection = Self.subtract(selection, objectIDs.sorted())
    }

    /// Empties the selection.
    public mutating func clearSelection() { selection = [] }

    /// The selected features as the table is now, in ascending object-ID order: features deleted
    /// since they were selected, or edited out of the definition expression, are left out.
    public func selectedFeatures(returnGeometry: Bool = true) throws -> FeatureQueryResult {
        let table = try self.table
        let rows = try liveSelection(in: table).rows
        return try PreparedQuery(QueryParameters(returnGeometry: returnGeometry), table: table).features(in: table, rows: rows)
    }

    /// The object IDs of the selected features as the table is now, ascending.
    public var selectedObjectIDs: [Int64] {
        get throws { try liveSelection(in: try table).objectIDs }
    }

    /// The selected rows of `table` (the selection's features that still exist and pass the
    /// definition expression), as a row set.
    public func selectedRows(in table: FeatureTable) throws -> RowSet {
        RowSet(rows: try liveSelection(in: table).rows, in: table)
    }

    /// The selection resolved against `table`: rows ascending and object IDs ascending.
    func liveSelection(in table: FeatureTable) throws -> (rows: [UInt32], objectIDs: [Int64]) {
        guard !selection.isEmpty else { return ([], []) }
        var rows: [UInt32] = []
        rows.reserveCapacity(selection.count)
        for id in selection {
            if let row = table.row(forObjectID: id), !table.isDeleted(row: row) { rows.append(UInt32(row)) }
        }
        rows.sort()
        if !definitionWhereClause.selectsEverything {
            rows = definitionWhereClause.matchingRows(in: table.columns, rowCount: table.count, candidates: rows)
        }
        let ids = table.objectIDs
        var objectIDs = rows.map { ids[Int($0)] }
        objectIDs.sort()
        return (rows, objectIDs)
    }

    /// Sorted `ids` without repeats.
    static func unique(_ ids: [Int64]) -> [Int64] {
        var result: [Int64] = []
        result.reserveCapacity(ids.count)
        for id in ids where result.last != id { result.append(id) }
        return result
    }

    /// The union of two ascending, repeat-free lists.
    static func merge(_ a: [Int64], _ b: [Int64]) -> [Int64] {
        if a.isEmpty { return b }
        if b.isEmpty { return a }
        var result: [Int64] = []
        result.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count, j < b.count {
            if a[i] < b[j] {
                result.append(a[i]); i += 1
            } else if b[j] < a[i] {
                result.append(b[j]); j += 1
            } else {
                result.append(a[i]); i += 1; j += 1
            }
        }
        result += a[i...]
        result += b[j...]
        return result
    }

    /// The ascending list `a` without the values of the ascending list `b`.
    static func subtract(_ a: [Int64], _ b: [Int64]) -> [Int64] {
        guard !a.isEmpty, !b.isEmpty else { return a }
        var result: [Int64] = []
        result.reserveCapacity(a.count)
        var j = 0
        for value in a {
            while j < b.count, b[j] < value { j += 1 }
            if j < b.count, b[j] == value { continue }
            result.append(value)
        }
        return result
    }
}
