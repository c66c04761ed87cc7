import SieveBase

/// How a snapshot of an edited table finds a feature's row by object ID when edits have appended
/// rows after those of the table the edits started from (the *base*).
///
/// The base's rows are found through its own object-ID index. Every row an edit appends (a new
/// feature, or the new version of an updated one) is recorded in a ``VersionMap`` shared by all
/// snapshots of the edited table: object ID → latest row, and for each appended row the row of
/// the version it replaced. A snapshot looks the latest row up and walks back through the
/// versions until it reaches a row it has (below its ``FeatureTable/count``), then checks that
/// row is not deleted. Maintaining it is O(1) per edit: the index is never copied per batch.
package struct EditLineage: Sendable {
    /// Rows below this were the base's.
    package let baseRowCount: Int
    /// The versions of the features edits appended (shared, only ever growing).
    package let versions: VersionMap

    /// A lineage over a base of `baseRowCount` rows, with no edit yet.
    package init(baseRowCount: Int) {
        self.baseRowCount = baseRowCount
        versions = VersionMap()
    }

    /// The bytes the lineage holds.
    package var byteCount: Int { versions.byteCount }
}

/// Object ID → latest appended row, and appended row → the row of the version it replaced;
/// shared by the snapshots of one edited table. Its single writer records a batch's rows after
/// appending them and before publishing the snapshot that has them; older snapshots walk back
/// past them. Every access holds the mutex.
package final class VersionMap: Sendable {
    private struct State {
        var latest: [Int64: Int] = [:]
        /// For appended row `baseRowCount + i`: the previous version's row, or -1.
        var previous: [Int] = []
    }

    /// What the map knows of an object ID for one snapshot.
    enum Lookup {
        /// Edits never appended a row for it: ask the base.
        case notEdited
        /// The row of the version the snapshot has (possibly a base row).
        case row(Int)
        /// The feature was added after the snapshot: the snapshot does not have it.
        case absent
    }

    private let state = Locked(State())

    /// The row of `objectID` in a snapshot of `rowCount` rows (deleted or not).
    func lookup(_ objectID: Int64, rowCount: Int, baseRowCount: Int) -> Lookup {
        state.withLock { state in
            guard var row = state.latest[objectID] else { return .notEdited }
            while row >= rowCount {
                row = state.previous[row - baseRowCount]
                if row < 0 { return .absent }
            }
            return .row(row)
        }
    }

    /// Records appended rows, in row order: each row's object ID and the row of its previous
    /// version (-1 for a new feature). The first is row `baseRowCount + recordedCount`.
    package func record(_ rows: [(objectID: Int64, row: Int, previous: Int)]) {
        state.withLock { state in
            for entry in rows {
                state.latest[entry.objectID] = entry.row
                state.previous.append(entry.previous)
            }
        }
    }

    /// The bytes the map holds, at capacity (a dictionary entry 17 bytes, a version 8).
    package var byteCount: Int { state.withLock { $0.latest.capacity * 17 + $0.previous.capacity * 8 } }
}
