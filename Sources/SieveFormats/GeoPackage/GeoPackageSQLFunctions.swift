import SieveFeatures
import CSQLite
import SieveGeometry

/// The SQL functions the GeoPackage R-tree triggers call (`gpkg_rtree_index`, GeoPackage 1.3
/// §F.3): `ST_IsEmpty`, `ST_MinX`, `ST_MaxX`, `ST_MinY` and `ST_MaxY` of a GeoPackage geometry
/// blob. SQLite does not have them; GDAL registers its own, and so does GeoSieve on a connection
/// that changes a feature table whose R-tree the triggers maintain. A NULL or unreadable blob
/// gives NULL (the triggers then leave the R-tree alone, as they do for a NULL geometry).
enum GeoPackageSQLFunctions {
    /// Registers the five functions on `connection`.
    static func register(on connection: SQLiteConnection) throws(GeoPackageError) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        let functions: [(String, @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void)] = [
            ("ST_IsEmpty", { context, _, arguments in
                guard let envelope = GeoPackageSQLFunctions.envelope(arguments) else { return sqlite3_result_null(context) }
                sqlite3_result_int(context, envelope.isEmpty ? 1 : 0)
            }),
            ("ST_MinX", { context, _, arguments in GeoPackageSQLFunctions.result(context, arguments, \.xmin) }),
            ("ST_MaxX", { context, _, arguments in GeoPackageSQLFunctions.result(context, arguments, \.xmax) }),
            ("ST_MinY", { context, _, arguments in GeoPackageSQLFunctions.result(context, arguments, \.ymin) }),
            ("ST_MaxY", { context, _, arguments in GeoPackageSQLFunctions.result(context, arguments, \.ymax) }),
        ]
        for (name, function) in functions {
            let code = sqlite3_create_function_v2(connection.handle, name, 1, flags, nil, function, nil, nil, nil)
            guard code == SQLITE_OK else { throw connection.failure(code, "registering \(name)") }
        }
    }

    /// The envelope of the blob argument, `nil` for NULL or an unreadable blob.
    static func envelope(_ arguments: UnsafeMutablePointer<OpaquePointer?>?) -> Envelope? {
        guard let value = arguments?[0], sqlite3_value_type(value) == SQLITE_BLOB else { return nil }
        let bytes = SQLiteValue.bytes(value)
        do throws(GeoPackageError) {
            let header = try GeoPackageBinary.header(bytes)
            if header.isEmpty { return .empty }
            if header.envelope.count >= 4 {
                return Envelope(xmin: header.envelope[0], ymin: header.envelope[2], xmax: header.envelope[1], ymax: header.envelope[3])
            }
            return try GeoPackageBinary.geometry(bytes).geometry.envelope
        } catch {
            return nil
        }
    }

    /// Sets the result to one coordinate of the argument's envelope (NULL when there is none).
    static func result(_ context: OpaquePointer?, _ arguments: UnsafeMutablePointer<OpaquePointer?>?, _ side: KeyPath<Envelope, Double>) {
        guard let envelope = envelope(arguments), !envelope.isEmpty else { return sqlite3_result_null(context) }
        sqlite3_result_double(context, envelope[keyPath: side])
    }
}
