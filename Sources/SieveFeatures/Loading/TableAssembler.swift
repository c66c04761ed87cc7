import SieveColumns
import SieveGeometry

/// The format-independent part of loading: resolving the fields (inferred or explicit), the
/// object IDs, the columns and the schema, from each feature's attribute object.
struct TableAssembler {
    /// Each feature's attributes (GeoJSON `properties`, Esri `attributes`); `nil` for none.
    var attributes: [JSONObject?]
    /// Each feature's GeoJSON `id`, when every feature has an integer one; else `nil`.
    var featureIDs: [Int64]?
    /// The fields given by the caller or the file; `nil` to infer them.
    var explicitFields: [Field]?
    /// The object-ID field the file names (Esri `objectIdFieldName`), if any.
    var objectIdFieldName: String?
    /// The global-ID field the file names, if any.
    var globalIdFieldName: String?
    /// The display field the file names, if any.
    var displayFieldName: String?

    /// The name of a synthesized object-ID field.
    static let synthesizedObjectIDName = "OBJECTID"

    /// Where the object IDs come from.
    private enum ObjectIDSource: Equatable {
        /// The attribute mapped to the object-ID field.
        case attribute
        /// The GeoJSON feature `id`.
        case featureID
        /// The 1-based position in the file.
        case position
    }

    /// The resolved fields: the final field list, the object-ID field's index, and how an
    /// attribute key maps to a field index (`-1`: ignored).
    private struct ResolvedFields {
        var fields: [Field]
        var objectIdIndex: Int
        var source: ObjectIDSource
        var resolve: (String) -> Int
        /// How many non-null values each field will receive, when known (from the inference).
        var valueCounts: [Int]? = nil
    }

    /// Builds the table; `decodeGeometries` is given the object IDs (for its error messages)
    /// and returns the geometry type and each feature's geometry.
    func assemble(
        spatialReference: SpatialReference,
        decodeGeometries: ([Int64]) throws(FeatureTableError) -> (GeometryType?, [Geometry?])
    ) throws(FeatureTableError) -> FeatureTable {
        let count = attributes.count
        let resolved = try resolveFields()
        let (objectIDs, rowByObjectID) = try objectIDs(resolved)
        var builders = resolved.fields.indices.map { i in
            ColumnBuilder(
                field: resolved.fields[i], count: count,
                expectedValues: i == resolved.objectIdIndex ? count : resolved.valueCounts?[i])
        }
        for row in 0..<count {
            builders[resolved.objectIdIndex].setInteger(objectIDs[row], row: row)
        }
        var cache = KeySlotCache()
        // The last row each field was set in, to find two members of one object that land in
        // the same field (with explicit fields, names match ignoring case).
        var lastRowSet = [Int](repeating: -1, count: resolved.fields.count)
        for (row, object) in attributes.enumerated() {
            guard let object else { continue }
            for (position, member) in object.members.enumerated() {
                let slot = cache.slot(for: member.key, at: position, resolve: resolved.resolve)
                guard slot >= 0 else { continue }
                guard lastRowSet[slot] != row else {
                    throw FeatureTableError(
                        .conversionFailed,
                        "the member \(JSONKey.quoted(member.key)) names a field another member of the feature "
                            + "already names (field names match ignoring case)",
                        position: member.value.position, featureIndex: row, objectID: objectIDs[row],
                        fieldName: resolved.fields[slot].name)
                }
                lastRowSet[slot] = row
                guard slot != resolved.objectIdIndex else { continue }
                do throws(ConversionFailure) {
                    try builders[slot].set(member.value, row: row)
                } catch {
                    throw FeatureTableError(
                        .conversionFailed, error.message, position: member.value.position, featureIndex: row,
                        objectID: objectIDs[row], fieldName: resolved.fields[slot].name)
                }
            }
        }
        for builder in builders where !builder.field.nullable && builder.field.type != .oid {
            if let row = builder.firstNullRow {
                throw FeatureTableError(
                    .conversionFailed, "the field is not nullable but the value is null or missing", featureIndex: row,
                    objectID: objectIDs[row], fieldName: builder.field.name)
            }
        }
        // Lay the columns out one at a time, releasing each builder as its column is made.
        var columns: [Column] = []
        columns.reserveCapacity(builders.count)
        for i in builders.indices {
            columns.append(builders[i].finish())
            builders[i] = ColumnBuilder(field: builders[i].field, count: 0)
        }
        let (geometryType, geometries) = try decodeGeometries(objectIDs)
        let schema = try Schema(
            fields: resolved.fields, objectIdFieldName: resolved.fields[resolved.objectIdIndex].name,
            globalIdFieldName: globalIdFieldName, displayFieldName: displayFieldName, geometryType: geometryType,
            spatialReference: spatialReference)
        return FeatureTable(
            validatedSchema: schema, columns: columns,
            geometryColumn: GeometryColumn(geometries.isEmpty ? Array(repeating: nil, count: rowByObjectID.count) : geometries),
            rowByObjectID: rowByObjectID)
    }

    // MARK: - Fields

    private func resolveFields() throws(FeatureTableError) -> ResolvedFields {
        let resolved: ResolvedFields
        if let explicitFields {
            resolved = try resolveExplicit(explicitFields)
        } else {
            resolved = try resolveInferred()
        }
        let limit = Schema.maximumFieldCount
        if resolved.fields.count > limit {
            let added = resolved.source == .attribute || explicitFields?.count == resolved.fields.count
                ? "" : " (with the \(resolved.fields[resolved.objectIdIndex].name) field added for the object IDs)"
            throw FeatureTableError(
                .tooManyFields,
                "the table would have \(resolved.fields.count) fields\(added); a table holds at most \(limit)")
        }
        return resolved
    }

    /// Fields from the inference; the object-ID field is the one the file names or one named
    /// `OBJECTID` (any case), when it holds an integer in every feature; else one is
    /// synthesized first.
    private func resolveInferred() throws(FeatureTableError) -> ResolvedFields {
        let inference = try SchemaInference(attributes, maximumKeys: Schema.maximumFieldCount)
        var fields: [Field] = []
        var used = Set<String>()
        for (i, key) in inference.keys.enumerated() {
            let name = Self.uniqueName(key.isEmpty ? "field\(i + 1)" : key, used: &used)
            fields.append(Field(name: name, type: inference.statistics[i].fieldType))
        }
        let count = attributes.count
        var candidates: [Int] = []
        if let objectIdFieldName, let slot = inference.slot(of: objectIdFieldName) { candidates.append(slot) }
        candidates += inference.keys.indices.filter { inference.keys[$0].lowercased() == "objectid" }
        if count > 0, let slot = candidates.first(where: { inference.statistics[$0].integers == count }) {
            fields[slot] = Field(name: fields[slot].name, type: .oid)
            return ResolvedFields(
                fields: fields, objectIdIndex: slot, source: .attribute,
                resolve: { inference.slot(of: $0) ?? -1 }, valueCounts: inference.statistics.map(\.values))
        }
        let oidName = Self.uniqueName(Self.synthesizedObjectIDName, used: &used)
        fields.insert(Field(name: oidName, type: .oid), at: 0)
        return ResolvedFields(
            fields: fields, objectIdIndex: 0, source: featureIDs == nil ? .position : .featureID,
            resolve: { inference.slot(of: $0).map { $0 + 1 } ?? -1 },
            valueCounts: [count] + inference.statistics.map(\.values))
    }

    /// The explicit fields; the object-ID field is the one the file names, else the field of
    /// type OID, else an integer field named `OBJECTID` (any case); its values come from the
    /// attribute when every feature has one, else from the features' `id`, else from the
    /// positions. Without such a field, an `OBJECTID` field is synthesized first.
    private func resolveExplicit(_ given: [Field]) throws(FeatureTableError) -> ResolvedFields {
        var fields = given
        var used = Set<String>()
        for field in fields {
            guard !field.name.isEmpty else {
                throw FeatureTableError(.invalidSchema, "a field has an empty name")
            }
            guard used.insert(field.name.lowercased()).inserted else {
                throw FeatureTableError(
                    .invalidSchema, "the field name is repeated (names are compared ignoring case)",
                    fieldName: field.name)
            }
        }
        let lookup = Dictionary(fields.enumerated().map { ($1.name.lowercased(), $0) }, uniquingKeysWith: { a, _ in a })
        var oidIndex: Int?
        if let objectIdFieldName, !objectIdFieldName.isEmpty {
            guard let index = lookup[objectIdFieldName.lowercased()] else {
                throw FeatureTableError(
                    .invalidSchema, "the object-ID field is not among the fields", fieldName: objectIdFieldName)
            }
            oidIndex = index
        } else if let index = fields.firstIndex(where: { $0.type == .oid }) {
            oidIndex = index
        } else if let index = lookup["objectid"], fields[index].columnType == .integer {
            oidIndex = index
        }
        let resolve: (String) -> Int = { key in lookup[key] ?? lookup[key.lowercased()] ?? -1 }
        guard let oidIndex else {
            let oidName = Self.uniqueName(Self.synthesizedObjectIDName, used: &used)
            fields.insert(Field(name: oidName, type: .oid), at: 0)
            return ResolvedFields(
                fields: fields, objectIdIndex: 0, source: featureIDs == nil ? .position : .featureID,
                resolve: { key in let slot = resolve(key); return slot < 0 ? -1 : slot + 1 })
        }
        guard fields[oidIndex].columnType == .integer else {
            throw FeatureTableError(
                .invalidSchema, "the object-ID field must be an integer field, not \(fields[oidIndex].type.name)",
                fieldName: fields[oidIndex].name)
        }
        let everyFeatureHasIt = attributes.allSatisfy { object in
            guard let object else { return false }
            return object.members.contains { resolve($0.key) == oidIndex && !$0.value.isNull }
        }
        let source: ObjectIDSource =
            everyFeatureHasIt ? .attribute : featureIDs == nil ? .position : .featureID
        return ResolvedFields(fields: fields, objectIdIndex: oidIndex, source: source, resolve: resolve)
    }

    /// `name`, or `name_1`, `name_2`, … when it is taken (ignoring case); records the result.
    private static func uniqueName(_ name: String, used: inout Set<String>) -> String {
        if used.insert(name.lowercased()).inserted { return name }
        var n = 1
        while !used.insert("\(name)_\(n)".lowercased()).inserted { n += 1 }
        return "\(name)_\(n)"
    }

    // MARK: - Object IDs

    private func objectIDs(_ resolved: ResolvedFields) throws(FeatureTableError) -> ([Int64], [Int64: Int]) {
        let count = attributes.count
        var ids: [Int64]
        switch resolved.source {
        case .position:
            ids = (0..<count).map { Int64($0 + 1) }
            var rows: [Int64: Int] = [:]
            rows.reserveCapacity(count)
            for (row, id) in ids.enumerated() { rows[id] = row }
            return (ids, rows)
        case .featureID:
            ids = featureIDs ?? []
        case .attribute:
            let field = resolved.fields[resolved.objectIdIndex]
            ids = []
            ids.reserveCapacity(count)
            var cache = KeySlotCache()
            for (row, object) in attributes.enumerated() {
                var id: Int64?
                for (position, member) in (object?.members ?? []).enumerated()
                where cache.slot(for: member.key, at: position, resolve: resolved.resolve) == resolved.objectIdIndex {
                    if member.value.isNull { continue }
                    do throws(ConversionFailure) {
                        id = try ValueConversion.integer(member.value, type: .oid)
                    } catch {
                        throw FeatureTableError(
                            .conversionFailed, error.message + " (object IDs must be integers)",
                            position: member.value.position, featureIndex: row, fieldName: field.name)
                    }
                }
                guard let id else {
                    throw FeatureTableError(.conversionFailed, "the feature has no object ID", featureIndex: row, fieldName: field.name)
                }
                ids.append(id)
            }
        }
        var rows: [Int64: Int] = [:]
        rows.reserveCapacity(count)
        for (row, id) in ids.enumerated() {
            if let previous = rows.updateValue(row, forKey: id) {
                throw FeatureTableError(
                    .duplicateObjectID,
                    "features[\(previous)] and features[\(row)] both have object ID \(id)",
                    featureIndex: row, objectID: id)
            }
        }
        return (ids, rows)
    }
}

extension GeometryType {
    /// The type of a table holding geometries of this type and of `other`: the same type, or
    /// multipoint for points and multipoints; `nil` when the two cannot share a table.
    package func merging(_ other: GeometryType) -> GeometryType? {
        switch (self, other) {
        case _ where self == other: self
        case (.point, .multipoint), (.multipoint, .point): .multipoint
        default: nil
        }
    }
}

/// Decides the geometry type of a table from its features' geometries, one at a time.
///
/// Point and multipoint, and (in GeoJSON) LineString and MultiLineString, Polygon and
/// MultiPolygon may mix; any other mix is an error naming the offending feature and both
/// types.
package struct GeometryTypeTracker {
    /// The type so far (`nil` before the first geometry).
    private(set) var type: GeometryType?
    /// Whether some geometry was a single point (to be stored as a 1-point multipoint when the
    /// table turns out to be a multipoint table).
    private(set) var sawPoint = false
    private var first: (index: Int, name: String)?
    /// The first feature with a geometry (its index and type name), for messages.
    var firstFeature: (index: Int, name: String)? { first }

    /// Whether the type was asked for (``require(_:)``): no other type may join it.
    private var required = false

    /// Asks for a table of `type`: geometries of other types are errors (a point still fits a
    /// multipoint table).
    mutating func require(_ type: GeometryType) {
        self.type = type
        first = (-1, type.rawValue)
        required = true
    }

    /// Records the geometry of feature `index`, whose type is named `name` in the input.
    mutating func add(
        _ geometry: Geometry, name: String, index: Int, objectID: Int64?
    ) throws(FeatureTableError) {
        let kind: GeometryType
        switch geometry {
        case .point: kind = .point
        case .multipoint: kind = .multipoint
        case .polyline: kind = .polyline
        case .polygon: kind = .polygon
        case .envelope: kind = .envelope
        case .collection:
            throw FeatureTableError(
                .invalidGeometry, "a \(name) cannot be stored in a feature table (one geometry type per table)",
                featureIndex: index, objectID: objectID)
        }
        if kind == .point { sawPoint = true }
        guard let current = type, let first else {
            type = kind
            first = (index, name)
            return
        }
        guard let merged = current.merging(kind), !required || merged == current else {
            throw FeatureTableError(
                .mixedGeometryTypes,
                "the feature has a \(name) geometry but features[\(first.index)] has a \(first.name) geometry; "
                    + "a table holds one geometry type (only single and multi types of the same dimension may mix)",
                featureIndex: index, objectID: objectID)
        }
        type = merged
    }

    /// The geometries with points turned into 1-point multipoints when the table is a
    /// multipoint table.
    func unified(_ geometries: [Geometry?]) throws(FeatureTableError) -> [Geometry?] {
        guard type == .multipoint, sawPoint else { return geometries }
        return try Self.pointsAsMultipoints(geometries)
    }

    /// The geometries with every point turned into a 1-point multipoint (an empty point into an
    /// empty multipoint, in the point's layout).
    static func pointsAsMultipoints(_ geometries: [Geometry?], objectIDs: [Int64]? = nil) throws(FeatureTableError) -> [Geometry?] {
        try pointsAsMultipoints(geometries) { (error, i) in
            FeatureTableError(.invalidGeometry, error.message, featureIndex: i, objectID: objectIDs?[i])
        }
    }

    /// The geometries with every point turned into a 1-point multipoint; `failure` makes the
    /// error for the geometry at an index that cannot be one.
    package static func pointsAsMultipoints<Failure: Error>(
        _ geometries: [Geometry?], failure: (GeometryError, Int) -> Failure
    ) throws(Failure) -> [Geometry?] {
        var result = geometries
        for (i, geometry) in geometries.enumerated() {
            guard case .point(let point) = geometry else { continue }
            do throws(GeometryError) {
                result[i] = .multipoint(try Multipoint(points: point.isEmpty ? [] : [point], layout: point.layout))
            } catch {
                throw failure(error, i)
            }
        }
        return result
    }

    /// Decodes every feature's geometry (a missing one stays `nil`) and tracks the table's type.
    /// `decode` reads one geometry; a codec error becomes a ``FeatureTableError`` that names the
    /// feature and the geometry member's path. `name` gives the input's name for the geometry's
    /// type (for messages) and may reject the geometry.
    static func decodeAll(
        _ values: [JSONValue?], objectIDs: [Int64],
        decode: (JSONValue) throws(GeometryError) -> Geometry,
        name: (JSONValue, Geometry, Int) throws(FeatureTableError) -> String
    ) throws(FeatureTableError) -> (tracker: GeometryTypeTracker, geometries: [Geometry?]) {
        var tracker = GeometryTypeTracker()
        var geometries: [Geometry?] = []
        geometries.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            guard let value else {
                geometries.append(nil)
                continue
            }
            let geometry: Geometry
            do throws(GeometryError) {
                geometry = try decode(value)
            } catch {
                var message = error.message
                if let path = error.path, !path.isEmpty { message += " (geometry.\(path))" }
                throw FeatureTableError(
                    .invalidGeometry, message, position: error.position, featureIndex: index, objectID: objectIDs[index])
            }
            try tracker.add(geometry, name: try name(value, geometry, index), index: index, objectID: objectIDs[index])
            geometries.append(geometry)
        }
        return (tracker, geometries)
    }
}
