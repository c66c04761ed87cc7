import Foundation

/// Where a PostGIS table is: the server, the database, the table, and optionally which columns
/// are the object ID and the geometry.
///
/// Written as a URL: `postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE?table=[SCHEMA.]TABLE`
/// with optional `&id=COLUMN` and `&geometry=COLUMN` (`postgres://` also reads). Parts are
/// percent-decoded; the port defaults to 5432 and the schema to `public`. Connections are made
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

    /// Reads a URL (see the type's description).
    /// - Throws: ``PostGISError`` naming what is missing or malformed.
    public init(url text: String) throws {
        guard Self.isURL(text), let components = URLComponents(string: text) else {
            throw PostGISError(.invalidOptions, "not a PostgreSQL URL: expected postgresql://USER@HOST[:PORT]/DATABASE?table=NAME")
        }
        guard let host = components.host, !host.isEmpty else { throw PostGISError(.invalidOptions, "the PostgreSQL URL names no host") }
        guard let user = components.user, !user.isEmpty else { throw PostGISError(.invalidOptions, "the PostgreSQL URL names no user (USER@HOST)") }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw PostGISError(.invalidOptions, "the PostgreSQL URL names no database (…/DATABASE?table=NAME)")
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
        self.init(
            host: host, port: components.port ?? 5432, user: user, password: components.password, database: database,
            namespace: namespace, table: name, idColumn: idColumn, geometryColumn: geometryColumn)
    }
}
