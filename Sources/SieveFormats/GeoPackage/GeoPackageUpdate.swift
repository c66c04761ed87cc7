import CSQLite
import SieveFeatures
import SieveGeometry
import SieveJSON

extension GeoPackage {
    /// Saves edits into layer `layer` of the existing GeoPackage at `path`, in place and in one
    /// transaction: the rows of the `deleted` object IDs are removed, and those of the `written`
    /// ones (added or changed features) replaced by `table`'s rows for them. Every other layer
    /// and table of the file stays as it is. The layer's R-tree follows through its triggers
    /// (as GeoPackage's `gpkg_rtree_index` extension defines them, and as GDAL and GeoSieve
    /// write them), the attachments of the features concerned are replaced in `LAYER__ATTACH`
    /// (created when needed), and the layer's extent in `gpkg_contents` grows to hold the written
    /// features. A failure rolls the transaction back: the file is as it was.
    ///
    /// `table` must have the layer's fields (as ``read(at:layer:options:progress:)`` gives them,
    /// edited by an `EditableFeatureTable`, whose `EditableFeatureTable/localEditObjectIDs`
    /// gives the two lists).
    /// - Throws: ``GeoPackageError`` when the file or layer cannot be opened or written.
    public static func save(
        _ table: FeatureTable, writing written: [Int64], deleting deleted: [Int64], to path: String, layer: String
    ) throws(GeoPackageError) {
        do throws(GeoPackageError) {
            let connection = try SQLiteConnection(path: path, readOnly: false)
            defer { try? connection.close() }
            try GeoPackageSQLFunctions.register(on: connection)
            try connection.execute("BEGIN IMMEDIATE")
            do throws(GeoPackageError) {
                try update(connection, table: table, written: written, deleted: deleted, layer: layer)
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        } catch {
            throw error.located(path: path, layer: layer)
        }
    }

    private static func update(
        _ connection: SQLiteConnection, table: FeatureTable, written: [Int64], deleted: [Int64], layer: String
    ) throws(GeoPackageError) {
        let listed = try connection.rows(
            "SELECT table_name FROM gpkg_contents WHERE data_type = 'features' AND table_name = ?", [layer])
        guard !listed.isEmpty else {
            throw GeoPackageError(.layerNotFound, "the GeoPackage has no feature table \(JSONKey.quoted(layer))")
        }
        let geometryRows = try connection.rows(
            "SELECT column_name, srs_id, geometry_type_name FROM gpkg_geometry_columns WHERE table_name = ?", [layer])
        let geometryColumn = table.schema.geometryType == nil ? nil : geometryRows.first?[0] ?? nil
        let srsID = Int32(geometryRows.first?[1].flatMap { $0 }.flatMap { Int32($0) } ?? 0)
        let multi = (geometryRows.first?[2] ?? nil)?.uppercased().hasPrefix("MULTI") ?? false
        let t = sqlIdentifier(layer)
        let oid = sqlIdentifier(table.schema.objectIdFieldName)
        let remove = try connection.prepare("DELETE FROM \(t) WHERE \(oid) = ?")
        for id in deleted + written {
            try remove.bind(1, int64: id)
            try remove.run()
        }
        let rows = written.compactMap { table.row(forObjectID: $0) }
        let fieldIndices = table.schema.fields.indices.filter { $0 != table.schema.objectIdFieldIndex }
        var inserter = try GeoPackageRowInserter(
            connection: connection, table: table, layer: layer, geometryColumn: geometryColumn, fieldIndices: fieldIndices,
            srsID: srsID, multi: multi, namingEveryID: true)
        defer { inserter.deallocate() }
        try inserter.insert(rows)
        if !inserter.extent.isEmpty {
            let e = inserter.extent
            let grow = try connection.prepare(
                "UPDATE gpkg_contents SET min_x = min(coalesce(min_x, ?1), ?1), min_y = min(coalesce(min_y, ?2), ?2), "
                    + "max_x = max(coalesce(max_x, ?3), ?3), max_y = max(coalesce(max_y, ?4), ?4), "
                    + "last_change = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE table_name = ?5")
            try grow.bind(1, double: e.xmin)
            try grow.bind(2, double: e.ymin)
            try grow.bind(3, double: e.xmax)
            try grow.bind(4, double: e.ymax)
            try grow.bind(5, text: layer)
            try grow.run()
        }
        try updateAttachments(connection, table: table, written: written, deleted: deleted, layer: layer)
    }

    /// Replaces the attachments of the written and deleted features in `LAYER__ATTACH`.
    private static func updateAttachments(
        _ connection: SQLiteConnection, table: FeatureTable, written: [Int64], deleted: [Int64], layer: String
    ) throws(GeoPackageError) {
        let name = GeoPackageWriter.attachmentTable(of: layer)
        let exists = try !connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?", [name]).isEmpty
        let writtenIDs = Set(written)
        let attachments = table.attachments.all.filter { writtenIDs.contains($0.info.parentObjectID) }
        guard exists || !attachments.isEmpty else { return }
        if !exists { try GeoPackageWriter.createAttachmentTable(connection, layer: layer) }
        let remove = try connection.prepare("DELETE FROM \(sqlIdentifier(name)) WHERE REL_OBJECTID = ?")
        for id in deleted + written {
            try remove.bind(1, int64: id)
            try remove.run()
        }
        try GeoPackageWriter.insertAttachments(connection, attachments, layer: layer)
    }
}
