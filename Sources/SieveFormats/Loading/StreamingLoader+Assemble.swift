import SieveFeatures
import SieveColumns
import SieveGeometry
import SieveJSON

extension StreamingLoader {
    /// Joins the pieces (in input order) into a table: the fields (inferred from every piece's
    /// statistics, or explicit), the object IDs, the columns, the geometry column and type.
    ///
    /// The pieces are consumed: each piece's column is freed as soon as it is copied into the
    /// table's (callers hand them over with `consume`, keeping no other reference), so that a
    /// load's peak memory is about the table plus one column of the pieces, not both whole.
    ///
    /// With `root` (the members of a FeatureCollection's or FeatureSet's root object, in
    /// order), the table gets its ``FileRepresentation``.
    static func assemble(
        _ chunks: consuming [FeatureChunk], context: FeatureReadContext, spatialReference: SpatialReference,
        globalIdFieldName: String?, displayFieldName: String?, root: JSONObject? = nil
    ) throws(FeatureTableError) -> (FeatureTable, LoadReport) {
        var pieces = consume chunks
        var representation = root.map { root in
            FileRepresentation(
                format: context.format == .geoJSON ? .geoJSON : .esriJSON, objectIDs: .attribute, root: root,
                featureMembers: FileRepresentation.completed(
                    (pieces.first?.firstFeatureRoles ?? []).compactMap(FileRepresentation.FeatureMember.init)))
        }
        var report = LoadReport()
        for piece in pieces {
            report.skippedCount += piece.skippedCount
            for var error in piece.firstSkipped where report.firstSkipped.count < 5 {
                error.position = error.position.map { $0 + piece.positionCorrection }
                error.featureIndex = error.featureIndex.map { $0 + piece.featureBase }
                if error.objectID == nil, let index = error.featureIndex { error.objectID = Int64(index + 1) }
                report.firstSkipped.append(error)
            }
        }
        let rows = pieces.reduce(0) { $0 + $1.rows }
        // Each row's feature number in the input.
        var featureOfRow: [Int] = []
        featureOfRow.reserveCapacity(rows)
        for piece in pieces {
            if let map = piece.featureOfRow {
                featureOfRow.append(contentsOf: map.lazy.map { $0 + piece.featureBase })
            } else {
                featureOfRow.append(contentsOf: piece.featureBase..<(piece.featureBase + piece.rows))
            }
        }

        // Geometry type and column.
        var geometryType: GeometryType? = context.options.geometryType
        var sawPoint = false
        var firstTyped: (index: Int, name: String)?
        for piece in pieces {
            sawPoint = sawPoint || piece.tracker.sawPoint
            guard context.options.geometryType == nil, let type = piece.tracker.type else { continue }
            guard let current = geometryType else {
                geometryType = type
                firstTyped = piece.tracker.firstFeature.map { ($0.index + piece.featureBase, $0.name) }
                continue
            }
            guard let merged = current.merging(type) else {
                let here = piece.tracker.firstFeature.map { ($0.index + piece.featureBase, $0.name) } ?? (piece.featureBase, type.rawValue)
                let there = firstTyped ?? (0, current.rawValue)
                throw FeatureTableError(
                    .mixedGeometryTypes,
                    "the feature has a \(here.1) geometry but features[\(there.0)] has a \(there.1) geometry; "
                        + "a table holds one geometry type (only single and multi types of the same dimension may mix)",
                    featureIndex: here.0)
            }
            geometryType = merged
        }
        var geometry = GeometryColumn()
        if pieces.count == 1 {
            geometry = pieces[0].geometry
        } else {
            geometry.reserveCapacity(rows)
            for i in pieces.indices {
                geometry.append(contentsOf: pieces[i].geometry)
                pieces[i].geometry = GeometryColumn()
            }
        }
        if context.format == .esriJSON, let declared = context.declaredType { geometryType = declared }
        if geometryType == .multipoint, sawPoint || geometry.storage == .points {
            let unified = try GeometryTypeTracker.pointsAsMultipoints((0..<geometry.count).map { geometry[$0] }) { (error, i) in
                FeatureTableError(.invalidGeometry, error.message, featureIndex: featureOfRow[i])
            }
            geometry = GeometryColumn(unified)
        }

        // Fields, object IDs and columns.
        var fields: [Field] = []
        var columns: [Column] = []
        var objectIDs: [Int64] = []
        var objectIdIndex = 0
        let idStatistics = pieces.dropFirst().reduce(pieces.first?.ids.statistics ?? PropertyStatistics()) {
            $0.merged(with: $1.ids.statistics)
        }
        let idsAreObjectIDs = rows > 0 && idStatistics.integers == rows
        /// The features' ids as one column of `type` (once).
        func idColumn(_ type: FieldType) -> Column {
            if pieces.count == 1, let direct = pieces[0].ids.column(as: type) { return direct }
            var builder = TypedColumnBuilder(type: type, capacity: rows)
            for p in pieces.indices { pieces[p].ids.write(as: type, into: &builder) }
            return builder.finish()
        }
        func idObjectIDs() -> [Int64] {
            if case .integer(let values) = idColumn(.bigInteger) { return values.values.array }
            return []
        }
        var used = Set<String>()

        if let explicit = context.explicit {
            fields = explicit.fields
            for field in fields { used.insert(field.name.lowercased()) }
            let attributeCount = pieces.reduce(0) { $0 + $1.objectIDAttributeCount }
            if let oid = explicit.objectIdIndex, attributeCount == rows {
                objectIDs = pieces.flatMap(\.objectIDAttribute)
                objectIdIndex = oid
            } else {
                objectIDs = idsAreObjectIDs ? idObjectIDs() : featureOfRow.map { Int64($0 + 1) }
                report.objectIDsArePositions = !idsAreObjectIDs
                representation?.objectIDs = idsAreObjectIDs ? .featureIDs : .positions
                if let oid = explicit.objectIdIndex {
                    objectIdIndex = oid
                } else {
                    let name = uniqueName(TableAssembler.synthesizedObjectIDName, used: &used)
                    fields.insert(Field(name: name, type: .oid), at: 0)
                    objectIdIndex = 0
                    representation?.addedObjectIDField = name
                }
            }
            let shift = explicit.objectIdIndex == nil ? 1 : 0
            for (i, field) in fields.enumerated() {
                if i == objectIdIndex {
                    columns.append(.integer(Int64Column(values: objectIDs)))
                    continue
                }
                var builder = TypedColumnBuilder(type: field.type, capacity: rows)
                if pieces.count == 1 {
                    builder = pieces[0].typed[i - shift]
                } else {
                    for p in pieces.indices {
                        builder.append(contentsOf: pieces[p].typed[i - shift])
                        pieces[p].typed[i - shift] = TypedColumnBuilder(type: field.type)
                    }
                }
                if !field.nullable, let row = builder.firstNullRow {
                    throw FeatureTableError(
                        .conversionFailed, "the field is not nullable but the value is null or missing", featureIndex: featureOfRow[row],
                        objectID: objectIDs[row], fieldName: field.name)
                }
                columns.append(builder.finish())
            }
            // The features' ids, when they are not the object IDs, into the field named for them.
            if let name = context.featureIDFieldName, !idsAreObjectIDs,
                let index = fields.firstIndex(where: { $0.name.lowercased() == name.lowercased() }), index != objectIdIndex
            {
                columns[index] = idColumn(fields[index].type)
                report.featureIDFieldName = fields[index].name
            }
        } else {
            // The keys in order of first appearance over all pieces (only those of stored features).
            var keys: [[UInt8]] = []
            var slotOfKey: [[UInt8]: Int] = [:]
            var parts: [[(piece: Int, slot: Int)]] = []
            for (p, piece) in pieces.enumerated() {
                for (slot, key) in piece.keys.enumerated() where piece.committed[slot] {
                    if let global = slotOfKey[key] {
                        parts[global].append((p, slot))
                    } else {
                        slotOfKey[key] = keys.count
                        keys.append(key)
                        parts.append([(p, slot)])
                    }
                }
            }
            guard keys.count <= Schema.maximumFieldCount else {
                throw FeatureTableError(
                    .tooManyFields,
                    "the properties hold \(keys.count) distinct names; a table holds at most \(Schema.maximumFieldCount) fields")
            }
            let statistics = parts.map { list in
                list.dropFirst().reduce(pieces[list[0].piece].columns[list[0].slot].statistics) { $0.merged(with: pieces[$1.piece].columns[$1.slot].statistics) }
            }
            for (i, key) in keys.enumerated() {
                let text = String(decoding: key, as: UTF8.self)
                fields.append(Field(name: uniqueName(text.isEmpty ? "field\(i + 1)" : text, used: &used), type: statistics[i].fieldType))
                // Values the table holds in another form than the file wrote them.
                if statistics[i].values > 0, statistics[i].booleans == statistics[i].values { representation?.booleanFields.insert(i) }
                if statistics[i].values > 0, statistics[i].others == statistics[i].values { representation?.jsonFields.insert(i) }
            }
            // The object-ID field: the one the file names, else one named OBJECTID (any case),
            // holding an integer in every feature.
            var candidates: [Int] = []
            if let name = context.objectIdFieldName, let slot = slotOfKey[Array(name.utf8)] { candidates.append(slot) }
            candidates += keys.indices.filter { String(decoding: keys[$0], as: UTF8.self).lowercased() == "objectid" }
            let attributeSlot = rows > 0 ? candidates.first(where: { statistics[$0].integers == rows }) : nil
            // Each field's column.
            func column(_ g: Int, type: FieldType) -> Column {
                if parts[g].count == 1, pieces.count == 1, let direct = pieces[0].columns[parts[g][0].slot].column(as: type) {
                    return direct
                }
                var builder = TypedColumnBuilder(type: type, capacity: rows)
                var next = 0
                // By index: an iterator would hold the pieces and keep each part alive.
                for p in pieces.indices {
                    if next < parts[g].count, parts[g][next].piece == p {
                        let slot = parts[g][next].slot
                        pieces[p].columns[slot].write(as: type, into: &builder)
                        // Each part is freed as soon as it is copied: memory stays the table's.
                        pieces[p].columns[slot] = InferredColumn()
                        next += 1
                    } else {
                        builder.appendNulls(pieces[p].rows)
                    }
                }
                return builder.finish()
            }
            // The form of each date field's texts, when it is one the writers can keep.
            if representation != nil {
                for g in keys.indices where fields[g].type == .date {
                    var styles: [FileRepresentation.DateStyle?] = []
                    for part in parts[g] {
                        for style in pieces[part.piece].columns[part.slot].dateStyles() where !styles.contains(style) { styles.append(style) }
                    }
                    if styles.count == 1, let style = styles[0] { representation?.dateStyles[g] = style }
                }
            }
            var built: [Column] = []
            for g in keys.indices { built.append(column(g, type: fields[g].type)) }
            // Whether the features' ids are (or equal) the object IDs.
            let idsAreKept: Bool
            if let attributeSlot {
                fields[attributeSlot] = Field(name: fields[attributeSlot].name, type: .oid)
                objectIdIndex = attributeSlot
                if case .integer(let values) = built[attributeSlot] { objectIDs = values.values.array }
                columns = built
                // Ids that repeat the object-ID attribute (as a query writes them) need no field.
                idsAreKept = representation != nil && idsAreObjectIDs && Self.ids(of: pieces, equal: objectIDs)
                representation?.featureIDsAreObjectIDs = idsAreKept
            } else {
                objectIDs = idsAreObjectIDs ? idObjectIDs() : featureOfRow.map { Int64($0 + 1) }
                report.objectIDsArePositions = !idsAreObjectIDs
                let name = uniqueName(TableAssembler.synthesizedObjectIDName, used: &used)
                fields.insert(Field(name: name, type: .oid), at: 0)
                columns = [.integer(Int64Column(values: objectIDs))] + built
                objectIdIndex = 0
                idsAreKept = idsAreObjectIDs
                representation?.objectIDs = idsAreObjectIDs ? .featureIDs : .positions
                representation?.addedObjectIDField = name
                // The flagged fields moved one place on.
                if let flagged = representation {
                    representation?.booleanFields = Set(flagged.booleanFields.map { $0 + 1 })
                    representation?.jsonFields = Set(flagged.jsonFields.map { $0 + 1 })
                    representation?.dateStyles = Dictionary(uniqueKeysWithValues: flagged.dateStyles.map { ($0.key + 1, $0.value) })
                }
            }
            if idStatistics.values == idStatistics.integers, idStatistics.values > 0, !idsAreKept, representation != nil {
                // Integer ids that are not the object IDs (some features lack one, or they
                // differ from the object-ID attribute): kept for writing the file back.
                representation?.featureIDsByObjectID = Self.ids(of: pieces, byObjectID: objectIDs)
            }
            // Feature ids not used as object IDs are kept in a field.
            if idStatistics.values > idStatistics.integers {
                let type = idStatistics.fieldType
                fields.append(Field(name: uniqueName("id", used: &used), type: type))
                columns.append(idColumn(type))
                report.featureIDFieldName = fields[fields.count - 1].name
                representation?.featureIDField = fields[fields.count - 1].name
            }
            if fields.count > Schema.maximumFieldCount {
                throw FeatureTableError(
                    .tooManyFields,
                    "the table would have \(fields.count) fields (with the \(fields[objectIdIndex].name) field added for the object IDs); "
                        + "a table holds at most \(Schema.maximumFieldCount)")
            }
        }

        guard case .integer(let ids) = columns[objectIdIndex] else {
            throw FeatureTableError(.invalidTable, "the object-ID column is not an integer column")
        }
        let index: ObjectIDIndex
        do throws(ObjectIDIndex.Duplicate) {
            index = try ObjectIDIndex.of(ids.values)
        } catch {
            throw FeatureTableError(
                .duplicateObjectID, "features[\(featureOfRow[error.firstRow])] and features[\(featureOfRow[error.row])] both have object ID \(error.objectID)",
                featureIndex: featureOfRow[error.row], objectID: error.objectID)
        }
        let schema = try Schema(
            fields: fields, objectIdFieldName: fields[objectIdIndex].name, globalIdFieldName: globalIdFieldName,
            displayFieldName: displayFieldName, geometryType: geometryType, spatialReference: spatialReference)
        let table = FeatureTable(
            validatedSchema: schema, columns: columns, geometryColumn: geometry, objectIDIndex: index, representation: representation)
        return (table, report)
    }

    /// The pieces' integer feature ids by the object ID of their row (`objectIDs`, in row order).
    static func ids(of pieces: [FeatureChunk], byObjectID objectIDs: [Int64]) -> [Int64: Int64] {
        var result: [Int64: Int64] = [:]
        var row = 0
        for piece in pieces {
            for local in 0..<piece.rows {
                if row < objectIDs.count, let id = piece.ids.integer(row: local) { result[objectIDs[row]] = id }
                row += 1
            }
        }
        return result
    }

    /// Whether the pieces' feature ids, in row order, are `objectIDs` (every one an integer).
    static func ids(of pieces: [FeatureChunk], equal objectIDs: [Int64]) -> Bool {
        var row = 0
        for piece in pieces {
            for local in 0..<piece.rows {
                guard row < objectIDs.count, piece.ids.integer(row: local) == objectIDs[row] else { return false }
                row += 1
            }
        }
        return row == objectIDs.count
    }

    /// `name`, or `name_1`, `name_2`, … when it is taken (ignoring case); records the result.
    static func uniqueName(_ name: String, used: inout Set<String>) -> String {
        if used.insert(name.lowercased()).inserted { return name }
        var n = 1
        while !used.insert("\(name)_\(n)".lowercased()).inserted { n += 1 }
        return "\(name)_\(n)"
    }
}
