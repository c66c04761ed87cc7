import SieveFeatures
import SieveEditing
import SieveArcGISREST
import SieveFormats
import SieveGeometry
import SieveJSON

/// The ArcGIS REST attachment operations of a feature, on layers whose table keeps attachments
/// (`hasAttachments`):
///
/// | route (below `…/FeatureServer/0/{objectId}`) | answer |
/// |---|---|
/// | `attachments` | `{"attachmentInfos":[{"id","parentObjectId","name","contentType","size"}]}` |
/// | `attachments/{attachmentId}` | the attachment's bytes, with its media type |
/// | `addAttachment` (multipart: `attachment` file) | `{"addAttachmentResult":{"objectId":…,"success":true}}` |
/// | `updateAttachment` (multipart: `attachmentId`, `attachment` file) | `{"updateAttachmentResult":{…}}` |
/// | `deleteAttachments` (`attachmentIds=1,2`) | `{"deleteAttachmentResults":[…]}` |
///
/// The three edits need ``ServerConfiguration/allowEdits`` and, when one is set, the token.
enum ArcGISAttachments {
    /// The feature the path names, which must exist (within the layer's definition).
    static func objectID(_ text: String, in served: ServedTable) async throws(ServerRequestError) -> Int64 {
        guard served.hasAttachments else {
            throw ServerRequestError(.badRequest, "Unable to complete operation.", details: ["the layer has no attachments"])
        }
        guard let id = Int64(text), try await served.containsFeature(id) else {
            throw ServerRequestError(.notFound, "Feature \(RequestParameters.quoted(text)) does not exist")
        }
        return id
    }

    /// The attachment infos of a feature.
    static func infos(_ objectID: Int64, in served: ServedTable) async throws(ServerRequestError) -> ServiceResponse {
        if let table = served.snapshot { return ServiceResponse.json(text: AttachmentInfo.json(table.queryAttachmentInfos(objectID: objectID))) }
        let source = try keeper(served)
        do {
            return ServiceResponse.json(text: AttachmentInfo.json(try await source.attachmentInfos(objectID: objectID)))
        } catch {
            throw ServedTable.failure(error, "the attachments could not be listed")
        }
    }

    /// The bytes of an attachment.
    static func download(_ objectID: Int64, _ attachment: String, in served: ServedTable) async throws(ServerRequestError) -> ServiceResponse {
        var found: (info: AttachmentInfo, data: [UInt8])?
        if let id = Int64(attachment) {
            if let table = served.snapshot {
                if let data = table.fetchAttachment(objectID: objectID, attachmentID: id),
                    let info = table.queryAttachmentInfos(objectID: objectID).first(where: { $0.id == id })
                {
                    found = (info, data)
                }
            } else {
                let source = try keeper(served)
                do {
                    found = try await source.attachment(objectID: objectID, attachmentID: id)
                } catch {
                    throw ServedTable.failure(error, "the attachment could not be read")
                }
            }
        }
        guard let (info, data) = found else {
            throw ServerRequestError(.notFound, "Attachment \(RequestParameters.quoted(attachment)) of feature \(objectID) does not exist")
        }
        // The stored name, reduced to characters that cannot break the header.
        let name = String(info.name.unicodeScalars.map { $0.isASCII && $0 != "\"" && $0 != "\\" && $0.value >= 32 ? Character($0) : "_" })
        return ServiceResponse(
            contentType: info.contentType.isEmpty ? "application/octet-stream" : info.contentType,
            headers: [("Content-Disposition", "inline; filename=\"\(name)\"")], body: data)
    }

    /// `addAttachment` or `updateAttachment` with the `attachment` part of `form`.
    static func upload(
        _ objectID: Int64, form: MultipartForm, parameters: RequestParameters, update: Bool, in served: ServedTable
    ) async throws(ServerRequestError) -> ServiceResponse {
        guard let part = form.part(named: "attachment"), let filename = part.filename else {
            throw ServerRequestError(.badRequest, "Unable to complete operation.", details: ["the request has no attachment file part"])
        }
        let name = String(filename.split(separator: "/").last ?? "attachment")
        let type = part.contentType ?? "application/octet-stream"
        var attachment: Int64?
        if update {
            guard let text = parameters.nonEmpty("attachmentId"), let id = Int64(text) else {
                throw ServerRequestError(.badRequest, "Unable to complete operation.", details: ["updateAttachment needs an integer attachmentId"])
            }
            attachment = id
        }
        let result: FeatureEditResult
        if served.snapshot != nil {
            let editor = try served.requireEditor()
            if let attachment {
                result = try await editor.run { table in
                    table.updateAttachment(
                        objectID: objectID, attachmentID: attachment, name: name, contentType: type, data: part.data, user: served.editingUser)
                }
            } else {
                result = try await editor.run { table in
                    table.addAttachment(objectID: objectID, name: name, contentType: type, data: part.data, user: served.editingUser)
                }
            }
        } else {
            let (source, options) = try editableKeeper(served)
            do {
                if let attachment {
                    result = try await source.updateAttachment(
                        objectID: objectID, attachmentID: attachment, name: name, contentType: type, data: part.data, options: options, user: served.editingUser)
                } else {
                    result = try await source.addAttachment(objectID: objectID, name: name, contentType: type, data: part.data, options: options, user: served.editingUser)
                }
            } catch {
                throw ServedTable.failure(error, "the attachment was not stored")
            }
        }
        return ServiceResponse.json(.object(JSONObject([(update ? "updateAttachmentResult" : "addAttachmentResult", result.jsonValue)])))
    }

    /// `deleteAttachments`.
    static func delete(_ objectID: Int64, parameters: RequestParameters, in served: ServedTable) async throws(ServerRequestError) -> ServiceResponse {
        guard let text = parameters.nonEmpty("attachmentIds") else {
            throw ServerRequestError(.badRequest, "Unable to complete operation.", details: ["deleteAttachments needs attachmentIds"])
        }
        let ids: [Int64]
        do {
            ids = try QueryParameters.objectIDList(text, parameter: "attachmentIds")
        } catch {
            throw ServerRequestError(.badRequest, "Unable to complete operation.", details: [error.message])
        }
        let results: [FeatureEditResult]
        if served.snapshot != nil {
            results = try await served.requireEditor().run { table in
                table.deleteAttachments(objectID: objectID, attachmentIDs: ids, user: served.editingUser)
            }
        } else {
            let (source, options) = try editableKeeper(served)
            do {
                results = try await source.deleteAttachments(objectID: objectID, attachmentIDs: ids, options: options, user: served.editingUser)
            } catch {
                throw ServedTable.failure(error, "the attachments were not deleted")
            }
        }
        return ServiceResponse.json(.object(JSONObject([("deleteAttachmentResults", .array(results.map(\.jsonValue)))])))
    }

    /// The source keeping the attachments of a layer not held in memory.
    private static func keeper(_ served: ServedTable) throws(ServerRequestError) -> any AttachmentKeepingSource {
        guard let source = served.source as? any AttachmentKeepingSource, source.keepsAttachments else {
            throw ServerRequestError(.badRequest, "Unable to complete operation.", details: ["the layer has no attachments"])
        }
        return source
    }

    /// The source keeping the attachments of a layer not held in memory, and the options its
    /// edits are held to.
    private static func editableKeeper(_ served: ServedTable) throws(ServerRequestError) -> (any AttachmentKeepingSource, EditingOptions) {
        try served.requireEditing()
        guard let options = served.sourceEditing else { throw ServerRequestError(.forbidden, "the layer takes no edits") }
        return (try keeper(served), options)
    }
}
