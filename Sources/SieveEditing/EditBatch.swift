import SieveFeatures
import SieveFormats
import SieveColumns
import SieveGeometry
import SieveSQL
import SieveJSON

/// The checks of one batch of edits against the table as it was when the batch started: each
/// edit becomes a row ready to append (or a row to delete) or an error, and nothing is stored.
struct Batch {
    let table: FeatureTable
    let options: EditingOptions
    /// The definition expression edited features must satisfy, if any.
    let definition: CompiledWhereClause?
    let user: String?
    /// Editor-tracking time of the batch (epoch milliseconds, UTC).
    let now: Int64
    /// Object IDs the batch already updates or deletes.
    private var touched = Set<Int64>()
    /// Indexes of the fields the table fills itself: object ID, global ID, editor tracking.
    private let systemFields: Set<Int>
    private let globalIDField: Int?

    init(table: FeatureTable, options: EditingOptions, definition: CompiledWhereClause? = nil, user: String?, now: Int64) {
        self.table = table
        self.options = options
        self.definition = definition
        self.user = user
        self.now = now
        let schema = table.schema
        let globalID = schema.globalIdFieldName.flatMap { schema.index(ofField: $0) }
        globalIDField = globalID
        var system: Set<Int> = [schema.objectIdFieldIndex]
        if let globalID { system.insert(globalID) }
        for name in options.editorTracking?.fields ?? [] {
            if let index = schema.index(ofField: name) { system.insert(index) }
        }
        systemFields = system
    }

    /// A checked add: the row to append, or why not.
    struct Outcome {
        var row: PreparedRow?
        var objectID: Int64
        var error: EditError?
    }

    /// A checked delete.
    struct DeleteOutcome {
        var row: Int?
        var objectID: Int64
        var globalID: String?
        var error: EditError?
    }

    mutating func prepareAdd(_ edit: FeatureEdit) -> Outcome {
        do throws(EditError) {
            guard options.capabilities.contains(.create) else {
                throw EditError(.notAllowed, "the table does not allow adding features (capabilities: \(options.capabilities))")
            }
            let schema = table.schema
            var values = schema.fields.map { $0.defaultValue ?? .null }
            let given = try attributes(edit.attributes, forUpdate: nil)
            for (index, value) in given { values[index] = value }
            try track(&values, adding: true)
            var globalID: String?
            if let globalIDField {
                let id = options.makeGlobalID()
                values[globalIDField] = .string(id)
                globalID = id
            }
            try checkRow(values, changed: values.indices, forAdd: true)
            try checkDefinition(values, objectID: nil)
            var geometry: Geometry?
            if let given = edit.geometry {
                geometry = try EditValidation.geometry(
                    given, spatialReference: edit.spatialReference, schema: schema, validates: options.validatesGeometry, repairs: options.makeValid)
            }
            return Outcome(row: PreparedRow(values: values, geometry: geometry, objectID: -1, globalID: globalID), objectID: -1)
        } catch {
            return Outcome(row: nil, objectID: -1, error: error)
        }
    }

    mutating func prepareUpdate(_ edit: FeatureEdit) -> Outcome {
        let schema = table.schema
        var objectID: Int64 = -1
        do throws(EditError) {
            let id = try edit.namedObjectID(in: schema)
            objectID = id
            let row = try existingFeature(id, update: true)
            var values = (0..<schema.fields.count).map { table.value(row: row, fieldIndex: $0) }
            let given = try attributes(edit.attributes, forUpdate: row)
            for (index, value) in given { values[index] = value }
            try track(&values, adding: false)
            try checkRow(values, changed: given.map(\.index).sorted(), forAdd: false)
            try checkDefinition(values, objectID: id)
            var geometry = table.geometry(row: row)
            if let newGeometry = edit.geometry {
                guard options.allowGeometryUpdates else {
                    throw EditError(.notAllowed, "the table does not allow geometry updates (object ID \(id))")
                }
                geometry = try EditValidation.geometry(
                    newGeometry, spatialReference: edit.spatialReference, schema: schema, validates: options.validatesGeometry, repairs: options.makeValid)
            }
            let globalID = globalIDField.flatMap { index -> String? in
                if case .string(let id) = values[index] { return id }
                return nil
            }
            return Outcome(
                row: PreparedRow(values: values, geometry: geometry, objectID: id, globalID: globalID, previousRow: row),
                objectID: id)
        } catch {
            return Outcome(row: nil, objectID: objectID, error: error)
        }
    }

    mutating func prepareDelete(_ objectID: Int64) -> DeleteOutcome {
        do throws(EditError) {
            let row = try existingFeature(objectID, update: false)
            var globalID: String?
            if let globalIDField, case .string(let id) = table.value(row: row, fieldIndex: globalIDField) { globalID = id }
            return DeleteOutcome(row: row, objectID: objectID, globalID: globalID)
        } catch {
            return DeleteOutcome(row: nil, objectID: objectID, error: error)
        }
    }

    /// The row of feature `objectID` for an update (or a delete), checked: the table allows
    /// it, the feature exists, the batch has not touched it yet, and ownership permits.
    private mutating func existingFeature(_ objectID: Int64, update: Bool) throws(EditError) -> Int {
        guard options.capabilities.contains(update ? .update : .delete) else {
            throw EditError(
                .notAllowed,
                "the table does not allow \(update ? "updating" : "deleting") features (capabilities: \(options.capabilities))")
        }
        // A feature outside the definition expression does not exist for the layer.
        guard let row = table.row(forObjectID: objectID), definition.map({ $0.evaluate(row: row, in: table.columns) == true }) ?? true else {
            throw EditError(
                .missingObjectID, "\(update ? "Update" : "Delete") for the object was not attempted. Object ID \(objectID) does not exist.")
        }
        guard touched.insert(objectID).inserted else {
            throw EditError(.repeatedObjectID, "object ID \(objectID) is updated or deleted more than once in the batch")
        }
        if let denial = ownershipDenial(row: row, update: update) { throw denial }
        return row
    }

    /// The given attributes as (field index, stored value), checked: known fields, each once,
    /// editable, of the right type, in range and length. System fields are skipped (the object
    /// ID of an update is checked to be the feature's, a global ID to be unchanged).
    private func attributes(_ attributes: [String: ScalarValue], forUpdate row: Int?) throws(EditError) -> [(index: Int, value: ScalarValue)] {
        do throws(EditError) {
            return try checkedAttributes(attributes, forUpdate: row, in: attributes)
        } catch {
            // Which error an edit reports must not depend on dictionary order: the first in the
            // order of the names.
            return try checkedAttributes(attributes, forUpdate: row, in: attributes.sorted { $0.key < $1.key })
        }
    }

    private func checkedAttributes<S: Sequence<(key: String, value: ScalarValue)>>(
        _ attributes: [String: ScalarValue], forUpdate row: Int?, in order: S
    ) throws(EditError) -> [(index: Int, value: ScalarValue)] {
        let schema = table.schema
        var result: [(index: Int, value: ScalarValue)] = []
        result.reserveCapacity(attributes.count)
        var named: [(index: Int, name: String)] = []
        named.reserveCapacity(attributes.count)
        for (name, value) in order {
            guard let index = schema.index(ofField: name) else {
                let hint = WhereClauseError.didYouMean(name, among: schema.fieldNames)
                throw EditError(.unknownField, "the table has no field \(JSONKey.quoted(name))\(hint)", fieldName: name)
            }
            let field = schema.fields[index]
            if let previous = named.first(where: { $0.index == index }) {
                throw EditError(
                    .repeatedField, "\(JSONKey.quoted(previous.name)) and \(JSONKey.quoted(name)) both name field \(field.name)",
                    fieldName: field.name)
            }
            named.append((index, name))
            if index == schema.objectIdFieldIndex {
                if let row, try EditValidation.convert(value, to: field) != .integer(table.objectID(row: row)) {
                    throw EditError(.objectIDChanged, "an update cannot change the object ID (\(field.name))", fieldName: field.name)
                }
                continue
            }
            if index == globalIDField {
                if let row, !value.isNull, value != table.value(row: row, fieldIndex: index) {
                    throw EditError(.notEditable, "field \(field.name) (the global ID) is not editable", fieldName: field.name)
                }
                continue
            }
            if systemFields.contains(index) { continue }
            guard field.editable else {
                throw EditError(.notEditable, "field \(field.name) is not editable", fieldName: field.name)
            }
            result.append((index, try EditValidation.convert(value, to: field)))
        }
        return result
    }

    /// Fills the editor-tracking fields.
    private func track(_ values: inout [ScalarValue], adding: Bool) throws(EditError) {
        guard let tracking = options.editorTracking else { return }
        let schema = table.schema
        let userValue: ScalarValue = user.map(ScalarValue.string) ?? .null
        // A date-only tracking field takes the day of the edit.
        func stamp(_ index: Int) -> ScalarValue {
            schema.fields[index].type == .dateOnly ? .date(CivilTime.startOfDay(milliseconds: now) ?? now) : .date(now)
        }
        if adding {
            if let name = tracking.creatorField, let index = schema.index(ofField: name) { values[index] = userValue }
            if let name = tracking.creationDateField, let index = schema.index(ofField: name) { values[index] = stamp(index) }
        }
        if let name = tracking.editorField, let index = schema.index(ofField: name) { values[index] = userValue }
        if let name = tracking.editDateField, let index = schema.index(ofField: name) { values[index] = stamp(index) }
    }

    /// Checks NULLs and domains: NULL in a non-nullable field (any field of an add, the changed
    /// fields of an update), and each changed non-null value against its field's domain.
    private func checkRow<C: Collection<Int>>(_ values: [ScalarValue], changed: C, forAdd: Bool) throws(EditError) {
        let schema = table.schema
        let fields = schema.fields
        // The feature's type decides the domains of the fields it lists; when an update changes
        // the type, those fields are checked too.
        let typeField = schema.typeIdFieldName.flatMap { schema.index(ofField: $0) }
        let type = typeField.flatMap { schema.featureType(forTypeID: values[$0]) }
        var checked = Array(changed)
        if let typeField, let type, changed.contains(typeField) {
            for name in type.domains.keys {
                if let index = schema.index(ofField: name), !checked.contains(index) { checked.append(index) }
            }
            checked.sort()
        }
        for index in checked {
            let field = fields[index]
            let value = values[index]
            if value.isNull {
                if !field.nullable, index != table.schema.objectIdFieldIndex {
                    throw EditError(
                        .nullNotAllowed,
                        forAdd && !systemFields.contains(index)
                            ? "field \(field.name) is not nullable and the new feature gives it no value"
                            : "field \(field.name) is not nullable",
                        fieldName: field.name)
                }
                continue
            }
            if let domain = schema.domain(ofField: index, type: type) {
                try EditValidation.checkDomain(value, field: field, domain: domain)
            }
        }
    }

    /// Fails an add (`objectID` `nil`) or update whose feature, with `values`, would not
    /// satisfy the definition expression.
    private func checkDefinition(_ values: [ScalarValue], objectID: Int64?) throws(EditError) {
        guard let definition else { return }
        let columns = zip(table.columns, values).map { Self.oneRowColumn($1, like: $0) }
        guard definition.evaluate(row: 0, in: columns) != true else { return }
        let feature = objectID.map { "object ID \($0)" } ?? "the new feature"
        throw EditError(.outsideDefinition, "\(feature) would not satisfy the layer's definition expression \(definition.sql)")
    }

    /// A column of one row holding `value`, of the kind of `column`.
    static func oneRowColumn(_ value: ScalarValue, like column: Column) -> Column {
        let validity = value.isNull ? ValidityBitmap(count: 1, allValid: false) : nil
        switch column {
        case .integer, .date:
            var number: Int64 = 0
            switch value {
            case .integer(let n), .date(let n): number = n
            case .double(let d): number = Int64(exactly: d) ?? 0
            case .boolean(let b): number = b ? 1 : 0
            default: break
            }
            let values = Int64Column(values: [number], validity: validity)
            if case .date = column { return .date(values) }
            return .integer(values)
        case .double:
            var number = 0.0
            switch value {
            case .integer(let n), .date(let n): number = Double(n)
            case .double(let d): number = d
            default: break
            }
            return .double(DoubleColumn(values: [number], validity: validity))
        case .string:
            if case .string(let text) = value { return .string(StringColumn([text])) }
            return .string(StringColumn([nil]))
        }
    }

    private func ownershipDenial(row: Int, update: Bool) -> EditError? {
        Self.ownershipDenial(options, table: table, row: row, user: user, update: update)
    }

    /// Why ownership-based access control forbids `user` to update (or delete) row `row`, or
    /// `nil` when it allows: the feature's creator may, others when `allowOthersTo…` is set, an
    /// anonymous editor when `allowAnonymousTo…` is. A feature without a creator belongs to
    /// nobody (the rules for others apply).
    static func ownershipDenial(
        _ options: EditingOptions, table: FeatureTable, row: Int, user: String?, update: Bool
    ) -> EditError? {
        guard let tracking = options.editorTracking, tracking.ownershipBasedAccessControl else { return nil }
        let action = update ? "update" : "delete"
        let objectID = table.objectID(row: row)
        guard let user else {
            if update ? tracking.allowAnonymousToUpdate : tracking.allowAnonymousToDelete { return nil }
            return EditError(.notOwner, "anonymous editors may not \(action) features (object ID \(objectID))")
        }
        var creator: String?
        if let field = tracking.creatorField, case .string(let name) = table.value(row: row, field: field) { creator = name }
        if let creator, creator.lowercased() == user.lowercased() { return nil }
        if update ? tracking.allowOthersToUpdate : tracking.allowOthersToDelete { return nil }
        return EditError(
            .notOwner,
            "user \(JSONKey.quoted(user)) may not \(action) object ID \(objectID), created by \(creator.map { JSONKey.quoted($0) } ?? "nobody")")
    }
}
