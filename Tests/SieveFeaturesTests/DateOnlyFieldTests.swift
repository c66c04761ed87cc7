import Foundation
import SieveCQL
import SieveColumns
import SieveGeometry
import SieveSQL
import Testing

@testable import SieveFeatures
@testable import SieveEditing
@testable import SieveArcGISREST
@testable import SieveFormats

/// Date-only fields (`esriFieldTypeDateOnly`): days stored as their midnight UTC, written as
/// `yyyy-mm-dd`, compared as that instant by where clauses and as the whole day by CQL2's
/// temporal functions.
@Suite("Date-only fields")
struct DateOnlyFieldTests {
    /// 2022-04-16 at midnight UTC: 19,098 days after 1970-01-01.
    static let april16: Int64 = 19_098 * 86_400_000

    /// Two points: `DAY` is a day, `AT` an instant (midnight on the first, 10:13:19 on the second).
    static func table() throws -> FeatureTable {
        let text = """
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{"OBJECTID":1,"DAY":"2022-04-16","AT":"2022-04-16T00:00:00Z"},"geometry":{"type":"Point","coordinates":[1,1]}},
            {"type":"Feature","properties":{"OBJECTID":2,"DAY":"2022-04-17","AT":"2022-04-16T10:13:19Z"},"geometry":{"type":"Point","coordinates":[2,2]}},
            {"type":"Feature","properties":{"OBJECTID":3,"DAY":null,"AT":null},"geometry":{"type":"Point","coordinates":[3,3]}}
            ]}
            """
        return try FeatureTable.load(
            geoJSON: text,
            schema: [Field(name: "OBJECTID", type: .oid), Field(name: "DAY", type: .dateOnly), Field(name: "AT", type: .date)])
    }

    @Test func theTypeHasItsEsriName() {
        #expect(FieldType(esriName: "esriFieldTypeDateOnly") == .dateOnly)
        #expect(FieldType.dateOnly.name == "DateOnly")
        #expect(FieldType.dateOnly.columnType == .date)
    }

    @Test func daysAreStoredAsTheirMidnight() throws {
        let table = try Self.table()
        #expect(table.value(row: 0, field: "DAY") == .date(Self.april16))
        #expect(table.value(row: 1, field: "DAY") == .date(Self.april16 + 86_400_000))
        #expect(table.value(row: 2, field: "DAY") == .null)
        // Epoch milliseconds at midnight are days too (as Esri JSON may send them).
        let esri = """
            {"fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"DAY","type":"esriFieldTypeDateOnly"}],
             "features":[{"attributes":{"OBJECTID":1,"DAY":"2022-04-16"}},{"attributes":{"OBJECTID":2,"DAY":\(Self.april16)}}]}
            """
        let loaded = try FeatureTable.load(esriJSON: esri, schema: try Field.fields(esriJSON: esri))
        #expect(loaded.schema.fields.map(\.type) == [.oid, .dateOnly])
        #expect(loaded.value(row: 0, field: "DAY") == .date(Self.april16))
        #expect(loaded.value(row: 1, field: "DAY") == .date(Self.april16))
    }

    @Test func aTimeOfDayIsNotADay() {
        let text = """
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{"DAY":"2022-04-16T10:13:19Z"},"geometry":null}]}
            """
        #expect {
            try FeatureTable.load(geoJSON: text, schema: [Field(name: "DAY", type: .dateOnly)])
        } throws: { error in
            guard let error = error as? FeatureTableError else { return false }
            return error.kind == .conversionFailed && error.message.contains("time of day") && error.fieldName == "DAY"
        }
    }

    @Test func everyFormatWritesTheDay() throws {
        let result = try Self.table().queryFeatures(QueryParameters(objectIDs: [1]))
        // ArcGIS writes date-only values as text, even in Esri JSON where dates are numbers.
        let esri = result.text(.esriJSON)
        #expect(esri.contains(#""DAY":"2022-04-16""#))
        #expect(esri.contains(#""AT":\#(Self.april16)"#))
        #expect(esri.contains(#""type":"esriFieldTypeDateOnly""#))
        let geoJSON = result.text(.geoJSON)
        #expect(geoJSON.contains(#""DAY":"2022-04-16""#))
        #expect(geoJSON.contains(#""AT":"2022-04-16T00:00:00.000Z""#))
        let csv = result.text(.csv)
        #expect(csv.contains("2022-04-16,2022-04-16T00:00:00.000Z"))
        // And each reads back as the same day.
        let reloaded = try FeatureTable.load(esriJSON: esri, schema: try Field.fields(esriJSON: esri))
        #expect(reloaded.schema.fields.first { $0.name == "DAY" }?.type == .dateOnly)
        #expect(reloaded.value(row: 0, field: "DAY") == .date(Self.april16))
    }

    @Test func whereClausesCompareTheMidnight() throws {
        let table = try Self.table()
        #expect(try table.queryObjectIDs(QueryParameters(whereClause: "DAY = DATE '2022-04-16'")) == [1])
        #expect(try table.queryObjectIDs(QueryParameters(whereClause: "DAY > DATE '2022-04-16'")) == [2])
        #expect(try table.queryObjectIDs(QueryParameters(whereClause: "DAY = AT")) == [1])
    }

    /// The temporal functions take a day field as its whole day and an instant field as an
    /// instant; comparisons take both as instants. Each expected set follows from the
    /// definitions: DAY of feature 1 is [04-16 00:00, 04-16 23:59:59.999], of feature 2 the
    /// next day; AT is 04-16 00:00 and 04-16 10:13:19.
    @Test(arguments: [
        ("T_EQUALS(DAY, DATE('2022-04-16'))", [Int64(1)]),
        ("T_EQUALS(AT, DATE('2022-04-16'))", []),  // an instant is not a day
        ("T_INTERSECTS(AT, DATE('2022-04-16'))", [1, 2]),
        ("T_INTERSECTS(DAY, TIMESTAMP('2022-04-16T23:59:59Z'))", [1]),
        ("T_DURING(AT, DAY)", []),  // 04-16 00:00 starts day 1 (not during it); 04-16 10:13:19 is before day 2
        ("T_DURING(INTERVAL('2022-04-16T10:13:19Z', '2022-04-16T10:13:19Z'), DAY)", [1]),  // an instant, as an interval
        ("T_STARTS(AT, DAY)", [1]),  // an instant at the day's first millisecond starts it
        ("T_CONTAINS(DAY, INTERVAL('2022-04-16T00:00:01Z', '2022-04-16T23:59:59Z'))", [1]),
        ("T_MEETS(DAY, INTERVAL('2022-04-16T23:59:59.999Z', '2022-04-18T00:00:00Z'))", [1]),
        ("T_FINISHES(INTERVAL('2022-04-16T12:00:00Z', DAY), DAY)", [1]),
        ("T_AFTER(DAY, TIMESTAMP('2022-04-16T23:59:59.999Z'))", [2]),
        ("T_BEFORE(DAY, TIMESTAMP('2022-04-17T00:00:00Z'))", [1]),
        ("T_BEFORE(DAY, INTERVAL('2022-04-16T23:59:59.999Z', '..'))", []),
        ("T_DISJOINT(DAY, AT)", [2]),
        ("T_EQUALS(INTERVAL(DAY, DAY), DATE('2022-04-17'))", [2]),
        // A day against itself: its end is never its start, and never before it.
        ("T_EQUALS(INTERVAL(DAY, DAY), DAY)", [1, 2]),
        ("T_MEETS(DAY, DAY)", []),
        ("T_BEFORE(DAY, DAY)", []),
        ("T_INTERSECTS(DAY, DAY)", [1, 2]),
        ("T_DISJOINT(DAY, DAY)", []),
        ("DAY = DATE('2022-04-16')", [1]),
        ("DAY = AT", [1]),
    ])
    func cql2TakesADayAsTheWholeDay(filter: String, expected: [Int64]) throws {
        let table = try Self.table()
        let rows = try FeatureFilter(try CQL2Filter(filter), table: table).matchingRows(in: table)
        #expect(rows.map { table.objectIDs[Int($0)] }.sorted() == expected, "\(filter)")
    }

    /// Through PostgreSQL the ends of days compare without date arithmetic, against literals and
    /// against other days; against an instant field the end is computed, which the renderer
    /// refuses (as it refuses all date arithmetic).
    @Test func dayEndsRenderAsPlainComparisons() throws {
        let table = try Self.table()
        func rendered(_ filter: String) throws -> String {
            let lowered = try CQL2Filter(filter).lowered(
                geometryPropertyNames: [], dateOnlyPropertyNames: table.schema.dateOnlyFieldNames)
            var parameters = PostgreSQLParameters()
            return try lowered.compile(schema: table.schema).postgreSQL(columns: ["\"OBJECTID\"", "\"DAY\"", "\"AT\""], parameters: &parameters)
        }
        for filter in [
            "T_EQUALS(DAY, DATE('2022-04-16'))", "T_BEFORE(DAY, TIMESTAMP('2022-04-17T00:00:00Z'))",
            "T_EQUALS(INTERVAL(DAY, DAY), DAY)", "T_MEETS(DAY, DAY)", "T_INTERSECTS(DAY, INTERVAL('..', '2022-04-16'))",
        ] {
            let sql = try rendered(filter)
            #expect(!sql.contains("interval") && sql.contains("\"DAY\""), "\(filter): \(sql)")
        }
        #expect(throws: PostgreSQLRenderingError.self) { try rendered("T_BEFORE(DAY, AT)") }
    }

    @Test func editsSentToAServiceWriteTheDay() throws {
        var request = ApplyEditsRequest(adds: [FeatureEdit(attributes: ["DAY": .date(Self.april16), "AT": .date(Self.april16)])])
        #expect(request.json.contains(#""DAY":\#(Self.april16)"#))
        request.dateOnlyFieldNames = ["day"]
        #expect(request.json.contains(#""AT":\#(Self.april16),"DAY":"2022-04-16""#))
        let back = try ApplyEditsRequest(json: request.json, schema: try Self.table().schema)
        #expect(back.adds.first?.attributes["DAY"] == .date(Self.april16))
    }

    @Test func editsTakeDaysOnly() throws {
        let schema = try Schema(
            fields: [Field(name: "OBJECTID", type: .oid), Field(name: "DAY", type: .dateOnly)], objectIdFieldName: "OBJECTID",
            geometryType: .point)
        let editable = try EditableFeatureTable(emptyTable(schema), options: fixedOptions())
        let point = Geometry.point(Point(x: 1, y: 1))
        #expect(editable.addFeatures([FeatureEdit(attributes: ["DAY": .date(Self.april16)], geometry: point)])[0].success)
        let error = editable.addFeatures([FeatureEdit(attributes: ["DAY": .date(Self.april16 + 1000)], geometry: point)])[0].error
        #expect(error?.message.contains("DateOnly field holds days") == true)
        #expect(editable.snapshot.featureCount == 1)
        // A date-only tracking field takes the day of the edit: 1,700,000,000,000 ms is
        // 2023-11-14T22:13:20Z, in day 19,675 after 1970-01-01.
        let tracked = try EditableFeatureTable(
            emptyTable(schema), options: fixedOptions(tracking: EditorTracking(creationDateField: "DAY")))
        #expect(tracked.addFeatures([FeatureEdit(attributes: [:], geometry: point)])[0].success)
        #expect(tracked.snapshot.value(row: 0, field: "DAY") == .date(19_675 * 86_400_000))
    }
}
