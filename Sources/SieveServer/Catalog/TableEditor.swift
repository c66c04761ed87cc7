import SieveFeatures
import SieveEditing
import SieveFormats

/// Saves an edited table: given the table after a batch and the object IDs the batch wrote
/// (added or changed, their attachments included) and deleted. Called while further edits of
/// the table wait; throwing reports the batch as not saved.
public typealias TableSaver = @Sendable (_ table: FeatureTable, _ written: [Int64], _ deleted: [Int64]) throws -> Void

/// Runs the edits of one served table one batch at a time, each saved before the next starts.
///
/// A batch is applied to the ``EditableFeatureTable`` (which publishes its snapshot at once, so
/// concurrent queries see all of it or none), then saved; when the save fails, the batch is
/// undone, so that the table in memory and the one on disk stay the same, and the request fails.
actor TableEditor {
    let table: EditableFeatureTable
    let save: TableSaver?

    init(table: EditableFeatureTable, save: TableSaver?) {
        self.table = table
        self.save = save
    }

    /// Applies `edit` to the table and saves what it changed.
    /// - Throws: ``ServerRequestError`` (internal error) when the save fails; nothing of the
    ///   batch stays then.
    func run<Result: Sendable>(_ edit: @Sendable (EditableFeatureTable) -> Result) throws(ServerRequestError) -> Result {
        let result = edit(table)
        let (written, deleted) = table.localEditObjectIDs
        guard let save, !(written.isEmpty && deleted.isEmpty) else {
            table.commitLocalEdits()
            return result
        }
        do {
            try save(table.snapshot, written, deleted)
            table.commitLocalEdits()
            return result
        } catch {
            table.undoLocalEdits()
            table.commitLocalEdits()
            throw ServerRequestError(.internalError, "the edits could not be saved, so none was applied: \(error)")
        }
    }
}
