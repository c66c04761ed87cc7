import CSQLite
import SieveColumns
import SieveFeatures
import SieveGeometry

/// How ``GeoPackage/read(at:layer:options:progress:)`` treats what it cannot read.
public struct GeoPackageReadOptions: Hashable, Sendable {
    /// What to do with a column of a type GeoSieve does not read: `BLOB`, or a type the
    /// GeoPackage standard does not define (`VARCHAR`, `NUMERIC`, none at all, …).
    public enum UnsupportedFields: Hashable, Sendable {
        /// Throw ``GeoPackageError/Kind/unsupportedField`` naming the column and its type.
        case fail
        /// Leave the column out; ``GeoPackageLayer/skippedFields`` lists it.
        case skip
    }

    /// See ``UnsupportedFields``; `.fail` by default.
    public var unsupportedFields: UnsupportedFields

    /// Creates options.
    public init(unsupportedFields: UnsupportedFields = .fail) {
        self.unsupportedFields = unsupportedFields
    }
}

/// How far ``GeoPackage/read(at:layer:options:progress:)`` has come.
public struct GeoPackageReadProgress: Sendable, Hashable {
    /// Features read so far.
    public var features: Int
    /// The part of the table read so far, 0…1: rows are read in primary-key order, so this is
    /// how far the last key read lies between the smallest and the largest (exact for keys
    /// 1, 2, 3, …; an estimate for sparse ones).
    public var fraction: Double

    /// Creates a progress report.
    public init(features: Int, fraction: Double) {
        self.features = features
        self.fraction = fraction
    }
}

/// A feature table read from a GeoPackage.
public struct GeoPackageLayer: Sendable {
    /// A column left out by ``GeoPackageReadOptions/UnsupportedFields/skip``.
    public struct SkippedField: Hashable, Sendable {
        /// The column's name.
        public var name: String
        /// Its declared type as the file spells it (empty when none is declared).
        public var declaredType: String

        /// A skipped column.
        public init(name: String, declaredType: String) {
            self.name = name
            self.declaredType = declaredType
        }
    }

    /// The layer's name (its table name, as `gpkg_contents` spells it).
    public var name: String
    /// The features.
    public var table: FeatureTable
    /// The geometry column's name, `nil` for a layer without one.
    public var geometryColumn: String?
    /// The columns that were not read.
    public var skippedFields: [SkippedField]
}

/// OGC GeoPackage 1.3 files: reading feature tables into ``SieveFeatures/FeatureTable``s and
/// writing them back, through the system SQLite library.
///
/// ```swift
/// let layer = try GeoPackage.read(at: "parcels.gpkg")            // the only feature table
/// let roads = try GeoPackage.read(at: "city.gpkg", layer: "roads")
/// try GeoPackage.write(layer.table, to: "copy.gpkg", options: GeoPackageWriteOptions(layerName: "parcels"))
/// ```
public enum GeoPackage {
    /// Whether `path` names a GeoPackage by its extension (`.gpkg`, any case).
    public static func hasGeoPackageExtension(_ path: String) -> Bool {
        path.lowercased().hasSuffix(".gpkg")
    }

    /// Splits a source argument `FILE.gpkg` or `FILE.gpkg:LAYER` into the file and the layer;
    /// `nil` when the argument names no GeoPackage. The layer is whatever follows the last
    /// `.gpkg:` (so a layer name may hold colons); an empty layer (`FILE.gpkg:`) is none.
    public static func source(_ argument: String) -> (path: String, layer: String?)? {
        if hasGeoPackageExtension(argument) { return (argument, nil) }
        let bytes = Array(argument.utf8)
        let pattern = Array(".gpkg:".utf8)
        guard bytes.count > pattern.count else { return nil }
        var start = bytes.count - pattern.count
        while start >= 0 {
            // ASCII letters compared ignoring case (setting bit 5 lowers A–Z; the pattern's '.'
            // and ':' are compared exactly).
            let matches = (0..<pattern.count).allSatisfy { k in
                let byte = bytes[start + k]
                let wanted = pattern[k]
                return byte == wanted || (wanted >= 0x61 && wanted <= 0x7A && byte | 0x20 == wanted)
            }
            if matches {
                let path = String(decoding: bytes[..<(start + pattern.count - 1)], as: UTF8.self)
                let layer = String(decoding: bytes[(start + pattern.count)...], as: UTF8.self)
                return (path, layer.isEmpty ? nil : layer)
            }
            start -= 1
        }
        return nil
    }

    /// The names of the feature tables (`gpkg_contents` rows of data type `features`), in the
    /// order the file lists them.
    ///
    /// - Throws: ``GeoPackageError/Kind/cannotOpen`` when the file cannot be opened,
    ///   ``GeoPackageError/Kind/notAGeoPackage`` when it is not a GeoPackage.
    public static func featureLayers(at path: String) throws(GeoPackageError) -> [String] {
        do throws(GeoPackageError) {
            let connection = try GeoPackageReader.open(path)
            return try GeoPackageReader.featureLayers(connection)
        } catch {
            throw error.located(path: path, layer: nil)
        }
    }

    /// Reads one feature table.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - layer: The table's name (matched exactly, else ignoring case); `nil` to read the
    ///     file's only feature table.
    ///   - options: What to do with columns GeoSieve does not read.
    ///   - progress: Called every 16,384 features with how far the read has come; `nil` for no
    ///     reports.
    /// - Returns: The table: the integer primary key is the object-ID field (keeping its name),
    ///   the other columns are fields typed as `GeoPackageColumnType` describes, the geometry
    ///   column (if any) gives the geometries and the spatial reference (from
    ///   `gpkg_spatial_ref_sys`: the EPSG or ESRI code; srs_id 0 and -1 as WKID 0, undefined).
    /// - Throws: ``GeoPackageError`` naming the file, layer, feature (by primary key) and field:
    ///   ``GeoPackageError/Kind/layerNotFound`` (no such layer, no feature table at all, or
    ///   several and none named — the message lists them), ``GeoPackageError/Kind/unsupportedField``,
    ///   ``GeoPackageError/Kind/invalidValue`` (a value that does not fit its column's type),
    ///   ``GeoPackageError/Kind/invalidGeometry`` (a bad blob, or a geometry of another type
    ///   than the column's), and the open errors of ``featureLayers(at:)``.
    ///
    /// `progress`, when given, is called every 16,384 features with how far the read has come.
    public static func read(
        at path: String, layer: String? = nil, options: GeoPackageReadOptions = GeoPackageReadOptions(),
        progress: ((GeoPackageReadProgress) -> Void)? = nil
    ) throws(GeoPackageError) -> GeoPackageLayer {
        var resolved: String?
        do throws(GeoPackageError) {
            let connection = try GeoPackageReader.open(path)
            let name = try GeoPackageReader.resolveLayer(connection, layer)
            resolved = name
            var reader = try GeoPackageReader(connection: connection, layer: name, options: options)
            return try reader.read(progress: progress)
        } catch {
            throw error.located(path: path, layer: resolved)
        }
    }
}

/// Reads one feature table with one prepared statement, columns by index.
struct GeoPackageReader {
    let connection: SQLiteConnection
    let layer: String
    let options: GeoPackageReadOptions

    /// The object-ID column: its name, and whether it is the rowid alias (else `rowid` is read).
    var objectIDName = "fid"
    var objectIDExpression = "rowid"
    var geometryColumn: String?
    var declaredGeometryType: GeometryType?
    var spatialReference = SpatialReference.wgs84
    var fields: [(name: String, type: GeoPackageColumnType, nullable: Bool)] = []
    var skipped: [GeoPackageLayer.SkippedField] = []

    /// Opens `path` read-only and checks that it is an SQLite database with the GeoPackage tables.
    static func open(_ path: String) throws(GeoPackageError) -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path, readOnly: true)
        let tables: [[String?]]
        do throws(GeoPackageError) {
            tables = try connection.rows(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name IN "
                    + "('gpkg_contents', 'gpkg_geometry_columns', 'gpkg_spatial_ref_sys')")
        } catch {
            let code = sqlite3_extended_errcode(connection.handle) & 0xFF
            if code == SQLITE_NOTADB {
                throw GeoPackageError(.notAGeoPackage, "the file is not an SQLite database")
            }
            if code == SQLITE_CANTOPEN || code == SQLITE_IOERR || code == SQLITE_PERM || code == SQLITE_AUTH {
                throw GeoPackageError(.cannotOpen, connection.lastMessage)
            }
            throw error
        }
        let present = Set(tables.compactMap { $0.first ?? nil })
        let missing = ["gpkg_contents", "gpkg_geometry_columns", "gpkg_spatial_ref_sys"].filter { !present.contains($0) }
        guard missing.isEmpty else {
            throw GeoPackageError(
                .notAGeoPackage, "the SQLite database has no \(missing.joined(separator: ", ")) table (not a GeoPackage)")
        }
        return connection
    }

    static func featureLayers(_ connection: SQLiteConnection) throws(GeoPackageError) -> [String] {
        try connection.rows("SELECT table_name FROM gpkg_contents WHERE data_type = 'features' ORDER BY rowid")
            .compactMap { $0.first ?? nil }
    }

    /// The feature table `layer` names (exactly, else ignoring case), or the only one.
    static func resolveLayer(_ connection: SQLiteConnection, _ layer: String?) throws(GeoPackageError) -> String {
        let layers = try featureLayers(connection)
        let listing = layers.prefix(20).map { GeoPackageText.quoted($0) }.joined(separator: ", ")
            + (layers.count > 20 ? ", … (\(layers.count) in all)" : "")
        guard let layer else {
            guard let only = layers.first else {
                throw GeoPackageError(.layerNotFound, "the GeoPackage has no feature table")
            }
            guard layers.count == 1 else {
                throw GeoPackageError(
                    .layerNotFound,
                    "the GeoPackage has \(layers.count) feature tables; name one as FILE.gpkg:LAYER: \(listing)")
            }
            return only
        }
        if layers.contains(layer) { return layer }
        let lower = layer.lowercased()
        if let match = layers.first(where: { $0.lowercased() == lower }) { return match }
        let known = layers.isEmpty ? "the GeoPackage has no feature table" : "its feature tables: \(listing)"
        throw GeoPackageError(.layerNotFound, "no feature table \(GeoPackageText.quoted(layer)); \(known)")
    }

    init(connection: SQLiteConnection, layer: String, options: GeoPackageReadOptions) throws(GeoPackageError) {
        self.connection = connection
        self.layer = layer
        self.options = options
        try readGeometryColumn()
        try readColumns()
    }

    /// The geometry column, its type and spatial reference.
    private mutating func readGeometryColumn() throws(GeoPackageError) {
        let rows = try connection.rows(
            "SELECT column_name, geometry_type_name, srs_id FROM gpkg_geometry_columns WHERE lower(table_name) = lower(?)",
            [layer])
        guard let row = rows.first else {
            throw GeoPackageError(.notAGeoPackage, "the feature table has no row in gpkg_geometry_columns")
        }
        guard let column = row[0], let typeName = row[1], let srsText = row[2], let srsID = Int64(srsText) else {
            throw GeoPackageError(.notAGeoPackage, "the feature table's gpkg_geometry_columns row has NULL or non-integer values")
        }
        geometryColumn = column
        switch typeName.uppercased() {
        case "POINT": declaredGeometryType = .point
        case "MULTIPOINT": declaredGeometryType = .multipoint
        case "LINESTRING", "MULTILINESTRING": declaredGeometryType = .polyline
        case "POLYGON", "MULTIPOLYGON": declaredGeometryType = .polygon
        case "GEOMETRY": declaredGeometryType = nil
        default:
            throw GeoPackageError(
                .unsupportedField,
                "geometry type \(GeoPackageText.quoted(typeName)) is not supported (POINT, MULTIPOINT, LINESTRING, "
                    + "MULTILINESTRING, POLYGON, MULTIPOLYGON or GEOMETRY holding one of them)",
                fieldName: column)
        }
        let srs = try connection.rows(
            "SELECT organization, organization_coordsys_id FROM gpkg_spatial_ref_sys WHERE srs_id = ?", [String(srsID)])
        let organization = srs.first?[0] ?? nil
        let organizationID = (srs.first?[1] ?? nil).flatMap { Int64($0) }
        spatialReference = GeoPackageSpatialReferences.spatialReference(
            srsID: srsID, organization: organization, organizationID: organizationID)
    }

    /// The attribute columns and the object-ID column, from `PRAGMA table_info`.
    private mutating func readColumns() throws(GeoPackageError) {
        let info = try connection.rows("PRAGMA table_info(\(sqlIdentifier(layer)))")
        guard !info.isEmpty else {
            throw GeoPackageError(.notAGeoPackage, "the feature table listed in gpkg_contents does not exist")
        }
        // cid, name, type, notnull, dflt_value, pk
        let primaryKeys = info.filter { ($0[5] ?? "0") != "0" }
        var objectIDColumn: String?
        if primaryKeys.count == 1, let name = primaryKeys[0][1],
            (primaryKeys[0][2] ?? "").uppercased().trimmingSpaces == "INTEGER"
        {
            objectIDColumn = name
            objectIDName = name
            objectIDExpression = sqlIdentifier(name)
        }
        let geometryLower = geometryColumn?.lowercased()
        var names: Set<String> = []
        for row in info {
            guard let name = row[1] else { continue }
            names.insert(name.lowercased())
            if name == objectIDColumn || name.lowercased() == geometryLower { continue }
            let declared = row[2] ?? ""
            guard let type = GeoPackageColumnType(declared: declared) else {
                if options.unsupportedFields == .skip {
                    skipped.append(GeoPackageLayer.SkippedField(name: name, declaredType: declared))
                    continue
                }
                let what = declared.isEmpty ? "no declared type" : "type \(GeoPackageText.quoted(declared))"
                throw GeoPackageError(
                    .unsupportedField,
                    "the column has \(what); GeoSieve reads INTEGER, MEDIUMINT, SMALLINT, TINYINT, BOOLEAN, FLOAT, "
                        + "DOUBLE, REAL, TEXT, DATE and DATETIME columns (skip the others to read the rest)",
                    fieldName: name)
            }
            fields.append((name, type, (row[3] ?? "0") == "0"))
        }
        if objectIDColumn == nil {
            // No integer primary key: the rowid numbers the features, under a free name.
            var name = "fid"
            var suffix = 0
            while names.contains(name.lowercased()) {
                suffix += 1
                name = "fid_\(suffix)"
            }
            objectIDName = name
            objectIDExpression = "rowid"
        }
    }

    /// Reads every row, reporting to `progress` every 16,384.
    mutating func read(progress: ((GeoPackageReadProgress) -> Void)? = nil) throws(GeoPackageError) -> GeoPackageLayer {
        let hasGeometry = geometryColumn != nil
        var selected = [objectIDExpression]
        if let geometryColumn { selected.append(sqlIdentifier(geometryColumn)) }
        selected += fields.map { sqlIdentifier($0.name) }
        let statement = try connection.prepare(
            "SELECT \(selected.joined(separator: ", ")) FROM \(sqlIdentifier(layer)) ORDER BY \(objectIDExpression)")
        let firstField: Int32 = hasGeometry ? 2 : 1
        var readers = fields.map { FieldReader(name: $0.name, type: $0.type) }
        var objectIDs: [Int64] = []
        let pointLayer = declaredGeometryType == nil || declaredGeometryType == .point || declaredGeometryType == .multipoint
        var geometries = GeometryColumn(storage: pointLayer ? .points : .shapes)
        var tracker = GeometryKindTracker(declared: declaredGeometryType)
        var row = 0
        let keys = try progress != nil ? keyRange() : nil
        while try statement.step() {
            let fid = statement.int64(0)
            objectIDs.append(fid)
            if row & 0x3FFF == 0x3FFF, let progress, let keys {
                progress(GeoPackageReadProgress(features: row + 1, fraction: keys.fraction(of: fid)))
            }
            if hasGeometry {
                do throws(GeoPackageError) {
                    try readGeometry(statement, into: &geometries, tracker: &tracker, fid: fid)
                } catch {
                    var located = error
                    located.featureID = fid
                    located.fieldName = geometryColumn
                    throw located
                }
            }
            for k in readers.indices {
                guard let value = sqlite3_column_value(statement.handle, firstField + Int32(k)) else {
                    throw connection.failure(SQLITE_NOMEM, "reading a value")
                }
                try readers[k].read(value, row: row, fid: fid)
            }
            row += 1
        }
        let geometryType = hasGeometry ? tracker.type : nil
        if geometryType == .multipoint, (0..<geometries.count).contains(where: { geometries.kind(row: $0) == .point }) {
            geometries = GeometryColumn(
                try GeometryKindTracker.pointsAsMultipoints(
                    (0..<geometries.count).map { geometries[$0] }, objectIDs: objectIDs))
        }
        var schemaFields = [Field(name: objectIDName, type: .oid)]
        schemaFields += fields.map { field in
            var result = Field(name: field.name, type: field.type.fieldType, nullable: field.nullable)
            if case .text(let length) = field.type { result.length = length }
            return result
        }
        var columns = [Column.integer(Int64Column(values: objectIDs))]
        for k in readers.indices { columns.append(readers[k].column(count: row)) }
        let attachments = try readAttachments()
        do throws(FeatureTableError) {
            let schema = try Schema(
                fields: schemaFields, objectIdFieldName: objectIDName, geometryType: geometryType,
                spatialReference: spatialReference)
            var table = try FeatureTable(
                schema: schema, columns: columns, geometryColumn: hasGeometry ? geometries : GeometryColumn())
            if let attachments { table = table.withAttachments(attachments) }
            return GeoPackageLayer(name: layer, table: table, geometryColumn: geometryColumn, skippedFields: skipped)
        } catch {
            throw GeoPackageError(
                .invalidValue, error.message, featureID: error.objectID, fieldName: error.fieldName)
        }
    }

    /// The layer's attachments, when the file has an attributes table `LAYER__ATTACH` with the
    /// columns GeoSieve writes (and GDAL uses for File Geodatabase attachments): ATTACHMENTID,
    /// REL_OBJECTID, CONTENT_TYPE, ATT_NAME and DATA; `nil` when it has none.
    private func readAttachments() throws(GeoPackageError) -> AttachmentStore? {
        let name = GeoPackageWriter.attachmentTable(of: layer)
        let listed = try connection.rows(
            "SELECT table_name FROM gpkg_contents WHERE data_type = 'attributes' AND table_name = \(sqlLiteral(name))")
        guard !listed.isEmpty else { return nil }
        let statement = try connection.prepare(
            "SELECT ATTACHMENTID, REL_OBJECTID, CONTENT_TYPE, ATT_NAME, DATA FROM \(sqlIdentifier(name)) ORDER BY ATTACHMENTID")
        var store = AttachmentStore()
        while try statement.step() {
            let data = Array(statement.bytes(4))
            store.put(
                AttachmentStore.Attachment(
                    info: AttachmentInfo(
                        id: statement.int64(0), parentObjectID: statement.int64(1), name: statement.text(3) ?? "",
                        contentType: statement.text(2) ?? "", size: data.count),
                    data: data))
        }
        return store
    }

    /// The smallest and largest object IDs (an empty table: 0 and 0).
    private func keyRange() throws(GeoPackageError) -> KeyRange {
        let statement = try connection.prepare(
            "SELECT min(\(objectIDExpression)), max(\(objectIDExpression)) FROM \(sqlIdentifier(layer))")
        guard try statement.step() else { return KeyRange(low: 0, high: 0) }
        return KeyRange(low: statement.int64(0), high: statement.int64(1))
    }

    /// Appends the geometry of the current row to `geometries` (`nil` for NULL): a plain
    /// little-endian point as its coordinates, anything else through the general WKB reader.
    @inline(__always)
    private func readGeometry(
        _ statement: SQLiteStatement, into geometries: inout GeometryColumn, tracker: inout GeometryKindTracker, fid: Int64
    ) throws(GeoPackageError) {
        guard let value = sqlite3_column_value(statement.handle, 1) else {
            throw connection.failure(SQLITE_NOMEM, "reading a geometry")
        }
        switch sqlite3_value_type(value) {
        case SQLITE_NULL:
            geometries.append(nil)
        case SQLITE_BLOB:
            let blob = SQLiteValue.bytes(value)
            if let (x, y) = GeoPackageBinary.pointCoordinates(blob) {
                try tracker.addPoint(fid: fid)
                geometries.appendPoint(x: x, y: y)
            } else {
                let geometry = try GeoPackageBinary.geometry(blob).geometry
                try tracker.add(geometry, fid: fid)
                geometries.append(geometry)
            }
        default:
            throw GeoPackageError(
                .invalidGeometry, "expected a GeoPackage geometry blob, found \(describe(value))")
        }
    }
}

/// A description of the current value of `column` for messages: `TEXT 'abc'`, `REAL 1.5`, ….
func describe(_ statement: SQLiteStatement, column: Int32) -> String {
    guard let value = sqlite3_column_value(statement.handle, column) else { return "NULL" }
    return describe(value)
}

/// A description of `value` for messages: `TEXT 'abc'`, `REAL 1.5`, ….
func describe(_ value: OpaquePointer) -> String {
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: return "INTEGER \(sqlite3_value_int64(value))"
    case SQLITE_FLOAT: return "REAL \(sqlite3_value_double(value))"
    case SQLITE_TEXT:
        let bytes = SQLiteValue.bytes(value)
        return "TEXT " + GeoPackageText.quoted(String(decoding: bytes, as: UTF8.self)).replacingQuotes
    case SQLITE_BLOB: return "a BLOB of \(SQLiteValue.bytes(value).count) bytes"
    default: return "NULL"
    }
}

extension String {
    /// A double-quoted excerpt shown with single quotes, as SQL writes texts.
    fileprivate var replacingQuotes: String {
        guard hasPrefix("\""), hasSuffix("\""), count >= 2 else { return self }
        return "'" + dropFirst().dropLast() + "'"
    }
}

/// The values of one attribute column as they are read: a value type kept in an array and
/// mutated in place, so appending costs no reference counting or exclusivity checks.
struct FieldReader {
    /// What the column holds, without the names messages use (no reference counting per row).
    enum Kind {
        case integer(ClosedRange<Int64>)
        case boolean
        case real
        case text
        case date
        case datetime
    }

    let name: String
    let type: GeoPackageColumnType
    let kind: Kind
    var integers: [Int64] = []
    var doubles: [Double] = []
    var texts = TextColumnBuilder()
    /// The rows holding NULL.
    var nullRows: [Int] = []

    init(name: String, type: GeoPackageColumnType) {
        self.name = name
        self.type = type
        switch type {
        case .integer(_, let range, _): kind = .integer(range)
        case .boolean: kind = .boolean
        case .float, .double: kind = .real
        case .text: kind = .text
        case .date: kind = .date
        case .datetime: kind = .datetime
        }
    }

    private func invalid(_ what: String, _ value: OpaquePointer, _ fid: Int64) -> GeoPackageError {
        GeoPackageError(
            .invalidValue, "expected \(what) (\(type.name)), found \(describe(value))", featureID: fid, fieldName: name)
    }

    /// Appends `value` (a column of the current row, row number `row`).
    @inline(__always)
    mutating func read(_ value: OpaquePointer, row: Int, fid: Int64) throws(GeoPackageError) {
        let storage = sqlite3_value_type(value)
        if storage == SQLITE_NULL {
            nullRows.append(row)
            switch kind {
            case .text: texts.appendNull()
            case .real: doubles.append(0)
            default: integers.append(0)
            }
            return
        }
        switch kind {
        case .integer(let range):
            guard storage == SQLITE_INTEGER else { throw invalid("an integer", value, fid) }
            let integer = sqlite3_value_int64(value)
            guard range.contains(integer) else {
                throw GeoPackageError(
                    .invalidValue, "\(integer) is outside the \(type.name) range \(range.lowerBound)…\(range.upperBound)",
                    featureID: fid, fieldName: name)
            }
            integers.append(integer)
        case .boolean:
            guard storage == SQLITE_INTEGER else { throw invalid("0 or 1", value, fid) }
            let integer = sqlite3_value_int64(value)
            guard integer == 0 || integer == 1 else { throw invalid("0 or 1", value, fid) }
            integers.append(integer)
        case .real:
            if storage == SQLITE_FLOAT {
                let double = sqlite3_value_double(value)
                guard !double.isNaN else { throw invalid("a number", value, fid) }
                doubles.append(double)
            } else if storage == SQLITE_INTEGER {
                doubles.append(Double(sqlite3_value_int64(value)))
            } else {
                throw invalid("a number", value, fid)
            }
        case .text:
            guard storage == SQLITE_TEXT else { throw invalid("a text", value, fid) }
            let bytes = SQLiteValue.bytes(value)
            guard isValidUTF8(bytes) else {
                throw GeoPackageError(.invalidValue, "the text is not UTF-8", featureID: fid, fieldName: name)
            }
            texts.append(bytes)
        case .date, .datetime:
            let dateOnly: Bool
            if case .date = kind { dateOnly = true } else { dateOnly = false }
            guard storage == SQLITE_TEXT, let milliseconds = GeoPackageDates.parse(SQLiteValue.bytes(value), dateOnly: dateOnly)
            else {
                throw invalid(dateOnly ? "a date text yyyy-mm-dd" : "an ISO 8601 date-time text", value, fid)
            }
            integers.append(milliseconds)
        }
    }

    /// The finished column of `count` rows.
    mutating func column(count: Int) -> Column {
        let validity = ValidityBitmap.marking(nullRows, count: count)
        switch kind {
        case .text: return .string(texts.column(validity: validity))
        case .real: return .double(DoubleColumn(values: doubles, validity: validity))
        case .date, .datetime: return .date(Int64Column(values: integers, validity: validity))
        case .integer, .boolean: return .integer(Int64Column(values: integers, validity: validity))
        }
    }
}

/// The geometry type of a layer: the declared one, checked row by row, or (for `GEOMETRY`)
/// the one its rows share, points and multipoints mixing as a multipoint layer.
struct GeometryKindTracker {
    let declared: GeometryType?
    private(set) var type: GeometryType?
    private var firstFID: Int64?
    private var firstName = ""

    init(declared: GeometryType?) {
        self.declared = declared
        self.type = declared
    }

    static func name(_ geometry: Geometry) -> String {
        switch geometry {
        case .point: "POINT"
        case .multipoint: "MULTIPOINT"
        case .polyline: "LINESTRING or MULTILINESTRING"
        case .polygon, .envelope: "POLYGON or MULTIPOLYGON"
        case .collection: "GEOMETRYCOLLECTION"
        }
    }

    /// ``add(_:fid:)`` for a point (without a ``Geometry`` value): the common case is one test.
    @inline(__always)
    mutating func addPoint(fid: Int64) throws(GeoPackageError) {
        if type == .point || type == .multipoint { return }
        try add(.point(Point(x: 0, y: 0)), fid: fid)
    }

    mutating func add(_ geometry: Geometry, fid: Int64) throws(GeoPackageError) {
        let kind: GeometryType
        switch geometry {
        case .point: kind = .point
        case .multipoint: kind = .multipoint
        case .polyline: kind = .polyline
        case .polygon, .envelope: kind = .polygon
        case .collection:
            throw GeoPackageError(
                .invalidGeometry, "a GEOMETRYCOLLECTION cannot be stored in a feature table (one geometry type per table)")
        }
        if let declared {
            guard kind == declared || (declared == .multipoint && kind == .point) else {
                throw GeoPackageError(
                    .invalidGeometry,
                    "a \(Self.name(geometry)) geometry in a column declared \(GeoPackageWriter.typeName(declared, multi: declared == .multipoint))")
            }
            return
        }
        guard let current = type, let firstFID else {
            type = kind
            self.firstFID = fid
            firstName = Self.name(geometry)
            return
        }
        guard let merged = current.merging(kind) else {
            throw GeoPackageError(
                .invalidGeometry,
                "a \(Self.name(geometry)) geometry, but fid \(firstFID) has a \(firstName) geometry; "
                    + "a table holds one geometry type (only points and multipoints may mix)")
        }
        type = merged
    }

    /// The geometries with every point turned into a 1-point multipoint.
    static func pointsAsMultipoints(_ geometries: [Geometry?], objectIDs: [Int64]) throws(GeoPackageError) -> [Geometry?] {
        try GeometryTypeTracker.pointsAsMultipoints(geometries) { (error, i) in
            GeoPackageError(.invalidGeometry, error.message, featureID: objectIDs[i])
        }
    }
}

/// The range of a table's primary keys, read in order: how far a key lies in it.
struct KeyRange {
    let low: Int64
    let high: Int64

    /// The part of the range up to `key`, 0…1.
    func fraction(of key: Int64) -> Double {
        guard high > low else { return 1 }
        return min(max((Double(key) - Double(low)) / (Double(high) - Double(low)), 0), 1)
    }
}
