import SieveColumns
import SieveGeometry

extension FeatureQueryResult {
    /// Whether ``makeTable()`` would give the table's own rows unchanged: the result returns
    /// every field in schema order, and the geometries as stored (or the table has none).
    ///
    /// A writer that takes a table and a list of rows (a GeoPackage writer) can then write
    /// ``table`` and ``rows`` without copying anything.
    public var isTableSubset: Bool {
        fieldIndices == Array(table.schema.fields.indices)
            && spatialReference == table.spatialReference
            && returnsGeometry == (table.schema.geometryType != nil)
    }

    /// The result as a table of its own: one row per feature in result order, the result's
    /// fields in output order (the object-ID field among them), and the geometries in
    /// ``spatialReference`` when the result returns them (no geometry type otherwise).
    ///
    /// The global-ID and display fields stay so when the result returns them. The values are
    /// copied: the table holds the result's rows, not the source's.
    ///
    /// - Throws: ``FeatureTableError`` only if the result's pieces do not fit a table, which
    ///   a result of ``FeatureTable/queryFeatures(_:)`` always does.
    public func makeTable() throws(FeatureTableError) -> FeatureTable {
        let source = table.schema
        let fields = fieldIndices.map { source.fields[$0] }
        let names = Set(fields.map { $0.name.lowercased() })
        func kept(_ name: String?) -> String? {
            guard let name, names.contains(name.lowercased()) else { return nil }
            return name
        }
        let schema = try Schema(
            fields: fields, objectIdFieldName: source.objectIdFieldName,
            globalIdFieldName: kept(source.globalIdFieldName), displayFieldName: kept(source.displayFieldName),
            geometryType: returnsGeometry ? source.geometryType : nil, spatialReference: spatialReference)
        let columns = fieldIndices.map { Self.gather(table.columns[$0], rows: rows) }
        if returnsGeometry, projectedGeometries == nil, case .integer(let ids) = columns[schema.objectIdFieldIndex],
            ids.validity == nil, let index = ObjectIDIndex.ordered(ids.values)
        {
            // Results in object-ID order (the default): indexed by the column itself.
            return FeatureTable(
                validatedSchema: schema, columns: columns, geometryColumn: table.geometryColumn.gathering(rows),
                objectIDIndex: index)
        }
        if returnsGeometry, projectedGeometries == nil, let rowByObjectID = Self.rowByObjectID(columns[schema.objectIdFieldIndex]) {
            // The stored geometries, gathered from the column's arrays (no Geometry per row).
            return FeatureTable(
                validatedSchema: schema, columns: columns, geometryColumn: table.geometryColumn.gathering(rows),
                rowByObjectID: rowByObjectID)
        }
        let geometries: [Geometry?] = returnsGeometry ? rows.indices.map { geometry(at: $0) } : []
        return try FeatureTable(schema: schema, columns: columns, geometries: geometries)
    }

    /// Object ID → row for an object-ID column without NULL or repeated IDs; `nil` otherwise (the
    /// table initializer then reports the problem).
    static func rowByObjectID(_ column: Column) -> [Int64: Int]? {
        guard case .integer(let ids) = column, ids.validity.map({ $0.nullCount == 0 }) ?? true else { return nil }
        var rowByObjectID: [Int64: Int] = [:]
        rowByObjectID.reserveCapacity(ids.values.count)
        for (row, id) in ids.values.enumerated() where rowByObjectID.updateValue(row, forKey: id) != nil { return nil }
        return rowByObjectID
    }

    /// The values of `rows` of `column`, in that order.
    static func gather(_ column: Column, rows: [Int]) -> Column {
        func validity(_ bitmap: ValidityBitmap?) -> ValidityBitmap? {
            guard let bitmap else { return nil }
            var result = ValidityBitmap(count: rows.count, allValid: true)
            for (i, row) in rows.enumerated() where !bitmap.isValid(row) { result.set(i, valid: false) }
            return result.nullCount == 0 ? nil : result
        }
        switch column {
        case .integer(let values):
            return .integer(Int64Column(values: rows.map { values.values[$0] }, validity: validity(values.validity)))
        case .date(let values):
            return .date(Int64Column(values: rows.map { values.values[$0] }, validity: validity(values.validity)))
        case .double(let values):
            return .double(DoubleColumn(values: rows.map { values.values[$0] }, validity: validity(values.validity)))
        case .string(let strings):
            let encoding: StringColumn.Encoding
            switch strings.encoding {
            case .dictionary(let codes, let dictionary):
                encoding = .dictionary(codes: ColumnBuffer(rows.lazy.map { codes[$0] }), dictionary: dictionary)
            case .plain(let storage):
                var gathered = StringStorage()
                for row in rows { gathered.append(storage[row]) }
                encoding = .plain(gathered)
            }
            return .string(StringColumn(encoding: encoding, validity: validity(strings.validity)))
        }
    }
}
