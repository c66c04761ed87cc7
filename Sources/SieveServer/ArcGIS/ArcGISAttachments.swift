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
    /// The feature the path names, which must exist.
    static func objectID(_ text: String, in served: ServedTable) throws(ServerRequestError) -> Int64 {
        guard served.hasAttachments else {
            throw ServerRequestError(.badRequest, "Unable to complete operation.", details: ["the layer has no attachments"])
        }
        guard let id = Int64(text), served.contains(objectID: id) else {
            throw ServerRequestError(.notFound, "Feature \(RequestParameters.quoted(text)) does not exist")
        }
        return id
    }

    /// The attachment infos of a feature.
    static func infos(_ objectID: Int64, in served: ServedTable) -> ServiceResponse {
        ServiceResponse.json(text: AttachmentInfo.json(served.snapshot?.queryAttachmentInfos(objectID: objectID) ?? []))
    }

    /// The bytes of an attachment.
    static func download(_ objectID: Int64, _ attachment: String, in served: ServedTable) throws(ServerRequestError) -> ServiceResponse {
        guard let table = served.snapshot, let id = Int64(attachment), let data = table.fetchAttachment(objectID: objectID, attachmentID: id),
            let info = table.queryAttachmentInfos(objectID: objectID).first(where: { $0.id == id })
        else {
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
        let result: FeatureEditResult
        if update {
            guard let text = parameters.nonEmpty("attachmentId"), let attachment = Int64(text) else {
                throw ServerRequestError(.badRequest, "Unable to complete operation.", details: ["updateAttachment needs an integer attachmentId"])
            }
            result = try await served.requireEditor().run { table in
                table.updateAttachment(objectID: objectID, attachmentID: attachment, name: name, contentType: type, data: part.data)
            }
        } else {
            result = try await served.requireEditor().run { table in
                table.addAttachment(objectID: objectID, name: name, contentType: type, data: part.data)
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
        let results = try await served.requireEditor().run { table in table.deleteAttachments(objectID: objectID, attachmentIDs: ids) }
        return ServiceResponse.json(.object(JSONObject([("deleteAttachmentResults", .array(results.map(\.jsonValue)))])))
    }
}
