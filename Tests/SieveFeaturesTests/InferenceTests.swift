import SieveColumns
import SieveFeatures
import SieveEditing
import SieveFormats
import Testing

@Suite("GeoJSON schema inference")
struct InferenceTests {
    /// One property `v` per feature, with the given JSON values; the expected field type.
    static let cases: [(values: [String], type: FieldType)] = [
        (["1", "2", "-3"], .integer),
        (["1", "3000000000"], .bigInteger),
        (["1", "2.5"], .double),
        (["889953.0", "5"], .double),
        (["1e3"], .double),
        (["123456789012345678901"], .double),
        (["true", "false"], .smallInteger),
        (["\"2024-03-01\"", "\"2024-03-01T12:30:00Z\""], .date),
        (["\"1888\"", "\"1999\""], .string),
        (["\"2005-06\""], .string),
        (["\"2024-03-01\"", "\"soon\""], .string),
        (["\"2024-02-30\""], .string),
        (["null", "null"], .string),
        (["1", "\"a\""], .string),
        (["1", "true"], .string),
        (["{\"x\":1}", "[1,2]"], .string),
        (["null", "7"], .integer),
    ]

    @Test(arguments: cases)
    func inferredType(values: [String], type: FieldType) throws {
        let text = featureCollection(values.map { #"{"v":"# + $0 + "}" })
        let table = try FeatureTable.load(geoJSON: text)
        #expect(table.schema.field(named: "v")?.type == type)
        #expect(table.count == values.count)
    }

    @Test func wholeDoublesStayDoubles() throws {
        let table = try FeatureTable.load(geoJSON: featureCollection([#"{"pop":889953.0}"#, #"{"pop":12}"#]))
        #expect(table.value(row: 0, field: "pop") == .double(889_953))
        #expect(table.value(row: 1, field: "pop") == .double(12))
        guard case .double? = table.column(named: "pop") else {
            Issue.record("pop is not a double column")
            return
        }
    }

    @Test func isoDatesBecomeEpochMilliseconds() throws {
        let text = featureCollection([
            #"{"d":"2024-03-01"}"#, #"{"d":"2024-03-01T12:30:00Z"}"#, #"{"d":"2024-03-01T00:00:00+01:00"}"#,
            #"{"d":"1969-12-31T23:59:59.5Z"}"#, #"{"d":null}"#,
        ])
        let table = try FeatureTable.load(geoJSON: text)
        #expect(table.schema.field(named: "d")?.type == .date)
        #expect(table.value(row: 0, field: "d") == .date(1_709_251_200_000))
        #expect(table.value(row: 1, field: "d") == .date(1_709_296_200_000))
        #expect(table.value(row: 2, field: "d") == .date(1_709_247_600_000))
        #expect(table.value(row: 3, field: "d") == .date(-500))
        #expect(table.value(row: 4, field: "d") == .null)
    }

    @Test func booleansAreZeroAndOne() throws {
        let table = try FeatureTable.load(geoJSON: featureCollection([#"{"b":true}"#, #"{"b":false}"#, #"{"b":null}"#]))
        #expect(table.schema.field(named: "b")?.type == .smallInteger)
        #expect(table.value(row: 0, field: "b") == .integer(1))
        #expect(table.value(row: 1, field: "b") == .integer(0))
        #expect(table.value(row: 2, field: "b") == .null)
    }

    @Test func mixedValuesAreText() throws {
        let text = featureCollection([
            #"{"m":1}"#, #"{"m":"a"}"#, #"{"m":true}"#, #"{"m":{"x":[1,2.5]}}"#, #"{"m":2.5}"#, #"{"m":null}"#,
        ])
        let table = try FeatureTable.load(geoJSON: text)
        #expect(table.schema.field(named: "m")?.type == .string)
        let values = (0..<table.count).map { table.value(row: $0, field: "m") }
        #expect(values == [.string("1"), .string("a"), .string("true"), .string(#"{"x":[1,2.5]}"#), .string("2.5"), .null])
    }

    @Test func allNullIsString() throws {
        let table = try FeatureTable.load(geoJSON: featureCollection([#"{"n":null}"#, #"{}"#]))
        #expect(table.schema.field(named: "n")?.type == .string)
        #expect(table.value(row: 0, field: "n") == .null)
        #expect(table.column(named: "n")?.validity?.nullCount == 2)
    }

    @Test func fieldOrderIsFirstAppearanceAndMissingIsNull() throws {
        let text = featureCollection([#"{"b":1,"a":"x"}"#, #"{"c":2.5,"a":"y"}"#, "null"])
        let table = try FeatureTable.load(geoJSON: text)
        #expect(table.schema.fieldNames == ["OBJECTID", "b", "a", "c"])
        #expect(table.value(row: 1, field: "b") == .null)
        #expect(table.value(row: 0, field: "c") == .null)
        #expect(table.value(row: 1, field: "c") == .double(2.5))
        #expect(table.value(row: 2, field: "a") == .null)
        #expect(table.column(named: "b")?.isNull(0) == false)
        #expect(table.column(named: "b")?.isNull(2) == true)
    }

    @Test func namesDifferingOnlyInCaseAreKeptApart() throws {
        let table = try FeatureTable.load(geoJSON: featureCollection([#"{"Name":"a","name":"b"}"#]))
        #expect(table.schema.fieldNames == ["OBJECTID", "Name", "name_1"])
        #expect(table.value(row: 0, field: "Name") == .string("a"))
        #expect(table.value(row: 0, field: "name_1") == .string("b"))
    }
}
