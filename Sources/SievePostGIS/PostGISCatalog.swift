import Logging
import PostgresNIO
import SieveFeatures
import SieveGeometry
import SieveSQL

/// Reads a table's description from the PostgreSQL catalogue (the geometry column's type and
/// SRID from its type modifier, as PostGIS's `geometry_columns` view reads them).
///
/// What the catalogue says becomes the layer's schema: each column's type, `NOT NULL` (the
/// field is not nullable), the length of a `varchar(n)` or `char(n)`, the column's comment
/// (`COMMENT ON COLUMN`: the field's alias), an enum type's labels (a coded-value domain whose
/// codes are the labels, in the enum's order), and the table's comment (the layer's
/// description when the service sets none). The global-ID field is the `uuid` column the URL
/// names (`globalid=`), else the `uuid` column named `globalid` in any case, if there is one.
enum PostGISCatalog {
    /// The ``PostGISTable`` of `options`' table.
    static func describe(_ options: PostGISConnectionOptions, connection: PostgresConnection, logger: Logger) async throws -> PostGISTable {
        let namespace = options.namespace, name = options.table
        let qualified = "\(options.namespace).\(options.table)"

        // Columns in order: type name, NOT NULL, the type modifier (a varchar's length + 4), the
        // comment, an enum type's labels in order, the type as a cast names it.
        let columnsSQL = """
            SELECT a.attname::text, t.typname::text, a.attnotnull, a.atttypmod::int8, col_description(c.oid, a.attnum)::text,
                   CASE WHEN t.typtype = 'e' THEN ARRAY(SELECT e.enumlabel::text FROM pg_enum e WHERE e.enumtypid = t.oid ORDER BY e.enumsortorder) END,
                   format_type(a.atttypid, NULL)::text
            FROM pg_attribute a
            JOIN pg_class c ON a.attrelid = c.oid JOIN pg_namespace n ON c.relnamespace = n.oid
            JOIN pg_type t ON a.atttypid = t.oid
            WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
            """
        var columns: [(name: String, type: String, notNull: Bool, modifier: Int64, comment: String?, labels: [String]?, typeName: String)] = []
        try await PostGISFeatureSource.run(
            PostGISStatement(sql: columnsSQL, parameters: [.text(namespace), .text(name)]), connection: connection, logger: logger
        ) { columns.append(try $0.decode((String, String, Bool, Int64, String?, [String]?, String).self)) }
        guard !columns.isEmpty else { throw PostGISError(.notFound, "no table \(qualified) in the database \(options.database)") }
        var description: String?
        try await PostGISFeatureSource.run(
            PostGISStatement(
                sql: "SELECT obj_description(c.oid, 'pg_class')::text FROM pg_class c JOIN pg_namespace n ON c.relnamespace = n.oid WHERE n.nspname = $1 AND c.relname = $2",
                parameters: [.text(namespace), .text(name)]),
            connection: connection, logger: logger
        ) { description = try $0.decode(String?.self) }

        // The primary key's columns.
        let keySQL = """
            SELECT a.attname::text FROM pg_index i
            JOIN pg_class c ON i.indrelid = c.oid JOIN pg_namespace n ON c.relnamespace = n.oid
            JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY(i.indkey)
            WHERE n.nspname = $1 AND c.relname = $2 AND i.indisprimary
            """
        var keys: [String] = []
        try await PostGISFeatureSource.run(
            PostGISStatement(sql: keySQL, parameters: [.text(namespace), .text(name)]), connection: connection, logger: logger
        ) { keys.append(try $0.decode(String.self)) }

        // Geometry columns with SRID and type, from the columns' type modifiers. Not through the
        // geometry_columns view: it reads every table of the database, and so waits for any
        // other session's uncommitted DDL (an export replacing another table, say) to finish.
        let geometrySQL = """
            SELECT a.attname::text, postgis_typmod_srid(a.atttypmod)::int8, upper(postgis_typmod_type(a.atttypmod))::text
            FROM pg_attribute a JOIN pg_class c ON a.attrelid = c.oid JOIN pg_namespace n ON c.relnamespace = n.oid
            WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped AND a.atttypid = 'geometry'::regtype
            ORDER BY a.attname
            """
        var geometries: [(column: String, srid: Int64, type: String)] = []
        try await PostGISFeatureSource.run(
            PostGISStatement(sql: geometrySQL, parameters: [.text(namespace), .text(name)]), connection: connection, logger: logger
        ) { row in
            let (column, srid, type) = try row.decode((String, Int64, String).self)
            geometries.append((column, srid, Self.baseType(type)))
        }

        let geometry: (column: String, srid: Int64, type: String)?
        if let wanted = options.geometryColumn {
            guard let found = geometries.first(where: { $0.column == wanted }) else {
                throw PostGISError(.notFound, "\(qualified) has no geometry column \"\(wanted)\"")
            }
            geometry = found
        } else if geometries.count > 1 {
            throw PostGISError(
                .invalidOptions, "\(qualified) has several geometry columns (\(geometries.map(\.column).joined(separator: ", "))); name one with geometry=")
        } else {
            geometry = geometries.first
        }

        let idName: String
        if let wanted = options.idColumn {
            guard columns.contains(where: { $0.name == wanted }) else { throw PostGISError(.notFound, "\(qualified) has no column \"\(wanted)\"") }
            idName = wanted
        } else {
            guard keys.count == 1, let key = keys.first else {
                throw PostGISError(.invalidOptions, "\(qualified) has no single-column primary key; name the object-ID column with id=")
            }
            idName = key
        }
        guard let idType = columns.first(where: { $0.name == idName })?.type, ["int2", "int4", "int8"].contains(idType) else {
            throw PostGISError(.unsupported, "the object-ID column \"\(idName)\" of \(qualified) is not an integer column")
        }

        // The global-ID column: the one the URL names, else a uuid column named globalid.
        let globalIdName: String?
        if let wanted = options.globalIdColumn {
            guard let column = columns.first(where: { $0.name == wanted }) else {
                throw PostGISError(.notFound, "\(qualified) has no column \"\(wanted)\"")
            }
            guard column.type == "uuid", wanted != idName else {
                throw PostGISError(.unsupported, "the global-ID column \"\(wanted)\" of \(qualified) is not a uuid column")
            }
            globalIdName = wanted
        } else {
            globalIdName = columns.first { $0.type == "uuid" && $0.name.lowercased() == "globalid" && $0.name != idName }?.name
        }

        var tableColumns: [PostGISTable.Column] = [
            PostGISTable.Column(name: idName, kind: .integer, typeName: columns.first { $0.name == idName }?.typeName ?? "")
        ]
        var fields: [Field] = [Field(name: idName, type: .oid)]
        if let comment = columns.first(where: { $0.name == idName })?.comment, !comment.isEmpty {
            fields[0] = Field(name: idName, type: .oid, alias: comment)
        }
        for column in columns where column.name != idName && column.type != "geometry" && column.name != geometry?.column {
            var (kind, type) = column.labels == nil ? Self.kind(ofType: column.type) : (.text, .string)
            if column.name == globalIdName { type = .globalID }
            tableColumns.append(PostGISTable.Column(name: column.name, kind: kind, typeName: column.typeName))
            // varchar(n) and char(n) keep n + 4 in their modifier.
            let length = ["varchar", "bpchar"].contains(column.type) && column.modifier > 4 ? Int(column.modifier - 4) : nil
            let domain = column.labels.map { labels in
                Domain.codedValue(name: column.type, codes: labels.map { CodedValue(name: $0, code: .string($0)) })
            }
            fields.append(
                Field(
                    name: column.name, type: type, alias: column.comment.flatMap { $0.isEmpty ? nil : $0 }, length: length,
                    nullable: !column.notNull, domain: domain))
        }
        var geometryType: GeometryType?
        if let geometry {
            geometryType = try await Self.geometryType(
                declared: geometry.type, column: geometry.column, options: options, connection: connection, logger: logger)
        }
        let srid = Int(geometry?.srid ?? 0)
        let schema = try Schema(
            fields: fields, objectIdFieldName: idName, globalIdFieldName: globalIdName, geometryType: geometryType,
            spatialReference: srid > 0 ? SpatialReference(wkid: srid) : .wgs84)
        return PostGISTable(
            namespace: namespace, name: name, columns: tableColumns, geometryColumn: geometry?.column, srid: srid, schema: schema,
            description: description ?? "", geometryTypeName: geometry?.type.uppercased() ?? "GEOMETRY",
            attachmentTable: try await attachmentTable(of: options, connection: connection, logger: logger))
    }

    /// The columns of an attachments table, as `PostGISFeatureSource.attachmentTableSQL` makes it.
    static let attachmentColumns = ["attachmentid", "rel_objectid", "content_type", "att_name", "data_size", "data"]

    /// The companion table keeping the attachments of `options`' table: `NAME__attach` (or
    /// `NAME__ATTACH`, as Esri names it) in the same schema, which must have the columns of
    /// ``attachmentColumns``.
    static func attachmentTable(of options: PostGISConnectionOptions, connection: PostgresConnection, logger: Logger) async throws -> String? {
        let sql = """
            SELECT c.relname::text, ARRAY(SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped)
            FROM pg_class c JOIN pg_namespace n ON c.relnamespace = n.oid
            WHERE n.nspname = $1 AND c.relname IN ($2 || '__attach', $2 || '__ATTACH') AND c.relkind IN ('r', 'p')
            ORDER BY c.relname DESC LIMIT 1
            """
        var found: (name: String, columns: [String])?
        try await PostGISFeatureSource.run(
            PostGISStatement(sql: sql, parameters: [.text(options.namespace), .text(options.table)]), connection: connection, logger: logger
        ) { found = try $0.decode((String, [String]).self) }
        guard let found else { return nil }
        let missing = attachmentColumns.filter { !found.columns.contains($0) }
        guard missing.isEmpty else {
            throw PostGISError(
                .unsupported,
                "the attachments table \(options.namespace).\(found.name) has no column \(missing.joined(separator: ", ")) "
                    + "(it needs \(attachmentColumns.joined(separator: ", ")))")
        }
        return found.name
    }

    /// A type modifier's geometry type without its dimensions (`POINTZ` → `POINT`,
    /// `MULTIPOLYGONZM` → `MULTIPOLYGON`): no base type name ends in Z or M.
    static func baseType(_ type: String) -> String {
        for suffix in ["ZM", "Z", "M"] where type.hasSuffix(suffix) { return String(type.dropLast(suffix.count)) }
        return type
    }

    /// How a column of PostgreSQL type `type` is read, and its field type.
    static func kind(ofType type: String) -> (PostGISTable.ColumnKind, FieldType) {
        switch type {
        case "int2": (.integer, .smallInteger)
        case "int4": (.integer, .integer)
        case "int8": (.integer, .bigInteger)
        case "bool": (.boolean, .smallInteger)
        case "float4": (.double, .single)
        case "float8": (.double, .double)
        case "numeric": (.numeric, .double)
        case "date": (.instant, .dateOnly)
        case "timestamp", "timestamptz": (.instant, .date)
        case "uuid": (.text, .guid)
        default: (.text, .string)
        }
    }

    /// The geometry type of a geometry column: from its declared type, or for a generic
    /// `GEOMETRY` column from the kinds it holds (points with multipoints are multipoints).
    static func geometryType(
        declared: String, column: String, options: PostGISConnectionOptions, connection: PostgresConnection, logger: Logger
    ) async throws -> GeometryType {
        switch declared.uppercased() {
        case "POINT": return .point
        case "MULTIPOINT": return .multipoint
        case "LINESTRING", "MULTILINESTRING": return .polyline
        case "POLYGON", "MULTIPOLYGON": return .polygon
        default: break
        }
        let table = try postgreSQLIdentifier(options.namespace) + "." + postgreSQLIdentifier(options.table)
        let sql = "SELECT DISTINCT GeometryType(\(try postgreSQLIdentifier(column)))::text FROM \(table) WHERE \(try postgreSQLIdentifier(column)) IS NOT NULL"
        var kinds = Set<String>()
        try await PostGISFeatureSource.run(PostGISStatement(sql: sql, parameters: []), connection: connection, logger: logger) {
            kinds.insert(try $0.decode(String.self))
        }
        if kinds.isSubset(of: ["POINT"]) { return .point }
        if kinds.isSubset(of: ["POINT", "MULTIPOINT"]) { return .multipoint }
        if kinds.isSubset(of: ["LINESTRING", "MULTILINESTRING"]) { return .polyline }
        if kinds.isSubset(of: ["POLYGON", "MULTIPOLYGON"]) { return .polygon }
        throw PostGISError(
            .unsupported, "the geometry column \"\(column)\" of \(options.namespace).\(options.table) mixes \(kinds.sorted().joined(separator: ", ")); "
                + "a feature table holds one kind")
    }
}
