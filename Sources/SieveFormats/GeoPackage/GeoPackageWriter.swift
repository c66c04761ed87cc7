#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import CSQLite
import SieveColumns
import SieveFeatures
import SieveGeometry

/// How ``GeoPackage/write(_:rows:to:options:)`` names and describes the layer it writes.
public struct GeoPackageWriteOptions: Sendable {
    /// The feature table's name (also its `gpkg_contents` identifier). Not empty, no NUL
    /// character, and not starting with `gpkg_`, `rtree_` or `sqlite_` (any case), which
    /// GeoPackage and SQLite reserve.
    public var layerName: String
    /// The geometry column's name; `geom` by default. When a field has that name (ignoring
    /// case), `_1`, `_2`, … is appended.
    public var geometryColumnName: String
    /// The `gpkg_contents` description.
    public var description: String
    /// The `gpkg_spatial_ref_sys` definition of a spatial reference other than 4326 and 3857
    /// (which GeoSieve writes itself), e.g. PROJ's WKT; when it is `nil` or gives `nil`, the
    /// definition is `undefined` (the row still names the EPSG or ESRI code).
    public var spatialReferenceDefinition: (@Sendable (SpatialReference) -> String?)?
    /// Called on the writing thread with the features inserted so far, every 16,384 features
    /// and once when all are in (before the spatial index is finished and the file committed);
    /// ``WriteProgress/bytesWritten`` is `nil`.
    public var progress: (@Sendable (WriteProgress) -> Void)?

    /// Creates options.
    public init(
        layerName: String, geometryColumnName: String = "geom", description: String = "",
        spatialReferenceDefinition: (@Sendable (SpatialReference) -> String?)? = nil,
        progress: (@Sendable (WriteProgress) -> Void)? = nil
    ) {
        self.layerName = layerName
        self.geometryColumnName = geometryColumnName
        self.description = description
        self.spatialReferenceDefinition = spatialReferenceDefinition
        self.progress = progress
    }
}

extension GeoPackage {
    /// Writes `table` as a new GeoPackage 1.3 file holding one feature table.
    ///
    /// The file gets `application_id` `GPKG` and `user_version` 10300; the required
    /// `gpkg_spatial_ref_sys` rows (-1, 0, 4326) and the table's reference
    /// (``GeoPackageSpatialReferences``); `gpkg_contents` with the extent; `gpkg_geometry_columns`
    /// (`POINT`, `MULTIPOINT`, `LINESTRING`/`POLYGON` when every geometry has one part, else
    /// `MULTILINESTRING`/`MULTIPOLYGON` with every geometry written as a multi geometry; z and m
    /// 0, 1 or 2 as no, every or some geometry has them); the feature table, whose integer
    /// primary key is the object-ID field under its own name, followed by the geometry column
    /// and one column per field (see `GeoPackageColumnType.declaration(for:)`); and the R-tree
    /// spatial index extension (`gpkg_rtree_index`): the `rtree_<table>_<column>` virtual table
    /// holding every non-empty geometry's envelope, its `gpkg_extensions` row and the six
    /// triggers of the standard that keep it up to date when the table is edited.
    ///
    /// Everything is written in one transaction into a temporary file in the target's folder
    /// (`.NAME.PID-RANDOM.tmp`), which is flushed to disk and then renamed over `path`: an
    /// existing file at `path` is replaced only by a complete GeoPackage, and a failed or
    /// interrupted write never leaves a partial file under that name (a failed one removes its
    /// temporary file).
    ///
    /// - Parameters:
    ///   - table: The features.
    ///   - rows: The rows to write, in this order (each at most once: object IDs must stay
    ///     unique); all rows in table order when `nil`.
    ///   - path: The file to create or replace.
    ///   - options: The layer's name and description, and spatial reference definitions.
    /// - Throws: ``GeoPackageError/Kind/cannotWrite`` for a name GeoPackage reserves, a date
    ///   outside the years 0000–9999 (GeoPackage's `DATETIME` text has four-digit years) or a
    ///   geometry collection; ``GeoPackageError/Kind/writeFailed`` for a file that cannot be
    ///   created, flushed or renamed;
    ///   ``GeoPackageError/Kind/sqlite`` when SQLite fails (a full disk, …).
    public static func write(
        _ table: FeatureTable, rows: [Int]? = nil, to path: String, options: GeoPackageWriteOptions
    ) throws(GeoPackageError) {
        do throws(GeoPackageError) {
            if let rows, let bad = rows.first(where: { !(0..<table.count).contains($0) }) {
                throw GeoPackageError(.cannotWrite, "row \(bad) is not a row of the table (0..<\(table.count))")
            }
            var writer = try GeoPackageWriter(table: table, rows: rows ?? table.liveRows, options: options)
            try writer.write(to: path)
        } catch {
            throw error.located(path: path, layer: options.layerName)
        }
    }
}

/// Writes one feature table to a new GeoPackage.
struct GeoPackageWriter {
    let table: FeatureTable
    /// The rows written, in order.
    let rows: [Int]
    let options: GeoPackageWriteOptions
    let geometryColumn: String
    /// `nil` for a table without geometries.
    let geometryType: GeometryType?
    /// Whether polylines and polygons are written as multi geometries.
    var multi = false
    var zFlag = 0
    var mFlag = 0
    let srsID: Int
    let srsRow: GeoPackageSpatialReferences.Row?

    /// The `gpkg_geometry_columns` type name of `type`.
    static func typeName(_ type: GeometryType?, multi: Bool) -> String {
        switch type {
        case .point: "POINT"
        case .multipoint: "MULTIPOINT"
        case .polyline: multi ? "MULTILINESTRING" : "LINESTRING"
        case .polygon, .envelope: multi ? "MULTIPOLYGON" : "POLYGON"
        case nil: "GEOMETRY"
        }
    }

    init(table: FeatureTable, rows: [Int], options: GeoPackageWriteOptions) throws(GeoPackageError) {
        self.table = table
        self.rows = rows
        self.options = options
        let name = options.layerName
        guard !name.isEmpty else { throw GeoPackageError(.cannotWrite, "the layer name is empty") }
        let lower = name.lowercased()
        for prefix in ["gpkg_", "rtree_", "sqlite_"] where lower.hasPrefix(prefix) {
            throw GeoPackageError(.cannotWrite, "layer names starting with \(prefix) are reserved")
        }
        for field in table.schema.fields where field.name.utf8.contains(0) {
            throw GeoPackageError(.cannotWrite, "the field name holds a NUL character", fieldName: field.name)
        }
        guard !name.utf8.contains(0), !options.geometryColumnName.utf8.contains(0), !options.geometryColumnName.isEmpty else {
            throw GeoPackageError(.cannotWrite, "the layer and geometry column names must not be empty or hold NUL characters")
        }
        var column = options.geometryColumnName
        var suffix = 0
        while table.schema.index(ofField: column) != nil {
            suffix += 1
            column = "\(options.geometryColumnName)_\(suffix)"
        }
        geometryColumn = column
        geometryType = table.schema.geometryType
        (srsID, srsRow) = GeoPackageSpatialReferences.row(
            for: table.spatialReference, definition: options.spatialReferenceDefinition)
        if geometryType != nil { scanGeometries() }
    }

    /// Decides multi and the z/m flags from the geometries.
    private mutating func scanGeometries() {
        // Points without z or m, from the arrays: no z, no m, and multi does not apply.
        let geometries = table.geometryColumn
        if geometries.storage == .points, !geometries.hasZ, !geometries.hasM { return }
        var anyZ = false
        var allZ = true
        var anyM = false
        var allM = true
        var any = false
        for row in rows {
            guard let geometry = table.geometry(row: row), !geometry.isEmpty else { continue }
            any = true
            let layout = geometry.layout
            anyZ = anyZ || layout.hasZ
            allZ = allZ && layout.hasZ
            anyM = anyM || layout.hasM
            allM = allM && layout.hasM
            switch geometry {
            case .polyline(let polyline) where polyline.pathCount > 1: multi = true
            case .polygon(let polygon) where polygon.partCount > 1: multi = true
            default: break
            }
        }
        zFlag = !any || !anyZ ? 0 : (allZ ? 1 : 2)
        mFlag = !any || !anyM ? 0 : (allM ? 1 : 2)
    }

    /// Writes the file: a temporary file first, renamed over `path` when complete.
    mutating func write(to path: String) throws(GeoPackageError) {
        let temporary = Self.temporaryPath(for: path)
        unlink(temporary)
        do throws(GeoPackageError) {
            do throws(GeoPackageError) {
                let connection = try SQLiteConnection(path: temporary, readOnly: false)
                try fill(connection)
                try connection.close()
            } catch {
                if error.kind == .cannotOpen {
                    throw GeoPackageError(.writeFailed, "cannot create a file next to it: \(error.message)")
                }
                throw error
            }
            try Self.flush(temporary)
            guard rename(temporary, path) == 0 else {
                throw GeoPackageError(.writeFailed, "cannot rename the finished file onto it: \(String(cString: strerror(errno)))")
            }
            Self.flushFolder(of: path)
        } catch {
            unlink(temporary)
            unlink(temporary + "-journal")
            throw error
        }
    }

    /// `FOLDER/.NAME.PID-RANDOM.tmp` next to `path`.
    static func temporaryPath(for path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return "\(folder).\(name).\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
    }

    /// Forces the file's bytes to disk before it is renamed into place.
    private static func flush(_ path: String) throws(GeoPackageError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw GeoPackageError(.writeFailed, "cannot reopen the written file: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw GeoPackageError(.writeFailed, "cannot flush the written file: \(String(cString: strerror(errno)))")
        }
    }

    /// Makes the rename durable (best effort: some file systems refuse to sync a folder).
    private static func flushFolder(of path: String) {
        let folder = path.lastIndex(of: "/").map { String(path[...$0]) } ?? "."
        let descriptor = open(folder, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    /// Creates every table and writes every row, in one transaction.
    private func fill(_ connection: SQLiteConnection) throws(GeoPackageError) {
        // The file is private until renamed, and deleted on failure: no journal, no syncs.
        // 16 KiB pages (set first: the header written by the next pragmas fixes the page size)
        // take a quarter of the writes of 4 KiB ones; the R-tree's nodes stay 1228 bytes.
        try connection.execute(
            """
            PRAGMA page_size = 16384;
            PRAGMA application_id = 1196444487;
            PRAGMA user_version = 10300;
            PRAGMA journal_mode = OFF;
            PRAGMA synchronous = OFF;
            PRAGMA locking_mode = EXCLUSIVE;
            PRAGMA cache_size = -65536;
            BEGIN;
            """)
        try createMetadataTables(connection)
        let t = sqlIdentifier(options.layerName)
        let oidName = table.schema.objectIdFieldName
        var definitions = ["\(sqlIdentifier(oidName)) INTEGER PRIMARY KEY NOT NULL"]
        if geometryType != nil {
            definitions.append("\(sqlIdentifier(geometryColumn)) \(Self.typeName(geometryType, multi: multi))")
        }
        let fieldIndices = table.schema.fields.indices.filter { $0 != table.schema.objectIdFieldIndex }
        for index in fieldIndices {
            let field = table.schema.fields[index]
            definitions.append(
                "\(sqlIdentifier(field.name)) \(GeoPackageColumnType.declaration(for: field))\(field.nullable ? "" : " NOT NULL")")
        }
        try connection.execute("CREATE TABLE \(t) (\(definitions.joined(separator: ", ")))")

        // The R-tree is laid out on another thread while the rows go in (its virtual table is
        // made first: its node size comes from the root SQLite creates).
        var layout: BackgroundWork<RTreeBulkLoad.Layout>?
        if geometryType != nil { layout = try startSpatialIndex(connection) }
        defer { _ = layout?.wait() }  // Never leave the work running past a failure.

        let extent = try insertRows(connection, fieldIndices: fieldIndices)

        let contents = try connection.prepare(
            "INSERT INTO gpkg_contents (table_name, data_type, identifier, description, min_x, min_y, max_x, max_y, srs_id) "
                + "VALUES (?, 'features', ?, ?, ?, ?, ?, ?, ?)")
        try contents.bind(1, text: options.layerName)
        try contents.bind(2, text: options.layerName)
        try contents.bind(3, text: options.description)
        if extent.isEmpty {
            for i: Int32 in 4...7 { try contents.bindNull(i) }
        } else {
            try contents.bind(4, double: extent.xmin)
            try contents.bind(5, double: extent.ymin)
            try contents.bind(6, double: extent.xmax)
            try contents.bind(7, double: extent.ymax)
        }
        try contents.bind(8, int64: Int64(srsID))
        try contents.run()

        if geometryType != nil {
            let columns = try connection.prepare(
                "INSERT INTO gpkg_geometry_columns (table_name, column_name, geometry_type_name, srs_id, z, m) VALUES (?, ?, ?, ?, ?, ?)")
            try columns.bind(1, text: options.layerName)
            try columns.bind(2, text: geometryColumn)
            try columns.bind(3, text: Self.typeName(geometryType, multi: multi))
            try columns.bind(4, int64: Int64(srsID))
            try columns.bind(5, int64: Int64(zFlag))
            try columns.bind(6, int64: Int64(mFlag))
            try columns.run()
            if let layout { try writeSpatialIndex(connection, layout.wait()) }
        }
        try writeAttachments(connection)
        try connection.execute("COMMIT")
    }

    /// The attachment table's name for `layer`: `LAYER__ATTACH`, as GDAL names the attachment
    /// table of a File Geodatabase layer.
    static func attachmentTable(of layer: String) -> String { layer + "__ATTACH" }

    /// The attachments of the written features, in an attributes table `LAYER__ATTACH` with
    /// GDAL's File Geodatabase columns: `ATTACHMENTID` (the key), `REL_OBJECTID` (the feature's
    /// object ID), `CONTENT_TYPE`, `ATT_NAME`, `DATA_SIZE` and `DATA` (the bytes). Nothing when
    /// no written feature has an attachment.
    private func writeAttachments(_ connection: SQLiteConnection) throws(GeoPackageError) {
        guard !table.attachments.isEmpty else { return }
        let written = Set(rows.map { table.objectID(row: $0) })
        let attachments = table.attachments.all.filter { written.contains($0.info.parentObjectID) }
        guard !attachments.isEmpty else { return }
        try Self.createAttachmentTable(connection, layer: options.layerName)
        try Self.insertAttachments(connection, attachments, layer: options.layerName)
    }

    /// Creates `LAYER__ATTACH` and its `gpkg_contents` row (an attributes table).
    static func createAttachmentTable(_ connection: SQLiteConnection, layer: String) throws(GeoPackageError) {
        let name = attachmentTable(of: layer)
        try connection.execute(
            "CREATE TABLE \(sqlIdentifier(name)) (ATTACHMENTID INTEGER PRIMARY KEY NOT NULL, REL_OBJECTID INTEGER NOT NULL, "
                + "CONTENT_TYPE TEXT NOT NULL, ATT_NAME TEXT NOT NULL, DATA_SIZE INTEGER NOT NULL, DATA BLOB NOT NULL)")
        let contents = try connection.prepare(
            "INSERT INTO gpkg_contents (table_name, data_type, identifier, description) VALUES (?, 'attributes', ?, ?)")
        try contents.bind(1, text: name)
        try contents.bind(2, text: name)
        try contents.bind(3, text: "attachments of \(layer)")
        try contents.run()
    }

    /// Inserts attachments into `LAYER__ATTACH`.
    static func insertAttachments(
        _ connection: SQLiteConnection, _ attachments: [AttachmentStore.Attachment], layer: String
    ) throws(GeoPackageError) {
        let insert = try connection.prepare("INSERT INTO \(sqlIdentifier(attachmentTable(of: layer))) VALUES (?, ?, ?, ?, ?, ?)")
        for attachment in attachments {
            try insert.bind(1, int64: attachment.info.id)
            try insert.bind(2, int64: attachment.info.parentObjectID)
            try insert.bind(3, text: attachment.info.contentType)
            try insert.bind(4, text: attachment.info.name)
            try insert.bind(5, int64: Int64(attachment.data.count))
            // The blob is bound without a copy: the statement runs while the bytes are lent.
            var failure: GeoPackageError?
            attachment.data.withUnsafeBytes { bytes in
                do throws(GeoPackageError) {
                    try insert.bind(6, blob: bytes)
                    try insert.run()
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
        }
    }

    /// `gpkg_spatial_ref_sys`, `gpkg_contents`, `gpkg_geometry_columns` and `gpkg_extensions`
    /// as GeoPackage 1.3 defines them, and the spatial reference rows.
    private func createMetadataTables(_ connection: SQLiteConnection) throws(GeoPackageError) {
        try connection.execute(
            """
            CREATE TABLE gpkg_spatial_ref_sys (
              srs_name TEXT NOT NULL,
              srs_id INTEGER NOT NULL PRIMARY KEY,
              organization TEXT NOT NULL,
              organization_coordsys_id INTEGER NOT NULL,
              definition TEXT NOT NULL,
              description TEXT
            );
            CREATE TABLE gpkg_contents (
              table_name TEXT NOT NULL PRIMARY KEY,
              data_type TEXT NOT NULL,
              identifier TEXT UNIQUE,
              description TEXT DEFAULT '',
              last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
              min_x DOUBLE,
              min_y DOUBLE,
              max_x DOUBLE,
              max_y DOUBLE,
              srs_id INTEGER,
              CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id)
            );
            CREATE TABLE gpkg_geometry_columns (
              table_name TEXT NOT NULL,
              column_name TEXT NOT NULL,
              geometry_type_name TEXT NOT NULL,
              srs_id INTEGER NOT NULL,
              z TINYINT NOT NULL,
              m TINYINT NOT NULL,
              CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),
              CONSTRAINT uk_gc_table_name UNIQUE (table_name),
              CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
              CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id)
            );
            CREATE TABLE gpkg_extensions (
              table_name TEXT,
              column_name TEXT,
              extension_name TEXT NOT NULL,
              definition TEXT NOT NULL,
              scope TEXT NOT NULL,
              CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name)
            );
            """)
        let insert = try connection.prepare(
            "INSERT INTO gpkg_spatial_ref_sys (srs_name, srs_id, organization, organization_coordsys_id, definition, description) "
                + "VALUES (?, ?, ?, ?, ?, ?)")
        for row in GeoPackageSpatialReferences.requiredRows + (srsRow.map { [$0] } ?? []) {
            try insert.bind(1, text: row.name)
            try insert.bind(2, int64: Int64(row.srsID))
            try insert.bind(3, text: row.organization)
            try insert.bind(4, int64: Int64(row.organizationID))
            try insert.bind(5, text: row.definition)
            try insert.bind(6, text: row.description)
            try insert.run()
        }
    }

    /// Inserts every row (see ``GeoPackageRowInserter``); returns the extent of the geometries.
    private func insertRows(_ connection: SQLiteConnection, fieldIndices: [Int]) throws(GeoPackageError) -> Envelope {
        var inserter = try GeoPackageRowInserter(
            connection: connection, table: table, layer: options.layerName,
            geometryColumn: geometryType != nil ? geometryColumn : nil, fieldIndices: fieldIndices,
            srsID: Int32(truncatingIfNeeded: srsID), multi: multi)
        defer { inserter.deallocate() }
        try inserter.insert(rows, progress: options.progress)
        return inserter.extent
    }

    /// The name of the R-tree virtual table of the geometry column.
    private var rtreeName: String { "rtree_\(options.layerName)_\(geometryColumn)" }

    /// Creates the R-tree virtual table (empty) and starts laying out its tree on another
    /// thread: one entry per written row with a non-empty geometry, from the envelope arrays.
    private func startSpatialIndex(_ connection: SQLiteConnection) throws(GeoPackageError) -> BackgroundWork<RTreeBulkLoad.Layout> {
        try connection.execute("CREATE VIRTUAL TABLE \(sqlIdentifier(rtreeName)) USING rtree(id, minx, maxx, miny, maxy)")
        let nodeSize = try RTreeBulkLoad.nodeSize(rtree: rtreeName, connection: connection)
        guard rows.count < 1 << 32 else {
            throw GeoPackageError(.cannotWrite, "\(rows.count) geometries are more than the spatial index takes")
        }
        let geometries = table.geometryColumn
        let ids = table.objectIDs
        let rows = rows
        return BackgroundWork {
            let (xmin, ymin, xmax, ymax) = (geometries.xmin, geometries.ymin, geometries.xmax, geometries.ymax)
            var entries: [RTreeBulkLoad.Entry] = []
            entries.reserveCapacity(rows.count)
            for row in rows where !xmin[row].isNaN {
                entries.append(
                    RTreeBulkLoad.Entry(id: ids[row], minX: xmin[row], maxX: xmax[row], minY: ymin[row], maxY: ymax[row]))
            }
            return RTreeBulkLoad.layout(entries, nodeSize: nodeSize)
        }
    }

    /// The R-tree spatial index extension: the tree `layout` written into the virtual table's
    /// shadow tables, its `gpkg_extensions` row, and the triggers of GeoPackage 1.3 annex F.3,
    /// created after the rows are in (they call the `ST_*` functions GeoPackage readers provide).
    private func writeSpatialIndex(_ connection: SQLiteConnection, _ layout: RTreeBulkLoad.Layout) throws(GeoPackageError) {
        try RTreeBulkLoad.write(layout, rtree: rtreeName, connection: connection)
        let extensionRow = try connection.prepare(
            "INSERT INTO gpkg_extensions (table_name, column_name, extension_name, definition, scope) "
                + "VALUES (?, ?, 'gpkg_rtree_index', 'http://www.geopackage.org/spec120/#extension_rtree', 'write-only')")
        try extensionRow.bind(1, text: options.layerName)
        try extensionRow.bind(2, text: geometryColumn)
        try extensionRow.run()
        try connection.execute(Self.rtreeTriggers(table: options.layerName, column: geometryColumn, id: table.schema.objectIdFieldName))
    }

    /// The six triggers of the R-tree extension (GeoPackage 1.3, F.3) for table `t`, geometry
    /// column `c` and primary key `i`.
    static func rtreeTriggers(table t: String, column c: String, id i: String) -> String {
        let rtree = "rtree_\(t)_\(c)"
        let r = sqlIdentifier(rtree)
        let tq = sqlIdentifier(t)
        let cq = sqlIdentifier(c)
        let iq = sqlIdentifier(i)
        func trigger(_ suffix: String) -> String { sqlIdentifier("\(rtree)_\(suffix)") }
        let insertNew = """
              INSERT OR REPLACE INTO \(r) VALUES (
                NEW.\(iq),
                ST_MinX(NEW.\(cq)), ST_MaxX(NEW.\(cq)),
                ST_MinY(NEW.\(cq)), ST_MaxY(NEW.\(cq))
              );
            """
        return """
            CREATE TRIGGER \(trigger("insert")) AFTER INSERT ON \(tq)
              WHEN (new.\(cq) NOT NULL AND NOT ST_IsEmpty(NEW.\(cq)))
            BEGIN
            \(insertNew)
            END;
            CREATE TRIGGER \(trigger("update1")) AFTER UPDATE OF \(cq) ON \(tq)
              WHEN OLD.\(iq) = NEW.\(iq) AND
                   (NEW.\(cq) NOTNULL AND NOT ST_IsEmpty(NEW.\(cq)))
            BEGIN
            \(insertNew)
            END;
            CREATE TRIGGER \(trigger("update2")) AFTER UPDATE OF \(cq) ON \(tq)
              WHEN OLD.\(iq) = NEW.\(iq) AND
                   (NEW.\(cq) ISNULL OR ST_IsEmpty(NEW.\(cq)))
            BEGIN
              DELETE FROM \(r) WHERE id = OLD.\(iq);
            END;
            CREATE TRIGGER \(trigger("update3")) AFTER UPDATE ON \(tq)
              WHEN OLD.\(iq) != NEW.\(iq) AND
                   (NEW.\(cq) NOTNULL AND NOT ST_IsEmpty(NEW.\(cq)))
            BEGIN
              DELETE FROM \(r) WHERE id = OLD.\(iq);
            \(insertNew)
            END;
            CREATE TRIGGER \(trigger("update4")) AFTER UPDATE ON \(tq)
              WHEN OLD.\(iq) != NEW.\(iq) AND
                   (NEW.\(cq) ISNULL OR ST_IsEmpty(NEW.\(cq)))
            BEGIN
              DELETE FROM \(r) WHERE id IN (OLD.\(iq), NEW.\(iq));
            END;
            CREATE TRIGGER \(trigger("delete")) AFTER DELETE ON \(tq)
              WHEN old.\(cq) NOT NULL
            BEGIN
              DELETE FROM \(r) WHERE id = OLD.\(iq);
            END;
            """
    }
}

