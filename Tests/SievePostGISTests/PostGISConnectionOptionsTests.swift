// Needs the RemoteSources trait (on by default).
#if RemoteSources
import Foundation
import SievePostGIS
import Testing

/// What a PostgreSQL URL leaves out comes from the environment and the password file as libpq
/// takes them (PostgreSQL's documentation, "Environment Variables" and "The Password File").
@Suite struct PostGISConnectionOptionsTests {
    @Test func theURLWinsOverTheEnvironment() throws {
        let environment = ["PGHOST": "db.example", "PGPORT": "6543", "PGUSER": "env", "PGPASSWORD": "envpw", "PGDATABASE": "envdb"]
        let given = try PostGISConnectionOptions(url: "postgresql://me:pw@10.0.0.1:5433/gis?table=roads", environment: environment)
        #expect([given.host, String(given.port), given.user, given.password ?? "", given.database] == ["10.0.0.1", "5433", "me", "pw", "gis"])
        let left = try PostGISConnectionOptions(url: "postgresql:///?table=roads", environment: environment)
        #expect([left.host, String(left.port), left.user, left.password ?? "", left.database] == ["db.example", "6543", "env", "envpw", "envdb"])
        // libpq's defaults: localhost, 5432, the login name, a database named as the user.
        let bare = try PostGISConnectionOptions(url: "postgresql://?table=roads", environment: ["USER": "ann"])
        #expect([bare.host, String(bare.port), bare.user, bare.database] == ["localhost", "5432", "ann", "ann"])
        #expect(bare.password == nil)
        #expect(throws: PostGISError.self) { try PostGISConnectionOptions(url: "postgresql://?table=t", environment: ["USER": "a", "PGPORT": "x"]) }
        #expect(throws: PostGISError.self) { try PostGISConnectionOptions(url: "postgresql://?table=t", environment: ["USER": "a", "PGHOST": "/run/postgresql"]) }
    }

    @Test func columnsNamedInTheURL() throws {
        let named = try PostGISConnectionOptions(url: "postgresql://me@db/gis?table=gis.roads&id=fid&geometry=shape&globalid=guid", environment: [:])
        #expect([named.namespace, named.table, named.idColumn, named.geometryColumn, named.globalIdColumn] == ["gis", "roads", "fid", "shape", "guid"])
        let bare = try PostGISConnectionOptions(url: "postgresql://me@db/gis?table=roads&globalid=", environment: [:])
        #expect(bare.globalIdColumn == nil && bare.idColumn == nil && bare.namespace == "public")
        #expect(throws: PostGISError.self) { try PostGISConnectionOptions(url: "postgresql://me@db/gis?table=roads&global_id=g", environment: [:]) }
    }

    @Test func thePasswordFileGivesTheFirstMatchingLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pgpass-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent(".pgpass")
        let lines = [
            "# host:port:database:user:password",
            "other:5432:gis:me:wrong-host",
            "db:5432:gis:me:first",
            "db:5432:gis:me:second",
            "db:*:*:you:any:thing",
            #"we\:ird:5432:gis:me:esc\\aped"#,
        ]
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        func password(_ url: String) throws -> String? {
            try PostGISConnectionOptions(url: url, environment: ["PGPASSFILE": file.path]).password
        }
        #expect(try password("postgresql://me@db/gis?table=t") == "first")
        // Wildcards; a colon after the fourth field is part of the password.
        #expect(try password("postgresql://you@db:7000/roads?table=t") == "any:thing")
        // `\:` and `\\` are a colon and a backslash.
        #expect(try password("postgresql://me@we%3Aird/gis?table=t") == #"esc\aped"#)
        #expect(try password("postgresql://nobody@db/gis?table=t") == nil)
        // PGPASSWORD and the URL's password come first.
        #expect(try PostGISConnectionOptions(url: "postgresql://me@db/gis?table=t", environment: ["PGPASSFILE": file.path, "PGPASSWORD": "env"]).password == "env")
        #expect(try password("postgresql://me:url@db/gis?table=t") == "url")
        // HOME/.pgpass when PGPASSFILE is not set.
        #expect(try PostGISConnectionOptions(url: "postgresql://me@db/gis?table=t", environment: ["HOME": folder.path]).password == "first")
        // A file others can read is ignored, as libpq ignores it.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        #expect(try password("postgresql://me@db/gis?table=t") == nil)
    }
}
#endif
