import Foundation
import SieveColumns
import SieveGeometry
import Testing

@testable import SieveFeatures
@testable import SieveEditing
@testable import SieveFormats

/// Saving edits into the GeoJSON or Esri JSON file a table was loaded from keeps the file's own
/// representation (``FeatureWriterOptions/keepsFileRepresentation``).
@Suite("file representation")
struct FileRepresentationTests {
    /// `text` loaded as `edit` and `serve --allow-edits` load it: remembering the file's shape.
    static func loadKeepingShape(_ text: String) throws -> FeatureTable {
        var options = LoadOptions()
        options.keepsFileRepresentation = true
        return try FeatureTable.loadReporting(json: Array(text.utf8), options: options).table
    }

    /// A root bbox stays as written while it contains every feature saved, and is redone when
    /// an edit puts a feature outside it.
    @Test func theBoundingBoxFollowsTheEdits() throws {
        let text = #"{"type":"FeatureCollection","bbox":[0,0,10,10],"features":[{"type":"Feature","id":1,"properties":{"x":1},"geometry":{"type":"Point","coordinates":[1,1]}},{"type":"Feature","id":2,"properties":{"x":2},"geometry":{"type":"Point","coordinates":[5,5]}}]}"#
        let deleted = try Self.roundTrip(text) { editable in
            _ = editable.applyEdits(deletes: [2])
        }
        #expect(deleted.hasPrefix(#"{"type":"FeatureCollection","bbox":[0,0,10,10],"#))
        let moved = try Self.roundTrip(text) { editable in
            _ = editable.applyEdits(updates: [FeatureEdit(objectID: 2, geometry: .point(Point(x: 20, y: -3)))])
        }
        #expect(moved.hasPrefix(#"{"type":"FeatureCollection","bbox":[1,-3,20,1],"#), "\(moved)")
    }

    @Test func onlyLoadsThatAskRememberTheFileShape() throws {
        let text = #"{"type":"FeatureCollection","features":[{"type":"Feature","id":4,"properties":{"a":1},"geometry":null}]}"#
        #expect(try FeatureTable.load(geoJSON: text).fileRepresentation == nil)
        #expect(try Self.loadKeepingShape(text).fileRepresentation?.objectIDs == .featureIDs)
    }

    /// The options a save uses; `fraction` when the file wrote whole coordinates as `1.0`.
    static func saving(fraction: Bool = false) -> FeatureWriterOptions {
        var options = FeatureWriterOptions()
        options.keepsFileRepresentation = true
        options.wholeCoordinatesWithFraction = fraction
        return options
    }

    /// `text` loaded, edited by `edit` (nothing by default) and written back as a save does.
    static func roundTrip(
        _ text: String, format: FeatureOutputFormat = .geoJSON, fraction: Bool = false,
        edit: (EditableFeatureTable) -> Void = { _ in }
    ) throws -> String {
        let table = try Self.loadKeepingShape(text)
        let editable = try EditableFeatureTable(table)
        edit(editable)
        return editable.snapshot.savedFeatures().text(format, options: saving(fraction: fraction))
    }

    @Test("GeoJSON without edits is written back byte for byte")
    func identicalGeoJSON() throws {
        let documents = [
            // Ids from `id`, properties before the geometry (as GDAL writes them).
            #"{"type":"FeatureCollection","features":[{"type":"Feature","id":3,"properties":{"name":"a","pop":889953.0,"n":5},"geometry":{"type":"Point","coordinates":[1.5,2.25]}},{"type":"Feature","id":1,"properties":{"name":"b","pop":1.5,"n":6},"geometry":null}]}"#,
            // No ids at all, and root members of its own.
            #"{"type":"FeatureCollection","name":"places","bbox":[-180,-90,180,90.5],"features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1.5,2.5]},"properties":{"x":1}},{"type":"Feature","geometry":{"type":"Point","coordinates":[3.5,4.5]},"properties":{"x":2}}]}"#,
            // An OBJECTID property and ids equal to it (as a query writes them).
            #"{"type":"FeatureCollection","features":[{"type":"Feature","id":7,"geometry":null,"properties":{"OBJECTID":7,"v":"x"}},{"type":"Feature","id":9,"geometry":null,"properties":{"OBJECTID":9,"v":"y"}}]}"#,
            // String ids, booleans, arrays and objects, a legacy crs.
            #"{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::2263"}},"features":[{"type":"Feature","id":"a","properties":{"ok":true,"tags":["x",1.5],"o":{"k":null}},"geometry":{"type":"Point","coordinates":[1000.5,2000.5]}},{"type":"Feature","id":"b","properties":{"ok":false,"tags":[],"o":{}},"geometry":null}]}"#,
            // An OBJECTID property, and ids that differ from it.
            #"{"type":"FeatureCollection","features":[{"type":"Feature","id":1,"properties":{"OBJECTID":10},"geometry":null},{"type":"Feature","id":2,"properties":{"OBJECTID":20},"geometry":null}]}"#,
            // Dates in the forms the file wrote them (loaded as instants).
            #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"day":"2024-03-01","at":"2024-03-01T12:30:00Z","ms":"2024-03-01T12:30:00.250Z"},"geometry":null},{"type":"Feature","properties":{"day":"1999-12-31","at":"2024-03-02T00:00:00Z","ms":null},"geometry":null}]}"#,
            // Integer ids some features lack.
            #"{"type":"FeatureCollection","features":[{"type":"Feature","id":10,"properties":{"a":1},"geometry":null},{"type":"Feature","properties":{"a":2},"geometry":null}]}"#,
        ]
        for document in documents {
            #expect(try Self.roundTrip(document) == document)
        }
        // Whole coordinates written with a fraction, as Python and GDAL write them.
        let fractions = #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"v":1.0},"geometry":{"type":"Polygon","coordinates":[[[180.0,-16.5],[179.0,-16.0],[180.0,-17.0],[180.0,-16.5]]]}}]}"#
        #expect(try Self.roundTrip(fractions, fraction: true) == fractions)
        #expect(CoordinateFormat.wholeCoordinatesHaveFraction(in: Array(fractions.utf8)) == true)
        #expect(CoordinateFormat.wholeCoordinatesHaveFraction(in: Array(#"{"geometry":{"coordinates":[1.5,180]}}"#.utf8)) == false)
        #expect(CoordinateFormat.wholeCoordinatesHaveFraction(in: Array(#"{"geometry":{"x":2.0,"y":1.5}}"#.utf8)) == true)
        #expect(CoordinateFormat.wholeCoordinatesHaveFraction(in: Array(#"{"geometry":{"coordinates":[1.5,2.5]}}"#.utf8)) == nil)
    }

    @Test("Esri JSON without edits is written back byte for byte, its fields and objectIdFieldName kept")
    func identicalEsriJSON() throws {
        let documents = [
            #"{"objectIdFieldName":"FID","geometryType":"esriGeometryPoint","spatialReference":{"wkid":4326},"fields":[{"name":"FID","type":"esriFieldTypeOID"},{"name":"name","type":"esriFieldTypeString","length":20}],"features":[{"attributes":{"FID":5,"name":"a"},"geometry":{"x":1.5,"y":2.5}},{"attributes":{"FID":2,"name":"b"},"geometry":{"x":3.5,"y":4.5}}]}"#,
            // No object-ID field: the one the loader adds is not written.
            #"{"geometryType":"esriGeometryPoint","spatialReference":{"wkid":4326},"fields":[{"name":"name","type":"esriFieldTypeString"}],"features":[{"attributes":{"name":"a"},"geometry":{"x":1.5,"y":2.5}}]}"#,
        ]
        for document in documents {
            #expect(try Self.roundTrip(document, format: .esriJSON) == document)
        }
    }

    @Test("where ids came from decides where they are written; the fields the loader added are not")
    func provenance() throws {
        let fromIDs = try Self.loadKeepingShape(#"{"type":"FeatureCollection","features":[{"type":"Feature","id":4,"properties":{"a":1},"geometry":null}]}"#)
        let representation = try #require(fromIDs.fileRepresentation)
        #expect(representation.objectIDs == .featureIDs)
        #expect(representation.addedObjectIDField == "OBJECTID")
        #expect(fromIDs.objectIDs.array == [4])
        let numbered = try Self.loadKeepingShape(#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"a":1},"geometry":null}]}"#)
        #expect(numbered.fileRepresentation?.objectIDs == .positions)
        let attribute = try Self.loadKeepingShape(#"{"type":"FeatureCollection","features":[{"type":"Feature","id":1,"properties":{"objectid":8},"geometry":null}]}"#)
        #expect(attribute.fileRepresentation?.objectIDs == .attribute)
        #expect(attribute.fileRepresentation?.featureIDsAreObjectIDs == false)
        // Integer ids that are not the object IDs are kept for the save, not as a field.
        #expect(attribute.schema.fieldNames == ["objectid"])
        #expect(attribute.fileRepresentation?.featureIDsByObjectID == [8: 1])
        let partial = try Self.loadKeepingShape(#"{"type":"FeatureCollection","features":[{"type":"Feature","id":5,"properties":{},"geometry":null},{"type":"Feature","properties":{},"geometry":null}]}"#)
        #expect(partial.schema.fieldNames == ["OBJECTID"])
        #expect(partial.objectIDs.array == [1, 2])
        #expect(partial.fileRepresentation?.featureIDsByObjectID == [1: 5])
        // Ids that are not all integers are kept in a field, `id`, as before.
        let strings = try Self.loadKeepingShape(#"{"type":"FeatureCollection","features":[{"type":"Feature","id":"a","properties":{},"geometry":null}]}"#)
        #expect(strings.schema.fieldNames == ["OBJECTID", "id"])
        #expect(strings.fileRepresentation?.featureIDField == "id")
        // A table built otherwise has none, and is written as a query writes it.
        let schema = try Schema(fields: [Field(name: "OBJECTID", type: .oid)], objectIdFieldName: "OBJECTID")
        #expect(try FeatureTable(schema: schema, columns: [.integer(Int64Column(values: [Int64]()))]).fileRepresentation == nil)
        // The loaded file's format decides which writer keeps it.
        let asEsri = numbered.savedFeatures().text(.esriJSON, options: Self.saving())
        #expect(asEsri.hasPrefix(#"{"objectIdFieldName":"OBJECTID""#))
    }

    @Test("edits: the updated feature stays in place with its new values, added ones follow, deleted ones go")
    func edits() throws {
        let document = #"{"type":"FeatureCollection","features":[{"type":"Feature","id":30,"properties":{"name":"c","v":1.5},"geometry":{"type":"Point","coordinates":[1.5,2.5]}},{"type":"Feature","id":10,"properties":{"name":"a","v":2.5},"geometry":{"type":"Point","coordinates":[3.5,4.5]}},{"type":"Feature","id":20,"properties":{"name":"b","v":3.5},"geometry":{"type":"Point","coordinates":[5.5,6.5]}}]}"#
        let saved = try Self.roundTrip(document) { editable in
            _ = editable.applyEdits(
                adds: [FeatureEdit(attributes: ["name": .string("d"), "v": .double(4)], geometry: .point(Point(x: 7, y: 8)))],
                updates: [FeatureEdit(objectID: 30, attributes: ["v": .double(9)])], deletes: [10])
            _ = editable.applyEdits(updates: [FeatureEdit(objectID: 30, attributes: ["name": .string("C")])])
        }
        #expect(
            saved
                == #"{"type":"FeatureCollection","features":[{"type":"Feature","id":30,"properties":{"name":"C","v":9.0},"geometry":{"type":"Point","coordinates":[1.5,2.5]}},{"type":"Feature","id":20,"properties":{"name":"b","v":3.5},"geometry":{"type":"Point","coordinates":[5.5,6.5]}},{"type":"Feature","id":31,"properties":{"name":"d","v":4.0},"geometry":{"type":"Point","coordinates":[7,8]}}]}"#
        )
        // Without ids in the file, an added feature gets none either.
        let numbered = #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":null,"properties":{"ok":true}}]}"#
        let added = try Self.roundTrip(numbered) { editable in
            _ = editable.applyEdits(adds: [FeatureEdit(attributes: ["ok": .integer(0)])])
        }
        #expect(
            added
                == #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":null,"properties":{"ok":true}},{"type":"Feature","geometry":null,"properties":{"ok":false}}]}"#
        )
    }

    @Test("query output is unchanged: object IDs as id and among the properties")
    func queryOutputUnchanged() throws {
        let table = try Self.loadKeepingShape(#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"ok":true},"geometry":null}]}"#)
        #expect(
            try table.queryFeatures(QueryParameters()).text(.geoJSON)
                == #"{"type":"FeatureCollection","features":[{"type":"Feature","id":1,"geometry":null,"properties":{"OBJECTID":1,"ok":1}}]}"#)
        #expect(
            table.savedFeatures().text(.geoJSON)
                == #"{"type":"FeatureCollection","features":[{"type":"Feature","id":1,"geometry":null,"properties":{"OBJECTID":1,"ok":1}}]}"#)
    }
}
