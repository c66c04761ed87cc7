import Foundation
import SieveColumns
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveTestSupport
import Testing

/// What the loaders refuse: truncated and padded text, repeated names, features that are not
/// features, and values that have no faithful stored form.
@Suite("Strict loading")
struct StrictLoadingTests {
    /// A small FeatureCollection using every kind of JSON value, with no trailing white space.
    static let collection = #"{"type":"FeatureCollection","features":[{"type":"Feature","id":1,"geometry":{"type":"Point","coordinates":[-73.98,40.75]},"properties":{"name":"a\"é","v":1.5,"n":-2,"b":true,"d":"2024-01-01","x":null,"o":{"k":[1]}}},{"type":"Feature","id":2,"geometry":null,"properties":{"name":"b","v":-2e-3,"n":7,"b":false,"d":null,"x":null,"o":null}}]}"#

    /// An Esri JSON FeatureSet with dates, a declared geometry type and a spatial reference.
    static let featureSet = #"{"objectIdFieldName":"OID","geometryType":"esriGeometryPoint","spatialReference":{"wkid":4326},"fields":[{"name":"OID","type":"esriFieldTypeOID"},{"name":"when","type":"esriFieldTypeDate"},{"name":"s","type":"esriFieldTypeString"}],"features":[{"attributes":{"OID":1,"when":-9223372036854775808,"s":"x"},"geometry":{"x":-1.5,"y":2}},{"attributes":{"OID":2,"when":null,"s":null},"geometry":null}]}"#

    /// A single GeoJSON Feature (not a FeatureCollection).
    static let feature = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"a":1}}"#

    /// Every proper prefix of `text`, loaded from bytes, is an error of kind `invalidJSON`.
    func expectEveryPrefixFails(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let bytes = Array(text.utf8)
        for end in 0..<bytes.count {
            let error = featureTableError { _ = try FeatureTable.load(json: bytes[..<end]) }
            #expect(error?.kind == .invalidJSON, "prefix of \(end) bytes: \(String(describing: error))", sourceLocation: sourceLocation)
        }
    }

    @Test func everyPrefixOfAFeatureCollectionIsAnError() throws {
        let table = try FeatureTable.load(json: Array(Self.collection.utf8))
        #expect(table.count == 2)
        expectEveryPrefixFails(Self.collection)
        // The case of the report: the final "}" missing.
        let cut = String(Self.collection.dropLast())
        let error = featureTableError { _ = try FeatureTable.load(geoJSON: cut) }
        #expect(error?.kind == .invalidJSON)
        #expect(error?.position == cut.count + 1)
        // One past the last byte: the end of the input, on the last line.
        #expect(error?.byteOffset == cut.utf8.count)
        #expect(error?.line == cut.split(separator: "\n", omittingEmptySubsequences: false).count)
        #expect(
            error?.description
                == "invalid JSON at line \(error?.line ?? 0), column \(error?.column ?? 0) (byte offset \(cut.utf8.count)): unexpected end of input")
    }

    @Test func everyPrefixOfAnEsriFeatureSetIsAnError() throws {
        let table = try FeatureTable.load(json: Array(Self.featureSet.utf8))
        #expect(table.value(row: 0, field: "when") == .date(Int64.min))
        expectEveryPrefixFails(Self.featureSet)
        let error = featureTableError { _ = try FeatureTable.load(esriJSON: String(Self.featureSet.dropLast())) }
        #expect(error?.kind == .invalidJSON)
    }

    @Test func aSingleFeatureIsAOneRowTable() throws {
        expectEveryPrefixFails(Self.feature)
        let table = try FeatureTable.load(json: Array(Self.feature.utf8))
        #expect(table.count == 1)
        let geometry = featureTableError { _ = try FeatureTable.load(json: Array(#"{"type":"Point","coordinates":[1,2]}"#.utf8)) }
        #expect(geometry?.kind == .invalidGeoJSON)
        #expect(geometry?.message == #"expected "type": "FeatureCollection" or "Feature", found "Point""#)
        let number = featureTableError { _ = try FeatureTable.load(geoJSON: #"{"type":7,"features":[]}"#) }
        #expect(number?.message == #"expected "type": "FeatureCollection", found a number"#)
    }

    @Test func trailingContentIsAnError() {
        for suffix in ["}", "x", " {}", ",", "\u{0}", "[]"] {
            let error = featureTableError { _ = try FeatureTable.load(json: Array((Self.collection + suffix).utf8)) }
            #expect(error?.kind == .invalidJSON, "suffix \(suffix)")
            #expect(error?.message.hasSuffix("after the JSON value") == true)
            let esri = featureTableError { _ = try FeatureTable.load(esriJSON: Self.featureSet + suffix) }
            #expect(esri?.kind == .invalidJSON)
        }
        // White space is fine.
        #expect((try? FeatureTable.load(json: Array((Self.collection + " \n").utf8)))?.count == 2)
    }

    @Test func repeatedNamesAreErrors() {
        // At the root, in a feature and in the properties: the second name's position.
        let root = #"{"type":"FeatureCollection","features":[],"features":[]}"#
        let rootError = featureTableError { _ = try FeatureTable.load(geoJSON: root) }
        #expect(rootError?.kind == .invalidJSON)
        #expect(rootError?.position == 43)
        #expect(rootError?.message == #"duplicate key "features" in an object (member names must be unique)"#)
        let inFeature = featureCollection([#"{"a":1}"#]).replacingOccurrences(
            of: #""type":"Feature""#, with: #""type":"Feature","type":"Feature""#)
        #expect(featureTableError { _ = try FeatureTable.load(geoJSON: inFeature) }?.kind == .invalidJSON)
        let inProperties = featureTableError { _ = try FeatureTable.load(geoJSON: featureCollection([#"{"a":1,"b":2,"a":"x"}"#])) }
        #expect(inProperties?.kind == .invalidJSON)
        #expect(inProperties?.message == #"duplicate key "a" in an object (member names must be unique)"#)
        let esri = #"{"features":[{"attributes":{"OBJECTID":1,"OBJECTID":2}}]}"#
        #expect(featureTableError { _ = try FeatureTable.load(esriJSON: esri) }?.kind == .invalidJSON)
    }

    @Test func propertyNamesAreToldApartByteForByte() throws {
        // "é" precomposed and decomposed are two properties, each keeping its own values.
        let nfc = "\u{E9}", nfd = "e\u{301}"
        let text = featureCollection([
            "{\"\(nfc)\":1,\"\(nfd)\":\"x\"}", "{\"\(nfd)\":\"y\"}", "{\"\(nfc)\":3}",
        ])
        let table = try FeatureTable.load(geoJSON: text)
        let names = table.schema.fieldNames
        #expect(names.count == 3)
        #expect(Array(names[1].utf8) == Array(nfc.utf8))
        // The second name is made unique (names are compared ignoring case and canonical
        // differences for lookup), its bytes otherwise kept.
        #expect(Array(names[2].utf8) == Array((nfd + "_1").utf8))
        #expect(table.value(row: 0, fieldIndex: 1) == .integer(1))
        #expect(table.value(row: 0, fieldIndex: 2) == .string("x"))
        #expect(table.value(row: 1, fieldIndex: 1) == .null)
        #expect(table.value(row: 1, fieldIndex: 2) == .string("y"))
        #expect(table.value(row: 2, fieldIndex: 1) == .integer(3))
        #expect(table.value(row: 2, fieldIndex: 2) == .null)
    }

    @Test func twoPropertiesForOneFieldAreAnError() throws {
        // With explicit fields names match ignoring case: "NAME" and "name" both name field "name".
        let fields = [Field(name: "name", type: .string)]
        let error = featureTableError {
            _ = try FeatureTable.load(geoJSON: featureCollection([#"{"name":"a"}"#, #"{"NAME":"b","name":"c"}"#]), schema: fields)
        }
        #expect(error?.kind == .conversionFailed)
        #expect(error?.featureIndex == 1)
        #expect(error?.fieldName == "name")
        #expect(error?.message.hasPrefix(#"the member "name" names a field another member"#) == true)
        // Each alone is fine.
        let table = try FeatureTable.load(geoJSON: featureCollection([#"{"name":"a"}"#, #"{"NAME":"b"}"#]), schema: fields)
        #expect(table.value(row: 1, field: "name") == .string("b"))
    }

    @Test func featuresMustSayTheyAreFeatures() {
        let missing = #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{}},{"properties":{"a":1},"geometry":null}]}"#
        let error = featureTableError { _ = try FeatureTable.load(geoJSON: missing) }
        #expect(error?.kind == .invalidGeoJSON)
        #expect(error?.featureIndex == 1)
        #expect(error?.message == #"the feature has no "type": "Feature" member"#)
        let wrong = #"{"type":"FeatureCollection","features":[{"type":"FeatureCollection","features":[]}]}"#
        #expect(featureTableError { _ = try FeatureTable.load(geoJSON: wrong) }?.kind == .invalidGeoJSON)
        let notArray = #"{"type":"FeatureCollection","features":{"type":"Feature"}}"#
        let notArrayError = featureTableError { _ = try FeatureTable.load(geoJSON: notArray) }
        #expect(notArrayError?.message == #""features" must be an array, not an object"#)
        // A FeatureCollection without its "type" reads as Esri JSON, whose features have
        // "attributes": the error says what is missing.
        let untyped = #"{"features":[{"type":"Feature","properties":{"a":1},"geometry":null}]}"#
        let untypedError = featureTableError { _ = try FeatureTable.load(json: Array(untyped.utf8)) }
        #expect(untypedError?.kind == .invalidEsriJSON)
        #expect(untypedError?.featureIndex == 0)
        #expect(untypedError?.message.hasSuffix(#"a GeoJSON FeatureCollection needs "type": "FeatureCollection" at its root"#) == true)
        // A feature without geometry or properties members: both read as null.
        let bare = #"{"type":"FeatureCollection","features":[{"type":"Feature"}]}"#
        #expect((try? FeatureTable.load(geoJSON: bare))?.count == 1)
    }

    // MARK: Numbers

    @Test func numbersBeyondDoublesAreErrorsInEveryFieldType() throws {
        // Inferred: a Double field.
        let inferred = featureTableError { _ = try FeatureTable.load(geoJSON: featureCollection([#"{"v":1.5}"#, #"{"v":1e400}"#])) }
        #expect(inferred?.kind == .conversionFailed)
        #expect(inferred?.featureIndex == 1)
        #expect(inferred?.fieldName == "v")
        #expect(inferred?.message == "cannot convert a number beyond the range of doubles (±1.8e308) to Double")
        // Mixed kinds make a String field: the number has no text that reads back to it.
        let text = featureTableError { _ = try FeatureTable.load(geoJSON: featureCollection([#"{"v":"a"}"#, #"{"v":-1e400}"#])) }
        #expect(text?.kind == .conversionFailed)
        #expect(text?.message == "a number beyond the range of doubles (±1.8e308) cannot be stored (numbers must be finite doubles)")
        let nested = featureTableError { _ = try FeatureTable.load(geoJSON: featureCollection([#"{"v":[1,{"w":1e999}]}"#])) }
        #expect(nested?.kind == .conversionFailed)
        // An integer literal of 400 digits is beyond doubles too.
        let digits = "1" + String(repeating: "0", count: 400)
        let huge = featureTableError { _ = try FeatureTable.load(geoJSON: featureCollection(["{\"v\":\(digits)}"])) }
        #expect(huge?.kind == .conversionFailed)
        // Explicit Integer, Date and String fields.
        for type in [FieldType.integer, .bigInteger, .date, .string, .double] {
            let error = featureTableError {
                _ = try FeatureTable.load(geoJSON: featureCollection([#"{"v":1e400}"#]), schema: [Field(name: "v", type: type)])
            }
            #expect(error?.kind == .conversionFailed, "\(type)")
        }
    }

    @Test func integersBeyondSixtyFourBits() throws {
        // Inferred: a Double field, the value rounded to the nearest double.
        let table = try FeatureTable.load(geoJSON: featureCollection([#"{"v":9223372036854775808}"#, #"{"v":-9223372036854775809}"#]))
        #expect(table.schema.field(named: "v")?.type == .double)
        #expect(table.value(row: 0, field: "v") == .double(9_223_372_036_854_775_808))
        #expect(table.value(row: 1, field: "v") == .double(-9_223_372_036_854_775_808))
        // An explicit BigInteger field takes Int64.min and Int64.max, and nothing beyond.
        let big = [Field(name: "v", type: .bigInteger)]
        let bounds = try FeatureTable.load(
            geoJSON: featureCollection([#"{"v":9223372036854775807}"#, #"{"v":-9223372036854775808}"#, #"{"v":-9.223372036854775808e18}"#]),
            schema: big)
        #expect(bounds.value(row: 0, field: "v") == .integer(Int64.max))
        #expect(bounds.value(row: 1, field: "v") == .integer(Int64.min))
        #expect(bounds.value(row: 2, field: "v") == .integer(Int64.min))
        for value in ["9223372036854775808", "9.223372036854775808e18", "1e19", "-1e19", "\"9223372036854775808\"", "1e300"] {
            let error = featureTableError { _ = try FeatureTable.load(geoJSON: featureCollection(["{\"v\":\(value)}"]), schema: big) }
            #expect(error?.kind == .conversionFailed, "\(value)")
        }
    }

    // MARK: Object IDs

    @Test func objectIDsAreAnySixtyFourBitIntegers() throws {
        let ids = ["0", "-1", "-9223372036854775808", "9223372036854775807", "4294967296"]
        let table = try FeatureTable.load(geoJSON: featureCollection(ids.map { #"{"OBJECTID":"# + $0 + "}" }))
        #expect(table.schema.objectIdFieldName == "OBJECTID")
        #expect(table.schema.objectIdField.type == .oid)
        #expect(table.objectIDs == [0, -1, Int64.min, Int64.max, 4_294_967_296])
        #expect(table.row(forObjectID: Int64.min) == 2)
        // Feature ids likewise.
        let byID = try FeatureTable.load(geoJSON: featureCollection(["{}", "{}"], ids: ["-5", "0"]))
        #expect(byID.objectIDs == [-5, 0])
        // Repeated, also at the extremes.
        let repeated = featureTableError {
            _ = try FeatureTable.load(geoJSON: featureCollection(["{}", "{}"], ids: ["-9223372036854775808", "-9223372036854775808"]))
        }
        #expect(repeated?.kind == .duplicateObjectID)
        #expect(repeated?.objectID == Int64.min)
    }

    @Test func objectIDsThatAreNotIntegers() throws {
        // Beyond 64 bits or written as doubles, an OBJECTID property is no object ID: it stays a
        // Double field and OBJECTID_1 numbers the features.
        for values in [["9223372036854775808", "1"], ["1.0", "2.0"], ["1e0", "2"]] {
            let table = try FeatureTable.load(geoJSON: featureCollection(values.map { #"{"OBJECTID":"# + $0 + "}" }))
            #expect(table.schema.objectIdFieldName == "OBJECTID_1", "\(values)")
            #expect(table.schema.field(named: "OBJECTID")?.type == .double)
            #expect(table.objectIDs == [1, 2])
        }
        // With an explicit OID field, whole doubles are object IDs; other values are errors.
        let fields = [Field(name: "OBJECTID", type: .oid)]
        let table = try FeatureTable.load(geoJSON: featureCollection([#"{"OBJECTID":1.0}"#, #"{"OBJECTID":-2e0}"#]), schema: fields)
        #expect(table.objectIDs == [1, -2])
        for value in ["1.5", "1e19", "9223372036854775808", "\"x\""] {
            let error = featureTableError {
                _ = try FeatureTable.load(geoJSON: featureCollection([#"{"OBJECTID":"# + value + "}"]), schema: fields)
            }
            #expect(error?.kind == .conversionFailed, "\(value)")
        }
        // Esri: an objectIdFieldName whose values are not all integers is no object-ID field.
        let esri = #"{"objectIdFieldName":"id","features":[{"attributes":{"id":1}},{"attributes":{"id":2.5}}]}"#
        let esriTable = try FeatureTable.load(esriJSON: esri)
        #expect(esriTable.schema.objectIdFieldName == "OBJECTID")
        #expect(esriTable.value(row: 1, field: "id") == .double(2.5))
    }

    // MARK: Dates at the ends of the range

    /// Esri JSON dates (epoch milliseconds) at and near the ends of Int64, as integers and as
    /// doubles.
    @Test(arguments: [
        ("-9223372036854775808", Int64.min),
        ("-9223372036854775807", Int64.min + 1),
        ("-9223372036854775000", -9_223_372_036_854_775_000),
        ("9223372036854775807", Int64.max),
        ("-9.223372036854775808e18", Int64.min),
        ("-9223372036854774784.0", -9_223_372_036_854_774_784),
        ("9.2233720368547748e18", 9_223_372_036_854_774_784),
        ("0", 0),
    ] as [(String, Int64)])
    func esriDatesAtTheEndsOfInt64(literal: String, milliseconds: Int64) throws {
        let text = #"{"fields":[{"name":"OID","type":"esriFieldTypeOID"},{"name":"d","type":"esriFieldTypeDate"}],"features":[{"attributes":{"OID":1,"d":"#
            + literal + "}}]}"
        let table = try FeatureTable.load(esriJSON: text)
        #expect(table.value(row: 0, field: "d") == .date(milliseconds))
    }

    /// Date numbers without an Int64 value are errors naming the feature and field, never traps.
    @Test(arguments: ["1e300", "-1e19", "9.223372036854775808e18", "9223372036854775808", "1.5", "\"NaN\"", "\"-Infinity\"", "true", "[1]"])
    func esriDatesOutOfRange(literal: String) throws {
        let text = #"{"fields":[{"name":"OID","type":"esriFieldTypeOID"},{"name":"d","type":"esriFieldTypeDate"}],"features":[{"attributes":{"OID":1,"d":0}},{"attributes":{"OID":2,"d":"#
            + literal + "}}]}"
        let error = featureTableError { _ = try FeatureTable.load(esriJSON: text) }
        #expect(error?.kind == .conversionFailed)
        #expect(error?.featureIndex == 1)
        #expect(error?.objectID == 2)
        #expect(error?.fieldName == "d")
        #expect(error?.message.hasPrefix("cannot convert") == true)
        #expect(error?.message.hasSuffix("to Date") == true)
    }

    /// GeoJSON date texts at the ends of what ISO 8601 dates with 4-digit years hold, with the
    /// largest offsets (epoch milliseconds of 0000-01-01 and 9999-12-31T23:59:59.999Z are
    /// -62,167,219,200,000 and 253,402,300,799,999; an offset of ±18 h is 64,800,000 ms).
    @Test func geoJSONDatesAtTheEndsOfTheRange() throws {
        let text = featureCollection([
            #"{"d":"0000-01-01"}"#, #"{"d":"0000-01-01T00:00:00+18:00"}"#, #"{"d":"9999-12-31T23:59:59.999Z"}"#,
            #"{"d":"9999-12-31T23:59:59.999-18:00"}"#, #"{"d":"0000-02-29T00:00:00Z"}"#,
        ])
        let table = try FeatureTable.load(geoJSON: text)
        #expect(table.schema.field(named: "d")?.type == .date)
        #expect(table.value(row: 0, field: "d") == .date(-62_167_219_200_000))
        #expect(table.value(row: 1, field: "d") == .date(-62_167_219_200_000 - 64_800_000))
        #expect(table.value(row: 2, field: "d") == .date(253_402_300_799_999))
        #expect(table.value(row: 3, field: "d") == .date(253_402_300_799_999 + 64_800_000))
        // Year 0 is a leap year in the proleptic Gregorian calendar: 31 + 28 days in.
        #expect(table.value(row: 4, field: "d") == .date(-62_167_219_200_000 + 59 * 86_400_000))
    }

    // MARK: Many fields

    @Test func aTableHoldsAtMostTheFieldLimit() throws {
        let limit = Schema.maximumFieldCount
        #expect(limit == 1_999)
        // 1,999 properties, one of them the object ID: exactly the limit.
        let objects = (0..<limit - 1).map { #"{"p\#($0)":\#($0),"OBJECTID":\#($0 + 1)}"# }
        let table = try FeatureTable.load(geoJSON: featureCollection(objects))
        #expect(table.schema.fields.count == limit)
        #expect(table.schema.objectIdFieldName == "OBJECTID")
        #expect(table.value(row: 5, field: "p5") == .integer(5))
        #expect(table.value(row: 5, field: "p6") == .null)
        // 1,999 properties and no object ID: the added OBJECTID field is one too many.
        let noID = (0..<limit).map { #"{"p\#($0)":\#($0)}"# }
        let synthesized = featureTableError { _ = try FeatureTable.load(geoJSON: featureCollection(noID)) }
        #expect(synthesized?.kind == .tooManyFields)
        #expect(synthesized?.message == "the table would have 2000 fields (with the OBJECTID field added for the object IDs); a table holds at most 1999")
        // 2,000 distinct properties: the feature and the property that went over.
        let over = (0...limit).map { #"{"p\#($0)":\#($0)}"# }
        let error = featureTableError { _ = try FeatureTable.load(geoJSON: featureCollection(over)) }
        #expect(error?.kind == .tooManyFields)
        #expect(error?.featureIndex == limit)
        #expect(error?.message == #"the property "p1999" (the feature's property number 1) would be distinct property number 2000; a table holds at most 1999 fields"#)
        // One feature with 2,000 properties: the first one past the limit is named, with its place.
        let wide = "{" + (0...limit).map { #""p\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        let one = featureTableError { _ = try FeatureTable.load(geoJSON: featureCollection([wide])) }
        #expect(one?.kind == .tooManyFields)
        #expect(one?.featureIndex == 0)
        #expect(one?.message == #"the property "p1999" (the feature's property number 2000) would be distinct property number 2000; a table holds at most 1999 fields"#)
        // 1,000 properties in the first feature, 1,000 others in the second: its 1,000th is over.
        let first = "{" + (0..<1_000).map { #""a\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        let second = "{" + (0..<1_000).map { #""b\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        let split = featureTableError { _ = try FeatureTable.load(geoJSON: featureCollection([first, second])) }
        #expect(split?.featureIndex == 1)
        #expect(split?.message == #"the property "b999" (the feature's property number 1000) would be distinct property number 2000; a table holds at most 1999 fields"#)
    }

    @Test func explicitFieldsAndSchemasAreLimitedToo() throws {
        let fields = (0...Schema.maximumFieldCount).map { Field(name: "f\($0)", type: .integer) }
        let load = featureTableError { _ = try FeatureTable.load(geoJSON: featureCollection(["{}"]), schema: fields) }
        #expect(load?.kind == .tooManyFields)
        let schema = featureTableError {
            _ = try Schema(fields: [Field(name: "OBJECTID", type: .oid)] + fields, objectIdFieldName: "OBJECTID")
        }
        #expect(schema?.kind == .tooManyFields)
        #expect(schema?.message == "2001 fields; a table holds at most 1999")
        #expect(schema?.description == "too many fields: 2001 fields; a table holds at most 1999")
    }

    /// 20,000 features, each with a property of its own: the loader stops at the limit while
    /// reading the names, before allocating any column (it used to allocate 20,000 columns of
    /// 20,000 rows, gigabytes, and take tens of seconds).
    @Test func aDifferentPropertyInEveryFeatureStopsAtTheLimit() throws {
        let objects = (0..<20_000).map { #"{"p\#($0)":"s\#($0)"}"# }
        let error = featureTableError { _ = try FeatureTable.load(geoJSON: featureCollection(objects)) }
        #expect(error?.kind == .tooManyFields)
        #expect(error?.featureIndex == 1_999)
    }

    /// Below the limit, sparse properties: 999 integer and 999 string properties over 4,000
    /// features, each feature holding one of each; every cell checked.
    @Test func sparsePropertiesBelowTheLimit() throws {
        let count = 4_000, half = 999
        let objects = (0..<count).map { i in #"{"p\#(i % half)":\#(i),"q\#((i * 7) % half)":"t\#(i)"}"# }
        let table = try FeatureTable.load(geoJSON: featureCollection(objects))
        #expect(table.schema.fields.count == 1 + 2 * half)
        for row in stride(from: 0, to: count, by: 37) {
            for k in stride(from: 0, to: half, by: 13) {
                let p = table.value(row: row, field: "p\(k)")
                #expect(p == (row % half == k ? .integer(Int64(row)) : .null), "row \(row) p\(k)")
                let q = table.value(row: row, field: "q\(k)")
                #expect(q == ((row * 7) % half == k ? .string("t\(row)") : .null), "row \(row) q\(k)")
            }
        }
    }

    /// Columns built sparse, dense, or sparse then dense (with explicit fields the loader does
    /// not know the density in advance) hold exactly the values given, whatever the density.
    @Test func columnsHoldTheirValuesAtEveryDensity() throws {
        var random = SeededGenerator(seed: 20_240_601)
        let count = 300
        let densities = [0.0, 0.01, 0.05, 0.2, 0.26, 0.5, 0.99, 1.0]
        let types: [FieldType] = [.integer, .double, .string, .date]
        var expected: [[String: String]] = Array(repeating: [:], count: count)  // field → JSON text
        var fields: [Field] = [Field(name: "OBJECTID", type: .oid)]
        for (d, density) in densities.enumerated() {
            for type in types {
                let name = "f\(d)_\(type.name)"
                fields.append(Field(name: name, type: type))
                for row in 0..<count where random.unit() < density {
                    let n = Int64(bitPattern: random.next()) >> 20
                    switch type {
                    case .integer: expected[row][name] = String(Int32(truncatingIfNeeded: n))
                    case .double: expected[row][name] = "\(n).5"
                    case .date: expected[row][name] = String(n)
                    default: expected[row][name] = "\"s\(n)\""
                    }
                }
            }
        }
        let objects = (0..<count).map { row in
            "{" + (["\"OBJECTID\":\(row + 1)"] + expected[row].sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" })
                .joined(separator: ",") + "}"
        }
        let text = featureCollection(objects)
        let explicit = try FeatureTable.load(geoJSON: text, schema: fields)
        for table in [explicit, try FeatureTable.load(geoJSON: text)] {
            for field in fields.dropFirst() {
                for row in 0..<count {
                    let value = table.value(row: row, field: field.name)
                    guard let json = expected[row][field.name] else {
                        #expect(value == .null, "\(field.name) row \(row)")
                        continue
                    }
                    switch value {
                    case .integer(let v), .date(let v): #expect(String(v) == json, "\(field.name) row \(row)")
                    case .double(let v): #expect(v == Double(json), "\(field.name) row \(row)")
                    case .string(let v): #expect("\"\(v)\"" == json, "\(field.name) row \(row)")
                    default: Issue.record("\(field.name) row \(row): \(value)")
                    }
                }
            }
        }
        // A non-nullable field names its first missing row, whichever form the column took.
        for (d, density) in densities.enumerated() where density > 0 && density < 1 {
            let name = "f\(d)_Integer"
            let firstMissing = (0..<count).first { expected[$0][name] == nil }
            var strict = fields
            if let i = strict.firstIndex(where: { $0.name == name }) { strict[i].nullable = false }
            let error = featureTableError { _ = try FeatureTable.load(geoJSON: text, schema: strict) }
            #expect(error?.kind == .conversionFailed)
            #expect(error?.featureIndex == firstMissing, "\(name)")
        }
    }
}
