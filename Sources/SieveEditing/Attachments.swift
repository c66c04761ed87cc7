import SieveGeometry
import SieveJSON
import SieveFeatures
import SieveFormats

extension EditError.Kind {
    /// An attachment ID the feature does not have.
    public static let missingAttachment = EditError.Kind(rawValue: "missing attachment")
}

extension EditableFeatureTable {
    /// Whether the table keeps attachments and `user` may change those of `objectID`.
    public func canEditAttachments(objectID: Int64, user: String? = nil) -> Bool {
        options.hasAttachments && canUpdate(objectID: objectID, user: user)
    }

    /// Adds an attachment to feature `objectID`. The result's object ID is the new
    /// attachment's ID (REST `addAttachmentResult`).
    @discardableResult
    public func addAttachment(objectID: Int64, name: String, contentType: String, data: [UInt8], user: String? = nil)
        -> FeatureEditResult
    {
        editAttachments(objectID: objectID, user: user) { store, nextID throws(EditError) in
            let id = nextID
            nextID += 1
            store.put(
                AttachmentStore.Attachment(
                    info: AttachmentInfo(id: id, parentObjectID: objectID, name: name, contentType: contentType, size: data.count),
                    data: data))
            return [FeatureEditResult(objectID: id)]
        }[0]
    }

    /// Replaces the data (and the name and content type, when given) of attachment
    /// `attachmentID` of feature `objectID` (REST `updateAttachmentResult`).
    @discardableResult
    public func updateAttachment(
        objectID: Int64, attachmentID: Int64, name: String? = nil, contentType: String? = nil, data: [UInt8], user: String? = nil
    ) -> FeatureEditResult {
        editAttachments(objectID: objectID, user: user) { store, _ throws(EditError) in
            guard var attachment = store.attachment(attachmentID, of: objectID) else {
                throw AttachmentRules.missing(attachmentID, of: objectID)
            }
            attachment.data = data
            attachment.info.size = data.count
            if let name { attachment.info.name = name }
            if let contentType { attachment.info.contentType = contentType }
            store.put(attachment)
            return [FeatureEditResult(objectID: attachmentID)]
        }[0]
    }

    /// Deletes attachments of feature `objectID`: one result per ID (REST
    /// `deleteAttachmentResults`); the IDs the feature has are deleted even when others fail.
    @discardableResult
    public func deleteAttachments(objectID: Int64, attachmentIDs: [Int64], user: String? = nil) -> [FeatureEditResult] {
        let results = editAttachments(objectID: objectID, user: user) { store, _ throws(EditError) in
            attachmentIDs.map { id in
                guard store.attachment(id, of: objectID) != nil else {
                    return FeatureEditResult(objectID: id, error: AttachmentRules.missing(id, of: objectID))
                }
                store.remove(id)
                return FeatureEditResult(objectID: id)
            }
        }
        // A failure of the feature itself (missing, not permitted) answers for every ID.
        if results.count == 1, attachmentIDs.count != 1, let error = results[0].error {
            return AttachmentRules.failedDeletes(attachmentIDs, error)
        }
        return results
    }
}
