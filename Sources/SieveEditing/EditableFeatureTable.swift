import SieveFeatures
import SieveFormats
import SieveBase
import SieveColumns
import SieveGEOS
import SieveGeometry
import SieveSQL
import Synchronization

/// A feature table that is edited: features are added, updated and deleted in batches
/// (``applyEdits(adds:updates:deletes:rollbackOnFailure:user:)``), and every batch publishes a
/// new immutable ``/SieveFeatures/FeatureTable`` snapshot atomically.
///
/// **Readers** take ``snapshot`` and query it as any table: a snapshot never changes, whatever
/// edits follow, and a reader sees the table either before or after a batch, never half of one.
/// **One writer** at a time applies a batch (concurrent calls wait their turn).
///
/// A batch costs time in proportion to its size, not to the table's: rows are appended to the
/// columns' shared append-only buffers (`ColumnBuffer`) behind the published snapshot, an
/// update appends the feature's new version and deletes the old row, a delete sets the row's bit
/// in a chunked bitmap (``/SieveFeatures/RowTombstones``), and the object-ID and spatial indexes
/// grow by the rows appended. Deleted rows stay until ``compact()`` rebuilds the table from the
/// features (in object-ID order), which changes no answer.
///
/// **Atomicity.** Every edit of a batch is checked before anything is stored (values, domains,
/// geometry, capabilities, ownership, object IDs), and only then are the valid edits applied,
/// which cannot fail. With `rollbackOnFailure` (the default) one failed edit fails the batch and
/// the table is exactly as before.
///
/// ```swift
/// let editable = try EditableFeatureTable(table)
/// let result = editable.applyEdits(
///     adds: [FeatureEdit(attributes: ["NAME": .string("Pier 17")], geometry: .point(Point(x: -74.0, y: 40.7)))],
///     deletes: [12])
/// result.addResults[0].objectID   // the new feature's object ID
/// try editable.snapshot.queryFeatureCount(QueryParameters(whereClause: "NAME = 'Pier 17'"))  // 1
/// ```
public final class EditableFeatureTable: Sendable {
    /// What the table allows and fills in.
    public let options: EditingOptions
    /// The latest snapshot, swapped under the mutex after each batch.
    private let published: Locked<FeatureTable>
    /// How many snapshots have been published since the table was made editable.
    private let publishedCount = Atomic<UInt64>(0)
    /// The writer's state; holding its mutex is being the writer.
    let writer: Locked<Writer>
    /// The compiled ``EditingOptions/definitionExpression``, `nil` when there is none.
    let definition: CompiledWhereClause?

    /// What only the writer reads and writes.
    struct Writer {
        /// The latest snapshot (the one published).
        var current: FeatureTable
        /// The object ID the next added feature gets (object IDs are never reused).
        var nextObjectID: Int64
        /// For each dictionary-encoded string column, string → code, built on its first edit.
        var dictionaryCodes: [Int: [ExactString: UInt32]] = [:]
        /// The snapshot of the last ``commitLocalEdits()`` (or of the start).
        var committed: FeatureTable
        /// The object IDs edits touched since then.
        var touched: Set<Int64> = []
        /// The ID the next attachment gets (attachment IDs are never reused).
        var nextAttachmentID: Int64 = 1
        /// Features a service sent while local edits were pending (see
        /// ``EditableFeatureTable/mergeFromService(_:)``): where their service version is, which
        /// local edits count from instead of ``committed``'s.
        /// An entry whose value is `nil` is a feature the service no longer has.
        var serviceVersions: [Int64: (table: FeatureTable, row: Int)?] = [:]

        /// The version of feature `objectID` local edits are counted from: the service's, or
        /// the committed one; `nil` for a feature the service does not have.
        func base(_ objectID: Int64) -> (table: FeatureTable, row: Int)? {
            if let version = serviceVersions[objectID] { return version }
            return committed.row(forObjectID: objectID).map { (committed, $0) }
        }
    }

    /// Makes `table` editable. A table that is itself a snapshot of an edited table is
    /// compacted first; the new table never shares row numbers with it.
    /// - Throws: ``/SieveFeatures/FeatureTableError`` when compacting fails, or (kind
    ///   `invalidQuery`) when the options' definition expression does not parse or names fields
    ///   the table does not have.
    public init(_ table: FeatureTable, options: EditingOptions = EditingOptions()) throws(FeatureTableError) {
        self.options = options
        if let sql = options.definitionExpression, !sql.allSatisfy(\.isWhitespace) {
            do {
                definition = try CompiledWhereClause(sql, schema: table.schema, collation: table.collation)
            } catch {
                throw FeatureTableError(.invalidQuery, "the definition expression: \(error)")
            }
        } else {
            definition = nil
        }
        let start = try Self.generation(from: table)
        var largest: Int64 = 0
        for id in start.objectIDs where id > largest { largest = id }
        published = Locked(start)
        var state = Writer(current: start, nextObjectID: largest &+ 1, committed: start)
        state.nextAttachmentID = start.attachments.largestID &+ 1
        writer = Locked(state)
    }

    /// The snapshot edits start from: `table`'s rows (compacted when it has deleted rows or
    /// edits of its own) under a new lineage, with a spatial index of its own (seeded with the
    /// tree `table` built, if any).
    private static func generation(from table: FeatureTable) throws(FeatureTableError) -> FeatureTable {
        var base = table
        if table.lineage != nil || table.deletedRowCount > 0 { base = try table.compacted() }
        return FeatureTable(
            editing: base.withSpatialIndexOfItsOwn(), columns: base.columns, geometryColumn: base.geometryColumn,
            count: base.count, extent: base.extent, tombstones: RowTombstones(),
            lineage: EditLineage(baseRowCount: base.count), attachments: table.attachments)
    }

    /// The latest snapshot: an immutable table that later edits never change.
    public var snapshot: FeatureTable { published.withLock { $0 } }

    /// A number that grows each time edits publish a new snapshot (0 before any edit).
    ///
    /// It grows only after the snapshot it counts is published, so a reader that reads the
    /// version and then ``snapshot`` gets a snapshot at least that new: an answer tagged with
    /// the version read first never claims data older than it holds (HTTP entity tags are
    /// made this way).
    public var version: UInt64 { publishedCount.load(ordering: .acquiring) }

    // MARK: - Capabilities

    /// Whether features may be added.
    public var canAdd: Bool { options.capabilities.contains(.create) }

    /// Whether `user` may update the feature `objectID` (it exists, the table allows updates,
    /// and ownership permits).
    public func canUpdate(objectID: Int64, user: String? = nil) -> Bool {
        let table = snapshot
        guard options.capabilities.contains(.update), let row = table.row(forObjectID: objectID) else { return false }
        return ownershipDenial(row: row, table: table, user: user, update: true) == nil
    }

    /// Whether `user` may delete the feature `objectID`.
    public func canDelete(objectID: Int64, user: String? = nil) -> Bool {
        let table = snapshot
        guard options.capabilities.contains(.delete), let row = table.row(forObjectID: objectID) else { return false }
        return ownershipDenial(row: row, table: table, user: user, update: false) == nil
    }

    /// Whether updates may change geometries.
    public var canUpdateGeometry: Bool {
        options.capabilities.contains(.update) && options.allowGeometryUpdates && snapshot.schema.geometryType != nil
    }

    // MARK: - Editing

    /// Adds features. See ``applyEdits(adds:updates:deletes:rollbackOnFailure:user:)``.
    @discardableResult
    public func addFeatures(_ features: [FeatureEdit], rollbackOnFailure: Bool = true, user: String? = nil) -> [FeatureEditResult] {
        applyEdits(adds: features, rollbackOnFailure: rollbackOnFailure, user: user).addResults
    }

    /// Updates features (each names its feature with the object-ID attribute).
    @discardableResult
    public func updateFeatures(_ features: [FeatureEdit], rollbackOnFailure: Bool = true, user: String? = nil)
        -> [FeatureEditResult]
    {
        applyEdits(updates: features, rollbackOnFailure: rollbackOnFailure, user: user).updateResults
    }

    /// Deletes features by object ID.
    @discardableResult
    public func deleteFeatures(objectIDs: [Int64], rollbackOnFailure: Bool = true, user: String? = nil) -> [FeatureEditResult] {
        applyEdits(deletes: objectIDs, rollbackOnFailure: rollbackOnFailure, user: user).deleteResults
    }

    /// Deletes the features a where clause and an optional geometry select (as
    /// ``/SieveFeatures/FeatureTable/queryObjectIDs(_:)`` selects them in the latest snapshot).
    /// - Throws: What the query throws (a bad where clause or geometry); nothing is deleted then.
    @discardableResult
    public func deleteFeatures(
        where whereClause: String, geometry: Geometry? = nil, spatialRelationship: SpatialRelationship = .intersects,
        rollbackOnFailure: Bool = true, user: String? = nil
    ) throws -> [FeatureEditResult] {
        let ids = try snapshot.queryObjectIDs(
            QueryParameters(whereClause: whereClause, geometry: geometry, spatialRelationship: spatialRelationship))
        return deleteFeatures(objectIDs: ids, rollbackOnFailure: rollbackOnFailure, user: user)
    }

    /// Applies a batch of edits and returns one result per edit, in the ArcGIS REST shape.
    ///
    /// Adds get the next object IDs (never one a deleted feature had) and, when the table has a
    /// GlobalID field, a new global ID. Updates name their feature with the object-ID attribute
    /// and change only the fields given (and the geometry, when given). Editor-tracking fields
    /// are filled by the table.
    ///
    /// - Parameters:
    ///   - adds: The features to add.
    ///   - updates: The changes to existing features, each naming its feature by object ID.
    ///   - deletes: The object IDs of the features to delete.
    ///   - rollbackOnFailure: When set (the default, and always when the table does not
    ///     support the parameter), one failed edit fails the whole batch: the failed edits report
    ///     their error, the others ``EditError/Kind/rolledBack``, and the table is unchanged.
    ///     When not set, the valid edits are applied and the others report their error.
    ///   - user: The editing user, for editor tracking and ownership (`nil`: anonymous).
    public func applyEdits(
        adds: [FeatureEdit] = [], updates: [FeatureEdit] = [], deletes: [Int64] = [], rollbackOnFailure: Bool = true,
        user: String? = nil
    ) -> ApplyEditsResult {
        applyEdits(adds: adds, updates: updates, deletes: deletes, rollbackOnFailure: rollbackOnFailure, user: user, checkOnly: false)
    }

    /// What ``applyEdits(adds:updates:deletes:rollbackOnFailure:user:)`` with
    /// `rollbackOnFailure` would answer now, without changing the table: every edit's error, or
    /// success (with object ID -1 for adds). An edit that succeeds here can still fail when
    /// applied later, if other edits came in between.
    public func checkEdits(adds: [FeatureEdit] = [], updates: [FeatureEdit] = [], deletes: [Int64] = [], user: String? = nil) -> ApplyEditsResult {
        applyEdits(adds: adds, updates: updates, deletes: deletes, rollbackOnFailure: true, user: user, checkOnly: true)
    }

    private func applyEdits(
        adds: [FeatureEdit], updates: [FeatureEdit], deletes: [Int64], rollbackOnFailure: Bool, user: String?, checkOnly: Bool
    ) -> ApplyEditsResult {
        writer.withLock { writer in
            var batch = Batch(table: writer.current, options: options, definition: definition, user: user, now: options.now())
            let preparedAdds = adds.map { batch.prepareAdd($0) }
            let preparedUpdates = updates.map { batch.prepareUpdate($0) }
            let preparedDeletes = deletes.map { batch.prepareDelete($0) }
            let failed =
                preparedAdds.contains { $0.error != nil } || preparedUpdates.contains { $0.error != nil }
                || preparedDeletes.contains { $0.error != nil }
            if failed, rollbackOnFailure || !options.supportsRollbackOnFailureParameter {
                let rolledBack = EditError.batchRolledBack
                return ApplyEditsResult(
                    addResults: preparedAdds.map { FeatureEditResult(objectID: -1, error: $0.error ?? rolledBack) },
                    updateResults: preparedUpdates.map { FeatureEditResult(objectID: $0.objectID, globalID: $0.row?.globalID, error: $0.error ?? rolledBack) },
                    deleteResults: preparedDeletes.map { FeatureEditResult(objectID: $0.objectID, globalID: $0.globalID, error: $0.error ?? rolledBack) })
            }
            if checkOnly {
                return ApplyEditsResult(
                    addResults: preparedAdds.map { _ in FeatureEditResult(objectID: -1) },
                    updateResults: preparedUpdates.map { FeatureEditResult(objectID: $0.objectID, globalID: $0.row?.globalID) },
                    deleteResults: preparedDeletes.map { FeatureEditResult(objectID: $0.objectID, globalID: $0.globalID) })
            }
            var addResults: [FeatureEditResult] = []
            addResults.reserveCapacity(adds.count)
            var appended: [PreparedRow] = []
            appended.reserveCapacity(adds.count + updates.count)
            for prepared in preparedAdds {
                guard var row = prepared.row else {
                    addResults.append(FeatureEditResult(objectID: -1, error: prepared.error))
                    continue
                }
                row.objectID = writer.nextObjectID
                writer.nextObjectID &+= 1
                row.values[writer.current.schema.objectIdFieldIndex] = .integer(row.objectID)
                addResults.append(FeatureEditResult(objectID: row.objectID, globalID: row.globalID))
                appended.append(row)
            }
            let updateResults = preparedUpdates.map { prepared in
                if let row = prepared.row { appended.append(row) }
                return FeatureEditResult(objectID: prepared.objectID, globalID: prepared.row?.globalID, error: prepared.error)
            }
            let deletedRows = preparedDeletes.compactMap(\.row)
            let deleteResults = preparedDeletes.map {
                FeatureEditResult(objectID: $0.objectID, globalID: $0.globalID, error: $0.error)
            }
            for row in appended { writer.touched.insert(row.objectID) }
            for prepared in preparedDeletes where prepared.row != nil { writer.touched.insert(prepared.objectID) }
            // Deleting a feature deletes its attachments, in the same snapshot.
            var attachments: AttachmentStore?
            if !writer.current.attachments.isEmpty {
                var store = writer.current.attachments
                for prepared in preparedDeletes where prepared.row != nil { store.removeAll(of: prepared.objectID) }
                attachments = store
            }
            if !appended.isEmpty || !deletedRows.isEmpty {
                publish(Self.apply(appended, deleting: deletedRows, attachments: attachments, to: &writer))
            }
            return ApplyEditsResult(addResults: addResults, updateResults: updateResults, deleteResults: deleteResults)
        }
    }

    /// Makes `snapshot` the latest. Index maintenance first: once the spatial index is built,
    /// the writer inserts the new rows before it publishes the snapshot that has them, so that a
    /// reader of any published snapshot finds the tree covering it and only ever reads it
    /// (readers of older snapshots skip the rows beyond theirs).
    func publish(_ snapshot: FeatureTable) {
        if snapshot.spatialIndexCache.isBuilt { snapshot.withSpatialIndex { _ in } }
        published.withLock { $0 = snapshot }
        publishedCount.wrappingAdd(1, ordering: .releasing)
    }

    /// Appends the rows (new features, new versions), deletes the replaced and deleted rows,
    /// records the versions and returns the new snapshot (which becomes the writer's current).
    static func apply(
        _ rows: [PreparedRow], deleting deletedRows: [Int], attachments: AttachmentStore? = nil, to writer: inout Writer
    ) -> FeatureTable {
        let table = writer.current
        // Unwrapping cannot fail: every snapshot a writer holds has a lineage.
        let lineage = table.lineage ?? EditLineage(baseRowCount: table.count)
        var columns = table.columns
        var geometries = table.geometryColumn
        var tombstones = table.tombstones
        var extent = table.extent
        var versions: [(objectID: Int64, row: Int, previous: Int)] = []
        versions.reserveCapacity(rows.count)
        var count = table.count
        for prepared in rows {
            for (f, value) in prepared.values.enumerated() {
                ColumnAppend.append(value, to: &columns[f], field: f, codes: &writer.dictionaryCodes)
            }
            geometries.append(prepared.geometry)
            if let envelope = prepared.geometry?.envelope, !envelope.isEmpty { extent.expand(toInclude: envelope) }
            if let previous = prepared.previousRow { tombstones.delete(previous) }
            versions.append((prepared.objectID, count, prepared.previousRow ?? -1))
            count += 1
        }
        for row in deletedRows { tombstones.delete(row) }
        // Recorded before the snapshot is published: older snapshots walk back past these rows.
        lineage.versions.record(versions)
        let snapshot = FeatureTable(
            editing: table, columns: columns, geometryColumn: geometries, count: count, extent: extent,
            tombstones: tombstones, lineage: lineage, attachments: attachments)
        writer.current = snapshot
        return snapshot
    }

    /// Rebuilds the table from its features, in object-ID order, dropping deleted rows: the
    /// memory deleted rows held is released (once no older snapshot holds it), and the quadtree
    /// is rebuilt over the features alone. Answers do not change. Object IDs keep counting from
    /// where they were.
    /// - Throws: ``/SieveFeatures/FeatureTableError`` if the table cannot be rebuilt (it can always
    ///   be, for a table edits produced).
    public func compact() throws(FeatureTableError) {
        try writer.withLock { writer throws(FeatureTableError) in
            let current = writer.current
            let compacted = try Self.generation(from: current.compacted().withAttachments(current.attachments))
            writer.current = compacted
            writer.dictionaryCodes = [:]
            publish(compacted)
        }
    }

    // MARK: - Local edits

    /// Whether edits since the last ``commitLocalEdits()`` (or since the table was made
    /// editable) change any feature: what a service table still has to send.
    public var hasLocalEdits: Bool {
        let edits = localEdits
        return !edits.adds.isEmpty || !edits.updates.isEmpty || !edits.deletes.isEmpty
    }

    /// The net edits since the last ``commitLocalEdits()``, as the applyEdits request that
    /// would bring a copy of the table as it was then to the table as it is: features added
    /// (and not deleted since) as adds with all their attributes but the object ID; features
    /// that were there and changed as updates with the object ID, the attributes that differ
    /// and the geometry when it differs; features that were there and are gone as deletes. A
    /// feature added and deleted again, or changed and changed back, is no edit. In object-ID
    /// order. Its `json` (module SieveArcGISREST) writes it.
    public var localEdits: ApplyEditsRequest {
        writer.withLock { writer in Self.netEdits(writer) }
    }

    /// The object IDs of the local edits (see ``localEdits``), for saving them in place: the
    /// features added or changed since the last ``commitLocalEdits()`` (`written`), and those
    /// there then and gone now (`deleted`), each ascending.
    public var localEditObjectIDs: (written: [Int64], deleted: [Int64]) {
        writer.withLock { writer in
            var written: [Int64] = [], deleted: [Int64] = []
            for objectID in writer.touched.sorted() {
                if writer.current.row(forObjectID: objectID) != nil {
                    written.append(objectID)
                } else if writer.base(objectID) != nil {
                    deleted.append(objectID)
                }
            }
            return (written, deleted)
        }
    }

    /// Makes the current state the one later local edits are counted from, and returns the
    /// edits that were pending (see ``localEdits``).
    @discardableResult
    public func commitLocalEdits() -> ApplyEditsRequest {
        writer.withLock { writer in
            let edits = Self.netEdits(writer)
            writer.committed = writer.current
            writer.touched = []
            writer.serviceVersions = [:]
            return edits
        }
    }

    /// Puts every feature back as it was at the last ``commitLocalEdits()``, as one more batch
    /// (O(features touched)): features added since are deleted, deleted ones come back with
    /// their object IDs, global IDs and values, changed ones get their values back. Object IDs
    /// of the features added since are not given out again. Snapshots taken before stay as
    /// they are.
    public func undoLocalEdits() {
        writer.withLock { writer in
            let current = writer.current, committed = writer.committed
            var restored: [PreparedRow] = []
            var deleted: [Int] = []
            for objectID in writer.touched.sorted() {
                let now = current.row(forObjectID: objectID)
                guard let (base, then) = writer.base(objectID) else {
                    if let now { deleted.append(now) }
                    continue
                }
                if let now, Self.sameFeature(base, then, current, now) { continue }
                var values = (0..<base.schema.fields.count).map { base.value(row: then, fieldIndex: $0) }
                // (A service's version of a feature it numbered anew holds the local number.)
                values[base.schema.objectIdFieldIndex] = .integer(objectID)
                restored.append(
                    PreparedRow(
                        values: values, geometry: base.geometry(row: then), objectID: objectID, globalID: nil,
                        previousRow: current.versionRow(forObjectID: objectID)))
            }
            // Attachments of the features touched come back as they were.
            var attachments = current.attachments
            if !attachments.isEmpty || !committed.attachments.isEmpty {
                for objectID in writer.touched {
                    attachments.removeAll(of: objectID)
                    for info in committed.attachments.infos(of: objectID) {
                        if let attachment = committed.attachments.attachment(info.id, of: objectID) { attachments.put(attachment) }
                    }
                }
            }
            writer.touched = []
            writer.serviceVersions = [:]
            guard !restored.isEmpty || !deleted.isEmpty || attachments != current.attachments else { return }
            publish(Self.apply(restored, deleting: deleted, attachments: attachments, to: &writer))
        }
    }

    /// Whether row `a` of `x` and row `b` of `y` hold the same values and geometry.
    static func sameFeature(_ x: FeatureTable, _ a: Int, _ y: FeatureTable, _ b: Int) -> Bool {
        guard x.geometry(row: a) == y.geometry(row: b) else { return false }
        return (0..<x.schema.fields.count).allSatisfy { x.value(row: a, fieldIndex: $0) == y.value(row: b, fieldIndex: $0) }
    }

    /// The net edits of the writer's touched features, from the version each is counted from
    /// (``Writer/base(_:)``) to the current one.
    static func netEdits(_ writer: Writer) -> ApplyEditsRequest {
        var request = ApplyEditsRequest()
        let current = writer.current
        let schema = current.schema
        let spatialReference = schema.geometryType == nil ? nil : schema.spatialReference
        for objectID in writer.touched.sorted() {
            let base = writer.base(objectID)
            let committed = base?.table ?? writer.committed
            let then = base?.row, now = current.row(forObjectID: objectID)
            switch (then, now) {
            case (nil, let now?):
                var attributes: [String: ScalarValue] = [:]
                for (index, field) in schema.fields.enumerated() where index != schema.objectIdFieldIndex {
                    attributes[field.name] = current.value(row: now, fieldIndex: index)
                }
                request.adds.append(
                    FeatureEdit(attributes: attributes, geometry: current.geometry(row: now), spatialReference: spatialReference))
            case (let then?, let now?):
                var attributes: [String: ScalarValue] = [schema.objectIdFieldName: .integer(objectID)]
                for index in schema.fields.indices where index != schema.objectIdFieldIndex {
                    let value = current.value(row: now, fieldIndex: index)
                    if value != committed.value(row: then, fieldIndex: index) { attributes[schema.fields[index].name] = value }
                }
                let geometry = current.geometry(row: now)
                let moved = geometry != committed.geometry(row: then)
                guard attributes.count > 1 || moved else { continue }
                request.updates.append(
                    FeatureEdit(
                        objectID: objectID, attributes: attributes, geometry: moved ? geometry : nil,
                        spatialReference: moved ? spatialReference : nil))
            case (.some, nil):
                request.deletes.append(objectID)
            case (nil, nil):
                continue
            }
        }
        return request
    }

    /// Runs an edit of the attachments of feature `objectID` as one batch: checks that the
    /// table keeps attachments and allows updates, that the feature exists and that `user` may
    /// update it, then lets `body` change a copy of the attachments (and the next attachment
    /// ID), and publishes the result when an edit succeeded.
    func editAttachments(
        objectID: Int64, user: String?,
        _ body: (inout AttachmentStore, inout Int64) throws(EditError) -> [FeatureEditResult]
    ) -> [FeatureEditResult] {
        writer.withLock { writer in
            let table = writer.current
            do throws(EditError) {
                if let denial = AttachmentRules.denial(objectID: objectID, in: table, options: options, user: user) { throw denial }
                var store = table.attachments
                var next = writer.nextAttachmentID
                let results = try body(&store, &next)
                writer.nextAttachmentID = next
                guard results.contains(where: \.success) else { return results }
                let snapshot = FeatureTable(
                    editing: table, columns: table.columns, geometryColumn: table.geometryColumn, count: table.count,
                    extent: table.extent, tombstones: table.tombstones, lineage: table.lineage ?? EditLineage(baseRowCount: table.count),
                    attachments: store)
                writer.current = snapshot
                writer.touched.insert(objectID)
                publish(snapshot)
                return results
            } catch {
                return [FeatureEditResult(objectID: -1, error: error)]
            }
        }
    }

    /// Why ownership forbids `user` to update (or delete) row `row`, or `nil` when it allows.
    private func ownershipDenial(row: Int, table: FeatureTable, user: String?, update: Bool) -> EditError? {
        Batch.ownershipDenial(options, table: table, row: row, user: user, update: update)
    }
}

/// One row ready to append: every field's value in schema order, the geometry, and for an update
/// the row it replaces.
struct PreparedRow {
    var values: [ScalarValue]
    var geometry: Geometry?
    var objectID: Int64
    var globalID: String?
    var previousRow: Int?
}

extension FeatureTable {
    /// The features alone, in object-ID order, as a table of their own (no deleted rows, no
    /// edit lineage), with the same schema and collation.
    func compacted() throws(FeatureTableError) -> FeatureTable {
        let result: FeatureQueryResult
        do {
            result = try queryFeatures(QueryParameters())
        } catch let error as FeatureTableError {
            throw error
        } catch {
            throw FeatureTableError(.invalidTable, "the table could not be read back: \(error)")
        }
        return try result.makeTable().with(collation: collation)
    }
}

extension EditableFeatureTable {
    /// `query` as `user` may run it: unchanged, unless ownership-based access control hides
    /// others' features (`allowOthersToQuery` off), in which case its where clause also asks for
    /// features `user` created (compared ignoring case), or for an anonymous user features
    /// nobody created.
    public func parameters(_ query: QueryParameters, visibleTo user: String?) -> QueryParameters {
        guard let tracking = options.editorTracking, tracking.ownershipBasedAccessControl, !tracking.allowOthersToQuery,
            let creator = tracking.creatorField
        else { return query }
        var visible = query
        let owner =
            user.map { "UPPER(\(creator)) = UPPER(\(ScalarValue.string($0).description))" } ?? "\(creator) IS NULL"
        visible.whereClause = "(\(query.whereClause)) AND \(owner)"
        return visible
    }
}
