import SieveFeatures
import SieveColumns
import SieveGeometry
import SieveSQL

/// A batch of edits checked exactly as ``EditableFeatureTable`` checks one — values, domains,
/// geometries, capabilities, ownership, the definition expression, editor tracking and global
/// IDs filled in — against a table holding the features the batch updates or deletes, for a
/// store that keeps its features elsewhere (a database) and applies the rows itself.
///
/// Nothing is stored: each add and update becomes the feature's complete row (every field in
/// schema order, with its geometry) or an error; each delete names its feature or fails.
package struct CheckedEditBatch: Sendable {
    /// A feature's row to store.
    package struct Row: Sendable {
        /// The feature's object ID (-1 for an add: the store assigns it).
        package var objectID: Int64
        /// Every field's value, in schema order (the object ID's slot of an add is NULL).
        package var values: [ScalarValue]
        /// The geometry (projected into the table's spatial reference).
        package var geometry: Geometry?
        /// The global ID, when the table has a GlobalID field.
        package var globalID: String?
    }

    /// One edit's outcome: the row to store (none for a delete), or why not.
    package struct Outcome: Sendable {
        /// The feature's object ID (-1 for an add).
        package var objectID: Int64
        /// The feature's global ID, when known.
        package var globalID: String?
        /// The row an add or update stores.
        package var row: Row?
        /// Why the edit fails, if it does.
        package var error: EditError?
    }

    /// The outcomes of the adds, updates and deletes, in the request's order.
    package let adds: [Outcome]
    package let updates: [Outcome]
    package let deletes: [Outcome]

    /// Checks `adds`, `updates` and `deletes` against `table`, which must hold (at least) the
    /// features the updates and deletes name, as they are now: a feature it does not hold does
    /// not exist for the batch.
    /// - Throws: ``/SieveFeatures/FeatureTableError`` when the options' definition expression
    ///   does not compile against the table's schema.
    package init(
        adds: [FeatureEdit], updates: [FeatureEdit], deletes: [Int64], against table: FeatureTable, options: EditingOptions,
        user: String?
    ) throws(FeatureTableError) {
        var definition: CompiledWhereClause?
        if let sql = options.definitionExpression, !sql.allSatisfy(\.isWhitespace) {
            do {
                definition = try CompiledWhereClause(sql, schema: table.schema, collation: table.collation)
            } catch {
                throw FeatureTableError(.invalidQuery, "the definition expression: \(error)")
            }
        }
        var batch = Batch(table: table, options: options, definition: definition, user: user, now: options.now())
        func outcome(_ prepared: Batch.Outcome) -> Outcome {
            Outcome(
                objectID: prepared.objectID, globalID: prepared.row?.globalID,
                row: prepared.row.map { Row(objectID: $0.objectID, values: $0.values, geometry: $0.geometry, globalID: $0.globalID) },
                error: prepared.error)
        }
        self.adds = adds.map { outcome(batch.prepareAdd($0)) }
        self.updates = updates.map { outcome(batch.prepareUpdate($0)) }
        self.deletes = deletes.map { objectID in
            let prepared = batch.prepareDelete(objectID)
            return Outcome(objectID: prepared.objectID, globalID: prepared.globalID, row: nil, error: prepared.error)
        }
    }

    /// Whether an edit of the batch failed its checks.
    package var hasFailures: Bool {
        adds.contains { $0.error != nil } || updates.contains { $0.error != nil } || deletes.contains { $0.error != nil }
    }

    /// The answer to the batch when it is not applied because an edit failed: each failed edit
    /// its error (`failures` overrides, by position, for edits the store refused), the others
    /// ``EditError/Kind/rolledBack``, as ``EditableFeatureTable`` answers a rolled-back batch.
    package func rolledBack(
        addFailures: [Int: EditError] = [:], updateFailures: [Int: EditError] = [:], deleteFailures: [Int: EditError] = [:]
    ) -> ApplyEditsResult {
        let rolledBack = EditError.batchRolledBack
        return ApplyEditsResult(
            addResults: adds.indices.map { FeatureEditResult(objectID: -1, error: addFailures[$0] ?? adds[$0].error ?? rolledBack) },
            updateResults: updates.indices.map {
                FeatureEditResult(objectID: updates[$0].objectID, globalID: updates[$0].globalID, error: updateFailures[$0] ?? updates[$0].error ?? rolledBack)
            },
            deleteResults: deletes.indices.map {
                FeatureEditResult(objectID: deletes[$0].objectID, globalID: deletes[$0].globalID, error: deleteFailures[$0] ?? deletes[$0].error ?? rolledBack)
            })
    }
}
