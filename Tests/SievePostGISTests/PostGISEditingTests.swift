#if RemoteSources
import Foundation
import Logging
import Synchronization
import PostgresNIO
import SieveColumns
import SieveEditing
import SieveFeatures
import SieveGeometry
import SievePostGIS
import SieveTestSupport
import Testing

/// Edits applied where the features live: every batch goes both to a PostGIS table and to an
/// in-memory ``EditableFeatureTable`` holding the same features, with the same options, and
/// both must give the same results and end with the same features. Then what only a database
/// does: a constraint refusing an edit (rolled back alone or with its batch), and two sources
/// editing one table at once.
@Suite("Edits in place on PostGIS", .tags(.postgis), .enabled(if: PostGISServer.url != nil, "no PostGIS server (GEOSIEVE_POSTGIS_URL)"))
struct PostGISEditingTests {
    static let instant: Int64 = 1_700_000_000_123

    /// Twenty points with every kind of field, editor-tracking fields among them, written into
    /// the table `name` (replaced).
    static func makeTable(_ name: String) async throws -> (PostGISConnectionOptions, FeatureTable) {
        let n = 20
        let schema = try Schema(
            fields: [
                Field(name: "oid", type: .oid), Field(name: "name", type: .string), Field(name: "n", type: .integer),
                Field(name: "x", type: .double), Field(name: "day", type: .dateOnly), Field(name: "stamp", type: .date),
                Field(name: "creator", type: .string), Field(name: "created", type: .date), Field(name: "editor", type: .string),
                Field(name: "edited", type: .date), Field(name: "GlobalID", type: .globalID),
            ],
            objectIdFieldName: "oid", globalIdFieldName: "GlobalID", geometryType: .point, spatialReference: .wgs84)
        let ids = (1...Int64(n)).map { $0 }
        let table = try FeatureTable(
            schema: schema,
            columns: [
                .integer(Int64Column(values: ids)), .string(StringColumn(ids.map { "feature \($0)" })),
                .integer(Int64Column(values: ids.map { $0 * 10 })), .double(DoubleColumn(values: ids.map { Double($0) / 4 })),
                .date(Int64Column(values: ids.map { $0 * 86_400_000 })), .date(Int64Column(values: ids.map { $0 * 1_000_003 })),
                .string(StringColumn(ids.map { $0 % 2 == 0 ? "ann" : nil })), .date(Int64Column(values: ids.map { $0 * 1000 })),
                .string(StringColumn(ids.map { _ in nil })), .date(Int64Column(values: ids.map { _ in 0 }, validity: ValidityBitmap(count: n, allValid: false))),
                .string(StringColumn(ids.map { GlobalIDs.format($0 + 1000) })),
            ],
            geometries: ids.map { .point(Point(x: Double($0), y: -Double($0) / 2)) })
        let options = try Self.options(name)
        let source = try await PostGISFeatureSource.write(table, to: options, replace: true)
        let back = try await source.readTable()
        await source.close()
        return (options, back)
    }

    /// Every feature of `table`, in object-ID order: its values and geometry as text.
    static func features(_ table: FeatureTable) -> [String] {
        let rows = (0..<table.count).filter { !table.isDeleted(row: $0) }.sorted { table.objectID(row: $0) < table.objectID(row: $1) }
        return rows.map { row in
            (0..<table.schema.fields.count).map { "\(table.value(row: row, fieldIndex: $0))" }.joined(separator: " | ")
                + " | " + (table.geometry(row: row).map { "\($0)" } ?? "no geometry")
        }
    }

    /// Global IDs numbered from 1, as Esri writes them: one sequence per editing table, so that
    /// an in-memory table and a PostGIS table given the same edits give the same IDs.
    final class GlobalIDs: Sendable {
        private let next = Mutex<Int64>(1)

        static func format(_ n: Int64) -> String {
            let digits = String(n)
            return "{00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - digits.count) + digits + "}"
        }

        /// The options' global IDs from this sequence.
        func options(_ options: EditingOptions) -> EditingOptions {
            var options = options
            options.makeGlobalID = { Self.format(self.next.withLock { n in defer { n += 1 }; return n }) }
            return options
        }
    }

    /// The test server's table `name`.
    static func options(_ name: String) throws -> PostGISConnectionOptions {
        try PostGISConnectionOptions(url: try #require(PostGISServer.url) + "?table=" + name)
    }

    static func sql(_ options: PostGISConnectionOptions, _ statements: [String]) async throws {
        let configuration = PostgresConnection.Configuration(
            host: options.host, port: options.port, username: options.user, password: options.password, database: options.database, tls: .disable)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 11, logger: Logger(label: "test"))
        for sql in statements { try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "test")) }
        try await connection.close()
    }

    static let point = Geometry.point(Point(x: 3.5, y: 4.5))

    /// The batches, each a request and whether it rolls back on failure.
    static let batches: [(String, ApplyEditsRequest)] = [
        (
            "all valid: an add, an update of values and geometry, an update named by its attribute, a delete",
            ApplyEditsRequest(
                adds: [FeatureEdit(attributes: ["name": .string("new"), "n": .integer(7), "day": .date(86_400_000 * 3)], geometry: point)],
                updates: [
                    FeatureEdit(objectID: 2, attributes: ["name": .string("renamed"), "x": .double(-1.25)], geometry: .point(Point(x: 9, y: 9))),
                    FeatureEdit(attributes: ["OID": .integer(3), "stamp": .date(-123_456), "n": .null]),
                ],
                deletes: [4])
        ),
        (
            "rolled back: an unknown field fails the batch",
            ApplyEditsRequest(
                adds: [FeatureEdit(attributes: ["name": .string("never")], geometry: point)],
                updates: [FeatureEdit(objectID: 5, attributes: ["nmae": .string("typo")])], deletes: [6])
        ),
        (
            "without rollback: a missing feature, a repeated one, a wrong type, a polygon for a point, a value too large fail alone",
            ApplyEditsRequest(
                adds: [
                    FeatureEdit(attributes: ["name": .string("kept")], geometry: point),
                    FeatureEdit(attributes: ["name": .string("polygon")], geometry: try? Geometry(wkt: "POLYGON ((0 0, 1 0, 1 1, 0 0))")),
                    FeatureEdit(attributes: ["n": .integer(1 << 40)]),
                ],
                updates: [
                    FeatureEdit(objectID: 999, attributes: ["name": .string("missing")]), FeatureEdit(objectID: 7, attributes: ["n": .string("seven")]),
                    FeatureEdit(objectID: 8, attributes: ["name": .string("first")]), FeatureEdit(objectID: 8, attributes: ["name": .string("second")]),
                ],
                deletes: [4, 9], rollbackOnFailure: false)
        ),
        (
            "a geometry in another spatial reference is projected; NULL geometry; an empty add",
            ApplyEditsRequest(
                adds: [
                    FeatureEdit(geometry: .point(Point(x: 1_113_194.9079327357, y: 0)), spatialReference: SpatialReference(wkid: 3857)),
                    FeatureEdit(),
                ],
                updates: [FeatureEdit(objectID: 10, attributes: ["name": .null])])
        ),
    ]

    @Test("every batch gives the results an in-memory editable table gives, and leaves the same features")
    func differential() async throws {
        let (options, start) = try await Self.makeTable("edit_differential")
        let editing = EditingOptions(
            editorTracking: EditorTracking(creatorField: "creator", creationDateField: "created", editorField: "editor", editDateField: "edited"),
            now: { Self.instant })
        #expect(start.schema.globalIdFieldName == "GlobalID" && start.schema.fields[10].type == .globalID)
        #expect(start.value(row: 0, field: "GlobalID") == .string("{00000000-0000-4000-8000-000000001001}"))
        let memory = try EditableFeatureTable(start, options: GlobalIDs().options(editing))
        let sourceEditing = GlobalIDs().options(editing)
        try await PostGISFeatureSource.using(options) { source in
            for (label, request) in Self.batches {
                let expected = memory.applyEdits(request, user: "bob")
                let result = try await source.applyEdits(request, options: sourceEditing, user: "bob")
                #expect(result == expected, "\(label)")
                #expect(Self.features(try await source.readTable()) == Self.features(memory.snapshot), "\(label)")
            }
            // New object IDs continue from the largest written; adds got global IDs, found by
            // a where clause run by PostgreSQL.
            #expect(try await source.queryObjectIDs(QueryParameters()).max() == 24)
            #expect(try await source.queryObjectIDs(QueryParameters(whereClause: "GlobalID = '{00000000-0000-4000-8000-000000000001}'")) == [21])
        }
    }

    @Test("the definition expression, capabilities and ownership refuse as in memory")
    func rulesAsInMemory() async throws {
        let (options, start) = try await Self.makeTable("edit_rules")
        let tracking = EditorTracking(
            creatorField: "creator", creationDateField: "created", editorField: "editor", editDateField: "edited", ownershipBasedAccessControl: true,
            allowOthersToUpdate: false, allowOthersToDelete: false)
        let cases: [(EditingOptions, ApplyEditsRequest, String?)] = [
            // Feature 3 is outside (n = 30); updating 2 to n = 30 would leave it.
            (
                EditingOptions(definitionExpression: "n <> 30"),
                ApplyEditsRequest(
                    adds: [FeatureEdit(attributes: ["n": .integer(30)], geometry: Self.point)],
                    updates: [FeatureEdit(objectID: 3, attributes: ["name": .string("hidden")]), FeatureEdit(objectID: 2, attributes: ["n": .integer(30)])],
                    deletes: [3, 5], rollbackOnFailure: false),
                nil
            ),
            (
                EditingOptions(capabilities: [.query, .update], allowGeometryUpdates: false),
                ApplyEditsRequest(
                    adds: [FeatureEdit(geometry: Self.point)], updates: [FeatureEdit(objectID: 2, geometry: Self.point), FeatureEdit(objectID: 4, attributes: ["n": .integer(1)])],
                    deletes: [6], rollbackOnFailure: false),
                nil
            ),
            // Even features belong to ann; odd ones to nobody.
            (
                EditingOptions(editorTracking: tracking, now: { Self.instant }),
                ApplyEditsRequest(
                    updates: [FeatureEdit(objectID: 2, attributes: ["n": .integer(1)]), FeatureEdit(objectID: 4, attributes: ["n": .integer(2)])],
                    deletes: [6, 8], rollbackOnFailure: false),
                "ann"
            ),
            (
                EditingOptions(editorTracking: tracking, now: { Self.instant }),
                ApplyEditsRequest(updates: [FeatureEdit(objectID: 10, attributes: ["n": .integer(1)])], deletes: [12], rollbackOnFailure: false),
                "bob"
            ),
        ]
        try await PostGISFeatureSource.using(options) { source in
            for (k, (editing, request, user)) in cases.enumerated() {
                let memory = try EditableFeatureTable(try await source.readTable(), options: editing)
                let expected = memory.applyEdits(request, user: user)
                let result = try await source.applyEdits(request, options: editing, user: user)
                #expect(result == expected, "case \(k)")
                #expect(result.allSucceeded == (k == 2), "case \(k): only ann's edits of her own features all succeed")
                #expect(Self.features(try await source.readTable()) == Self.features(memory.snapshot), "case \(k)")
            }
        }
        _ = start
    }

    @Test("an edit the database refuses (a CHECK constraint) rolls back its batch, or alone without rollbackOnFailure")
    func databaseRefusal() async throws {
        let (options, _) = try await Self.makeTable("edit_refused")
        try await Self.sql(options, ["ALTER TABLE edit_refused ADD CONSTRAINT small_n CHECK (n < 1000)"])
        try await PostGISFeatureSource.using(options) { source in
            let before = Self.features(try await source.readTable())
            let request = ApplyEditsRequest(
                adds: [FeatureEdit(attributes: ["n": .integer(5)], geometry: Self.point)],
                updates: [FeatureEdit(objectID: 1, attributes: ["n": .integer(5000)]), FeatureEdit(objectID: 2, attributes: ["n": .integer(6)])], deletes: [3])
            let rolledBack = try await source.applyEdits(request)
            #expect(rolledBack.updateResults[0].error?.kind == .refusedByStore)
            #expect(rolledBack.updateResults[0].error?.message.contains("small_n") == true)
            #expect(rolledBack.addResults.map(\.error?.kind) == [.rolledBack])
            #expect(rolledBack.updateResults[1].error?.kind == .rolledBack)
            #expect(rolledBack.deleteResults.map(\.error?.kind) == [.rolledBack])
            #expect(Self.features(try await source.readTable()) == before)

            let partial = try await source.applyEdits(request, rollbackOnFailure: false)
            #expect(partial.updateResults[0].error?.kind == .refusedByStore)
            #expect(partial.addResults[0].success && partial.updateResults[1].success && partial.deleteResults[0].success)
            let after = try await source.readTable()
            #expect(after.count == 20)
            let ids = Set((0..<after.count).map { after.objectID(row: $0) })
            // The rolled-back batch took object ID 21 from the table's sequence (sequences are not
            // transactional): the add got the next.
            #expect(!ids.contains(3) && ids.contains(22))
            let row1 = try #require((0..<after.count).first { after.objectID(row: $0) == 1 })
            #expect(after.value(row: row1, field: "n") == .integer(10))
        }
    }

    @Test("many adds go in a few multi-row statements, numbered in their order as in memory; one the database refuses is found one by one")
    func addsTogether() async throws {
        let (options, start) = try await Self.makeTable("edit_together")
        let memory = try EditableFeatureTable(start, options: GlobalIDs().options(EditingOptions()))
        let editing = GlobalIDs().options(EditingOptions())
        // 3,000 adds: more than one statement's worth of parameters.
        let adds = (1...3000).map { k in
            FeatureEdit(attributes: ["name": .string("added \(k)"), "n": .integer(Int64(k)), "x": .double(Double(k) / 8)], geometry: .point(Point(x: Double(k % 90), y: 1)))
        }
        let request = ApplyEditsRequest(adds: adds + [FeatureEdit(attributes: ["nmae": .string("typo")])], rollbackOnFailure: false)
        try await PostGISFeatureSource.using(options) { source in
            let expected = memory.applyEdits(request)
            let result = try await source.applyEdits(request, options: editing)
            #expect(result == expected)
            #expect(result.addResults.prefix(3000).map(\.objectID) == Array(21...3020))
            #expect(result.addResults.last?.error?.kind == .unknownField)
            #expect(Self.features(try await source.readTable()) == Self.features(memory.snapshot))

            // A CHECK constraint refusing the second of three adds: without rollback it alone
            // fails (the others are inserted one by one, after the IDs the try drew); with it,
            // none is inserted.
            try await Self.sql(options, ["ALTER TABLE edit_together ADD CONSTRAINT small_n CHECK (n < 100000)"])
            let three = [1, 200_000, 3].map { FeatureEdit(attributes: ["n": .integer(Int64($0))], geometry: Self.point) }
            let before = try await source.queryFeatureCount(QueryParameters())
            let rolledBack = try await source.applyEdits(ApplyEditsRequest(adds: three), options: editing)
            #expect(rolledBack.addResults.map(\.error?.kind) == [.rolledBack, .refusedByStore, .rolledBack])
            #expect(try await source.queryFeatureCount(QueryParameters()) == before)
            let partial = try await source.applyEdits(ApplyEditsRequest(adds: three, rollbackOnFailure: false), options: editing)
            #expect(partial.addResults.map(\.success) == [true, false, true])
            #expect(partial.addResults[1].error?.kind == .refusedByStore)
            #expect(partial.addResults[0].objectID > 3020 && partial.addResults[2].objectID > partial.addResults[0].objectID)
            #expect(try await source.queryFeatureCount(QueryParameters()) == before + 2)
        }
    }

    @Test("values are written in each column's own type: an enum, a uuid, a boolean, numeric, varchar(n), date, timestamp, a MULTIPOLYGON column")
    func columnTypes() async throws {
        let options = try Self.options("edit_typed")
        try await Self.sql(options, [
            "DROP TABLE IF EXISTS edit_typed", "DROP TYPE IF EXISTS edit_kind", "CREATE TYPE edit_kind AS ENUM ('road', 'track')",
            "CREATE TABLE edit_typed (gid serial PRIMARY KEY, kind edit_kind, ref uuid, flag boolean, amount numeric, code varchar(5), day date, at timestamp, geom geometry(MultiPolygon, 4326))",
        ])
        try await PostGISFeatureSource.using(options) { source in
            let polygon = try Geometry(wkt: "POLYGON ((0 0, 2 0, 2 2, 0 0))")
            let added = try await source.applyEdits(ApplyEditsRequest(adds: [
                FeatureEdit(
                    attributes: [
                        "kind": .string("track"), "ref": .string("{8C4B6F7E-1A2B-4C3D-9E8F-0123456789AB}"), "flag": .integer(1),
                        "amount": .double(2.5), "code": .string("abcde"), "day": .date(86_400_000 * 10), "at": .date(1_234_567),
                    ], geometry: polygon)
            ]))
            #expect(added.allSucceeded, "\(added)")
            let id = try #require(added.addResults.first?.objectID)
            var table = try await source.readTable()
            #expect(table.value(row: 0, field: "kind") == .string("track"))
            // A uuid reads as Esri writes a GUID, in where clauses too.
            #expect(table.value(row: 0, field: "ref") == .string("{8C4B6F7E-1A2B-4C3D-9E8F-0123456789AB}"))
            #expect(table.schema.field(named: "ref")?.type == .guid && table.schema.globalIdFieldName == nil)
            #expect(try await source.queryObjectIDs(QueryParameters(whereClause: "ref LIKE '{8C4B6F7E-%'")) == [id])
            #expect(table.value(row: 0, field: "flag") == .integer(1))
            #expect(table.value(row: 0, field: "amount") == .double(2.5))
            #expect(table.value(row: 0, field: "day") == .date(86_400_000 * 10))
            #expect(table.value(row: 0, field: "at") == .date(1_234_567))
            // The column holds multipolygons: the polygon was made one, of one part.
            #expect(table.geometry(row: 0) == polygon)

            // A value outside the enum, too long for varchar(5), 2 for a boolean: each refused.
            let refused = try await source.applyEdits(
                ApplyEditsRequest(
                    updates: [
                        FeatureEdit(objectID: id, attributes: ["kind": .string("lane")]), FeatureEdit(objectID: id, attributes: ["code": .string("abcdef")]),
                    ], rollbackOnFailure: false))
            #expect(refused.updateResults[0].error?.kind == .outsideDomain)
            #expect(refused.updateResults[1].error?.kind == .repeatedObjectID)
            let tooLong = try await source.applyEdits(ApplyEditsRequest(updates: [FeatureEdit(objectID: id, attributes: ["code": .string("abcdef")])]))
            #expect(tooLong.updateResults[0].error?.kind == .tooLong)
            let boolean = try await source.applyEdits(ApplyEditsRequest(updates: [FeatureEdit(objectID: id, attributes: ["flag": .integer(2)])]))
            #expect(boolean.updateResults[0].error?.kind == .outOfRange)
            let cleared = try await source.applyEdits(
                ApplyEditsRequest(updates: [FeatureEdit(objectID: id, attributes: ["flag": .integer(0), "kind": .null, "day": .null])]))
            #expect(cleared.allSucceeded)
            table = try await source.readTable()
            #expect(table.value(row: 0, field: "flag") == .integer(0))
            #expect(table.value(row: 0, field: "kind") == .null && table.value(row: 0, field: "day") == .null)
            #expect(table.value(row: 0, field: "code") == .string("abcde"))
        }
    }

    @Test("the global-ID field: the uuid column named globalid, or the one the URL names; adds fill it and answer it")
    func globalIDColumns() async throws {
        var options = try Self.options("edit_global")
        try await Self.sql(options, [
            "DROP TABLE IF EXISTS edit_global",
            "CREATE TABLE edit_global (gid serial PRIMARY KEY, name text, GlobalID uuid, other uuid, geom geometry(Point, 4326))",
            "INSERT INTO edit_global (name, globalid, other) VALUES ('old', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', NULL)",
        ])
        // Unquoted, the column is named globalid: found by its name in any case.
        try await PostGISFeatureSource.using(options) { source in
            #expect(source.schema.globalIdFieldName == "globalid")
            #expect(source.schema.field(named: "globalid")?.type == .globalID && source.schema.field(named: "other")?.type == .guid)
            #expect(try await source.readTable().value(row: 0, field: "globalid") == .string("{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}"))
            let editing = GlobalIDs().options(EditingOptions())
            let added = try await source.applyEdits(
                ApplyEditsRequest(adds: [FeatureEdit(attributes: ["name": .string("new")], geometry: Self.point)]), options: editing)
            #expect(added.addResults.map(\.globalID) == ["{00000000-0000-4000-8000-000000000001}"])
            let id = try #require(added.addResults.first?.objectID)
            #expect(try await source.queryObjectIDs(QueryParameters(whereClause: "globalid = '{00000000-0000-4000-8000-000000000001}'")) == [id])
            // Clients do not set a global ID; a delete answers the feature's.
            let refused = try await source.applyEdits(
                ApplyEditsRequest(updates: [FeatureEdit(objectID: id, attributes: ["globalid": .string("{00000000-0000-4000-8000-000000000009}")])]))
            #expect(refused.updateResults.first?.error != nil)
            let deleted = try await source.applyEdits(ApplyEditsRequest(deletes: [1]), options: editing)
            #expect(deleted.deleteResults.map(\.globalID) == ["{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}"])
        }
        // Another uuid column named in the URL; a column that is not a uuid, or none, refused.
        options.globalIdColumn = "other"
        try await PostGISFeatureSource.using(options) { source in
            #expect(source.schema.globalIdFieldName == "other" && source.schema.field(named: "globalid")?.type == .guid)
        }
        for (column, kind) in [("name", PostGISError.Kind.unsupported), ("missing", .notFound)] {
            options.globalIdColumn = column
            await #expect { try await PostGISFeatureSource.using(options) { _ in } } throws: { ($0 as? PostGISError)?.kind == kind }
        }
    }

    @Test("two sources editing one table at once: batches on the same features in opposite orders serialize, none is lost or half applied")
    func concurrentBatches() async throws {
        let (options, _) = try await Self.makeTable("edit_concurrent")
        let first = try await PostGISFeatureSource.open(options)
        let second = try await PostGISFeatureSource.open(options)
        let rounds = 25
        // Each batch renames features 1…10 (one in ascending order, the other descending) and
        // adds one feature.
        func run(_ source: PostGISFeatureSource, label: String, ids: [Int64]) async throws -> [ApplyEditsResult] {
            var results: [ApplyEditsResult] = []
            for round in 0..<rounds {
                let request = ApplyEditsRequest(
                    adds: [FeatureEdit(attributes: ["name": .string("\(label) add \(round)")], geometry: Self.point)],
                    updates: ids.map { FeatureEdit(objectID: $0, attributes: ["name": .string("\(label) \(round)")]) })
                results.append(try await source.applyEdits(request))
            }
            return results
        }
        async let a = run(first, label: "a", ids: Array(1...10))
        async let b = run(second, label: "b", ids: Array((1...10).reversed()))
        let (resultsA, resultsB) = try await (a, b)
        #expect(resultsA.allSatisfy(\.allSucceeded) && resultsB.allSatisfy(\.allSucceeded))
        let table = try await first.readTable()
        #expect(table.count == 20 + 2 * rounds)
        // The last batch renamed all ten: one writer's last round, on every one of them.
        let names = Set((0..<table.count).filter { table.objectID(row: $0) <= 10 }.map { table.value(row: $0, field: "name") })
        #expect(names.count == 1 && (names == [.string("a \(rounds - 1)")] || names == [.string("b \(rounds - 1)")]), "\(names)")
        // Every add got its own object ID.
        let added = (resultsA + resultsB).flatMap(\.addResults).map(\.objectID)
        #expect(Set(added).count == 2 * rounds && added.allSatisfy { $0 > 20 })

        // An update and a delete of one feature at once: the delete wins or comes second.
        async let update = first.applyEdits(ApplyEditsRequest(updates: [FeatureEdit(objectID: 15, attributes: ["n": .integer(1)])]))
        async let delete = second.applyEdits(ApplyEditsRequest(deletes: [15]))
        let (updated, deleted) = try await (update, delete)
        #expect(deleted.allSucceeded)
        #expect(updated.allSucceeded || updated.updateResults[0].error?.code == 1019)
        #expect(try await first.queryFeatureCount(QueryParameters(objectIDs: [15])) == 0)
        await first.close()
        await second.close()
    }
}
#endif
