import SieveFeatures
import SieveFormats
import SieveColumns
import SieveGeometry
import SieveJSON

/// The edits of an ArcGIS REST `applyEdits` request: features to add, updates, object IDs to
/// delete and the request's `rollbackOnFailure`. An editable table applies them
/// (``EditableFeatureTable/applyEdits(_:rollbackOnFailure:user:)``) and gives its local edits as
/// one (``EditableFeatureTable/localEdits``); SieveArcGISREST reads and writes its JSON.
public struct ApplyEditsRequest: Sendable {
    /// The features to add.
    public var adds: [FeatureEdit]
    /// The updates.
    public var updates: [FeatureEdit]
    /// The object IDs to delete.
    public var deletes: [Int64]
    /// The request's `rollbackOnFailure`, when it gives one.
    public var rollbackOnFailure: Bool?
    /// The names (any case) of the date-only fields: the request's REST JSON and form parameters
    /// (SieveArcGISREST) write their values as `"yyyy-mm-dd"`, as ArcGIS takes `esriFieldTypeDateOnly` values; other dates are
    /// epoch milliseconds. Empty unless set.
    public var dateOnlyFieldNames: Set<String> = []

    /// Creates a request.
    public init(adds: [FeatureEdit] = [], updates: [FeatureEdit] = [], deletes: [Int64] = [], rollbackOnFailure: Bool? = nil) {
        self.adds = adds
        self.updates = updates
        self.deletes = deletes
        self.rollbackOnFailure = rollbackOnFailure
    }
}

extension EditableFeatureTable {
    /// Applies `request` (e.g. one read from REST JSON), rolling back on a
    /// failure as `rollbackOnFailure` says, else as the request says, else (the default) yes.
    public func applyEdits(_ request: ApplyEditsRequest, rollbackOnFailure: Bool? = nil, user: String? = nil) -> ApplyEditsResult {
        applyEdits(
            adds: request.adds, updates: request.updates, deletes: request.deletes,
            rollbackOnFailure: rollbackOnFailure ?? request.rollbackOnFailure ?? true, user: user)
    }
}
