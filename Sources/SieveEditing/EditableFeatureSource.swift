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
