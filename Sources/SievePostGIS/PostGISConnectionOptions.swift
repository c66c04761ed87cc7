import Foundation

/// Where a PostGIS table is: the server, the database, the table, and optionally which columns
/// are the object ID and the geometry.
///
/// Written as a URL: `postgresql://[USER[:PASSWORD]@][HOST][:PORT][/DATABASE]?table=[SCHEMA.]TABLE`
/// with optional `&id=COLUMN`, `&geometry=COLUMN`, `&globalid=COLUMN`, `&sslmode=MODE` and
/// `&sslrootcert=FILE`
/// (`postgres://` also reads). Parts are percent-decoded; the schema defaults to `public`. What
/// the URL leaves out comes from the environment as libpq takes it: `PGHOST` (else
/// `localhost`), `PGPORT` (else 5432), `PGUSER` (else the login name, `USER`), `PGDATABASE`
/// (else the user's name), `PGSSLMODE` (else `prefer`), `PGSSLROOTCERT` (else
/// `~/.postgresql/root.crt` when it exists), and the password from `PGPASSWORD`, else the
/// password file (`PGPASSFILE`, else `~/.pgpass`).
///
/// TLS follows libpq's `sslmode` (``SSLMode``): `disable`; `prefer` (TLS when the server offers
/// it, unverified); `require` (TLS or no connection; unverified, unless a root certificate is
/// given, when it is `verify-ca`, as libpq does); `verify-ca` (the server's certificate signed by
/// the root certificate); `verify-full` (and issued for the host). `sslrootcert=system` trusts
/// the system's certificate authorities.
public struct PostGISConnectionOptions: Sendable, Hashable {
    /// How a connection is encrypted and the server checked: libpq's `sslmode`.
    public enum SSLMode: String, Sendable, Hashable, CaseIterable {
        /// No TLS.
        case disable
        /// TLS when the server offers it, else none; the certificate is not checked.
        case prefer
        /// TLS, or no connection; the certificate is not checked (unless a root certificate is
        /// given: then as ``verifyCA``).
        case require
        /// TLS with a certificate signed by the root certificate.
        case verifyCA = "verify-ca"
        /// TLS with a certificate signed by the root certificate and issued for the host.
        case verifyFull = "verify-full"
    }


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
    /// The global-ID column (a `uuid` column), when it is not the one named `globalid` (in any
    /// case). Edits fill it with a new global ID for each feature added.
    public var globalIdColumn: String?
    /// How connections are encrypted.
    public var sslMode: SSLMode = .prefer
    /// The root certificate (PEM) the server's certificate must be signed by: a file, or
    /// `system` for the system's certificate authorities; `nil` for none.
    public var sslRootCertificate: String?

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
        var globalIdColumn: String?
        var modeText = variable("PGSSLMODE")
        var rootCertificate = variable("PGSSLROOTCERT")
        for item in components.queryItems ?? [] {
            switch item.name {
            case "table": table = item.value
            case "id": idColumn = item.value
            case "geometry": geometryColumn = item.value
            case "globalid": globalIdColumn = item.value.flatMap { $0.isEmpty ? nil : $0 }
            case "sslmode": modeText = item.value
            case "sslrootcert": rootCertificate = item.value.flatMap { $0.isEmpty ? nil : $0 }
            default:
                throw PostGISError(
                    .invalidOptions, "unknown PostgreSQL URL parameter \"\(item.name)\" (table, id, geometry, globalid, sslmode and sslrootcert are read)")
            }
        }
        var sslMode = SSLMode.prefer
        if let modeText {
            if modeText == "allow" {
                throw PostGISError(.invalidOptions, "sslmode=allow is not supported (it tries without TLS first): use disable, prefer or require")
            }
            guard let mode = SSLMode(rawValue: modeText) else {
                throw PostGISError(
                    .invalidOptions, "sslmode \"\(modeText)\" is not one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            sslMode = mode
        }
        if rootCertificate == nil, let home = variable("HOME"), FileManager.default.fileExists(atPath: home + "/.postgresql/root.crt") {
            rootCertificate = home + "/.postgresql/root.crt"
        }
        if sslMode == .verifyCA || sslMode == .verifyFull, rootCertificate == nil {
            throw PostGISError(
                .invalidOptions,
                "sslmode=\(sslMode.rawValue) needs a root certificate: sslrootcert=FILE (or system), PGSSLROOTCERT, or ~/.postgresql/root.crt")
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
        self.globalIdColumn = globalIdColumn
        self.sslMode = sslMode
        sslRootCertificate = rootCertificate
    }

    /// How the server's certificate is checked: the mode's check, `require` with a root
    /// certificate checked as `verify-ca`.
    var verification: (encrypt: Bool, required: Bool, chain: Bool, host: Bool) {
        switch sslMode {
        case .disable: (false, false, false, false)
        case .prefer: (true, false, false, false)
        case .require: (true, true, sslRootCertificate != nil, false)
        case .verifyCA: (true, true, true, false)
        case .verifyFull: (true, true, true, true)
        }
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

/// How a ``PostGISFeatureSource`` uses the server: how many connections its pool holds at most
/// and how long a statement may run.
public struct PostGISPoolOptions: Sendable, Hashable {
    /// The most connections open at once (queries beyond wait for one): 1 or more.
    public var maximumConnections: Int
    /// The longest a statement may run, in seconds, as the session's `statement_timeout`; `nil`
    /// for no bound. A statement past it is cancelled by the database and fails with
    /// ``PostGISError/Kind/cancelled``.
    public var statementTimeout: Double?

    /// Pool options: at most `maximumConnections` (at least 1) connections, statements bound by
    /// `statementTimeout` seconds.
    public init(maximumConnections: Int = 4, statementTimeout: Double? = nil) {
        self.maximumConnections = Swift.max(1, maximumConnections)
        self.statementTimeout = statementTimeout
    }
}
