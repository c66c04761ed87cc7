import SieveFeatures

/// A feature source that applies edits where its features live (a database), giving the results
/// an in-memory ``EditableFeatureTable`` with the same ``EditingOptions`` gives: what a server
/// edits a layer through when the layer is not held in memory.
public protocol EditableFeatureSource: FeatureSource {
    /// Applies `request` as one batch.
    /// - Parameters:
    ///   - request: The adds, updates and deletes.
    ///   - options: What the layer allows and fills in.
    ///   - rollbackOnFailure: Overrides the request's `rollbackOnFailure` (default: yes).
    ///   - user: The editing user (`nil`: anonymous).
    /// - Returns: Each edit's result.
    /// - Throws: The source's error when it cannot be reached or refuses outside the edits;
    ///   nothing is applied then.
    func applyEdits(_ request: ApplyEditsRequest, options: EditingOptions, rollbackOnFailure: Bool?, user: String?) async throws
        -> ApplyEditsResult

    /// What ``applyEdits(_:options:rollbackOnFailure:user:)`` with `rollbackOnFailure` would
    /// answer now, changing nothing (object ID -1 for adds), as
    /// ``EditableFeatureTable/checkEdits(adds:updates:deletes:user:)`` answers.
    /// - Throws: As ``applyEdits(_:options:rollbackOnFailure:user:)`` throws.
    func checkEdits(_ request: ApplyEditsRequest, options: EditingOptions, user: String?) async throws -> ApplyEditsResult
}

/// An editable source that keeps attachments where its features live (a PostGIS table's
/// companion table), answering as an ``EditableFeatureTable`` that keeps attachments answers:
/// the same checks (the options allow attachments and updates, the feature exists, ownership
/// lets the user update it), the same results.
public protocol AttachmentKeepingSource: EditableFeatureSource {
    /// Whether the source has a place for attachments.
    var keepsAttachments: Bool { get }

    /// The attachments of feature `objectID`, in the order they were added (none for a feature
    /// that does not exist).
    /// - Throws: The source's error when it cannot be reached.
    func attachmentInfos(objectID: Int64) async throws -> [AttachmentInfo]

    /// Attachment `attachmentID` of feature `objectID` with its bytes, or `nil` when the feature
    /// has no such attachment.
    /// - Throws: The source's error when it cannot be reached.
    func attachment(objectID: Int64, attachmentID: Int64) async throws -> (info: AttachmentInfo, data: [UInt8])?

    /// Adds an attachment to feature `objectID`; the result's object ID is the new attachment's
    /// ID, as ``EditableFeatureTable/addAttachment(objectID:name:contentType:data:user:)``.
    /// - Throws: The source's error when it cannot be reached or refuses outside the edit.
    func addAttachment(objectID: Int64, name: String, contentType: String, data: [UInt8], options: EditingOptions, user: String?)
        async throws -> FeatureEditResult

    /// Replaces the data (and the name and content type, when given) of attachment
    /// `attachmentID` of feature `objectID`, as
    /// ``EditableFeatureTable/updateAttachment(objectID:attachmentID:name:contentType:data:user:)``.
    /// - Throws: The source's error when it cannot be reached or refuses outside the edit.
    func updateAttachment(
        objectID: Int64, attachmentID: Int64, name: String?, contentType: String?, data: [UInt8], options: EditingOptions, user: String?
    ) async throws -> FeatureEditResult

    /// Deletes attachments of feature `objectID`, one result per ID, as
    /// ``EditableFeatureTable/deleteAttachments(objectID:attachmentIDs:user:)``.
    /// - Throws: The source's error when it cannot be reached or refuses outside the edit.
    func deleteAttachments(objectID: Int64, attachmentIDs: [Int64], options: EditingOptions, user: String?) async throws
        -> [FeatureEditResult]
}

/// The rules every keeper of attachments applies, in memory or in a database.
package enum AttachmentRules {
    /// Why `user` may not change the attachments of feature `objectID` of `table` (which holds
    /// it as it is now, if it exists) under `options`, or `nil` when they may.
    package static func denial(objectID: Int64, in table: FeatureTable, options: EditingOptions, user: String?) -> EditError? {
        guard options.hasAttachments else { return EditError(.notAllowed, "the table has no attachments") }
        guard options.capabilities.contains(.update) else {
            return EditError(.notAllowed, "the table does not allow updating features (capabilities: \(options.capabilities))")
        }
        guard let row = table.row(forObjectID: objectID) else { return EditError(.missingObjectID, "Object ID \(objectID) does not exist.") }
        return Batch.ownershipDenial(options, table: table, row: row, user: user, update: true)
    }

    /// A missing attachment's error.
    package static func missing(_ attachmentID: Int64, of objectID: Int64) -> EditError {
        EditError(.missingAttachment, "feature \(objectID) has no attachment \(attachmentID)")
    }

    /// The results of deleting `attachmentIDs` when the feature itself fails (`error`): the
    /// error for every ID (for a single ID, one result without an ID, as for an add).
    package static func failedDeletes(_ attachmentIDs: [Int64], _ error: EditError) -> [FeatureEditResult] {
        if attachmentIDs.count == 1 { return [FeatureEditResult(objectID: -1, error: error)] }
        return attachmentIDs.map { FeatureEditResult(objectID: $0, error: error) }
    }
}
