import Foundation
import HTTPTypes
import SieveFeatures
import SieveEditing
import SieveFormats
import Synchronization
import Testing
import SieveServer
import SieveTestSupport

/// Edits over ArcGIS REST and OGC API Part 4: results, saving, rollback, attachments, and
/// readers that never see half a batch.
@Suite(.tags(.network)) struct EditingServerTests {
    /// What the saver was given, batch by batch.
    final class SaveLog: Sendable {
        let calls = Mutex<[(count: Int, written: [Int64], deleted: [Int64])]>([])
        let failing = Atomic<Bool>(false)

        var saver: TableSaver {
            { table, written, deleted in
                if self.failing.load(ordering: .relaxed) { throw CocoaError(.fileWriteNoPermission) }
                self.calls.withLock { $0.append((table.featureCount, written, deleted)) }
            }
        }
    }

    static let places = """
        {"type":"FeatureCollection","features":[
         {"type":"Feature","properties":{"name":"a","rank":1},"geometry":{"type":"Point","coordinates":[1,1]}},
         {"type":"Feature","properties":{"name":"b","rank":2},"geometry":{"type":"Point","coordinates":[2,2]}},
         {"type":"Feature","properties":{"name":"c","rank":3},"geometry":{"type":"Point","coordinates":[3,3]}}]}
        """

    /// A server of the `places` table, editable, saved into `log`.
    static func server(_ log: SaveLog, attachments: Bool = false, configuration: ServerConfiguration = ServerConfiguration(allowEdits: true))
        throws -> GeoSieveServer
    {
        let table = try EditableFeatureTable(FeatureTable.load(geoJSON: places), options: EditingOptions(hasAttachments: attachments))
        return try GeoSieveServer(
            catalog: ServedCatalog([ServedTable(id: "places", table: table, save: log.saver)]), configuration: configuration)
    }

    static let layer = "/arcgis/rest/services/places/FeatureServer/0"

    static func names(_ client: TestServer.Client) async throws -> [String] {
        let reply = try await client.get("\(layer)/query?where=1%3D1&outFields=name&orderByFields=OBJECTID&returnGeometry=false")
        return (reply.object["features"] as? [[String: Any]])?.compactMap { ($0["attributes"] as? [String: Any])?["name"] as? String } ?? []
    }

    /// The server does not filter queries by user: a table whose ownership rules would hide
    /// others' features is refused, not served unfiltered.
    @Test func ownershipHidingOthersFeaturesIsRefused() throws {
        var tracking = EditorTracking(creatorField: "name", ownershipBasedAccessControl: true)
        tracking.allowOthersToQuery = false
        let table = try EditableFeatureTable(FeatureTable.load(geoJSON: Self.places), options: EditingOptions(editorTracking: tracking))
        #expect { try ServedTable(id: "places", table: table, settings: LayerSettings()) } throws: {
            "\($0)".contains("does not filter queries by user")
        }
        tracking.allowOthersToQuery = true
        let shown = try EditableFeatureTable(FeatureTable.load(geoJSON: Self.places), options: EditingOptions(editorTracking: tracking))
        #expect(try ServedTable(id: "places", table: shown, settings: LayerSettings()).editorTracking == tracking)
    }

    @Test func readOnlyServersRefuseEdits() async throws {
        let log = SaveLog()
        try await TestServer.withClient(try Self.server(log, configuration: ServerConfiguration())) { client async throws in
            let reply = try await client.post("\(Self.layer)/applyEdits", form: "deletes=1")
            #expect(reply.arcGISErrorCode == 403)
            // GET is not a method of applyEdits; a read-only OGC API has no edit methods (405,
            // saying how to allow edits).
            #expect(try await client.get("\(Self.layer)/applyEdits?deletes=1").arcGISErrorCode == 405)
            let ogc = try await client.send(
                "/ogc/collections/places/items", method: .post, headers: [.contentType: "application/geo+json"],
                body: #"{"type":"Feature","properties":{},"geometry":null}"#)
            #expect(ogc.status == 405)
            #expect(ogc.headers[.allow] == "GET, HEAD")
            #expect(ogc.text.contains("--allow-edits"))
            #expect(try await client.send("/ogc/collections/places/items/1", method: .delete).status == 405)
            #expect(try await Self.names(client) == ["a", "b", "c"])
            let layer = try await client.get(Self.layer).object
            #expect(layer["capabilities"] as? String == "Query")
        }
        #expect(log.calls.withLock { $0.isEmpty })
    }

    @Test func mapServersStayReadOnlyWhenEditsAreAllowed() async throws {
        let log = SaveLog()
        try await TestServer.withClient(try Self.server(log)) { client async throws in
            let map = "/arcgis/rest/services/places/MapServer/0"
            #expect(try await client.get(map).object["capabilities"] as? String == "Map,Query,Data")
            #expect(try await client.post("\(map)/applyEdits", form: "deletes=1").arcGISErrorCode == 404)
            #expect(try await client.post("\(map)/deleteFeatures", form: "objectIds=1").arcGISErrorCode == 404)
            #expect(try await client.get(Self.layer).object["capabilities"] as? String != "Map,Query,Data")
            #expect(try await Self.names(client) == ["a", "b", "c"])
        }
        #expect(log.calls.withLock { $0.isEmpty })
    }

    @Test func applyEditsAppliesSavesAndRollsBack() async throws {
        let log = SaveLog()
        try await TestServer.withClient(try Self.server(log)) { client async throws in
            let layer = try await client.get(Self.layer).object
            #expect(layer["capabilities"] as? String == "Create,Delete,Query,Update,Editing")
            let adds = encoded(#"[{"attributes":{"name":"d","rank":4},"geometry":{"x":4,"y":4}}]"#)
            let updates = encoded(#"[{"attributes":{"OBJECTID":2,"name":"B"}}]"#)
            let reply = try await client.post("\(Self.layer)/applyEdits", form: "adds=\(adds)&updates=\(updates)&deletes=1&f=json").object
            #expect((reply["addResults"] as? [[String: Any]])?.first?["objectId"] as? Int == 4)
            #expect((reply["updateResults"] as? [[String: Any]])?.first?["success"] as? Bool == true)
            #expect((reply["deleteResults"] as? [[String: Any]])?.first?["objectId"] as? Int == 1)
            #expect(try await Self.names(client) == ["B", "c", "d"])
            #expect(log.calls.withLock { $0.map(\.written) } == [[2, 4]])
            #expect(log.calls.withLock { $0.map(\.deleted) } == [[1]])

            // One bad edit fails the batch: nothing applied, nothing saved.
            let bad = encoded(#"[{"attributes":{"name":"e","rank":"high"}},{"attributes":{"name":"f","rank":6}}]"#)
            let failed = try await client.post("\(Self.layer)/applyEdits", form: "adds=\(bad)").object
            let results = failed["addResults"] as? [[String: Any]] ?? []
            #expect(results.count == 2)
            #expect(results.allSatisfy { $0["success"] as? Bool == false })
            #expect(try await Self.names(client) == ["B", "c", "d"])
            #expect(log.calls.withLock { $0.count } == 1)
            // Without rollback, the valid one applies.
            let partial = try await client.post("\(Self.layer)/applyEdits", form: "adds=\(bad)&rollbackOnFailure=false").object
            #expect((partial["addResults"] as? [[String: Any]])?.map { $0["success"] as? Bool } == [false, true])
            #expect(try await Self.names(client) == ["B", "c", "d", "f"])
            #expect(log.calls.withLock { $0.count } == 2)

            // Malformed edits: an ArcGIS error naming the parameter; nothing changes.
            for form in ["adds=%5B%7B", "adds=\(encoded("{}"))", "deletes=\(encoded("1,x"))", "updates=\(encoded("[1]"))", "rollbackOnFailure=maybe&deletes=1"] {
                let reply = try await client.post("\(Self.layer)/applyEdits", form: form)
                #expect(reply.arcGISErrorCode == 400, "\(form): \(reply.text)")
            }
            #expect(try await Self.names(client) == ["B", "c", "d", "f"])
        }
    }

    @Test func aFailedSaveUndoesTheBatch() async throws {
        let log = SaveLog()
        try await TestServer.withClient(try Self.server(log)) { client async throws in
            log.failing.store(true, ordering: .relaxed)
            let reply = try await client.post("\(Self.layer)/deleteFeatures", form: "where=\(encoded("rank >= 2"))")
            #expect(reply.arcGISErrorCode == 500)
            #expect(reply.text.contains("could not be saved"))
            #expect(try await Self.names(client) == ["a", "b", "c"])
            log.failing.store(false, ordering: .relaxed)
            let deleted = try await client.post("\(Self.layer)/deleteFeatures", form: "where=\(encoded("rank >= 2"))").object
            #expect((deleted["deleteResults"] as? [[String: Any]])?.compactMap { $0["objectId"] as? Int } == [2, 3])
            #expect(try await Self.names(client) == ["a"])
            #expect(log.calls.withLock { $0.map(\.deleted) } == [[2, 3]])
        }
    }

    @Test func featureOperationsAndServiceApplyEdits() async throws {
        let log = SaveLog()
        try await TestServer.withClient(try Self.server(log)) { client async throws in
            let added = try await client.post(
                "\(Self.layer)/addFeatures", form: "features=\(encoded(#"[{"attributes":{"name":"z"},"geometry":{"x":9,"y":9}}]"#))").object
            #expect((added["addResults"] as? [[String: Any]])?.first?["objectId"] as? Int == 4)
            let updated = try await client.post(
                "\(Self.layer)/updateFeatures", form: "features=\(encoded(#"[{"attributes":{"OBJECTID":4,"name":"y"}}]"#))").object
            #expect((updated["updateResults"] as? [[String: Any]])?.first?["success"] as? Bool == true)
            let edits = encoded(#"[{"id":0,"deletes":[1,4]}]"#)
            let service = try await client.post("/arcgis/rest/services/places/FeatureServer/applyEdits", form: "edits=\(edits)")
            let first = (try JSONSerialization.jsonObject(with: Data(service.text.utf8)) as? [[String: Any]])?.first
            #expect(first?["id"] as? Int == 0)
            #expect((first?["deleteResults"] as? [[String: Any]])?.count == 2)
            #expect(try await Self.names(client) == ["b", "c"])
            #expect(try await client.post("/arcgis/rest/services/places/FeatureServer/applyEdits", form: "edits=\(encoded(#"[{"id":1}]"#))").arcGISErrorCode == 400)
            #expect(try await client.post("\(Self.layer)/deleteFeatures", form: "f=json").arcGISErrorCode == 400)
            #expect(try await client.post("\(Self.layer)/addFeatures", form: "f=json").arcGISErrorCode == 400)
        }
    }

    @Test func attachmentsUploadListDownloadUpdateDelete() async throws {
        let log = SaveLog()
        let boundary = "----geosieve-test-boundary"
        @Sendable func multipart(_ fields: [(String, String)], file: (name: String, type: String, data: String)?) -> String {
            var body = ""
            for (name, value) in fields {
                body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
            }
            if let file {
                body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"attachment\"; filename=\"\(file.name)\"\r\n"
                body += "Content-Type: \(file.type)\r\n\r\n\(file.data)\r\n"
            }
            return body + "--\(boundary)--\r\n"
        }
        let type: HTTPFields = [.contentType: "multipart/form-data; boundary=\(boundary)"]
        try await TestServer.withClient(try Self.server(log, attachments: true)) { client async throws in
            let added = try await client.send(
                "\(Self.layer)/2/addAttachment", method: .post, headers: type,
                body: multipart([("f", "json")], file: ("notes/field.txt", "text/plain", "line one\r\nline two")))
            let result = added.object["addAttachmentResult"] as? [String: Any]
            #expect(result?["success"] as? Bool == true)
            #expect(result?["objectId"] as? Int == 1)
            let infos = try await client.get("\(Self.layer)/2/attachments").object["attachmentInfos"] as? [[String: Any]]
            #expect(infos?.first?["name"] as? String == "field.txt")
            #expect(infos?.first?["size"] as? Int == 18)
            let download = try await client.get("\(Self.layer)/2/attachments/1")
            #expect(download.text == "line one\r\nline two")
            #expect(download.headers[.contentType] == "text/plain")
            let updated = try await client.send(
                "\(Self.layer)/2/updateAttachment", method: .post, headers: type,
                body: multipart([("attachmentId", "1")], file: ("photo.jpg", "image/jpeg", "JPEG")))
            #expect((updated.object["updateAttachmentResult"] as? [String: Any])?["success"] as? Bool == true)
            #expect(try await client.get("\(Self.layer)/2/attachments/1").text == "JPEG")
            let deleted = try await client.post("\(Self.layer)/2/deleteAttachments", form: "attachmentIds=1,7").object
            #expect((deleted["deleteAttachmentResults"] as? [[String: Any]])?.map { $0["success"] as? Bool } == [true, false])
            #expect(try await client.get("\(Self.layer)/2/attachments/1").arcGISErrorCode == 404)
            #expect(log.calls.withLock { $0.map(\.written) } == [[2], [2], [2]])
            // A file name in UTF-8, as browsers send it (RFC 7578 §4.2), is kept; the download's
            // header carries it reduced to ASCII.
            let accented = try await client.send(
                "\(Self.layer)/2/addAttachment", method: .post, headers: type,
                body: multipart([("f", "json")], file: ("b\u{e9}b\u{e9}.txt", "text/plain", "x")))
            let accentedID = try #require((accented.object["addAttachmentResult"] as? [String: Any])?["objectId"] as? Int)
            let names = (try await client.get("\(Self.layer)/2/attachments").object["attachmentInfos"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
            #expect(names == ["b\u{e9}b\u{e9}.txt"])
            #expect(try await client.get("\(Self.layer)/2/attachments/\(accentedID)").headers[.contentDisposition] == "inline; filename=\"b_b_.txt\"")
            // A control character in a part header is malformed.
            #expect(
                try await client.send(
                    "\(Self.layer)/2/addAttachment", method: .post, headers: type,
                    body: multipart([], file: ("a\u{1}.txt", "text/plain", "x"))).arcGISErrorCode == 400)
            // Malformed: no file part, no boundary, broken body, unknown feature.
            #expect(try await client.send("\(Self.layer)/2/addAttachment", method: .post, headers: type, body: multipart([("f", "json")], file: nil)).arcGISErrorCode == 400)
            #expect(try await client.send("\(Self.layer)/2/addAttachment", method: .post, headers: [.contentType: "multipart/form-data"], body: "x").arcGISErrorCode == 400)
            #expect(try await client.send("\(Self.layer)/2/addAttachment", method: .post, headers: type, body: "--\(boundary)\r\nbroken").arcGISErrorCode != nil)
            #expect(try await client.get("\(Self.layer)/99/attachments").arcGISErrorCode == 404)
            // Hostile multipart bodies: a non-ASCII header byte, no closing boundary, no CRLF.
            for body in ["--\(boundary)\r\n\u{FF}: x\r\n\r\nv\r\n--\(boundary)--\r\n", "--\(boundary)\r\nContent-Disposition: form-data; name=\"f\"\r\n\r\njson",
                "--\(boundary)X", "garbage", "--\(boundary)\r\n"]
            {
                let reply = try await client.send("\(Self.layer)/2/addAttachment", method: .post, headers: type, body: body)
                #expect(reply.arcGISErrorCode == 400, "\(body.debugDescription): \(reply.text)")
            }
            let query = try await client.send(
                "/arcgis/rest/services/places/FeatureServer/0/query", method: .post, headers: type,
                body: "--\(boundary)\r\n\u{FF}\u{80}: x\r\n\r\nv\r\n--\(boundary)--\r\n")
            #expect(query.arcGISErrorCode == 400)
        }
        try await TestServer.withClient(try Self.server(log)) { client async throws in
            #expect(try await client.get("\(Self.layer)/2/attachments").arcGISErrorCode == 400)
        }
    }

    @Test func ogcCreateReplaceDelete() async throws {
        let log = SaveLog()
        let geoJSON: HTTPFields = [.contentType: "application/geo+json", .authorization: "Bearer t0ken"]
        let configuration = ServerConfiguration(allowEdits: true, token: "t0ken")
        try await TestServer.withClient(try Self.server(log, configuration: configuration)) { client async throws in
            let conformance = try await client.get("/ogc/conformance").object["conformsTo"] as? [String]
            #expect(conformance?.contains("http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/create-replace-delete") == true)
            // The API definition lists the edit operations.
            let paths = try await client.get("/ogc/api").object["paths"] as? [String: [String: Any]] ?? [:]
            #expect(paths["/collections/places/items"]?.keys.sorted() == ["get", "post"])
            #expect(paths["/collections/places/items/{featureId}"]?.keys.sorted() == ["delete", "get", "put"])
            let feature = #"{"type":"Feature","properties":{"name":"n","rank":9},"geometry":{"type":"Point","coordinates":[5,6]}}"#
            #expect(try await client.send("/ogc/collections/places/items", method: .post, headers: [.contentType: "application/geo+json"], body: feature).status == 401)
            let created = try await client.send("/ogc/collections/places/items", method: .post, headers: geoJSON, body: feature)
            #expect(created.status == 201)
            let location = created.headers[.location] ?? ""
            #expect(location.hasSuffix("/ogc/collections/places/items/4"))
            let item = try await client.get("/ogc/collections/places/items/4").object
            #expect((item["properties"] as? [String: Any])?["rank"] as? Int == 9)
            #expect((item["geometry"] as? [String: Any])?["coordinates"] as? [Double] == [5, 6])

            let replacement = #"{"type":"Feature","properties":{"name":"m"},"geometry":{"type":"Point","coordinates":[7,8]}}"#
            #expect(try await client.send("/ogc/collections/places/items/4", method: .put, headers: geoJSON, body: replacement).status == 204)
            let replaced = try await client.get("/ogc/collections/places/items/4").object
            #expect((replaced["properties"] as? [String: Any])?["name"] as? String == "m")
            #expect((replaced["properties"] as? [String: Any])?["rank"] is NSNull)
            #expect((replaced["geometry"] as? [String: Any])?["coordinates"] as? [Double] == [7, 8])

            #expect(try await client.send("/ogc/collections/places/items/4", method: .delete, headers: geoJSON).status == 204)
            #expect(try await client.get("/ogc/collections/places/items/4").status == 404)
            #expect(try await client.send("/ogc/collections/places/items/4", method: .delete, headers: geoJSON).status == 404)
            for body in ["{", #"{"type":"FeatureCollection","features":[]}"#, #"{"type":"Feature","properties":{"rank":"x"},"geometry":null}"#] {
                let reply = try await client.send("/ogc/collections/places/items", method: .post, headers: geoJSON, body: body)
                #expect(reply.status == 400, "\(body): \(reply.text)")
            }
            #expect(try await client.send("/ogc/collections/places/items", method: .post, headers: [.authorization: "Bearer t0ken", .contentType: "text/plain"], body: feature).status == 400)
            #expect(try await Self.names(client) == ["a", "b", "c"])
        }
    }

    @Test func readersNeverSeeHalfABatch() async throws {
        let log = SaveLog()
        let server = try Self.server(log)
        try await TestServer.withClient(server) { client async throws in
            let batch = encoded("[" + (0..<50).map { #"{"attributes":{"name":"n\#($0)","rank":\#($0)},"geometry":{"x":0,"y":0}}"# }.joined(separator: ",") + "]")
            try await withThrowingTaskGroup(of: [Int].self) { group in
                group.addTask {
                    for _ in 0..<20 { _ = try await client.post("\(Self.layer)/addFeatures", form: "features=\(batch)") }
                    return []
                }
                for _ in 0..<3 {
                    group.addTask {
                        var counts: [Int] = []
                        for _ in 0..<40 {
                            let reply = try await client.get("\(Self.layer)/query?where=1%3D1&returnCountOnly=true")
                            counts.append(reply.object["count"] as? Int ?? -1)
                        }
                        return counts
                    }
                }
                for try await counts in group {
                    // 3 features, then whole batches of 50.
                    #expect(counts.allSatisfy { $0 >= 3 && ($0 - 3) % 50 == 0 }, "\(counts)")
                }
            }
            let total = try await client.get("\(Self.layer)/query?where=1%3D1&returnCountOnly=true").object["count"] as? Int
            #expect(total == 3 + 20 * 50)
        }
        #expect(log.calls.withLock { $0.count } == 20)
        #expect(log.calls.withLock { $0.map(\.count) } == (1...20).map { 3 + 50 * $0 })
    }
}
