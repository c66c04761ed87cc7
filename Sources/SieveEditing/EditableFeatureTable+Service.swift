import SieveFeatures
import SieveFormats
import SieveColumns

/// What ``EditableFeatureTable/mergeFromService(_:)`` did.
public struct ServiceMergeResult: Hashable, Sendable {
    /// Features new to the table, appended with the service's object IDs.
    public var added: Int
    /// Features the table held that the service sent changed: their new version replaced the old.
    public var replaced: Int
    /// Features the service sent as the table already held them.
    public var unchanged: Int
    /// Features the service sent that have local edits not yet sent back: kept as edited.
    public var keptLocal: Int
}

extension EditableFeatureTable {
    /// Puts features read from a service into the table as the service has them — the cache of
    /// a service table filling up: a feature the table does not hold is appended with its
    /// object ID, one it holds is replaced when the service sent it changed, so no feature is
    /// ever held twice. This is not a local edit: ``localEdits`` do not count it. A feature with
    /// local edits not yet sent back (see ``commitLocalEdits()``) keeps them.
    ///
    /// `features` must have the table's fields by name (in any order; fields it lacks are
    /// NULL for new features and keep their values in held ones) and the table's spatial
    /// reference. One batch: readers see all of it or none.
    /// - Throws: ``/SieveFeatures/FeatureTableError/Kind/invalidTable`` when a field of `features`
    ///   is not one of the table's or has another column type, or the spatial references differ.
    @discardableResult
    public func mergeFromService(_ features: FeatureTable) throws(FeatureTableError) -> ServiceMergeResult {
        try writer.withLock { writer throws(FeatureTableError) -> ServiceMergeResult in
            let current = writer.current
            let schema = current.schema
            guard features.schema.geometryType == nil || features.spatialReference == current.spatialReference else {
                throw FeatureTableError(
                    .invalidTable,
                    "the service's features are in wkid \(features.spatialReference.wkid), the table in wkid \(current.spatialReference.wkid)")
            }
            // For each of the table's fields, its index among the service's, if there.
            var source: [Int?] = []
            for field in schema.fields {
                let index = features.schema.index(ofField: field.name)
                if let index, features.schema.fields[index].columnType != field.columnType {
                    throw FeatureTableError(
                        .invalidTable, "the service's field is of type \(features.schema.fields[index].type.name), the table's of type \(field.type.name)",
                        fieldName: field.name)
                }
                source.append(index)
            }
            for field in features.schema.fields where schema.index(ofField: field.name) == nil {
                throw FeatureTableError(.invalidTable, "the service's field is not one of the table's", fieldName: field.name)
            }
            var result = ServiceMergeResult(added: 0, replaced: 0, unchanged: 0, keptLocal: 0)
            var rows: [PreparedRow] = []
            var highest = writer.nextObjectID - 1
            var seen = Set<Int64>()
            for row in 0..<features.count where !features.tombstones.isDeleted(row) {
                let objectID = features.objectID(row: row)
                guard seen.insert(objectID).inserted else { continue }
                highest = Swift.max(highest, objectID)
                if writer.touched.contains(objectID) {
                    result.keptLocal += 1
                    continue
                }
                let held = current.row(forObjectID: objectID)
                var values: [ScalarValue] = []
                values.reserveCapacity(schema.fields.count)
                for (f, index) in source.enumerated() {
                    if let index {
                        values.append(features.value(row: row, fieldIndex: index))
                    } else {
                        values.append(held.map { current.value(row: $0, fieldIndex: f) } ?? .null)
                    }
                }
                let geometry = schema.geometryType == nil ? nil : features.geometry(row: row)
                if let held {
                    let same = current.geometry(row: held) == geometry
                        && values.enumerated().allSatisfy { current.value(row: held, fieldIndex: $0.offset) == $0.element }
                    if same {
                        result.unchanged += 1
                        continue
                    }
                    result.replaced += 1
                } else {
                    result.added += 1
                }
                rows.append(
                    PreparedRow(
                        values: values, geometry: geometry, objectID: objectID, globalID: nil,
                        previousRow: current.versionRow(forObjectID: objectID)))
            }
            // Local additions get object IDs above every one the service has used.
            writer.nextObjectID = Swift.max(writer.nextObjectID, highest + 1)
            guard !rows.isEmpty else { return result }
            let first = current.count
            let snapshot = Self.apply(rows, deleting: [], attachments: current.attachments, to: &writer)
            // Later local edits of these features count from the service's version: the new
            // snapshot as a whole when no edits are pending, else feature by feature (the
            // edited features themselves were not merged, so their pending edits stay).
            if writer.touched.isEmpty {
                writer.committed = snapshot
                writer.serviceVersions = [:]
            } else {
                for (i, row) in rows.enumerated() { writer.serviceVersions[row.objectID] = (snapshot, first + i) }
            }
            publish(snapshot)
            return result
        }
    }

    // MARK: - Sending local edits

    /// The local edits taken to be sent to the service: the request, the local object IDs of
    /// its adds (in order), and the state it was taken from.
    package struct PendingEdits: Sendable {
        /// The applyEdits request (see ``EditableFeatureTable/localEdits``).
        package let request: ApplyEditsRequest
        /// The local object ID of each of ``request``'s adds, in order.
        package let addObjectIDs: [Int64]
        /// The snapshot the request was made from.
        let snapshot: FeatureTable
        /// The features touched then.
        let touched: Set<Int64>
    }

    /// The local edits to send now (see ``acknowledge(_:serviceObjectIDs:)``).
    package func pendingEdits() -> PendingEdits {
        writer.withLock { writer in
            let adds = writer.touched.sorted().filter { writer.base($0) == nil && writer.current.row(forObjectID: $0) != nil }
            return PendingEdits(request: Self.netEdits(writer), addObjectIDs: adds, snapshot: writer.current, touched: writer.touched)
        }
    }

    /// Records that the service applied `pending`, its adds under `serviceObjectIDs` (one per
    /// add, in order): each added feature moves to the object ID the service gave it, and local
    /// edits now count from what was sent. A feature edited again while the request was on its
    /// way keeps that edit pending (counted from what was sent); every other feature sent has
    /// no local edit any more. One batch.
    package func acknowledge(_ pending: PendingEdits, serviceObjectIDs: [Int64]) {
        writer.withLock { writer in
            let current = writer.current, sent = pending.snapshot
            let schema = current.schema
            let added = Dictionary(zip(pending.addObjectIDs, serviceObjectIDs), uniquingKeysWith: { first, _ in first })
            var rows: [PreparedRow] = []
            var deleted: [Int] = []
            for objectID in pending.touched.sorted() {
                let then = sent.row(forObjectID: objectID), now = current.row(forObjectID: objectID)
                let unchanged: Bool
                switch (then, now) {
                case (let then?, let now?): unchanged = Self.sameFeature(sent, then, current, now)
                case (nil, nil): unchanged = true
                default: unchanged = false
                }
                writer.touched.remove(objectID)
                if let serviceID = added[objectID] {
                    // The service's version is the one sent, under its new object ID; the
                    // feature moves there (if not deleted since).
                    writer.serviceVersions[serviceID] = then.map { (sent, $0) }
                    if let now {
                        var values = (0..<schema.fields.count).map { current.value(row: now, fieldIndex: $0) }
                        values[schema.objectIdFieldIndex] = .integer(serviceID)
                        rows.append(PreparedRow(values: values, geometry: current.geometry(row: now), objectID: serviceID, globalID: nil, previousRow: nil))
                        deleted.append(now)
                    }
                    if !unchanged { writer.touched.insert(serviceID) }
                    writer.nextObjectID = Swift.max(writer.nextObjectID, serviceID + 1)
                } else {
                    writer.serviceVersions[objectID] = then.map { (sent, $0) }
                    if !unchanged { writer.touched.insert(objectID) }
                }
            }
            if !rows.isEmpty || !deleted.isEmpty {
                publish(Self.apply(rows, deleting: deleted, attachments: current.attachments, to: &writer))
            }
            if writer.touched.isEmpty {
                writer.committed = writer.current
                writer.serviceVersions = [:]
            }
        }
    }
}
