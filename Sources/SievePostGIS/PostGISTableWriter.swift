import Logging
import NIOCore
import PostgresNIO
import SieveColumns
import SieveFeatures
import SieveGeometry
import SieveSQL

extension PostGISFeatureSource {
    /// Writes `table` into a new PostGIS table (the export): one column per field — the object
    /// ID as the `bigint` primary key, integers as `smallint`/`integer`/`bigint`, doubles as
    /// `real`/`double precision`, text (GUIDs too) as `text`, dates as `timestamptz`, date-only
    /// fields as `date` — and the
    /// geometries in a `geom` column of type `geometry` with the table's WKID as SRID. The rows
    /// stream through `COPY … FROM STDIN` (geometries as hexadecimal EWKB), then the GiST index
    /// is built over them (faster than growing it row by row), all in one transaction, and the
    /// table analyzed.
    /// - Parameters:
    ///   - table: The features.
    ///   - options: Where to write: the server, database and table name (`id` and `geometry`
    ///     are ignored: the columns are named after the fields and `geom`).
    ///   - replace: Whether to drop a table of that name first; otherwise an existing table is an
    ///     error.
    ///   - logger: Where the connection logs.
    /// - Returns: The new table as a source, open.
    /// - Throws: ``PostGISError`` when the server refuses a statement (the transaction is then
    ///   rolled back and nothing is left behind).
    public static func write(
        _ table: FeatureTable, to options: PostGISConnectionOptions, replace: Bool = false,
        logger: Logger = Logger(label: "geosieve.postgis")
    ) async throws -> PostGISFeatureSource {
        let connection = try await connect(options, logger: logger)
        do {
            try await insert(table, options: options, replace: replace, connection: connection, logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            try? await connection.close()
            throw error
        }
        try? await connection.close()
        return try await open(options, logger: logger)
    }

    private static func insert(
        _ table: FeatureTable, options: PostGISConnectionOptions, replace: Bool, connection: PostgresConnection, logger: Logger
    ) async throws {
        let schema = table.schema
        let qualified = try postgreSQLIdentifier(options.namespace) + "." + postgreSQLIdentifier(options.table)
        let hasGeometry = schema.geometryType != nil
        let srid = table.spatialReference.wkid
        var definitions: [String] = []
        for field in schema.fields {
            let type: String
            switch field.type {
            case .oid: type = "bigint PRIMARY KEY"
            case .smallInteger: type = "smallint"
            case .integer: type = "integer"
            case .bigInteger: type = "bigint"
            case .single: type = "real"
            case .double: type = "double precision"
            case .string, .guid, .globalID: type = "text"
            case .date: type = "timestamptz"
            case .dateOnly: type = "date"
            }
            definitions.append("\(try postgreSQLIdentifier(field.name)) \(type)")
        }
        if hasGeometry { definitions.append("\"geom\" geometry(Geometry, \(srid))") }
        var statements: [String] = ["BEGIN"]
        if replace { statements.append("DROP TABLE IF EXISTS \(qualified)") }
        statements.append("CREATE TABLE \(qualified) (\(definitions.joined(separator: ", ")))")
        for sql in statements { try await run(PostGISStatement(sql: sql, parameters: []), connection: connection, logger: logger) }

        // The rows through COPY … FROM STDIN (text format, the one postgres-nio writes), into the
        // table found through the search path of this transaction (COPY names it unqualified).
        try await run(
            PostGISStatement(sql: "SET LOCAL search_path TO \(try postgreSQLIdentifier(options.namespace)), public", parameters: []),
            connection: connection, logger: logger)
        guard !options.table.contains("\""), !schema.fields.contains(where: { $0.name.contains("\"") }) else {
            throw PostGISError(.invalidOptions, "a table or field name with a double quote cannot be written (COPY does not quote it)")
        }
        let columnNames = schema.fields.map(\.name) + (hasGeometry ? ["geom"] : [])
        let live = table.liveRows
        try await connection.copyFrom(table: options.table, columns: columnNames, logger: logger) { writer in
            let text = CopyText(srid: srid)
            var buffer = ByteBuffer()
            buffer.reserveCapacity(1 << 20)
            for row in live {
                for i in schema.fields.indices {
                    if i > 0 { buffer.writeInteger(UInt8(ascii: "\t")) }
                    text.write(table.columns[i][row], to: &buffer)
                }
                if hasGeometry {
                    buffer.writeInteger(UInt8(ascii: "\t"))
                    text.write(table.geometry(row: row), to: &buffer)
                }
                buffer.writeInteger(UInt8(ascii: "\n"))
                if buffer.readableBytes >= 1 << 20 {
                    try await writer.write(buffer)
                    buffer.clear()
                }
            }
            if buffer.readableBytes > 0 { try await writer.write(buffer) }
        }
        if hasGeometry {
            try await run(
                PostGISStatement(sql: "CREATE INDEX ON \(qualified) USING GIST (\"geom\")", parameters: []), connection: connection,
                logger: logger)
        }
        try await run(PostGISStatement(sql: "COMMIT", parameters: []), connection: connection, logger: logger)
        try await run(PostGISStatement(sql: "ANALYZE \(qualified)", parameters: []), connection: connection, logger: logger)
    }
}

/// Values written in the text format of `COPY … FROM STDIN`: `\N` for NULL, backslash, tab,
/// newline and carriage return escaped, doubles in their shortest exact form, dates as UTC
/// timestamps, geometries as hexadecimal EWKB carrying the column's SRID.
struct CopyText {
    let srid: Int
    private static let hex = Array("0123456789abcdef".utf8)

    func write(_ value: ScalarValue, to buffer: inout ByteBuffer) {
        switch value {
        case .null: buffer.writeStaticString("\\N")
        case .integer(let x): buffer.writeString(String(x))
        case .double(let x):
            if x.isNaN {
                buffer.writeStaticString("NaN")
            } else if x.isInfinite {
                buffer.writeStaticString(x < 0 ? "-Infinity" : "Infinity")
            } else {
                buffer.writeString(x.description)
            }
        case .string(let s):
            for byte in s.utf8 {
                switch byte {
                case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                case UInt8(ascii: "\t"): buffer.writeStaticString("\\t")
                case UInt8(ascii: "\n"): buffer.writeStaticString("\\n")
                case UInt8(ascii: "\r"): buffer.writeStaticString("\\r")
                default: buffer.writeInteger(byte)
                }
            }
        case .date(let ms): buffer.writeString(PostgreSQLValue.timestampText(milliseconds: ms))
        case .boolean(let b): buffer.writeStaticString(b ? "1" : "0")
        }
    }

    /// `geometry` as hexadecimal EWKB: its little-endian WKB with the SRID flag set on the type
    /// and the SRID after it.
    func write(_ geometry: Geometry?, to buffer: inout ByteBuffer) {
        guard let geometry else {
            buffer.writeStaticString("\\N")
            return
        }
        let wkb = geometry.wkb(byteOrder: .littleEndian)
        guard wkb.count >= 5 else {
            buffer.writeStaticString("\\N")
            return
        }
        var ewkb = [UInt8]()
        ewkb.reserveCapacity(wkb.count + 4)
        ewkb.append(wkb[0])
        var type = UInt32(wkb[1]) | UInt32(wkb[2]) << 8 | UInt32(wkb[3]) << 16 | UInt32(wkb[4]) << 24
        // ISO codes (1000 Z, 2000 M, 3000 ZM) as EWKB's flags, which PostGIS reads with the SRID flag.
        let base = type % 1000
        switch type / 1000 {
        case 1: type = base | 0x8000_0000
        case 2: type = base | 0x4000_0000
        case 3: type = base | 0xC000_0000
        default: break
        }
        type |= 0x2000_0000
        for shift in stride(from: 0, to: 32, by: 8) { ewkb.append(UInt8(truncatingIfNeeded: type >> UInt32(shift))) }
        let srid = UInt32(truncatingIfNeeded: self.srid)
        for shift in stride(from: 0, to: 32, by: 8) { ewkb.append(UInt8(truncatingIfNeeded: srid >> UInt32(shift))) }
        ewkb.append(contentsOf: wkb[5...])
        for byte in ewkb {
            buffer.writeInteger(Self.hex[Int(byte >> 4)])
            buffer.writeInteger(Self.hex[Int(byte & 15)])
        }
    }
}
