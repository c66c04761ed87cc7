import SieveBase
import SieveColumns
import SieveGeometry
import SieveSQL

/// A table of features stored by column: one typed ``/SieveColumns/Column`` per schema field and a
/// ``/SieveGeometry/GeometryColumn`` holding the geometries and each row's envelope in flat arrays.
///
/// Rows are numbered `0..<count` in load order. Every row has a unique, non-null object ID
/// (the ``Schema/objectIdFieldName`` column), and ``row(forObjectID:)`` finds a row by it in
/// O(1). A row's geometry may be `nil` (a feature without geometry); its envelope is then NaN
/// in all four arrays, so that no envelope test ever matches it.
///
/// The table is an immutable value: load it with `load(geoJSON:schema:)`,
/// `load(esriJSON:schema:)` or `load(contentsOf:schema:)` (module SieveFormats), or build it from
/// columns with ``init(schema:columns:geometries:)``.
///
/// Spatial queries and identify use a quadtree over the envelopes (``spatialIndex``), built
/// lazily the first time one is needed and then shared by every copy of the table value.
public struct FeatureTable: Sendable {
    /// Everything but the collation, in one immutable object: copying a table (which every
    /// query, snapshot and edit does) retains one reference, not one per column buffer.
    private final class Storage: Sendable {
        let schema: Schema
        let columns: [Column]
        let geometryColumn: GeometryColumn
        let count: Int
        let extent: Envelope
        let objectIDIndex: ObjectIDIndex
        let tombstones: RowTombstones
        let lineage: EditLineage?
        let spatialIndexCache: SpatialIndexCache
        let attachments: AttachmentStore
        /// How the file the table was loaded from held it, if it was loaded from a GeoJSON or
        /// Esri JSON file.
        let representation: FileRepresentation?
        /// Whether every live row has a geometry, once asked (see `everyFeatureHasGeometry`).
        let everyRowHasGeometry = Locked<Bool?>(nil)
        /// The schema's JSON pieces, once asked (see `schemaJSON`).
        let schemaJSON = Locked<SchemaJSON?>(nil)

        init(
            schema: Schema, columns: [Column], geometryColumn: GeometryColumn, count: Int, extent: Envelope,
            objectIDIndex: ObjectIDIndex, tombstones: RowTombstones, lineage: EditLineage?, spatialIndexCache: SpatialIndexCache,
            attachments: AttachmentStore = AttachmentStore(), representation: FileRepresentation? = nil
        ) {
            self.schema = schema
            self.columns = columns
            self.geometryColumn = geometryColumn
            self.count = count
            self.extent = extent
            self.objectIDIndex = objectIDIndex
            self.tombstones = tombstones
            self.lineage = lineage
            self.spatialIndexCache = spatialIndexCache
            self.attachments = attachments
            self.representation = representation
        }
    }

    private var storage_: Storage
    private var storage: Storage { storage_ }

    /// Whether every feature has a geometry (a null one is none): read from the rows' flags
    /// once per snapshot (O(rows)), then remembered — a server asks it on every `bbox` request.
    package var everyFeatureHasGeometry: Bool {
        guard schema.geometryType != nil else { return false }
        return storage.everyRowHasGeometry.withLock { known in
            if let known { return known }
            let column = geometryColumn, tombstones = self.tombstones
            let answer = (0..<count).allSatisfy { tombstones.isDeleted($0) || !column.isNull(row: $0) }
            known = answer
            return answer
        }
    }

    /// What the JSON writers write of the schema in every answer (each field's Esri JSON
    /// description and member name), made on first use and kept for this snapshot, so that an
    /// answer costs nothing per field it does not write a value of.
    package var schemaJSON: SchemaJSON {
        storage.schemaJSON.withLock { known in
            if let known { return known }
            let made = SchemaJSON(schema)
            known = made
            return made
        }
    }

    /// The fields, object-ID field, geometry type and spatial reference.
    public var schema: Schema { storage.schema }

    /// Whether `other` is this very table (the same stored rows, not merely equal ones): what a
    /// cache of something derived from a table checks before reusing it.
    package func isIdentical(to other: FeatureTable) -> Bool { storage === other.storage }
    /// One column per field of ``schema``, in the same order.
    public var columns: [Column] { storage.columns }
    /// The rows' geometries, stored by column (see ``/SieveGeometry/GeometryColumn``), one per row:
    /// a row without geometry holds `nil`, as does every row of a table without geometries
    /// (``Schema/geometryType`` `nil`).
    public var geometryColumn: GeometryColumn { storage.geometryColumn }
    /// Each row's envelope minimum x (NaN for a row without geometry or with an empty one).
    public var xmin: ColumnBuffer<Double> { storage.geometryColumn.xmin }
    /// Each row's envelope minimum y (NaN for a row without geometry or with an empty one).
    public var ymin: ColumnBuffer<Double> { storage.geometryColumn.ymin }
    /// Each row's envelope maximum x (NaN for a row without geometry or with an empty one).
    public var xmax: ColumnBuffer<Double> { storage.geometryColumn.xmax }
    /// Each row's envelope maximum y (NaN for a row without geometry or with an empty one).
    public var ymax: ColumnBuffer<Double> { storage.geometryColumn.ymax }
    /// The number of rows, deleted ones included (see ``featureCount``): rows are numbered
    /// `0 ..< count`.
    public var count: Int { storage.count }
    /// Which rows are deleted (none for a table that was loaded or built and never edited).
    /// An edited table's snapshot keeps deleted rows until `EditableFeatureTable/compact()`;
    /// every query, count, index search and identify leaves them out.
    package var tombstones: RowTombstones { storage.tombstones }
    /// For a snapshot of an edited table: how to find the rows edits appended by object ID.
    package var lineage: EditLineage? { storage.lineage }
    /// The union of all rows' envelopes (``/SieveGeometry/Envelope/empty`` when no row has a
    /// geometry). After edits it still holds every feature but may be larger than their union
    /// (deleting a feature does not shrink it) until `EditableFeatureTable/compact()`.
    public var extent: Envelope { storage.extent }
    /// How the table's strings compare in where clauses and in ordering, unless a query names
    /// its own (``QueryParameters/collation``): `Collation.binary` (case-sensitive, the
    /// default) or `Collation.nocase`. Set it with ``with(collation:)``.
    public private(set) var collation: Collation = .binary
    /// Object ID → row.
    private var objectIDIndex: ObjectIDIndex { storage.objectIDIndex }
    /// The quadtree, built on first use (see ``spatialIndex``) and shared by copies and by the
    /// snapshots edited from this table.
    package var spatialIndexCache: SpatialIndexCache { storage.spatialIndexCache }
    /// The attachments of the features (an edited table's; none otherwise).
    package var attachments: AttachmentStore { storage.attachments }

    /// Creates a table from a schema and its columns.
    ///
    /// - Parameters:
    ///   - schema: The fields; ``Schema/objectIdFieldName`` names the object-ID column.
    ///   - columns: One column per field, in the schema's order, each of the field's
    ///     ``Field/columnType``, all of the same length.
    ///   - geometries: One geometry (or `nil`) per row, or an empty array for a table
    ///     without geometries.
    /// - Throws: ``FeatureTableError/Kind/invalidTable`` when the columns do not fit the
    ///   schema or each other, or the object-ID column holds a NULL;
    ///   ``FeatureTableError/Kind/duplicateObjectID`` when two rows share an object ID.
    public init(schema: Schema, columns: [Column], geometries: [Geometry?] = []) throws(FeatureTableError) {
        let count = columns.first?.count ?? geometries.count
        let objectIDIndex = try Self.validate(schema: schema, columns: columns, count: count, geometries: geometries.count)
        self.init(
            validatedSchema: schema, columns: columns,
            geometryColumn: GeometryColumn(geometries.isEmpty ? Array(repeating: nil, count: count) : geometries),
            objectIDIndex: objectIDIndex)
    }

    /// Creates a table from a schema, its columns and a geometry column built row by row (by a
    /// reader that appends straight into it), checked as ``init(schema:columns:geometries:)``
    /// checks its arguments. `geometryColumn` has one row per row (all `nil` for a table
    /// without geometries), or none at all for a table without geometries.
    package init(schema: Schema, columns: [Column], geometryColumn: GeometryColumn) throws(FeatureTableError) {
        let count = columns.first?.count ?? geometryColumn.count
        let objectIDIndex = try Self.validate(
            schema: schema, columns: columns, count: count, geometries: geometryColumn.count)
        var geometries = geometryColumn
        if geometries.count == 0, count > 0 {
            geometries = GeometryColumn()
            geometries.reserveCapacity(count)
            for _ in 0..<count { geometries.append(nil) }
        }
        self.init(validatedSchema: schema, columns: columns, geometryColumn: geometries, objectIDIndex: objectIDIndex)
    }

    /// Checks `columns` against `schema` and each other (`count` rows each) and the number of
    /// geometries (0 or `count`), and returns the object-ID index.
    private static func validate(
        schema: Schema, columns: [Column], count: Int, geometries: Int
    ) throws(FeatureTableError) -> ObjectIDIndex {
        guard columns.count == schema.fields.count else {
            throw FeatureTableError(
                .invalidTable, "\(columns.count) columns for \(schema.fields.count) fields")
        }
        for (field, column) in zip(schema.fields, columns) {
            guard column.type == field.columnType else {
                throw FeatureTableError(
                    .invalidTable, "a \(column.type) column for a \(field.type.name) field", fieldName: field.name)
            }
            guard column.count == count else {
                throw FeatureTableError(
                    .invalidTable, "the column has \(column.count) rows, expected \(count)", fieldName: field.name)
            }
        }
        guard geometries == 0 || geometries == count else {
            throw FeatureTableError(.invalidTable, "\(geometries) geometries for \(count) rows")
        }
        guard case .integer(let oidColumn) = columns[schema.objectIdFieldIndex] else {
            throw FeatureTableError(
                .invalidTable, "the object-ID column must be an integer column", fieldName: schema.objectIdFieldName)
        }
        if let validity = oidColumn.validity, validity.nullCount > 0 {
            throw FeatureTableError(
                .invalidTable, "the object-ID column holds NULL", fieldName: schema.objectIdFieldName)
        }
        do throws(ObjectIDIndex.Duplicate) {
            return try ObjectIDIndex.of(oidColumn.values)
        } catch {
            throw FeatureTableError(
                .duplicateObjectID, "rows \(error.firstRow) and \(error.row) both have object ID \(error.objectID)", objectID: error.objectID,
                fieldName: schema.objectIdFieldName)
        }
    }

    /// Creates a table from parts already checked against each other (`geometryColumn` has one
    /// row per row).
    package init(validatedSchema schema: Schema, columns: [Column], geometryColumn: GeometryColumn, rowByObjectID: [Int64: Int]) {
        self.init(validatedSchema: schema, columns: columns, geometryColumn: geometryColumn, objectIDIndex: .hashed(rowByObjectID))
    }

    /// Creates a table from parts already checked against each other, with its object-ID index
    /// (and, loaded from a file, how the file held it).
    package init(
        validatedSchema schema: Schema, columns: [Column], geometryColumn: GeometryColumn, objectIDIndex: ObjectIDIndex,
        representation: FileRepresentation? = nil
    ) {
        let count = objectIDIndex.count
        var extent = Envelope.empty
        let (xmin, ymin, xmax, ymax) = (geometryColumn.xmin, geometryColumn.ymin, geometryColumn.xmax, geometryColumn.ymax)
        for row in 0..<count where !xmin[row].isNaN {
            extent.expand(toInclude: Envelope(xmin: xmin[row], ymin: ymin[row], xmax: xmax[row], ymax: ymax[row]))
        }
        storage_ = Storage(
            schema: schema, columns: columns, geometryColumn: geometryColumn, count: count, extent: extent,
            objectIDIndex: objectIDIndex, tombstones: RowTombstones(), lineage: nil, spatialIndexCache: SpatialIndexCache(),
            representation: representation)
    }

    /// A snapshot of an edited table: `base`'s schema, collation, object-ID index of its first
    /// rows and spatial index, with the given columns, rows, extent, deleted rows and lineage.
    package init(
        editing base: FeatureTable, columns: [Column], geometryColumn: GeometryColumn, count: Int, extent: Envelope,
        tombstones: RowTombstones, lineage: EditLineage, attachments: AttachmentStore? = nil
    ) {
        collation = base.collation
        storage_ = Storage(
            schema: base.schema, columns: columns, geometryColumn: geometryColumn, count: count, extent: extent,
            objectIDIndex: base.objectIDIndex, tombstones: tombstones, lineage: lineage,
            spatialIndexCache: base.spatialIndexCache, attachments: attachments ?? base.attachments,
            representation: base.fileRepresentation)
    }

    /// This table with `attachments` (the same rows, indexes and caches).
    package func withAttachments(_ attachments: AttachmentStore) -> FeatureTable {
        replacing(attachments: attachments)
    }

    /// This table with the `typeIdField`, `types` and `templates` of Esri layer JSON (as
    /// ``Schema/withTypes(esriLayerJSON:)`` reads them): the same rows, indexes and caches — how
    /// a feature service's layer document types the features read from its queries.
    /// - Throws: ``FeatureTableError/Kind/invalidSchema`` naming the member that is wrong.
    public func withTypes(esriLayerJSON text: String) throws(FeatureTableError) -> FeatureTable {
        replacing(schema: try schema.withTypes(esriLayerJSON: text))
    }

    /// This table with `objectIDs` (one per row, in row order) as its object IDs: the same rows,
    /// geometries and attributes — how a collection whose features' ids are not integers gets
    /// object IDs that stay the same from one fetch to the next. For a table as loaded (not an
    /// edited snapshot, whose deleted rows and lineage follow the old object IDs).
    /// - Throws: ``FeatureTableError/Kind/invalidTable`` for a count that is not the table's;
    ///   ``FeatureTableError/Kind/duplicateObjectID`` for an object ID given twice.
    package func replacingObjectIDs(_ objectIDs: [Int64]) throws(FeatureTableError) -> FeatureTable {
        guard objectIDs.count == count else {
            throw FeatureTableError(.invalidTable, "\(objectIDs.count) object IDs for \(count) rows")
        }
        let column = Int64Column(values: objectIDs)
        let index: ObjectIDIndex
        do throws(ObjectIDIndex.Duplicate) {
            index = try ObjectIDIndex.of(column.values)
        } catch {
            throw FeatureTableError(
                .duplicateObjectID, "rows \(error.firstRow) and \(error.row) both have object ID \(error.objectID)", objectID: error.objectID)
        }
        var replaced = columns
        replaced[schema.objectIdFieldIndex] = .integer(column)
        var copy = self
        copy.storage_ = Storage(
            schema: schema, columns: replaced, geometryColumn: geometryColumn, count: count, extent: extent, objectIDIndex: index,
            tombstones: tombstones, lineage: lineage, spatialIndexCache: SpatialIndexCache(), attachments: attachments,
            representation: nil)  // where the old object IDs came from no longer holds
        return copy
    }

    /// This table with other attachments, another spatial index cache, a schema differing only
    /// in its types and templates, or a schema with columns of the same rows.
    package func replacing(
        attachments: AttachmentStore? = nil, spatialIndexCache cache: SpatialIndexCache? = nil, schema typed: Schema? = nil,
        columns replaced: [Column]? = nil
    ) -> FeatureTable {
        var copy = self
        copy.storage_ = Storage(
            schema: typed ?? schema, columns: replaced ?? columns, geometryColumn: geometryColumn, count: count, extent: extent,
            objectIDIndex: objectIDIndex, tombstones: tombstones, lineage: lineage,
            spatialIndexCache: cache ?? spatialIndexCache, attachments: attachments ?? self.attachments,
            representation: replaced == nil ? fileRepresentation : nil)
        return copy
    }

    /// This table with a spatial index cache of its own (holding the tree this table built, if
    /// any), so that rows appended to it never mix with another table's.
    package func withSpatialIndexOfItsOwn() -> FeatureTable {
        replacing(spatialIndexCache: SpatialIndexCache(seed: spatialIndexCache, rowCount: count))
    }

    /// How the GeoJSON FeatureCollection or Esri JSON FeatureSet the table was loaded from held
    /// its features (where the object IDs came from, the fields the loader added, …); `nil` for
    /// a table not loaded from one, or whose schema changed since.
    package var fileRepresentation: FileRepresentation? { storage.representation }

    /// The live rows in the order of the features they hold: a feature an edit updated at the
    /// place of its first version, added features after the others, in the order added.
    package var liveRowsInFeatureOrder: [Int] {
        guard let lineage else { return liveRows }
        let base = lineage.baseRowCount
        var placed: [(place: Int, row: Int)] = []
        var rows: [Int] = []
        rows.reserveCapacity(count)
        for row in 0..<count where !tombstones.isDeleted(row) {
            if row < base {
                rows.append(row)
            } else {
                // An updated feature's first version is the base row of its object ID.
                placed.append((objectIDIndex.row(forObjectID: objectID(row: row)) ?? row, row))
            }
        }
        guard !placed.isEmpty else { return rows }
        placed.sort { ($0.place, $0.row) < ($1.place, $1.row) }
        var merged: [Int] = []
        merged.reserveCapacity(rows.count + placed.count)
        var next = 0
        for row in rows {
            while next < placed.count, placed[next].place < row {
                merged.append(placed[next].row)
                next += 1
            }
            merged.append(row)
        }
        merged.append(contentsOf: placed[next...].map(\.row))
        return merged
    }

    /// The number of features: the rows not deleted.
    public var featureCount: Int { count - tombstones.deletedCount }

    /// The number of deleted rows kept until compaction (0 for a table never edited).
    public var deletedRowCount: Int { tombstones.deletedCount }

    /// Whether row `row` is deleted (an edited table's snapshot keeps deleted rows until
    /// compaction; no query returns them).
    public func isDeleted(row: Int) -> Bool { tombstones.isDeleted(row) }

    /// The rows that are not deleted, in row order.
    public var liveRows: [Int] {
        guard tombstones.deletedCount > 0 else { return Array(0..<count) }
        return (0..<count).filter { !tombstones.isDeleted($0) }
    }

    /// The bytes the table's data holds: its columns and geometry column
    /// (``/SieveColumns/Column/byteCount``, ``/SieveGeometry/GeometryColumn/byteCount``) and its
    /// object-ID index (nothing when the object IDs are consecutive in row order, else a hash table
    /// of 16-byte entries, counted at its capacity).
    public var byteCount: Int {
        columns.reduce(0) { $0 + $1.byteCount } + geometryColumn.byteCount + objectIDIndex.byteCount
            + tombstones.byteCount + (lineage?.byteCount ?? 0) + attachments.byteCount
    }

    /// The spatial reference of the geometries.
    public var spatialReference: SpatialReference { schema.spatialReference }

    /// The object-ID column's values (one per row, never NULL). In a snapshot of an edited table
    /// a deleted row keeps its object ID, which an updated feature's new row repeats: look rows
    /// up with ``row(forObjectID:)``.
    public var objectIDs: ColumnBuffer<Int64> {
        guard case .integer(let column) = columns[schema.objectIdFieldIndex] else { return [] }
        return column.values
    }

    /// The column of the field named `name` (ignoring case), or `nil`.
    public func column(named name: String) -> Column? {
        schema.index(ofField: name).map { columns[$0] }
    }

    /// The value of row `row` in the field named `field` (ignoring case); `.null` when the
    /// value is NULL or no such field exists (check with ``Schema/field(named:)`` first).
    public func value(row: Int, field: String) -> ScalarValue {
        guard let index = schema.index(ofField: field) else { return .null }
        return columns[index][row]
    }

    /// The value of row `row` in the field at `fieldIndex` of the schema.
    public func value(row: Int, fieldIndex: Int) -> ScalarValue {
        columns[fieldIndex][row]
    }

    /// The object ID of row `row`.
    public func objectID(row: Int) -> Int64 {
        guard case .integer(let column) = columns[schema.objectIdFieldIndex] else { return 0 }
        return column.values[row]
    }

    /// The row holding object ID `objectID`, or `nil` (no such feature, or it is deleted).
    public func row(forObjectID objectID: Int64) -> Int? {
        guard let lineage else { return objectIDIndex.row(forObjectID: objectID) }
        let row: Int
        switch lineage.versions.lookup(objectID, rowCount: count, baseRowCount: lineage.baseRowCount) {
        case .notEdited:
            guard let base = objectIDIndex.row(forObjectID: objectID) else { return nil }
            row = base
        case .row(let version):
            row = version
        case .absent:
            return nil
        }
        return tombstones.isDeleted(row) ? nil : row
    }

    /// The row of the latest version of `objectID` in this snapshot, deleted or not: what an
    /// edit appending a new version records as the version it follows.
    package func versionRow(forObjectID objectID: Int64) -> Int? {
        guard let lineage else { return objectIDIndex.row(forObjectID: objectID) }
        switch lineage.versions.lookup(objectID, rowCount: count, baseRowCount: lineage.baseRowCount) {
        case .notEdited: return objectIDIndex.row(forObjectID: objectID)
        case .row(let row): return row
        case .absent: return nil
        }
    }

    /// The geometry of row `row` (`nil` for a feature without geometry).
    public func geometry(row: Int) -> Geometry? {
        geometryColumn[row]
    }

    /// The envelope of row `row`, or `nil` when the row has no geometry or an empty one.
    public func envelope(row: Int) -> Envelope? {
        geometryColumn.envelope(row: row)
    }

    /// This table with another default collation for where clauses and ordering (see
    /// ``collation``); the columns are shared, not copied.
    ///
    /// ```swift
    /// let table = try FeatureTable.load(contentsOf: url).with(collation: .nocase)
    /// try table.queryFeatureCount(QueryParameters(whereClause: "name = 'FRANCE'"))  // 1
    /// ```
    public func with(collation: Collation) -> FeatureTable {
        var copy = self
        copy.collation = collation
        return copy
    }
}

/// A table's object ID → row map: arithmetic when the object IDs are consecutive in row order
/// (`first`, `first + 1`, …: the usual case, and no memory), else a hash table.
package enum ObjectIDIndex: Sendable {
    /// Row `r` holds object ID `first + r`.
    case consecutive(first: Int64, count: Int)
    /// Object IDs increasing in row order, with gaps (as after deletes and compaction): found by
    /// binary search in the object-ID column itself, with no memory of its own.
    case increasing(ColumnBuffer<Int64>)
    /// Any other object IDs (unique).
    case hashed([Int64: Int])

    /// An object ID given twice: the rows holding it.
    package struct Duplicate: Error {
        package let firstRow: Int
        package let row: Int
        package let objectID: Int64
    }

    /// The index of `objectIDs` (in row order): consecutive, increasing, else hashed.
    /// - Throws: ``Duplicate`` for the first object ID given twice.
    package static func of(_ objectIDs: ColumnBuffer<Int64>) throws(Duplicate) -> ObjectIDIndex {
        if let ordered = ordered(objectIDs) { return ordered }
        var rows: [Int64: Int] = [:]
        rows.reserveCapacity(objectIDs.count)
        for (row, id) in objectIDs.enumerated() {
            if let previous = rows.updateValue(row, forKey: id) { throw Duplicate(firstRow: previous, row: row, objectID: id) }
        }
        return .hashed(rows)
    }

    /// The index of `objectIDs`: consecutive, increasing, or `nil` when they are neither (the
    /// caller hashes them).
    package static func ordered(_ objectIDs: ColumnBuffer<Int64>) -> ObjectIDIndex? {
        if let consecutive = ObjectIDIndex(consecutive: objectIDs) { return consecutive }
        var previous = Int64.min
        for (row, id) in objectIDs.enumerated() {
            guard row == 0 || id > previous else { return nil }
            previous = id
        }
        return .increasing(objectIDs)
    }

    /// The consecutive index of `objectIDs`, or `nil` when they are not consecutive.
    package init?<C: Collection<Int64>>(consecutive objectIDs: C) {
        guard let first = objectIDs.first else {
            self = .consecutive(first: 0, count: 0)
            return
        }
        guard first <= Int64.max - Int64(objectIDs.count - 1) else { return nil }
        var expected = first
        for id in objectIDs {
            guard id == expected else { return nil }
            expected &+= 1
        }
        self = .consecutive(first: first, count: objectIDs.count)
    }

    /// The number of rows.
    package var count: Int {
        switch self {
        case .consecutive(_, let count): count
        case .increasing(let ids): ids.count
        case .hashed(let rows): rows.count
        }
    }

    /// The row of `objectID`, or `nil`.
    @inline(__always)
    package func row(forObjectID objectID: Int64) -> Int? {
        switch self {
        case .consecutive(let first, let count):
            // Unsigned: IDs below `first` wrap to large offsets and fail the test.
            let offset = UInt64(bitPattern: objectID &- first)
            return offset < UInt64(count) ? Int(offset) : nil
        case .increasing(let ids):
            var low = 0, high = ids.count
            while low < high {
                let middle = (low + high) / 2
                if ids[middle] < objectID { low = middle + 1 } else { high = middle }
            }
            return low < ids.count && ids[low] == objectID ? low : nil
        case .hashed(let rows):
            return rows[objectID]
        }
    }

    /// The bytes the index holds: a hash table's 16-byte entries and its bitmap, at capacity.
    package var byteCount: Int {
        switch self {
        case .consecutive, .increasing: 0
        case .hashed(let rows): rows.capacity * 16 + rows.capacity / 8
        }
    }
}

extension FeatureTable {
    /// A table of `schema` without rows: what a source answers with when it has nothing, and the
    /// table of an empty result.
    public init(emptyWith schema: Schema) {
        let columns: [Column] = schema.fields.map { field in
            switch field.columnType {
            case .integer: .integer(Int64Column(values: []))
            case .double: .double(DoubleColumn(values: []))
            case .string: .string(StringColumn([]))
            case .date: .date(Int64Column(values: []))
            }
        }
        self.init(validatedSchema: schema, columns: columns, geometryColumn: GeometryColumn(), rowByObjectID: [:])
    }
}
