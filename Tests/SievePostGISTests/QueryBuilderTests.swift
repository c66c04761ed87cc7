// Needs the RemoteSources trait (on by default).
#if RemoteSources
import SieveCQL
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import SievePostGIS
import SieveSQL
import Testing

/// The SQL the PostGIS source sends, without a server: parameters for every value, quoted
/// identifiers for every name, whatever the input.
@Suite("PostGIS query builder")
struct QueryBuilderTests {
    /// A table whose field names are hostile SQL.
    static func table(names: [String]) throws -> PostGISTable {
        var columns = [PostGISTable.Column(name: "id", kind: .integer)]
        var fields = [Field(name: "id", type: .oid)]
        for name in names {
            columns.append(PostGISTable.Column(name: name, kind: .text))
            fields.append(Field(name: name, type: .string))
        }
        columns.append(PostGISTable.Column(name: "n", kind: .integer))
        fields.append(Field(name: "n", type: .bigInteger))
        let schema = try Schema(fields: fields, objectIdFieldName: "id", geometryType: .polygon, spatialReference: .wgs84)
        return PostGISTable(namespace: "public", name: "t\"; DROP TABLE x; --", columns: columns, geometryColumn: "geom", srid: 4326, schema: schema)
    }

    static let hostileStrings = [
        "'; DROP TABLE t; --", "\\'; DROP TABLE t; --", "$1", "$$ DROP $$", "\" OR 1=1 --", "é'\u{2019}; --", "a\\", "%_\\%",
    ]

    @Test func hostileValuesNeverReachTheSQLText() throws {
        let table = try Self.table(names: ["name"])
        let builder = PostGISQueryBuilder(table: table)
        for value in Self.hostileStrings {
            let quoted = "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
            for whereClause in ["name = \(quoted)", "name LIKE \(quoted)", "name IN (\(quoted), 'x')", "name > \(quoted) OR n = 3"] {
                let statement = try builder.featuresStatement(QueryParameters(whereClause: whereClause))
                // ("$1" is also the first placeholder's name.)
                #expect(value == "$1" || !statement.sql.contains(value), "\(whereClause): \(statement.sql)")
                #expect(statement.parameters.contains(.text(value)), "\(whereClause)")
            }
            // Built as a tree: the text encoding cannot say a backslash before a quote.
            let cql2 = CQL2Filter(
                .and([.comparison(.equal, .property("name"), .string(value)), .spatial(.intersects, .property("geometry"), .bbox([0, 0, 1, 1]))]))
            let statement = try builder.countStatement(QueryParameters(filter: cql2))
            #expect(value == "$1" || !statement.sql.contains(value))
            #expect(statement.parameters.contains(.text(value)))
        }
    }

    @Test func hostileFieldNamesAreQuotedIdentifiers() throws {
        let names = ["a\"; DROP TABLE t; --", "select", "x y", "ü\"\""]
        let table = try Self.table(names: names)
        let builder = PostGISQueryBuilder(table: table)
        for name in names {
            let escapedForSQL = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\" = 'v'"
            let statement = try builder.featuresStatement(
                QueryParameters(whereClause: escapedForSQL, orderBy: [SortField(name, ascending: false)]))
            let identifier = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            #expect(statement.sql.contains(identifier), "\(statement.sql)")
            // The name appears only inside its identifier: every quote in it doubled.
            #expect(!statement.sql.replacingOccurrences(of: identifier, with: "").contains(name), "\(statement.sql)")
            #expect(statement.parameters == [.text("v")])
        }
        #expect(try builder.countStatement(QueryParameters()).sql.contains("FROM \"public\".\"t\"\"; DROP TABLE x; --\""))
    }

    @Test func semanticsAreTranslatedOrRefused() throws {
        let table = try Self.table(names: ["name"])
        let builder = PostGISQueryBuilder(table: table)
        func sql(_ whereClause: String) throws -> String {
            var parameters = PostgreSQLParameters()
            return try builder.condition(QueryParameters(whereClause: whereClause), parameters: &parameters)
        }
        #expect(try sql("name < 'b'").contains("COLLATE \"C\""))
        #expect(try sql("name LIKE 'a%'").contains("ESCAPE ''"))
        #expect(try sql("name LIKE 'a!%%' ESCAPE '!'").contains("ESCAPE $2::text"))
        #expect(try sql("n + 1 > 3").contains("BETWEEN -9223372036854775808 AND 9223372036854775807"))
        #expect(try sql("n / 0 = 1").contains("y = 0"))
        #expect(try sql("n > 2.5").contains("(\"n\") >= ($1::int8)"))
        // An integer never equals 2.5: FALSE, or NULL for NULL.
        #expect(try sql("n = 2.5") == "((\"n\") <> (\"n\"))")
        for refused in ["UPPER(name) = 'A'", "CONCAT(name, 'x') = 'y'", "ROUND(n * 1.5, 1) = 2", "CAST(name AS INTEGER) = 1"] {
            #expect(throws: PostgreSQLRenderingError.self, "\(refused)") { try sql(refused) }
        }
        var nocase = PostgreSQLParameters()
        #expect(throws: PostgreSQLRenderingError.self) {
            try builder.condition(QueryParameters(whereClause: "name = 'a'", collation: .nocase), parameters: &nocase)
        }
    }

    @Test func antimeridianBoxesAreTwoPolygonsInOneParameter() throws {
        let builder = PostGISQueryBuilder(table: try Self.table(names: ["name"]))
        let statement = try builder.countStatement(QueryParameters(filter: try CQL2Filter("S_INTERSECTS(geometry, BBOX(170, -10, -170, 10))")))
        let wkb = statement.parameters.compactMap { value -> [UInt8]? in
            if case .bytes(let bytes) = value { return bytes }
            return nil
        }
        #expect(wkb.count == 1)
        let geometry = try Geometry(wkb: try #require(wkb.first))
        guard case .polygon(let polygon) = geometry else {
            Issue.record("not a polygon: \(geometry)")
            return
        }
        #expect(polygon.partCount == 2)
    }

    @Test func connectionURLs() throws {
        let options = try PostGISConnectionOptions(url: "postgresql://me:p%40ss@db.example:6543/gis?table=data.countries&id=fid&geometry=shape")
        #expect(options.host == "db.example")
        #expect(options.port == 6543)
        #expect(options.user == "me")
        #expect(options.password == "p@ss")
        #expect(options.database == "gis")
        #expect(options.namespace == "data")
        #expect(options.table == "countries")
        #expect(options.idColumn == "fid")
        #expect(options.geometryColumn == "shape")
        let plain = try PostGISConnectionOptions(url: "postgres://u@localhost/gis?table=t")
        #expect(plain.port == 5432 && plain.namespace == "public")
        // Without a database, libpq's default: the user's name (PostGISConnectionOptionsTests has the rest).
        #expect(try PostGISConnectionOptions(url: "postgresql://u@localhost/?table=t", environment: [:]).database == "u")
        // No user anywhere (an empty environment), no table, not PostgreSQL, an unknown parameter.
        for bad in ["postgresql://localhost/gis?table=t", "postgresql://u@localhost/gis", "http://u@h/d?table=t", "postgresql://u@h/d?table=t&x=1"] {
            #expect(throws: PostGISError.self, "\(bad)") { try PostGISConnectionOptions(url: bad, environment: [:]) }
        }
    }
}
#endif
