import SieveEditing
import SieveFeatures

/// A table read from a hot-standby replica and edited on its primary: what a server in front of
/// a replica serves when it also takes edits.
///
/// Queries run on ``replica``; edit batches run on ``primary``
/// (``PostGISFeatureSource/applyEdits(_:options:rollbackOnFailure:user:)``, one transaction
/// each). A batch that changed something is answered once the replica has replayed it — its
/// `pg_last_wal_replay_lsn()` has reached the primary's `pg_current_wal_lsn()` after the commit —
/// so that a client reads its own edits through the same server. The wait is bounded by
/// ``replayTimeout``: past it the batch is answered anyway (it is committed on the primary, and
/// the replica shows it once it has caught up).
public final class PostGISReplicatedSource: EditableFeatureSource {
    /// Where queries run.
    public let replica: PostGISFeatureSource
    /// Where edits run.
    public let primary: PostGISFeatureSource
    /// How long an edit's answer waits for the replica to replay it, in seconds.
    public let replayTimeout: Double

    /// Reads from `replica`, edits on `primary` (the same table on both).
    public init(replica: PostGISFeatureSource, primary: PostGISFeatureSource, replayTimeout: Double = 10) {
        self.replica = replica
        self.primary = primary
        self.replayTimeout = replayTimeout
    }

    /// The replica's schema (the primary's is the same table's).
    public var schema: Schema { replica.schema }

    /// Query and statistics; the data stays in the database.
    public var capabilities: FeatureSourceCapabilities { replica.capabilities }

    /// `nil`: the table is queried where it lives.
    public var inMemoryTable: FeatureTable? { nil }

    /// The replica's answer to `request`.
    /// - Throws: As ``PostGISFeatureSource/query(_:)`` throws.
    public func query(_ request: QueryRequest) async throws(QueryError) -> QueryAnswer {
        try await replica.query(request)
    }

    /// Applies `request` on the primary, then waits (at most ``replayTimeout``) until the
    /// replica has replayed it.
    /// - Throws: As ``PostGISFeatureSource/applyEdits(_:options:rollbackOnFailure:user:)``
    ///   throws.
    public func applyEdits(_ request: ApplyEditsRequest, options: EditingOptions, rollbackOnFailure: Bool?, user: String?) async throws
        -> ApplyEditsResult
    {
        let result = try await primary.applyEdits(request, options: options, rollbackOnFailure: rollbackOnFailure, user: user)
        _ = try await replayed(result.addResults + result.updateResults + result.deleteResults)
        return result
    }

    /// The primary's check of `request`.
    /// - Throws: As ``PostGISFeatureSource/checkEdits(_:options:user:)`` throws.
    public func checkEdits(_ request: ApplyEditsRequest, options: EditingOptions, user: String?) async throws -> ApplyEditsResult {
        try await primary.checkEdits(request, options: options, user: user)
    }
}

extension PostGISFeatureSource {
    /// The server's current write-ahead-log position (`pg_current_wal_lsn()`), as text; `nil` on
    /// a server in recovery (a replica), which writes none.
    /// - Throws: ``PostGISError`` when the query fails.
    public func walPosition() async throws -> String? {
        var position: String?
        try await run(
            PostGISStatement(sql: "SELECT CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_current_wal_lsn()::text END", parameters: [])
        ) { position = try $0.decode(String?.self) }
        return position
    }

    /// Waits until this server has replayed the write-ahead log up to `position` (a replica's
    /// `pg_last_wal_replay_lsn()`; a server not in recovery has nothing to replay), polling every
    /// 10 ms for at most `timeout` seconds.
    /// - Returns: Whether it had replayed it within the time.
    /// - Throws: ``PostGISError`` when a query fails.
    public func waitForReplay(of position: String, timeout: Double) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int64(timeout * 1000))
        while true {
            var replayed = false
            try await run(
                PostGISStatement(
                    sql: "SELECT NOT pg_is_in_recovery() OR coalesce(pg_last_wal_replay_lsn() >= $1::text::pg_lsn, false)",
                    parameters: [.text(position)])
            ) { replayed = try $0.decode(Bool.self) }
            if replayed { return true }
            if clock.now >= deadline { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

extension PostGISReplicatedSource: AttachmentKeepingSource {
    /// Whether the table has a companion table of attachments (on the replica, as on the primary).
    public var keepsAttachments: Bool { replica.keepsAttachments && primary.keepsAttachments }

    /// The replica's list of the attachments of feature `objectID`.
    /// - Throws: As ``PostGISFeatureSource/attachmentInfos(objectID:)`` throws.
    public func attachmentInfos(objectID: Int64) async throws -> [AttachmentInfo] {
        try await replica.attachmentInfos(objectID: objectID)
    }

    /// The replica's attachment `attachmentID` of feature `objectID`.
    /// - Throws: As ``PostGISFeatureSource/attachment(objectID:attachmentID:)`` throws.
    public func attachment(objectID: Int64, attachmentID: Int64) async throws -> (info: AttachmentInfo, data: [UInt8])? {
        try await replica.attachment(objectID: objectID, attachmentID: attachmentID)
    }

    /// Adds the attachment on the primary, answered once the replica has replayed it.
    /// - Throws: As ``PostGISFeatureSource/addAttachment(objectID:name:contentType:data:options:user:)`` throws.
    public func addAttachment(objectID: Int64, name: String, contentType: String, data: [UInt8], options: EditingOptions, user: String?)
        async throws -> FeatureEditResult
    {
        try await replayed(
            [try await primary.addAttachment(objectID: objectID, name: name, contentType: contentType, data: data, options: options, user: user)]
        )[0]
    }

    /// Replaces the attachment on the primary, answered once the replica has replayed it.
    /// - Throws: As ``PostGISFeatureSource/updateAttachment(objectID:attachmentID:name:contentType:data:options:user:)`` throws.
    public func updateAttachment(
        objectID: Int64, attachmentID: Int64, name: String?, contentType: String?, data: [UInt8], options: EditingOptions, user: String?
    ) async throws -> FeatureEditResult {
        try await replayed([
            try await primary.updateAttachment(
                objectID: objectID, attachmentID: attachmentID, name: name, contentType: contentType, data: data, options: options, user: user)
        ])[0]
    }

    /// Deletes the attachments on the primary, answered once the replica has replayed it.
    /// - Throws: As ``PostGISFeatureSource/deleteAttachments(objectID:attachmentIDs:options:user:)`` throws.
    public func deleteAttachments(objectID: Int64, attachmentIDs: [Int64], options: EditingOptions, user: String?) async throws
        -> [FeatureEditResult]
    {
        try await replayed(try await primary.deleteAttachments(objectID: objectID, attachmentIDs: attachmentIDs, options: options, user: user))
    }

    /// `results`, once the replica has replayed the primary's log (at most ``replayTimeout``)
    /// when one of them changed something.
    private func replayed(_ results: [FeatureEditResult]) async throws -> [FeatureEditResult] {
        if results.contains(where: \.success), let position = try await primary.walPosition() {
            _ = try await replica.waitForReplay(of: position, timeout: replayTimeout)
        }
        return results
    }
}
