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

    package func infos(of objectID: Int64) -> [AttachmentInfo] {
        (byParent[objectID] ?? []).compactMap { byID[$0]?.info }
    }

    package func attachment(_ id: Int64, of objectID: Int64) -> Attachment? {
        guard let attachment = byID[id], attachment.info.parentObjectID == objectID else { return nil }
        return attachment
    }

    package mutating func put(_ attachment: Attachment) {
        let id = attachment.info.id
        if byID.updateValue(attachment, forKey: id) == nil { byParent[attachment.info.parentObjectID, default: []].append(id) }
    }

    package mutating func remove(_ id: Int64) {
        guard let removed = byID.removeValue(forKey: id) else { return }
        let parent = removed.info.parentObjectID
        byParent[parent]?.removeAll { $0 == id }
        if byParent[parent]?.isEmpty == true { byParent[parent] = nil }
    }

    /// Removes every attachment of `objectID`.
    package mutating func removeAll(of objectID: Int64) {
        for id in byParent[objectID] ?? [] { byID[id] = nil }
        byParent[objectID] = nil
    }

    /// The largest attachment ID (0 when there is none).
    package var largestID: Int64 { byID.keys.max() ?? 0 }

    /// The bytes held (the data, plus 64 bytes an attachment for its info).
    package var byteCount: Int { byID.values.reduce(0) { $0 + $1.data.count + 64 } }
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
