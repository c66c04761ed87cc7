import SieveGeometry
import SieveJSON

/// What ArcGIS REST reports of an attachment: `{"id","parentObjectId","name","contentType","size"}`.
public struct AttachmentInfo: Hashable, Sendable {
    /// The attachment's ID, unique in its table and never given again.
    public var id: Int64
    /// The object ID of the feature it belongs to.
    public var parentObjectID: Int64
    /// The file name, e.g. `photo.jpg`.
    public var name: String
    /// The MIME type, e.g. `image/jpeg`.
    public var contentType: String
    /// The size of the data in bytes.
    public var size: Int

    /// Creates an attachment description.
    public init(id: Int64, parentObjectID: Int64, name: String, contentType: String, size: Int) {
        self.id = id
        self.parentObjectID = parentObjectID
        self.name = name
        self.contentType = contentType
        self.size = size
    }

    /// The REST JSON object.
    package var jsonValue: JSONValue {
        .object(
            JSONObject([
                ("id", .number(JSONNumber(id))), ("parentObjectId", .number(JSONNumber(parentObjectID))),
                ("name", .string(name)), ("contentType", .string(contentType)), ("size", .number(JSONNumber(Int64(size)))),
            ]))
    }

    /// `{"attachmentInfos":[…]}`, as REST `queryAttachments` answers for one feature.
    public static func json(_ infos: [AttachmentInfo]) -> String {
        JSONWriter.string(.object(JSONObject([("attachmentInfos", .array(infos.map(\.jsonValue)))])))
    }
}

/// The attachments of a table snapshot: each attachment's info and bytes by ID, and the IDs of
/// each feature's attachments in the order they were added. A value: an edit of attachments
/// copies the two maps (O(attachments)), which stay small beside the columns.
package struct AttachmentStore: Sendable, Equatable {
    package struct Attachment: Sendable, Equatable {
        package var info: AttachmentInfo
        package var data: [UInt8]

        package init(info: AttachmentInfo, data: [UInt8]) {
            self.info = info
            self.data = data
        }
    }

    private(set) var byID: [Int64: Attachment] = [:]
    private(set) var byParent: [Int64: [Int64]] = [:]

    package init() {}

    package var isEmpty: Bool { byID.isEmpty }

    /// Every attachment, by ID.
    package var all: [Attachment] { byID.keys.sorted().compactMap { byID[$0] } }

    func infos(of objectID: Int64) -> [AttachmentInfo] {
        (byParent[objectID] ?? []).compactMap { byID[$0]?.info }
    }

    func attachment(_ id: Int64, of objectID: Int64) -> Attachment? {
        guard let attachment = byID[id], attachment.info.parentObjectID == objectID else { return nil }
        return attachment
    }

    package mutating func put(_ attachment: Attachment) {
        let id = attachment.info.id
        if byID.updateValue(attachment, forKey: id) == nil { byParent[attachment.info.parentObjectID, default: []].append(id) }
    }

    mutating func remove(_ id: Int64) {
        guard let removed = byID.removeValue(forKey: id) else { return }
        let parent = removed.info.parentObjectID
        byParent[parent]?.removeAll { $0 == id }
        if byParent[parent]?.isEmpty == true { byParent[parent] = nil }
    }

    /// Removes every attachment of `objectID`.
    mutating func removeAll(of objectID: Int64) {
        for id in byParent[objectID] ?? [] { byID[id] = nil }
        byParent[objectID] = nil
    }

    /// The largest attachment ID (0 when there is none).
    var largestID: Int64 { byID.keys.max() ?? 0 }

    /// The bytes held (the data, plus 64 bytes an attachment for its info).
    var byteCount: Int { byID.values.reduce(0) { $0 + $1.data.count + 64 } }
}

extension FeatureTable {
    /// The attachments of feature `objectID` (none for a feature that does not exist), in the
    /// order they were added.
    public func queryAttachmentInfos(objectID: Int64) -> [AttachmentInfo] {
        guard row(forObjectID: objectID) != nil else { return [] }
        return attachments.infos(of: objectID)
    }

    /// The bytes of attachment `attachmentID` of feature `objectID`, or `nil`.
    public func fetchAttachment(objectID: Int64, attachmentID: Int64) -> [UInt8]? {
        guard row(forObjectID: objectID) != nil else { return nil }
        return attachments.attachment(attachmentID, of: objectID)?.data
    }
}

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
                throw EditError(.missingAttachment, "feature \(objectID) has no attachment \(attachmentID)")
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
                    return FeatureEditResult(
                        objectID: id, error: EditError(.missingAttachment, "feature \(objectID) has no attachment \(id)"))
                }
                store.remove(id)
                return FeatureEditResult(objectID: id)
            }
        }
        // A failure of the feature itself (missing, not permitted) answers for every ID.
        if results.count == 1, attachmentIDs.count != 1, let error = results[0].error {
            return attachmentIDs.map { FeatureEditResult(objectID: $0, error: error) }
        }
        return results
    }
}
