import Foundation

/// Where a PostGIS table is: the server, the database, the table, and optionally which columns
/// are the object ID and the geometry.
///
/// Written as a URL: `postgresql://[USER[:PASSWORD]@][HOST][:PORT][/DATABASE]?table=[SCHEMA.]TABLE`
/// with optional `&id=COLUMN` and `&geometry=COLUMN` (`postgres://` also reads). Parts are
/// percent-decoded; the schema defaults to `public`. What the URL leaves out comes from the
/// environment as libpq takes it: `PGHOST` (else `localhost`), `PGPORT` (else 5432), `PGUSER`
/// (else the login name, `USER`), `PGDATABASE` (else the user's name), and the password from
/// `PGPASSWORD`, else the password file (`PGPASSFILE`, else `~/.pgpass`). Connections are made
/// without TLS (the engine's tests and servers run on loopback).
public struct PostGISConnectionOptions: Sendable, Hashable {
    /// The server's host name or address.
    public var host: String
    /// The server's port.
    public var port: Int
    /// The user.
    public var user: String
    /// The password, if any.
    public var password: String?
    /// The database.
    public var database: String
    /// The table's schema (namespace).
    public var namespace: String
    /// The table.
    public var table: String
    /// The object-ID column, when not the table's integer primary key.
    public var idColumn: String?
    /// The geometry column, when the table has several.
    public var geometryColumn: String?

    /// Options given part by part.
    public init(
        host: String, port: Int = 5432, user: String, password: String? = nil, database: String, namespace: String = "public",
        table: String, idColumn: String? = nil, geometryColumn: String? = nil
    ) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.namespace = namespace
        self.table = table
        self.idColumn = idColumn
        self.geometryColumn = geometryColumn
    }

    /// Whether `text` is written as a PostgreSQL URL (`postgresql://` or `postgres://`).
    public static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// Reads a URL (see the type's description), what it leaves out from this process's
    /// environment and password file.
    /// - Throws: ``PostGISError`` naming what is missing or malformed.
    public init(url text: String) throws {
        try self.init(url: text, environment: ProcessInfo.processInfo.environment)
    }

    /// Reads a URL (see the type's description), what it leaves out from `environment` (the
    /// libpq variables, `USER` and `HOME`) and the password file it names.
    /// - Throws: ``PostGISError`` naming what is missing or malformed.
    public init(url text: String, environment: [String: String]) throws {
        guard Self.isURL(text), let components = URLComponents(string: text) else {
            throw PostGISError(.invalidOptions, "not a PostgreSQL URL: expected postgresql://USER@HOST[:PORT]/DATABASE?table=NAME")
        }
        func variable(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? variable("PGHOST") ?? "localhost"
        guard !host.hasPrefix("/") else {
            throw PostGISError(.invalidOptions, "the PostgreSQL host \"\(host)\" is a Unix socket folder: GeoSieve connects over TCP (give a host name or address)")
        }
        var port = 5432
        if let given = components.port {
            port = given
        } else if let text = variable("PGPORT") {
            guard let number = Int(text), (1...65535).contains(number) else {
                throw PostGISError(.invalidOptions, "PGPORT is \"\(text)\", not a port (1 to 65535)")
            }
            port = number
        }
        guard let user = components.user.flatMap({ $0.isEmpty ? nil : $0 }) ?? variable("PGUSER") ?? variable("USER") else {
            throw PostGISError(.invalidOptions, "the PostgreSQL URL names no user (USER@HOST), and neither PGUSER nor USER is set")
        }
        var database = String(components.path.drop { $0 == "/" })
        if database.isEmpty { database = variable("PGDATABASE") ?? user }
        guard !database.contains("/") else {
            throw PostGISError(.invalidOptions, "the PostgreSQL URL's database \"\(database)\" has a '/' (…/DATABASE?table=NAME)")
        }
        var table: String?
        var idColumn: String?
        var geometryColumn: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "table": table = item.value
            case "id": idColumn = item.value
            case "geometry": geometryColumn = item.value
            default: throw PostGISError(.invalidOptions, "unknown PostgreSQL URL parameter \"\(item.name)\" (table, id and geometry are read)")
            }
        }
        guard let table, !table.isEmpty else { throw PostGISError(.invalidOptions, "the PostgreSQL URL names no table (?table=NAME)") }
        var namespace = "public"
        var name = table
        if let dot = table.firstIndex(of: ".") {
            namespace = String(table[..<dot])
            name = String(table[table.index(after: dot)...])
        }
        var password = components.password ?? variable("PGPASSWORD")
        if password == nil, let file = variable("PGPASSFILE") ?? variable("HOME").map({ $0 + "/.pgpass" }) {
            password = Self.password(inFile: file, host: host, port: port, database: database, user: user)
        }
        self.init(
            host: host, port: port, user: user, password: password, database: database,
            namespace: namespace, table: name, idColumn: idColumn, geometryColumn: geometryColumn)
    }

    /// The password a libpq password file gives for the connection: its first line
    /// `HOST:PORT:DATABASE:USER:PASSWORD` whose first four fields equal the connection's or are
    /// `*` (`\:` and `\\` escape a colon and a backslash; lines starting with `#` are
    /// comments). `nil` when the file does not exist, cannot be read, is readable by the group
    /// or others (libpq ignores such a file, as a password in it is not private), or has no line
    /// that matches.
    static func password(inFile path: String, host: String, port: Int, database: String, user: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let permissions = attributes[.posixPermissions] as? Int, permissions & 0o077 == 0,
            let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else { return nil }
        let wanted = [host, String(port), database, user]
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) where !line.hasPrefix("#") {
            let fields = fields(of: Substring(line))
            guard fields.count == 5 else { continue }
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// The colon-separated fields of a password file's line, `\` escapes undone.
    private static func fields(of line: Substring) -> [String] {
        var fields: [String] = []
        var field = ""
        var escaped = false
        for character in line {
            if escaped {
                field.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":", fields.count < 4 {
                fields.append(field)
                field = ""
            } else {
                field.append(character)
            }
        }
        fields.append(field)
        return fields
    }
}
