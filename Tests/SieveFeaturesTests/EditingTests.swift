import Foundation
import SieveColumns
import SieveGEOS
import SieveGeometry
import Testing

@testable import SieveFeatures
@testable import SieveEditing
@testable import SieveFormats
import SieveTestSupport

@Suite("Editable feature table")
struct EditingTests {
    @Test("adds get the next object IDs and global IDs; a snapshot taken before does not change")
    func addsAndSnapshots() throws {
        let editable = try EditableFeatureTable(emptyTable(editingSchema()), options: fixedOptions())
        let before = editable.snapshot
        let results = editable.addFeatures([validAdd("first"), validAdd("second", x: 5, y: 5)])
        #expect(results == [
            FeatureEditResult(objectID: 1, globalID: "{00000000-0000-4000-8000-000000000001}"),
            FeatureEditResult(objectID: 2, globalID: "{00000000-0000-4000-8000-000000000002}"),
        ])
        let after = editable.snapshot
        #expect(before.count == 0)
        #expect(try before.queryFeatureCount(QueryParameters()) == 0)
        #expect(after.featureCount == 2)
        #expect(try after.queryObjectIDs(QueryParameters(whereClause: "NAME = 'second'")) == [2])
        // Defaults fill what the add does not give.
        #expect(after.value(row: 0, field: "CODE") == .string("none"))
        #expect(after.value(row: 0, field: "POP") == .null)
        // The spatial index sees the new features; the old snapshot does not.
        let window = Geometry.envelope(Envelope(xmin: 4, ymin: 4, xmax: 6, ymax: 6))
        #expect(try after.queryObjectIDs(QueryParameters(geometry: window)) == [2])
        #expect(try before.queryObjectIDs(QueryParameters(geometry: window)) == [])
    }

    @Test("an update appends the new version: old snapshots keep the old one, queries see one feature")
    func updatesAreVersions() throws {
        let editable = try EditableFeatureTable(emptyTable(editingSchema()), options: fixedOptions())
        editable.addFeatures([validAdd("alpha"), validAdd("beta", x: 2, y: 2)])
        let before = editable.snapshot
        _ = try before.queryObjectIDs(QueryParameters(geometry: point(2, 2)))  // builds the index
        let results = editable.updateFeatures([
            FeatureEdit(attributes: ["OBJECTID": .integer(1), "NAME": .string("gamma"), "POP": .integer(12)], geometry: point(9, 9))
        ])
        #expect(results == [FeatureEditResult(objectID: 1, globalID: "{00000000-0000-4000-8000-000000000001}")])
        let after = editable.snapshot
        #expect(after.count == 3)
        #expect(after.featureCount == 2)
        #expect(after.row(forObjectID: 1) == 2)
        #expect(before.row(forObjectID: 1) == 0)
        #expect(after.value(row: 2, field: "NAME") == .string("gamma"))
        #expect(after.value(row: 2, field: "STRICT") == .integer(7))  // unchanged fields carried over
        #expect(try after.queryObjectIDs(QueryParameters(whereClause: "NAME = 'alpha'")) == [])
        #expect(try before.queryObjectIDs(QueryParameters(whereClause: "NAME = 'alpha'")) == [1])
        #expect(try after.queryFeatureCount(QueryParameters()) == 2)
        #expect(try after.queryObjectIDs(QueryParameters()) == [1, 2])
        #expect(try after.queryObjectIDs(QueryParameters(geometry: point(1, 1))) == [])
        #expect(try after.queryObjectIDs(QueryParameters(geometry: point(9, 9))) == [1])
        #expect(try before.queryObjectIDs(QueryParameters(geometry: point(9, 9))) == [])
        #expect(try before.queryObjectIDs(QueryParameters(geometry: point(1, 1))) == [1])
    }

    @Test("deleted features leave every answer, and their object IDs are never given again")
    func deletes() throws {
        let editable = try EditableFeatureTable(emptyTable(editingSchema()), options: fixedOptions())
        editable.addFeatures([validAdd("a"), validAdd("b"), validAdd("c")])
        #expect(editable.deleteFeatures(objectIDs: [3, 1]) == [FeatureEditResult(objectID: 3, globalID: "{00000000-0000-4000-8000-000000000003}"), FeatureEditResult(objectID: 1, globalID: "{00000000-0000-4000-8000-000000000001}")])
        let table = editable.snapshot
        #expect(table.featureCount == 1)
        #expect(try table.queryFeatureCount(QueryParameters()) == 1)
        #expect(try table.queryFeatureCount(QueryParameters(whereClause: "STRICT = 7")) == 1)
        #expect(try table.queryObjectIDs(QueryParameters(geometry: point(1, 1))) == [2])
        #expect(table.row(forObjectID: 3) == nil)
        #expect(editable.addFeatures([validAdd("d")]).map(\.objectID) == [4])
        #expect(try editable.deleteFeatures(where: "NAME IN ('b', 'd')").map(\.objectID) == [2, 4])
        #expect(editable.snapshot.featureCount == 0)
    }

    @Test("each validation rule fails the edit with its exact error")
    func validationErrors() throws {
        let editable = try EditableFeatureTable(emptyTable(editingSchema()), options: fixedOptions())
        editable.addFeatures([validAdd("kept")])
        func addError(_ attributes: [String: ScalarValue], geometry: Geometry? = point(0, 0), spatialReference: SpatialReference? = nil) -> EditError? {
            var all: [String: ScalarValue] = ["STRICT": .integer(1)]
            for (key, value) in attributes { all[key] = value }
            return editable.addFeatures([FeatureEdit(attributes: all, geometry: geometry, spatialReference: spatialReference)])[0].error
        }
        #expect(addError(["NMAE": .string("x")]) == EditError(.unknownField, "the table has no field \"NMAE\" (did you mean \"NAME\"?)", fieldName: "NMAE"))
        #expect(addError(["NAME": .string("x"), "name": .string("y")])?.kind == .repeatedField)
        #expect(addError(["POP": .string("12")]) == EditError(.wrongType, "the string \"12\" cannot be stored in field POP of type SmallInteger", fieldName: "POP"))
        #expect(addError(["POP": .double(1.5)]) == EditError(.wrongType, "the number 1.5 cannot be stored in field POP of type SmallInteger", fieldName: "POP"))
        #expect(addError(["POP": .integer(40_000)]) == EditError(.outOfRange, "Value 40000 is out of range for the number type - field: POP, type: esriFieldTypeSmallInteger, value range is -32768 to 32767", fieldName: "POP"))
        #expect(addError(["POP": .integer(-32_768)]) == nil)
        #expect(addError(["RATE": .double(4e38)]) == EditError(.outOfRange, "Value 4e+38 is out of range for the number type - field: RATE, type: esriFieldTypeSingle, value range is -3.4028235e38 to 3.4028235e38", fieldName: "RATE"))
        #expect(addError(["KIND": .integer(3_000_000_000)]) == EditError(.outOfRange, "Value 3000000000 is out of range for the number type - field: KIND, type: esriFieldTypeInteger, value range is -2147483648 to 2147483647", fieldName: "KIND"))
        #expect(addError(["POP": .double(1e300)]) == EditError(.outOfRange, "Value 1e+300 is out of range for the number type - field: POP, type: esriFieldTypeSmallInteger, value range is -32768 to 32767", fieldName: "POP"))
        #expect(addError(["NAME": .string("abcdefghijk")]) == EditError(.tooLong, "the value of field NAME is 11 characters long; the field holds at most 10", fieldName: "NAME"))
        #expect(addError(["NAME": .string("abcdefghij")]) == nil)
        #expect(addError(["STRICT": .null]) == EditError(.nullNotAllowed, "field STRICT is not nullable and the new feature gives it no value", fieldName: "STRICT"))
        #expect(addError(["CODE": .null]) == EditError(.nullNotAllowed, "field CODE is not nullable and the new feature gives it no value", fieldName: "CODE"))
        #expect(addError(["KIND": .integer(3)]) == EditError(.outsideDomain, "3 is not a code of domain \"Kinds\" of field KIND (codes: 1, 2)", fieldName: "KIND"))
        #expect(addError(["KIND": .integer(2)]) == nil)
        #expect(addError(["SCORE": .double(100.5)]) == EditError(.outsideDomain, "100.5 is outside the range domain \"Percent\" of field SCORE (0 to 100)", fieldName: "SCORE"))
        #expect(addError(["SCORE": .integer(100)]) == nil)
        #expect(addError(["LOCKED": .integer(1)]) == EditError(.notEditable, "field LOCKED is not editable", fieldName: "LOCKED"))
        #expect(addError(["SEEN": .string("yesterday")])?.kind == .wrongType)
        #expect(addError([:], geometry: .polyline(try Polyline(paths: [[Point(x: 0, y: 0), Point(x: 1, y: 1)]]))) == EditError(.wrongGeometryType, "a polyline cannot be stored in a table of esriGeometryPoint geometries"))
        let unknownReference = addError([:], spatialReference: SpatialReference(wkid: 999_999))
        #expect(unknownReference?.kind == .wrongSpatialReference)
        #expect(unknownReference?.message.hasPrefix("the geometry is in wkid 999999 and cannot be projected into the table's wkid 4326: ") == true)
        #expect(addError(["SEEN": .boolean(true)]) == EditError(.wrongType, "the boolean true cannot be stored in field SEEN of type Date", fieldName: "SEEN"))
        // Web Mercator is projected into the table's WGS 84.
        #expect(addError([:], geometry: point(1_113_194.9079327357, 0), spatialReference: .webMercator) == nil)
        let projected = editable.snapshot
        let last = projected.count - 1
        #expect(abs((projected.geometry(row: last)?.envelope.xmin ?? 0) - 10) < 1e-9)
        // Object IDs and global IDs are the table's own: silently ignored in adds.
        #expect(addError(["OBJECTID": .integer(999), "GLOBALID": .string("{00000000-0000-0000-0000-000000000000}")]) == nil)
        #expect(editable.snapshot.row(forObjectID: 999) == nil)

        func updateError(_ edit: FeatureEdit) -> EditError? { editable.updateFeatures([edit])[0].error }
        #expect(updateError(FeatureEdit(attributes: ["NAME": .string("x")])) == EditError(.missingObjectID, "the update gives no OBJECTID to name the feature", fieldName: "OBJECTID"))
        #expect(updateError(FeatureEdit(attributes: ["OBJECTID": .integer(77)])) == EditError(.missingObjectID, "Update for the object was not attempted. Object ID 77 does not exist."))
        #expect(updateError(FeatureEdit(objectID: 1, attributes: ["OBJECTID": .integer(2)])) == EditError(.objectIDChanged, "an update cannot change the object ID (OBJECTID)", fieldName: "OBJECTID"))
        #expect(updateError(FeatureEdit(objectID: 1, attributes: ["GLOBALID": .string("{00000000-0000-4000-8000-000000000099}")])) == EditError(.notEditable, "field GLOBALID (the global ID) is not editable", fieldName: "GLOBALID"))
        #expect(updateError(FeatureEdit(objectID: 1, attributes: ["STRICT": .null])) == EditError(.nullNotAllowed, "field STRICT is not nullable", fieldName: "STRICT"))
        #expect(editable.deleteFeatures(objectIDs: [77])[0].error == EditError(.missingObjectID, "Delete for the object was not attempted. Object ID 77 does not exist."))
        let twice = editable.applyEdits(updates: [FeatureEdit(objectID: 1, attributes: ["POP": .integer(1)])], deletes: [1], rollbackOnFailure: false)
        #expect(twice.updateResults[0].success)
        #expect(twice.deleteResults[0].error == EditError(.repeatedObjectID, "object ID 1 is updated or deleted more than once in the batch"))
        #expect(EditError(.missingObjectID, "").code == 1019)
        #expect(EditError(.rolledBack, "").code == 1003)
        #expect(EditError(.wrongType, "").code == 1000)
    }

    @Test("invalid polygons are refused with GEOS's reason")
    func invalidGeometry() throws {
        let editable = try EditableFeatureTable(emptyTable(editingSchema(geometryType: .polygon)), options: fixedOptions())
        let bowtie = try Geometry(wkt: "POLYGON ((0 0, 10 10, 10 0, 0 10, 0 0))")
        let error = editable.addFeatures([FeatureEdit(attributes: ["STRICT": .integer(1)], geometry: bowtie)])[0].error
        #expect(error == EditError(.invalidGeometry, "the geometry is not valid: Self-intersection at (5.0, 5.0)"))
        let square = try Geometry(wkt: "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))")
        #expect(editable.addFeatures([FeatureEdit(attributes: ["STRICT": .integer(1)], geometry: square)])[0].success)
    }

    @Test("a polygon GEOS would take seconds to validate is refused, and nothing is stored")
    func tooComplexToValidate() throws {
        let editable = try EditableFeatureTable(emptyTable(editingSchema(geometryType: .polygon)), options: fixedOptions())
        // A star of 100,000 thin spikes: valid, but about 15 s of GEOS 3.11's validity check.
        let star = try ExtremeExtentTests.star(radius: 60, vertices: 100_000)
        let error = editable.addFeatures([FeatureEdit(attributes: ["STRICT": .integer(1)], geometry: star)])[0].error
        #expect(error?.kind == .invalidGeometry)
        #expect(error?.message.hasPrefix("the geometry is too complex to validate: checking the validity of this geometry") == true)
        #expect(editable.snapshot.count == 0)
        // Validation off (the caller vouches for the geometry): stored as given.
        var options = fixedOptions()
        options.validatesGeometry = false
        let trusting = try EditableFeatureTable(emptyTable(editingSchema(geometryType: .polygon)), options: options)
        #expect(trusting.addFeatures([FeatureEdit(attributes: ["STRICT": .integer(1)], geometry: star)])[0].success)
    }

    @Test("with makeValid, an invalid polygon is stored as GEOS repairs it")
    func makeValid() throws {
        var options = fixedOptions()
        options.makeValid = true
        let editable = try EditableFeatureTable(emptyTable(editingSchema(geometryType: .polygon)), options: options)
        let bowtie = try Geometry(wkt: "POLYGON ((0 0, 10 10, 10 0, 0 10, 0 0))")
        let result = editable.addFeatures([FeatureEdit(attributes: ["STRICT": .integer(1)], geometry: bowtie)])[0]
        #expect(result.success)
        // The bowtie's two triangles, each of area 25: a valid polygon of two parts.
        let stored = try #require(editable.snapshot.geometry(row: 0))
        guard case .polygon(let polygon) = stored else {
            Issue.record("not a polygon: \(stored)")
            return
        }
        #expect(polygon.partCount == 2)
        #expect(stored.envelope == Envelope(xmin: 0, ymin: 0, xmax: 10, ymax: 10))
        let valid = try GEOSContext.withCurrent { context in try GEOSGeometry(stored, context: context).validity().isValid }
        #expect(valid)
        // Valid geometries are stored as given.
        let square = try Geometry(wkt: "POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0))")
        #expect(editable.addFeatures([FeatureEdit(attributes: ["STRICT": .integer(1)], geometry: square)])[0].success)
        #expect(editable.snapshot.geometry(row: 1) == square)
    }

    @Test("capabilities, geometry updates and ownership are enforced, as errors")
    func permissions() throws {
        let tracking = EditorTracking(
            creatorField: "CREATOR", creationDateField: "CREATED", editorField: "EDITOR", editDateField: "EDITED",
            ownershipBasedAccessControl: true, allowOthersToUpdate: false, allowOthersToDelete: false,
            allowAnonymousToUpdate: false, allowAnonymousToDelete: false)
        let editable = try EditableFeatureTable(emptyTable(editingSchema()), options: fixedOptions(tracking: tracking))
        #expect(editable.addFeatures([validAdd("mine")], user: "Ann")[0].success)
        let table = editable.snapshot
        #expect(table.value(row: 0, field: "CREATOR") == .string("Ann"))
        #expect(table.value(row: 0, field: "CREATED") == .date(1_700_000_000_000))
        #expect(table.value(row: 0, field: "EDITOR") == .string("Ann"))
        #expect(editable.canUpdate(objectID: 1, user: "ann"))
        #expect(!editable.canUpdate(objectID: 1, user: "Bob"))
        #expect(!editable.canDelete(objectID: 1, user: nil))
        #expect(editable.updateFeatures([FeatureEdit(objectID: 1, attributes: ["POP": .integer(3)])], user: "Bob")[0].error
            == EditError(.notOwner, "user \"Bob\" may not update object ID 1, created by \"Ann\""))
        #expect(editable.deleteFeatures(objectIDs: [1], user: nil)[0].error == EditError(.notOwner, "anonymous editors may not delete features (object ID 1)"))
        #expect(editable.updateFeatures([FeatureEdit(objectID: 1, attributes: ["POP": .integer(3)])], user: "ANN")[0].success)
        #expect(editable.snapshot.value(row: 1, field: "EDITOR") == .string("ANN"))
        #expect(editable.snapshot.value(row: 1, field: "CREATOR") == .string("Ann"))

        // Others' features are hidden from queries when allowOthersToQuery is off.
        editable.addFeatures([validAdd("bob's")], user: "bob")
        editable.addFeatures([validAdd("nobody's")])
        let all = QueryParameters(whereClause: "NAME IS NOT NULL")
        #expect(try editable.snapshot.queryObjectIDs(editable.parameters(all, visibleTo: "ANN")) == [1, 2, 3])
        #expect(try editable.snapshot.queryObjectIDs(editable.parameters(all, visibleTo: "Bob")) == [1, 2, 3])
        var hidden = tracking
        hidden.allowOthersToQuery = false
        let private_ = try EditableFeatureTable(editable.snapshot, options: fixedOptions(tracking: hidden))
        #expect(try private_.snapshot.queryObjectIDs(private_.parameters(all, visibleTo: "ANN")) == [1])
        #expect(try private_.snapshot.queryObjectIDs(private_.parameters(all, visibleTo: "o'brien")) == [])
        #expect(try private_.snapshot.queryObjectIDs(private_.parameters(all, visibleTo: nil)) == [3])

        let readOnly = try EditableFeatureTable(emptyTable(editingSchema()), options: fixedOptions(capabilities: [.query]))
        #expect(!readOnly.canAdd)
        #expect(readOnly.addFeatures([validAdd("x")])[0].error == EditError(.notAllowed, "the table does not allow adding features (capabilities: Query)"))
        let noGeometryUpdates = try EditableFeatureTable(emptyTable(editingSchema()), options: fixedOptions(allowGeometryUpdates: false))
        noGeometryUpdates.addFeatures([validAdd("x")])
        #expect(!noGeometryUpdates.canUpdateGeometry)
        #expect(noGeometryUpdates.updateFeatures([FeatureEdit(objectID: 1, geometry: point(3, 3))])[0].error == EditError(.notAllowed, "the table does not allow geometry updates (object ID 1)"))
        let addOnly = try EditableFeatureTable(emptyTable(editingSchema()), options: fixedOptions(capabilities: [.query, .create]))
        addOnly.addFeatures([validAdd("x")])
        #expect(addOnly.updateFeatures([FeatureEdit(objectID: 1, attributes: ["POP": .integer(1)])])[0].error?.kind == .notAllowed)
        #expect(addOnly.deleteFeatures(objectIDs: [1])[0].error == EditError(.notAllowed, "the table does not allow deleting features (capabilities: Query,Create,Editing)"))
        #expect(TableCapabilities(esriString: "Query, Editing") == .all)
        #expect(TableCapabilities(esriString: "Query,Update,Editing") == [.query, .update])
    }

    @Test("a definition expression: features outside it cannot be updated or deleted, edits cannot leave it")
    func definitionExpression() throws {
        let plain = try EditableFeatureTable(emptyTable(editingSchema()), options: fixedOptions())
        plain.addFeatures([validAdd("in"), validAdd("out"), validAdd("nopop")])
        plain.updateFeatures([FeatureEdit(objectID: 1, attributes: ["POP": .integer(50)]), FeatureEdit(objectID: 2, attributes: ["POP": .integer(5)])])
        var options = fixedOptions()
        options.definitionExpression = "POP >= 10 AND NAME <> 'x'"
        let editable = try EditableFeatureTable(plain.snapshot, options: options)
        // Feature 2 (POP 5) and 3 (POP NULL) are outside: they do not exist for the layer.
        for id in [Int64(2), 3] {
            #expect(editable.deleteFeatures(objectIDs: [id])[0].error?.kind == .missingObjectID)
            #expect(editable.updateFeatures([FeatureEdit(objectID: id, attributes: ["POP": .integer(20)])])[0].error?.code == 1019)
        }
        // An update that would take feature 1 out, and adds outside, fail with code 1000.
        let out = editable.updateFeatures([FeatureEdit(objectID: 1, attributes: ["POP": .integer(9)])])[0].error
        #expect(out == EditError(.outsideDefinition, "object ID 1 would not satisfy the layer's definition expression POP >= 10 AND NAME <> 'x'"))
        #expect(out?.code == 1000)
        #expect(editable.addFeatures([validAdd("x")])[0].error?.kind == .outsideDefinition)
        // A NULL is outside, as in every where clause: an add without POP.
        #expect(editable.addFeatures([validAdd("y")])[0].error?.kind == .outsideDefinition)
        #expect(try editable.snapshot.queryFeatureCount(QueryParameters()) == 3)
        // Edits that stay inside succeed; the string, date and double kinds are compared too.
        var add = validAdd("y")
        add.attributes["POP"] = .integer(10)
        #expect(editable.addFeatures([add])[0].success)
        #expect(editable.updateFeatures([FeatureEdit(objectID: 1, attributes: ["POP": .integer(11), "NAME": .string("z")])])[0].success)
        #expect(editable.deleteFeatures(objectIDs: [1])[0].success)
        var typed = fixedOptions()
        typed.definitionExpression = "RATE > 0.5 AND SEEN >= DATE '2020-01-01'"
        let dated = try EditableFeatureTable(emptyTable(editingSchema()), options: typed)
        var inside = validAdd("d")
        inside.attributes["RATE"] = .double(0.75)
        inside.attributes["SEEN"] = .date(1_600_000_000_000)
        #expect(dated.addFeatures([inside])[0].success)
        inside.attributes["SEEN"] = .date(1_500_000_000_000)
        #expect(dated.addFeatures([inside])[0].error?.kind == .outsideDefinition)
        // A definition that does not bind is refused when the table is made editable.
        var bad = fixedOptions()
        bad.definitionExpression = "NOPE > 1"
        #expect(throws: FeatureTableError.self) { try EditableFeatureTable(emptyTable(editingSchema()), options: bad) }
    }

    @Test("a failed batch rolls back: the table is byte-identical, the valid edits report rolled back")
    func rollbackLeavesTableIdentical() throws {
        let editable = try EditableFeatureTable(emptyTable(editingSchema()), options: fixedOptions())
        editable.addFeatures((0..<40).map { validAdd("f\($0)", x: Double($0 % 10), y: Double($0 / 10)) })
        editable.applyEdits(updates: [FeatureEdit(objectID: 5, attributes: ["NAME": .string("g5")])], deletes: [7])
        let before = editable.snapshot
        let dumped = try dump(before)
        let result = editable.applyEdits(
            adds: [validAdd("new"), FeatureEdit(attributes: ["POP": .integer(1)])],
            updates: [FeatureEdit(objectID: 9, attributes: ["NAME": .string("changed")], geometry: point(3, 3))],
            deletes: [10, 11])
        let rolledBack = EditError(.rolledBack, "Operation rolled back: another edit of the batch failed.")
        #expect(result.addResults[0] == FeatureEditResult(objectID: -1, error: rolledBack))
        #expect(result.addResults[1].error?.kind == .nullNotAllowed)
        #expect(result.updateResults[0].error == rolledBack)
        #expect(result.deleteResults.map(\.error) == [rolledBack, rolledBack])
        let after = editable.snapshot
        #expect(try dump(after) == dumped)
        #expect(try dump(before) == dumped)
        // Without rollback the valid edits apply.
        let partial = editable.applyEdits(
            adds: [validAdd("new"), FeatureEdit(attributes: ["POP": .integer(1)])], deletes: [10], rollbackOnFailure: false)
        #expect(partial.addResults.map(\.success) == [true, false])
        #expect(partial.addResults[0].objectID == 41)
        #expect(partial.deleteResults[0].success)
        #expect(editable.snapshot.featureCount == 39)
        #expect(try dump(before) == dumped)
    }

    @Test("the REST JSON of the results")
    func resultJSON() throws {
        let editable = try EditableFeatureTable(emptyTable(editingSchema()), options: fixedOptions())
        let result = editable.applyEdits(adds: [validAdd("a"), FeatureEdit(attributes: ["NOPE": .integer(1)])], deletes: [8], rollbackOnFailure: false)
        #expect(result.json == #"{"addResults":[{"objectId":1,"globalId":"{00000000-0000-4000-8000-000000000001}","success":true},{"objectId":-1,"success":false,"error":{"code":1000,"description":"the table has no field \"NOPE\""}}],"updateResults":[],"deleteResults":[{"objectId":8,"success":false,"error":{"code":1019,"description":"Delete for the object was not attempted. Object ID 8 does not exist."}}]}"#)
    }

    @Test("compaction drops deleted rows and changes no answer")
    func compaction() throws {
        let table = try FeatureTable.load(contentsOf: fixtureURL("naturalearth_cities.geojson"))
        let editable = try EditableFeatureTable(table, options: fixedOptions())
        let ids = try table.queryObjectIDs(QueryParameters())
        editable.deleteFeatures(objectIDs: ids.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
        editable.updateFeatures(ids.enumerated().filter { $0.offset % 3 == 1 }.map { FeatureEdit(objectID: $0.element, geometry: point(Double($0.offset % 50), 10)) })
        let edited = editable.snapshot
        func answers(_ t: FeatureTable) throws -> String {
            let all = try t.queryFeatures(QueryParameters())
            let window = try t.queryObjectIDs(QueryParameters(geometry: .envelope(Envelope(xmin: 0, ymin: 0, xmax: 30, ymax: 40))))
            return all.text(.geoJSON) + "\(window)" + "\(try t.queryFeatureCount(QueryParameters(whereClause: "name LIKE 'S%'")))"
        }
        let expected = try answers(edited)
        try editable.compact()
        let compacted = editable.snapshot
        #expect(compacted.count == compacted.featureCount)
        #expect(compacted.count == edited.featureCount)
        #expect(try answers(compacted) == expected)
        #expect(compacted.byteCount < edited.byteCount)
        // Object IDs keep counting after compaction.
        #expect(editable.addFeatures([FeatureEdit(attributes: ["name": .string("New")], geometry: point(1, 1))])[0].objectID == (ids.max() ?? 0) + 1)
    }
}

@Suite("applyEdits requests")
struct ApplyEditsRequestTests {
    @Test("Esri JSON and GeoJSON features, deletes as an array or a REST string")
    func parsesBothShapes() throws {
        let schema = try editingSchema()
        let request = try ApplyEditsRequest(
            json: #"""
                {"f":"json","rollbackOnFailure":false,
                 "adds":[{"attributes":{"NAME":"a","POP":12,"RATE":1.5,"SEEN":"2024-03-01T12:00:00Z","STRICT":true},
                          "geometry":{"x":1113194.9079327357,"y":0,"spatialReference":{"wkid":3857}}},
                         {"type":"Feature","properties":{"NAME":"b"},"geometry":{"type":"Point","coordinates":[3,4]}}],
                 "updates":[{"type":"Feature","id":7,"properties":{"POP":null},"geometry":null}],
                 "deletes":"4, 5,6"}
                """#, schema: schema)
        #expect(request.rollbackOnFailure == false)
        #expect(request.adds.count == 2)
        #expect(request.adds[0].attributes["POP"] == .integer(12))
        #expect(request.adds[0].attributes["RATE"] == .double(1.5))
        #expect(request.adds[0].attributes["SEEN"] == .date(1_709_294_400_000))
        #expect(request.adds[0].attributes["STRICT"] == .boolean(true))
        #expect(request.adds[0].spatialReference == SpatialReference(wkid: 3857))
        #expect(request.adds[1].geometry == point(3, 4))
        #expect(request.adds[1].spatialReference == .wgs84)
        #expect(request.updates[0].objectID == 7)
        #expect(request.updates[0].attributes["POP"] == .null)
        #expect(request.updates[0].geometry == nil)
        #expect(request.deletes == [4, 5, 6])
        #expect(try ApplyEditsRequest(json: #"{"deletes":[1,"2"]}"#, schema: schema).deletes == [1, 2])
        // A boolean is no integer: the add fails its edit, with the field named.
        let editable = try EditableFeatureTable(emptyTable(schema), options: fixedOptions())
        let result = editable.applyEdits(request)
        #expect(result.addResults[0].error == EditError(.wrongType, "the boolean true cannot be stored in field STRICT of type Integer", fieldName: "STRICT"))
    }

    @Test("what makes a request unusable is reported with where it is")
    func unusable() throws {
        let schema = try editingSchema()
        func problem(_ text: String) -> String? {
            do {
                _ = try ApplyEditsRequest(json: text, schema: schema)
                return nil
            } catch {
                return "\(error)"
            }
        }
        #expect(problem(#"{"adds":[{"attributes":{"NAME":{"x":1}}}]}"#) == "invalid edits at position 32: adds[0].attributes.NAME: an attribute value must be a string, number, boolean or null, not an object")
        #expect(problem(#"{"adds":[1]}"#) == "invalid edits at position 10: adds[0]: a feature must be an object, not a number")
        #expect(problem(#"{"rollbackOnFailure":"yes"}"#) == "invalid edits at position 22: rollbackOnFailure: rollbackOnFailure must be true or false, not a string")
        #expect(problem(#"{"deletes":[1.5]}"#) == "invalid edits at position 13: deletes[0]: the number 1.5 is not an object ID")
        #expect(problem(#"{"adds":[{"geometry":{"rings":"x"}}]}"#)?.hasPrefix("invalid edits at position") == true)
        #expect(problem(#"{"adds":[{"attributes":{}}]"#)?.hasPrefix("invalid JSON") == true)
    }
}

@Suite("Local edits")
struct LocalEditsTests {
    /// A table of three features (object IDs 1, 2, 3) with its edits committed.
    func threeFeatures() throws -> EditableFeatureTable {
        let editable = try EditableFeatureTable(emptyTable(editingSchema()), options: fixedOptions())
        editable.addFeatures([validAdd("a", x: 1, y: 1), validAdd("b", x: 2, y: 2), validAdd("c", x: 3, y: 3)])
        editable.commitLocalEdits()
        return editable
    }

    @Test("the net edits since the last commit, in the applyEdits shape")
    func netEdits() throws {
        let editable = try threeFeatures()
        #expect(!editable.hasLocalEdits)
        editable.applyEdits(
            adds: [validAdd("d", x: 4, y: 4), validAdd("gone", x: 5, y: 5)],
            updates: [FeatureEdit(objectID: 1, attributes: ["POP": .integer(7)]), FeatureEdit(objectID: 2, attributes: ["NAME": .string("b")])],
            deletes: [3])
        editable.deleteFeatures(objectIDs: [5])  // added, then deleted: no edit
        #expect(editable.hasLocalEdits)
        let edits = editable.localEdits
        #expect(edits.deletes == [3])
        #expect(edits.updates.map(\.objectID) == [1])  // 2 was set to the value it had
        #expect(edits.updates[0].attributes == ["OBJECTID": .integer(1), "POP": .integer(7)])
        #expect(edits.updates[0].geometry == nil)
        #expect(edits.adds.count == 1)
        #expect(edits.adds[0].attributes["NAME"] == .string("d"))
        #expect(edits.adds[0].attributes["OBJECTID"] == nil)
        #expect(edits.adds[0].attributes["GLOBALID"] == .string("{00000000-0000-4000-8000-000000000004}"))
        // The JSON reads back as the same request.
        let reread = try ApplyEditsRequest(json: edits.json, schema: editable.snapshot.schema)
        #expect(reread.deletes == [3])
        #expect(reread.updates[0].attributes == edits.updates[0].attributes)
        #expect(reread.adds[0].geometry == point(4, 4))
        #expect(edits.json.hasPrefix(#"{"adds":[{"attributes":{"CODE":"none","CREATED":null,"#))
        // Committing makes them the base.
        #expect(editable.commitLocalEdits().deletes == [3])
        #expect(!editable.hasLocalEdits)
        #expect(editable.localEdits.adds.isEmpty)
    }

    @Test("undo puts every feature back as committed, object IDs and global IDs included")
    func undo() throws {
        let editable = try threeFeatures()
        let committed = editable.snapshot
        let committedDump = try dump(committed)
        _ = try committed.queryObjectIDs(QueryParameters(geometry: point(1, 1)))  // index built: undo maintains it
        editable.applyEdits(
            adds: [validAdd("d", x: 4, y: 4)],
            updates: [FeatureEdit(objectID: 1, attributes: ["NAME": .string("changed")], geometry: point(9, 9))],
            deletes: [2])
        let edited = editable.snapshot
        editable.undoLocalEdits()
        let undone = editable.snapshot
        #expect(!editable.hasLocalEdits)
        #expect(try undone.queryObjectIDs(QueryParameters()) == [1, 2, 3])
        for id in Int64(1)...3 {
            let then = try #require(committed.row(forObjectID: id)), now = try #require(undone.row(forObjectID: id))
            for field in 0..<committed.schema.fields.count {
                #expect(undone.value(row: now, fieldIndex: field) == committed.value(row: then, fieldIndex: field))
            }
            #expect(undone.geometry(row: now) == committed.geometry(row: then))
        }
        #expect(try undone.queryObjectIDs(QueryParameters(geometry: point(1, 1))) == [1])
        #expect(try undone.queryObjectIDs(QueryParameters(geometry: point(9, 9))) == [])
        #expect(try undone.queryObjectIDs(QueryParameters(geometry: point(2, 2))) == [2])
        // Snapshots taken before are unchanged; the undone add's object ID is not given again.
        #expect(try dump(committed) == committedDump)
        #expect(edited.row(forObjectID: 2) == nil)
        #expect(try edited.queryObjectIDs(QueryParameters()) == [1, 3, 4])
        #expect(editable.addFeatures([validAdd("e")])[0].objectID == 5)
    }

    @Test("undo after a compaction")
    func undoAcrossCompaction() throws {
        let editable = try threeFeatures()
        editable.deleteFeatures(objectIDs: [1])
        editable.updateFeatures([FeatureEdit(objectID: 3, attributes: ["POP": .integer(99)])])
        try editable.compact()
        editable.undoLocalEdits()
        let table = editable.snapshot
        #expect(try table.queryObjectIDs(QueryParameters()) == [1, 2, 3])
        #expect(try table.queryFeatureCount(QueryParameters(whereClause: "POP = 99")) == 0)
        #expect(try table.queryObjectIDs(QueryParameters(geometry: point(1, 1))) == [1])
    }
}

@Suite("Feature types and templates")
struct FeatureTypesTests {
    static let layerJSON = #"""
        {"typeIdField":"KIND",
         "types":[
           {"id":1,"name":"Hydrant","domains":{"SCORE":{"type":"range","name":"Pressure","range":[10,20]},"POP":{"type":"inherited"}},
            "templates":[{"name":"Red hydrant","description":"A hydrant","drawingTool":"esriFeatureEditToolPoint",
                          "prototype":{"attributes":{"name":"red","STRICT":5,"KIND":1}}}]},
           {"id":2,"name":"Valve","domains":{},"templates":[]}],
         "templates":[]}
        """#

    func schema() throws -> Schema {
        try editingSchema().withTypes(esriLayerJSON: Self.layerJSON)
    }

    @Test("types and templates read from layer JSON and written back")
    func roundTrip() throws {
        let schema = try schema()
        #expect(schema.typeIdFieldName == "KIND")
        #expect(schema.types.map(\.name) == ["Hydrant", "Valve"])
        #expect(schema.types[0].id == .integer(1))
        #expect(schema.types[0].domains == ["SCORE": .range(name: "Pressure", min: .double(10), max: .double(20))])
        #expect(schema.types[0].templates[0].prototypeAttributes == ["NAME": .string("red"), "STRICT": .integer(5), "KIND": .integer(1)])
        let again = try editingSchema().withTypes(esriLayerJSON: schema.esriTypesJSON)
        #expect(again == schema)
        #expect(throws: FeatureTableError.self) { try editingSchema().withTypes(esriLayerJSON: #"{"types":[{"id":1,"name":"x"}]}"#) }
        #expect(throws: FeatureTableError.self) { try editingSchema().withTypes(esriLayerJSON: #"{"typeIdField":"NOPE"}"#) }
        #expect(throws: FeatureTableError.self) {
            try editingSchema().withTypes(esriLayerJSON: #"{"typeIdField":"KIND","types":[{"id":1,"name":"a"},{"id":1,"name":"b"}]}"#)
        }
    }

    @Test("createFeature prefills defaults, the prototype and the type; the type's domain applies")
    func createAndValidate() throws {
        let table = try emptyTable(schema())
        let editable = try EditableFeatureTable(table, options: fixedOptions())
        let hydrant = table.schema.types[0]
        let fromTemplate = editable.snapshot.createFeature(template: hydrant.templates[0], geometry: point(1, 1))
        #expect(fromTemplate.attributes == ["CODE": .string("none"), "NAME": .string("red"), "STRICT": .integer(5), "KIND": .integer(1)])
        let valve = editable.snapshot.createFeature(type: table.schema.types[1])
        #expect(valve.attributes == ["CODE": .string("none"), "KIND": .integer(2)])
        #expect(editable.snapshot.createFeature(type: hydrant).attributes["NAME"] == .string("red"))
        // The hydrant's SCORE must lie in its own range (10…20), not the field's (0…100).
        var tooLow = fromTemplate
        tooLow.attributes["SCORE"] = .integer(50)
        #expect(editable.addFeatures([tooLow])[0].error == EditError(.outsideDomain, "50.0 is outside the range domain \"Pressure\" of field SCORE (10.0 to 20.0)", fieldName: "SCORE"))
        var inRange = fromTemplate
        inRange.attributes["SCORE"] = .integer(15)
        #expect(editable.addFeatures([inRange])[0].success)
        // A valve takes the field's domain; changing a feature's type checks the new type's.
        var valveScore = valve
        valveScore.attributes["STRICT"] = .integer(1)
        valveScore.attributes["SCORE"] = .integer(50)
        #expect(editable.addFeatures([valveScore])[0].success)
        #expect(editable.updateFeatures([FeatureEdit(objectID: 2, attributes: ["KIND": .integer(1)])])[0].error?.kind == .outsideDomain)
    }
}

@Suite("Attachments")
struct AttachmentTests {
    func table(tracking: EditorTracking? = nil) throws -> EditableFeatureTable {
        var options = fixedOptions(tracking: tracking)
        options.hasAttachments = true
        let editable = try EditableFeatureTable(emptyTable(editingSchema()), options: options)
        editable.addFeatures([validAdd("a"), validAdd("b")], user: "ann")
        return editable
    }

    @Test("add, query, fetch, update and delete; IDs unique per table and never reused")
    func lifecycle() throws {
        let editable = try table()
        let before = editable.snapshot
        #expect(editable.addAttachment(objectID: 1, name: "a.jpg", contentType: "image/jpeg", data: [1, 2, 3]) == FeatureEditResult(objectID: 1))
        #expect(editable.addAttachment(objectID: 2, name: "b.txt", contentType: "text/plain", data: Array("hi".utf8)).objectID == 2)
        #expect(editable.addAttachment(objectID: 1, name: "c.png", contentType: "image/png", data: []).objectID == 3)
        let table = editable.snapshot
        #expect(table.queryAttachmentInfos(objectID: 1) == [
            AttachmentInfo(id: 1, parentObjectID: 1, name: "a.jpg", contentType: "image/jpeg", size: 3),
            AttachmentInfo(id: 3, parentObjectID: 1, name: "c.png", contentType: "image/png", size: 0),
        ])
        #expect(AttachmentInfo.json(table.queryAttachmentInfos(objectID: 2)) == #"{"attachmentInfos":[{"id":2,"parentObjectId":2,"name":"b.txt","contentType":"text/plain","size":2}]}"#)
        #expect(table.fetchAttachment(objectID: 1, attachmentID: 1) == [1, 2, 3])
        #expect(table.fetchAttachment(objectID: 2, attachmentID: 1) == nil)  // not feature 2's
        #expect(before.queryAttachmentInfos(objectID: 1) == [])
        #expect(editable.updateAttachment(objectID: 1, attachmentID: 1, name: "a2.jpg", data: [9]).success)
        #expect(editable.snapshot.queryAttachmentInfos(objectID: 1)[0] == AttachmentInfo(id: 1, parentObjectID: 1, name: "a2.jpg", contentType: "image/jpeg", size: 1))
        #expect(table.fetchAttachment(objectID: 1, attachmentID: 1) == [1, 2, 3])
        #expect(editable.updateAttachment(objectID: 1, attachmentID: 2, data: []).error == EditError(.missingAttachment, "feature 1 has no attachment 2"))
        #expect(editable.deleteAttachments(objectID: 1, attachmentIDs: [3, 2]).map(\.success) == [true, false])
        #expect(editable.addAttachment(objectID: 1, name: "d", contentType: "x/y", data: []).objectID == 4)
        #expect(editable.addAttachment(objectID: 9, name: "d", contentType: "x/y", data: []).error == EditError(.missingObjectID, "Object ID 9 does not exist."))
        #expect(editable.deleteAttachments(objectID: 9, attachmentIDs: [1, 2]).map(\.error?.kind) == [.missingObjectID, .missingObjectID])
    }

    @Test("deleting a feature deletes its attachments; a rolled-back batch keeps them; undo brings them back")
    func withFeatures() throws {
        let editable = try table()
        editable.commitLocalEdits()
        editable.addAttachment(objectID: 1, name: "a", contentType: "text/plain", data: [1])
        editable.addAttachment(objectID: 2, name: "b", contentType: "text/plain", data: [2])
        editable.commitLocalEdits()
        let rolledBack = editable.applyEdits(adds: [FeatureEdit(attributes: ["POP": .integer(1)])], deletes: [1])
        #expect(!rolledBack.allSucceeded)
        #expect(editable.snapshot.queryAttachmentInfos(objectID: 1).map(\.id) == [1])
        #expect(editable.deleteFeatures(objectIDs: [1])[0].success)
        #expect(editable.snapshot.fetchAttachment(objectID: 1, attachmentID: 1) == nil)
        #expect(editable.snapshot.attachments.infos(of: 1).isEmpty)
        editable.deleteAttachments(objectID: 2, attachmentIDs: [2])
        editable.undoLocalEdits()
        #expect(editable.snapshot.fetchAttachment(objectID: 1, attachmentID: 1) == [1])
        #expect(editable.snapshot.fetchAttachment(objectID: 2, attachmentID: 2) == [2])
        try editable.compact()
        #expect(editable.snapshot.fetchAttachment(objectID: 2, attachmentID: 2) == [2])
        #expect(editable.addAttachment(objectID: 2, name: "c", contentType: "text/plain", data: []).objectID == 3)
    }

    @Test("attachments need a table that keeps them, the Update capability and ownership")
    func permissions() throws {
        let plain = try EditableFeatureTable(emptyTable(editingSchema()), options: fixedOptions())
        plain.addFeatures([validAdd("a")])
        #expect(plain.addAttachment(objectID: 1, name: "a", contentType: "x/y", data: []).error == EditError(.notAllowed, "the table has no attachments"))
        #expect(!plain.canEditAttachments(objectID: 1))
        let tracking = EditorTracking(creatorField: "CREATOR", ownershipBasedAccessControl: true, allowOthersToUpdate: false)
        let owned = try table(tracking: tracking)
        #expect(owned.canEditAttachments(objectID: 1, user: "ann"))
        #expect(owned.addAttachment(objectID: 1, name: "a", contentType: "x/y", data: [], user: "bob").error?.kind == .notOwner)
        #expect(owned.addAttachment(objectID: 1, name: "a", contentType: "x/y", data: [], user: "ann").success)
    }
}
