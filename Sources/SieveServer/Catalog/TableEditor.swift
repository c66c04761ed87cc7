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
///
/// The save (file I/O) runs on the engine's threads, not in the actor's isolation: the actor
/// only orders the batches. While a batch is being saved the actor is free, and the next
/// batches wait in arrival order for its turn (``acquire()``), so that edits never interleave.
actor TableEditor {
    let table: EditableFeatureTable
    let save: TableSaver?
    /// Whether a batch is being applied or saved.
    private var busy = false
    /// The batches waiting for their turn, first come first served.
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(table: EditableFeatureTable, save: TableSaver?) {
        self.table = table
        self.save = save
    }

    /// Applies `edit` to the table and saves what it changed.
    /// - Throws: ``ServerRequestError`` (internal error) when the save fails; nothing of the
    ///   batch stays then.
    func run<Result: Sendable>(_ edit: @Sendable (EditableFeatureTable) -> Result) async throws(ServerRequestError) -> Result {
        await acquire()
        defer { release() }
        let result = edit(table)
        let (written, deleted) = table.localEditObjectIDs
        guard let save, !(written.isEmpty && deleted.isEmpty) else {
            table.commitLocalEdits()
            return result
        }
        let snapshot = table.snapshot
        let failure: String? = await withCheckedContinuation { continuation in
            EngineExecutor.shared.submit {
                do {
                    try save(snapshot, written, deleted)
                    continuation.resume(returning: nil)
                } catch {
                    continuation.resume(returning: "\(error)")
                }
            }
        }
        if let failure {
            table.undoLocalEdits()
            table.commitLocalEdits()
            throw ServerRequestError(.internalError, "the edits could not be saved, so none was applied: \(failure)")
        }
        table.commitLocalEdits()
        return result
    }

    /// Waits until no other batch is being applied or saved, then takes the turn.
    private func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
        // The releasing batch handed its turn over: `busy` stays true.
    }

    /// Hands the turn to the next waiting batch, or frees the table.
    private func release() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
