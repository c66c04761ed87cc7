import Foundation
import SieveColumns
import SieveFeatures
import SieveEditing
import SieveGeometry
import SieveFormats
import Testing

/// Attachments written to a GeoPackage as the `LAYER__ATTACH` table and read back.
@Suite("GeoPackage attachments")
struct GeoPackageAttachmentTests {
    /// An empty point table with a NAME field.
    static func emptyPointTable() throws -> FeatureTable {
        let schema = try Schema(
            fields: [Field(name: "OBJECTID", type: .oid), Field(name: "NAME", type: .string)], objectIdFieldName: "OBJECTID",
            geometryType: .point)
        return try FeatureTable(
            schema: schema, columns: [.integer(Int64Column(values: [Int64]())), .string(StringColumn([String?]()))])
    }

    @Test("attachments of the written features survive a round trip; deleted features' do not")
    func roundTrip() throws {
        let empty = try Self.emptyPointTable()
        let editable = try EditableFeatureTable(empty, options: EditingOptions(hasAttachments: true))
        editable.addFeatures([
            FeatureEdit(attributes: ["NAME": .string("a")], geometry: .point(Point(x: 1, y: 2))),
            FeatureEdit(attributes: ["NAME": .string("b")], geometry: .point(Point(x: 3, y: 4))),
        ])
        let photo: [UInt8] = (0..<1000).map { UInt8($0 % 251) }
        #expect(editable.addAttachment(objectID: 1, name: "photo.jpg", contentType: "image/jpeg", data: photo).success)
        #expect(editable.addAttachment(objectID: 2, name: "note.txt", contentType: "text/plain", data: Array("hello".utf8)).success)
        #expect(editable.addAttachment(objectID: 2, name: "empty", contentType: "application/octet-stream", data: []).success)
        editable.deleteFeatures(objectIDs: [1])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gpkg-attach-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("t.gpkg").path
        try GeoPackage.write(editable.snapshot, to: path, options: GeoPackageWriteOptions(layerName: "sites"))
        let back = try GeoPackage.read(at: path).table
        #expect(back.queryAttachmentInfos(objectID: 2) == [
            AttachmentInfo(id: 2, parentObjectID: 2, name: "note.txt", contentType: "text/plain", size: 5),
            AttachmentInfo(id: 3, parentObjectID: 2, name: "empty", contentType: "application/octet-stream", size: 0),
        ])
        #expect(back.fetchAttachment(objectID: 2, attachmentID: 2) == Array("hello".utf8))
        #expect(back.queryAttachmentInfos(objectID: 1) == [])
        // Only feature tables are layers.
        #expect(try GeoPackage.featureLayers(at: path) == ["sites"])
        // Editing the read table keeps counting attachment IDs after the largest.
        let reopened = try EditableFeatureTable(back, options: EditingOptions(hasAttachments: true))
        #expect(reopened.addAttachment(objectID: 2, name: "x", contentType: "text/plain", data: [1]).objectID == 4)
        #expect(reopened.snapshot.fetchAttachment(objectID: 2, attachmentID: 2) == Array("hello".utf8))
    }

    @Test("edits saved in place: the layer's rows and attachments follow, a failed save changes nothing")
    func saveInPlace() throws {
        let empty = try Self.emptyPointTable()
        let first = try EditableFeatureTable(empty, options: EditingOptions(hasAttachments: true))
        first.addFeatures((1...5).map { FeatureEdit(attributes: ["NAME": .string("f\($0)")], geometry: .point(Point(x: Double($0), y: 0))) })
        first.addAttachment(objectID: 2, name: "two", contentType: "text/plain", data: [2])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gpkg-save-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("t.gpkg").path
        try GeoPackage.write(first.snapshot, to: path, options: GeoPackageWriteOptions(layerName: "sites"))

        let editable = try EditableFeatureTable(try GeoPackage.read(at: path).table, options: EditingOptions(hasAttachments: true))
        editable.applyEdits(
            adds: [FeatureEdit(attributes: ["NAME": .string("new")], geometry: .point(Point(x: 9, y: 9)))],
            updates: [FeatureEdit(objectID: 3, attributes: ["NAME": .string("three")], geometry: .point(Point(x: 30, y: 3)))],
            deletes: [2])
        editable.addAttachment(objectID: 4, name: "four", contentType: "text/plain", data: [4, 4])
        let (written, deleted) = editable.localEditObjectIDs
        #expect(written == [3, 4, 6])
        #expect(deleted == [2])
        // A missing layer fails and leaves the file alone.
        #expect(throws: GeoPackageError.self) {
            try GeoPackage.save(editable.snapshot, writing: written, deleting: deleted, to: path, layer: "nope")
        }
        try GeoPackage.save(editable.snapshot, writing: written, deleting: deleted, to: path, layer: "sites")
        let back = try GeoPackage.read(at: path).table
        let expected = editable.snapshot
        #expect(try back.queryObjectIDs(QueryParameters()) == [1, 3, 4, 5, 6])
        for id in [Int64(1), 3, 4, 5, 6] {
            let a = try #require(back.row(forObjectID: id)), b = try #require(expected.row(forObjectID: id))
            #expect(back.value(row: a, field: "NAME") == expected.value(row: b, field: "NAME"))
            #expect(back.geometry(row: a) == expected.geometry(row: b))
        }
        #expect(back.queryAttachmentInfos(objectID: 4).map(\.name) == ["four"])
        #expect(back.fetchAttachment(objectID: 2, attachmentID: 1) == nil)
        #expect(back.extent == Envelope(xmin: 1, ymin: 0, xmax: 30, ymax: 9))
    }
}
