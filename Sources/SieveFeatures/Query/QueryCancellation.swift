import Synchronization

/// A request to stop a query that is still running, for a caller that no longer wants its
/// answer (a server whose query timeout has passed, a client that went away).
///
/// Work runs where a query can take long — the exact spatial test, where GEOS computes a
/// relationship feature by feature — checks the cancellation bound to the current task or
/// thread (``current``) between features and stops with
/// ``FeatureTableError/Kind/cancelled``. Every other step of a query takes time in proportion
/// to the rows it reads and is not interrupted. A cancelled query changes nothing: queries only
/// read.
///
/// ```swift
/// let cancellation = QueryCancellation()
/// // elsewhere, later: cancellation.cancel()
/// let result = try QueryCancellation.$current.withValue(cancellation) {
///     try table.query(parameters)
/// }
/// ```
public final class QueryCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    /// A cancellation not yet requested.
    public init() {}

    /// Asks the query to stop at its next check. Safe from any thread, any number of times.
    public func cancel() { flag.store(true, ordering: .relaxed) }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }

    /// The cancellation queries check while they run: bound with `$current.withValue(_:)`, on a
    /// task or (outside tasks) on the current thread; `nil` when nobody can cancel.
    @TaskLocal public static var current: QueryCancellation?

    /// Throws when the query has been cancelled.
    /// - Throws: ``FeatureTableError/Kind/cancelled``.
    @inline(__always)
    func check() throws(FeatureTableError) {
        if isCancelled { throw FeatureTableError(.cancelled, "the query was cancelled before it finished") }
    }
}

extension FeatureTableError.Kind {
    /// A query stopped by its ``QueryCancellation`` before it finished.
    public static let cancelled = FeatureTableError.Kind(rawValue: "cancelled")
}

extension FeatureTableError {
    /// See ``Kind/cancelled``.
    public static var cancelled: Kind { .cancelled }
}
