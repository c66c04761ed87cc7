import Foundation
import SieveColumns
import SieveGeometry
import Testing

@testable import SieveFeatures
@testable import SieveEditing
@testable import SieveFormats

/// A service table's cache filling up: features read from a service are merged in by object ID,
/// never held twice, and never counted as local edits.
@Suite("Merging features read from a service")
struct ServiceMergeTests {
    static let fields = #"[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"NAME","type":"esriFieldTypeString"},{"name":"POP","type":"esriFieldTypeInteger"}]"#

    /// An Esri JSON table of points: (object ID, name, population, x).
    static func page(_ features: [(Int64, String, Int?, Double)], fields: String = Self.fields) throws -> FeatureTable {
        let items = features.map { id, name, pop, x in
            #"{"attributes":{"OBJECTID":\#(id),"NAME":"\#(name)""# + (fields.contains("POP") ? ",\"POP\":\(pop.map(String.init) ?? "null")" : "")
                + #"},"geometry":{"x":\#(x),"y":0}}"#
        }
        return try FeatureTable.load(
            esriJSON: #"{"geometryType":"esriGeometryPoint","spatialReference":{"wkid":4326},"fields":\#(fields),"features":[\#(items.joined(separator: ","))]}"#)
    }

    static func rows(_ table: EditableFeatureTable) throws -> [String] {
        let snapshot = table.snapshot
        return try snapshot.queryObjectIDs(QueryParameters()).map { id in
            let row = try #require(snapshot.row(forObjectID: id))
            let x = snapshot.geometry(row: row).map { "\($0.envelope.xmin)" } ?? "-"
            return "\(id) \(snapshot.value(row: row, fieldIndex: 1)) \(snapshot.value(row: row, fieldIndex: 2)) \(x)"
        }
    }

    @Test func pagesAreGivenTheCachesFields() throws {
        // Inferred from one page: a whole, b null (String), c text, d a date string.
        let page = try FeatureTable.load(geoJSON: #"""
            {"type":"FeatureCollection","features":[
              {"type":"Feature","id":5,"properties":{"a":1,"b":null,"c":"12","d":"2024-03-01"},"geometry":{"type":"Point","coordinates":[1,2]}},
              {"type":"Feature","id":9,"properties":{"a":2,"b":null,"c":"x","d":null},"geometry":null}]}
            """#)
        let fields = [
            Field(name: "OBJECTID", type: .oid), Field(name: "A", type: .double), Field(name: "b", type: .integer),
            Field(name: "c", type: .string), Field(name: "d", type: .date), Field(name: "e", type: .string),
        ]
        let conformed = try page.conformed(to: fields)
        #expect(conformed.schema.fields.map(\.name) == ["OBJECTID", "A", "b", "c", "d", "e"])
        // Same rows, object IDs and geometries; values converted; e absent, so NULL.
        #expect(conformed.count == 2)
        #expect((0..<2).map(conformed.objectID(row:)) == [5, 9])
        #expect(conformed.geometry(row: 0) == page.geometry(row: 0))
        #expect(conformed.geometry(row: 1) == nil)
        #expect((0..<2).map { conformed.value(row: $0, field: "A") } == [.double(1), .double(2)])
        #expect((0..<2).map { conformed.value(row: $0, field: "b") } == [.null, .null])
        #expect((0..<2).map { conformed.value(row: $0, field: "c") } == [.string("12"), .string("x")])
        // 2024-03-01T00:00:00Z: 19,783 days after 1970-01-01.
        #expect((0..<2).map { conformed.value(row: $0, field: "d") } == [.date(19_783 * 86_400_000), .null])
        #expect((0..<2).map { conformed.value(row: $0, field: "e") } == [.null, .null])
        #expect(try conformed.queryObjectIDs(QueryParameters(whereClause: "A > 1.5")) == [9])
        // A value the field cannot hold: the field and object ID named.
        let strict = [Field(name: "OBJECTID", type: .oid), Field(name: "c", type: .integer)]
        #expect {
            try page.conformed(to: strict)
        } throws: { error in
            let error = error as? FeatureTableError
            return error?.kind == .conversionFailed && error?.fieldName == "c" && error?.objectID == 9
        }
    }

    @Test func featuresAreAddedOnceAndReplacedInPlace() throws {
        let cache = try EditableFeatureTable(try Self.page([]))
        #expect(try cache.mergeFromService(Self.page([(1, "a", 10, 1), (2, "b", 20, 2), (3, "c", 30, 3)]))
            == ServiceMergeResult(added: 3, replaced: 0, unchanged: 0, keptLocal: 0))
        // 2 changed, 3 the same, 4 new.
        #expect(try cache.mergeFromService(Self.page([(2, "B", 21, 2.5), (3, "c", 30, 3), (4, "d", nil, 4)]))
            == ServiceMergeResult(added: 1, replaced: 1, unchanged: 1, keptLocal: 0))
        #expect(try Self.rows(cache) == ["1 'a' 10 1.0", "2 'B' 21 2.5", "3 'c' 30 3.0", "4 'd' NULL 4.0"])
        #expect(try cache.snapshot.queryFeatureCount(QueryParameters()) == 4)
        #expect(try cache.snapshot.queryObjectIDs(QueryParameters(geometry: .envelope(Envelope(xmin: 2.4, ymin: -1, xmax: 2.6, ymax: 1)))) == [2])
        #expect(!cache.hasLocalEdits)
    }

    @Test func localEditsWinAndNewObjectIDsComeAfterTheServices() throws {
        let cache = try EditableFeatureTable(try Self.page([]))
        try cache.mergeFromService(Self.page([(7, "a", 10, 1), (9, "b", 20, 2)]))
        #expect(cache.updateFeatures([FeatureEdit(objectID: 7, attributes: ["POP": .integer(11)])])[0].success)
        #expect(try cache.mergeFromService(Self.page([(7, "a", 12, 1), (9, "b", 22, 2)]))
            == ServiceMergeResult(added: 0, replaced: 1, unchanged: 0, keptLocal: 1))
        #expect(try Self.rows(cache) == ["7 'a' 11 1.0", "9 'b' 22 2.0"])
        #expect(cache.localEdits.updates.map(\.objectID) == [7])
        let added = cache.addFeatures([FeatureEdit(attributes: ["NAME": .string("new")], geometry: .point(Point(x: 5, y: 5)))])
        #expect(added[0].objectID == 10)
        // Merged while edits were pending, then edited: an update (from the service's version),
        // not an add; undone, it is the service's version again.
        try cache.mergeFromService(Self.page([(20, "s", 1, 9)]))
        #expect(cache.updateFeatures([FeatureEdit(objectID: 20, attributes: ["POP": .integer(2)])])[0].success)
        let edits = cache.localEdits
        #expect(edits.adds.count == 1)
        #expect(edits.updates.map(\.objectID) == [7, 20])
        #expect(edits.updates.last?.attributes["POP"] == .integer(2))
        cache.undoLocalEdits()
        #expect(try Self.rows(cache) == ["7 'a' 10 1.0", "9 'b' 22 2.0", "20 's' 1 9.0"])
        #expect(!cache.hasLocalEdits)
        // Once committed (sent), a merge starts from the new state.
        #expect(cache.updateFeatures([FeatureEdit(objectID: 9, attributes: ["POP": .integer(23)])])[0].success)
        cache.commitLocalEdits()
        try cache.mergeFromService(Self.page([(21, "t", 1, 8)]))
        #expect(cache.updateFeatures([FeatureEdit(objectID: 21, attributes: ["POP": .integer(5)])])[0].success)
        #expect(cache.localEdits.updates.map(\.objectID) == [21])
        #expect(cache.localEdits.adds.isEmpty)
    }

    @Test func fieldsAreMatchedByName() throws {
        let cache = try EditableFeatureTable(try Self.page([(1, "a", 10, 1)]))
        // Without POP: held features keep theirs, new ones have none.
        let names = #"[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"NAME","type":"esriFieldTypeString"}]"#
        #expect(try cache.mergeFromService(Self.page([(1, "A", nil, 1), (2, "b", nil, 2)], fields: names))
            == ServiceMergeResult(added: 1, replaced: 1, unchanged: 0, keptLocal: 0))
        #expect(try Self.rows(cache) == ["1 'A' 10 1.0", "2 'b' NULL 2.0"])
        // A field the table does not have, or of another type: refused, nothing changed.
        let other = #"[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"NAME","type":"esriFieldTypeString"},{"name":"AREA","type":"esriFieldTypeDouble"}]"#
        let before = try Self.rows(cache)
        #expect(throws: FeatureTableError.self) { try cache.mergeFromService(Self.page([(3, "c", nil, 3)], fields: other)) }
        let retyped = #"[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"POP","type":"esriFieldTypeString"}]"#
        #expect(throws: FeatureTableError.self) {
            try cache.mergeFromService(FeatureTable.load(esriJSON: #"{"fields":\#(retyped),"features":[{"attributes":{"OBJECTID":3,"POP":"x"}}]}"#))
        }
        #expect(try Self.rows(cache) == before)
    }
}
