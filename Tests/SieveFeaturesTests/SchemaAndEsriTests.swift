import Foundation
import SieveColumns
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import Testing

@Suite("Explicit schema")
struct ExplicitSchemaTests {
    static let fieldsJSON = #"""
        [{"name":"POP","type":"esriFieldTypeInteger"},
         {"name":"Name","type":"esriFieldTypeString","length":20},
         {"name":"Created","type":"esriFieldTypeDate"},
         {"name":"Score","type":"esriFieldTypeDouble"},
         {"name":"Flag","type":"esriFieldTypeSmallInteger"}]
        """#

    @Test func valuesAreConvertedToTheFieldTypes() throws {
        let fields = try Field.fields(esriJSON: Self.fieldsJSON)
        let text = featureCollection(
            [
                #"{"pop":"42","name":7,"created":"2024-03-01","score":1,"flag":true,"extra":"ignored"}"#,
                #"{"POP":5.0,"NAME":"x","CREATED":1709251200000,"SCORE":"2.5","FLAG":null}"#,
            ], ids: ["1", "2"])
        let table = try FeatureTable.load(geoJSON: text, schema: fields)
        #expect(table.schema.fieldNames == ["OBJECTID", "POP", "Name", "Created", "Score", "Flag"])
        #expect(table.objectIDs == [1, 2])
        #expect(table.value(row: 0, field: "POP") == .integer(42))
        #expect(table.value(row: 1, field: "POP") == .integer(5))
        #expect(table.value(row: 0, field: "Name") == .string("7"))
        #expect(table.value(row: 0, field: "Created") == .date(1_709_251_200_000))
        #expect(table.value(row: 1, field: "Created") == .date(1_709_251_200_000))
        #expect(table.value(row: 0, field: "Score") == .double(1))
        #expect(table.value(row: 1, field: "Score") == .double(2.5))
        #expect(table.value(row: 0, field: "Flag") == .integer(1))
        #expect(table.value(row: 1, field: "Flag") == .null)
        #expect(table.schema.field(named: "extra") == nil)
        #expect(table.schema.field(named: "name")?.length == 20)
    }

    @Test func conversionErrorNamesFeatureAndField() throws {
        let fields = try Field.fields(esriJSON: Self.fieldsJSON)
        let text = featureCollection([#"{"POP":1}"#, #"{"POP":"many"}"#], ids: ["100", "200"])
        let error = featureTableError { _ = try FeatureTable.load(geoJSON: text, schema: fields) }
        #expect(error?.kind == .conversionFailed)
        #expect(error?.featureIndex == 1)
        #expect(error?.objectID == 200)
        #expect(error?.fieldName == "POP")
        #expect(
            error?.description
                == #"conversion failed at line 1, column \#(try #require(error?.position)) (byte offset \#(try #require(error?.position) - 1)) in features[1] (object ID 200), field "POP": cannot convert the string "many" to Integer"#
        )
    }

    @Test func outOfRangeAndNonNullable() throws {
        let small = [Field(name: "s", type: .smallInteger)]
        let error = featureTableError {
            _ = try FeatureTable.load(geoJSON: featureCollection([#"{"s":40000}"#]), schema: small)
        }
        #expect(error?.kind == .conversionFailed)
        #expect(error?.message.contains("out of range") == true)

        let required = [Field(name: "r", type: .string, nullable: false)]
        let missing = featureTableError {
            _ = try FeatureTable.load(geoJSON: featureCollection([#"{"r":"a"}"#, "{}"]), schema: required)
        }
        #expect(missing?.kind == .conversionFailed)
        #expect(missing?.featureIndex == 1)
        #expect(missing?.fieldName == "r")
    }

    @Test func schemaWithAnObjectIDField() throws {
        let fields = [Field(name: "FID", type: .oid), Field(name: "v", type: .double)]
        let table = try FeatureTable.load(
            geoJSON: featureCollection([#"{"fid":9,"v":1}"#, #"{"fid":8,"v":2}"#]), schema: fields)
        #expect(table.schema.objectIdFieldName == "FID")
        #expect(table.objectIDs == [9, 8])
        // Without the attribute in every feature the positions are used.
        let fallback = try FeatureTable.load(geoJSON: featureCollection([#"{"fid":9}"#, "{}"]), schema: fields)
        #expect(fallback.objectIDs == [1, 2])
    }
}

@Suite("Esri JSON")
struct EsriJSONTests {
    static let featureSet = #"""
        {"objectIdFieldName":"FID","globalIdFieldName":"GlobalID","displayFieldName":"Name",
         "geometryType":"esriGeometryPoint","spatialReference":{"wkid":102100,"latestWkid":3857},
         "fields":[
          {"name":"FID","type":"esriFieldTypeOID","alias":"FID"},
          {"name":"Name","type":"esriFieldTypeString","alias":"Site name","length":50},
          {"name":"Surface","type":"esriFieldTypeSmallInteger","domain":{"type":"codedValue","name":"SurfaceType",
            "codedValues":[{"name":"Asphalt","code":1},{"name":"Gravel","code":2}]}},
          {"name":"Score","type":"esriFieldTypeDouble","domain":{"type":"range","name":"Unit","range":[0,1]}},
          {"name":"Collected","type":"esriFieldTypeDate"},
          {"name":"GlobalID","type":"esriFieldTypeGlobalID"}],
         "features":[
          {"attributes":{"FID":3,"Name":"A","Surface":1,"Score":0.5,"Collected":1349395200000,
            "GlobalID":"{8C4B6F7E-0000-4000-8000-000000000001}"},"geometry":{"x":-13046000,"y":4036000}},
          {"attributes":{"FID":4,"Name":"B","Surface":2,"Score":null,"Collected":null,"GlobalID":null},
            "geometry":null}]}
        """#

    @Test func featureSetWithDatesAndDomains() throws {
        let table = try FeatureTable.load(esriJSON: Self.featureSet)
        #expect(table.count == 2)
        #expect(table.schema.objectIdFieldName == "FID")
        #expect(table.schema.globalIdFieldName == "GlobalID")
        #expect(table.schema.displayFieldName == "Name")
        #expect(table.schema.geometryType == .point)
        #expect(table.spatialReference == .webMercator)
        #expect(table.spatialReference.wkid == 102100)
        #expect(table.objectIDs == [3, 4])
        #expect(table.value(row: 0, field: "collected") == .date(1_349_395_200_000))
        #expect(table.value(row: 1, field: "Collected") == .null)
        #expect(table.column(named: "Collected")?.type == .date)
        #expect(table.value(row: 0, field: "Score") == .double(0.5))
        #expect(table.schema.field(named: "name")?.alias == "Site name")
        let surface = try #require(table.schema.field(named: "Surface"))
        #expect(surface.domain?.name(forCode: .integer(2)) == "Gravel")
        #expect(
            surface.domain
                == .codedValue(
                    name: "SurfaceType",
                    codes: [CodedValue(name: "Asphalt", code: .integer(1)), CodedValue(name: "Gravel", code: .integer(2))]))
        #expect(table.schema.field(named: "Score")?.domain == .range(name: "Unit", min: .double(0), max: .double(1)))
        #expect(table.geometry(row: 0) == .point(Point(x: -13_046_000, y: 4_036_000)))
        #expect(table.geometry(row: 1) == nil)
    }

    @Test func formatDetectedFromContent() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("SieveFeaturesTests-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let esri = directory.appendingPathComponent("set.json")
        try Data(Self.featureSet.utf8).write(to: esri)
        #expect(try FeatureTable.load(contentsOf: esri).schema.objectIdFieldName == "FID")
        let geo = directory.appendingPathComponent("collection.json")
        try Data(featureCollection(["{}"]).utf8).write(to: geo)
        #expect(try FeatureTable.load(contentsOf: geo).schema.objectIdFieldName == "OBJECTID")
        let missing = featureTableError {
            _ = try FeatureTable.load(contentsOf: directory.appendingPathComponent("nope.json"))
        }
        #expect(missing?.kind == .unreadableFile)
    }

    @Test func geometryNotOfTheDeclaredType() {
        let text = #"""
            {"geometryType":"esriGeometryPolygon","fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"}],
             "features":[{"attributes":{"OBJECTID":1},"geometry":{"x":1,"y":2}}]}
            """#
        let error = featureTableError { _ = try FeatureTable.load(esriJSON: text) }
        #expect(error?.kind == .mixedGeometryTypes)
        #expect(error?.featureIndex == 0)
        #expect(error?.objectID == 1)
    }

    @Test func withoutFieldsOrObjectID() throws {
        let text = #"""
            {"features":[{"attributes":{"a":1.5,"b":"x"},"geometry":{"paths":[[[0,0],[1,1]]]}},
                         {"attributes":{"a":2,"b":"y"},"geometry":{"paths":[[[2,2],[3,3]]]}}]}
            """#
        let table = try FeatureTable.load(esriJSON: text)
        #expect(table.schema.fieldNames == ["OBJECTID", "a", "b"])
        #expect(table.schema.field(named: "a")?.type == .double)
        #expect(table.objectIDs == [1, 2])
        #expect(table.schema.geometryType == .polyline)
        #expect(table.spatialReference == .wgs84)
    }
}

@Suite("Fields JSON and schema")
struct FieldsJSONTests {
    @Test func roundTrip() throws {
        let fields = [
            Field(name: "OBJECTID", type: .oid),
            Field(name: "Name", type: .string, alias: "Full name", length: 64, nullable: false, defaultValue: .string("?")),
            Field(name: "Kind", type: .smallInteger, editable: false,
                domain: .codedValue(name: "Kinds", codes: [CodedValue(name: "One", code: .integer(1))])),
            Field(name: "When", type: .date, defaultValue: .date(86_400_000),
                domain: .range(name: "Era", min: .date(0), max: .date(4_102_444_800_000))),
            Field(name: "Big", type: .bigInteger), Field(name: "S", type: .single), Field(name: "D", type: .double),
            Field(name: "G", type: .guid), Field(name: "GID", type: .globalID), Field(name: "I", type: .integer),
        ]
        let text = Field.esriJSON(fields)
        #expect(text.hasPrefix(#"[{"name":"OBJECTID","type":"esriFieldTypeOID","alias":"OBJECTID","nullable":false,"#))
        let read = try Field.fields(esriJSON: text)
        #expect(read == fields)
        let schema = try Schema(fields: fields, objectIdFieldName: "OBJECTID")
        #expect(schema.esriFieldsJSON == text)
        let layer = try Field.fields(esriJSON: #"{"name":"layer","fields":"# + text + "}")
        #expect(layer == fields)
    }

    @Test func columnTypes() {
        let expected: [FieldType: ColumnType] = [
            .oid: .integer, .smallInteger: .integer, .integer: .integer, .bigInteger: .integer, .single: .double,
            .double: .double, .string: .string, .guid: .string, .globalID: .string, .date: .date, .dateOnly: .date,
        ]
        for type in FieldType.allCases { #expect(type.columnType == expected[type]) }
        #expect(FieldType(esriName: "esriFieldTypeLong") == .integer)
    }

    @Test func unknownTypeAndMissingName() {
        let unknown = featureTableError {
            _ = try Field.fields(esriJSON: #"[{"name":"a","type":"esriFieldTypeBlob"}]"#)
        }
        #expect(unknown?.kind == .invalidSchema)
        #expect(unknown?.fieldName == "a")
        #expect(unknown?.message.contains("unknown field type \"esriFieldTypeBlob\"") == true)
        let nameless = featureTableError { _ = try Field.fields(esriJSON: #"[{"type":"esriFieldTypeString"}]"#) }
        #expect(nameless?.kind == .invalidSchema)
        #expect(nameless?.message == #"fields[0]: the field has no "name""#)
    }

    @Test func caseInsensitiveLookup() throws {
        let schema = try Schema(
            fields: [Field(name: "ObjectID", type: .oid), Field(name: "PopEst", type: .double)],
            objectIdFieldName: "OBJECTID")
        #expect(schema.objectIdFieldName == "ObjectID")
        #expect(schema.index(ofField: "popest") == 1)
        #expect(schema.index(ofField: "PopEst") == 1)
        #expect(schema.index(ofField: "pOPeST") == 1)
        #expect(schema.index(ofField: "objectid") == 0)
        #expect(schema.field(named: "POPEST")?.name == "PopEst")
        #expect(schema.field(named: "nope") == nil)
        #expect(schema.fieldNames == ["ObjectID", "PopEst"])
        let duplicate = featureTableError {
            _ = try Schema(fields: [Field(name: "a", type: .oid), Field(name: "A", type: .string)], objectIdFieldName: "a")
        }
        #expect(duplicate?.kind == .invalidSchema)
    }

    @Test func malformedJSONReportsThePosition() {
        let text = #"{"type":"FeatureCollection","features":[}"#
        let error = featureTableError { _ = try FeatureTable.load(geoJSON: text) }
        #expect(error?.kind == .invalidJSON)
        #expect(error?.position == 41)
        #expect(error?.description.hasPrefix("invalid JSON at line 1, column 41 (byte offset 40): ") == true)
        let notCollection = featureTableError { _ = try FeatureTable.load(geoJSON: #"{"type":"Topology"}"#) }
        #expect(notCollection?.kind == .invalidGeoJSON)
    }
}

@Suite("Building a table from columns")
struct TableInitTests {
    @Test func buildsAndValidates() throws {
        let schema = try Schema(
            fields: [Field(name: "OBJECTID", type: .oid), Field(name: "name", type: .string)],
            objectIdFieldName: "OBJECTID", geometryType: .point)
        let table = try FeatureTable(
            schema: schema,
            columns: [.integer(Int64Column(values: [5, 6])), .string(StringColumn(["a", nil]))],
            geometries: [.point(Point(x: 1, y: 1)), nil])
        #expect(table.count == 2)
        #expect(table.row(forObjectID: 6) == 1)
        #expect(table.value(row: 1, field: "NAME") == .null)
        #expect(table.value(row: 0, fieldIndex: 1) == .string("a"))

        let duplicate = featureTableError {
            _ = try FeatureTable(
                schema: schema, columns: [.integer(Int64Column(values: [5, 5])), .string(StringColumn(["a", "b"]))])
        }
        #expect(duplicate?.kind == .duplicateObjectID)
        let wrongType = featureTableError {
            _ = try FeatureTable(
                schema: schema, columns: [.integer(Int64Column(values: [1])), .double(DoubleColumn(values: [1]))])
        }
        #expect(wrongType?.kind == .invalidTable)
        #expect(wrongType?.fieldName == "name")
    }
}
