import SieveBase
import SieveCQL
import SieveGEOS
import SieveGeometry
import SieveProjection
import SieveSQL

/// Why a query failed, whatever the source and whatever stage refused it: the where clause did
/// not parse or bind, the CQL2 filter did not, a parameter (out fields, order, page, statistic)
/// was wrong, the query geometry was invalid or could not be projected, GEOS failed, the source
/// (a database, a service) failed, or the query was cancelled.
///
/// Its ``description`` is the failing stage's own message, unchanged (`where clause error at
/// 1:9: unknown field "popu" (did you mean "pop"?)`), and ``underlying`` keeps that error for
/// callers that want its details.
///
/// ```swift
/// do {
///     _ = try table.answer(QueryRequest(QueryParameters(whereClause: "popu > 1")))
/// } catch QueryError.whereClause {
///     // …
/// }
/// ```
public struct QueryError: GeoSieveKindedError {
    /// The stage that refused the query. New kinds may be added.
    public struct Kind: GeoSieveErrorKind {
        /// The error type of these kinds.
        public typealias Failure = QueryError
        /// The kind's name.
        public let rawValue: String
        /// The kind named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The where clause (or a definition expression) does not parse or bind.
        public static let whereClause = Kind(rawValue: "where clause")
        /// The CQL2 filter does not parse or bind.
        public static let filter = Kind(rawValue: "filter")
        /// A parameter cannot be honoured: an unknown out or order field, a negative page, a bad
        /// statistic, a combination of answers that does not go together.
        public static let parameter = Kind(rawValue: "parameter")
        /// The query geometry is invalid, or GEOS failed on a geometry.
        public static let geometry = Kind(rawValue: "geometry")
        /// A spatial reference is unknown, or a geometry does not project into it.
        public static let projection = Kind(rawValue: "projection")
        /// The source cannot answer this kind of request.
        public static let unsupported = Kind(rawValue: "unsupported")
        /// The source (a database, a service) failed.
        public static let source = Kind(rawValue: "source")
        /// The query was cancelled before it finished.
        public static let cancelled = Kind(rawValue: "cancelled")
    }

    /// The stage that refused the query.
    public let kind: Kind
    /// How the error is reported (the underlying error's category when it has one).
    public let category: ErrorCategory
    /// What is wrong, in one line: the failing stage's message.
    public let message: String
    /// Where in the input, when known.
    public let inputLocation: InputLocation?
    /// The error of the failing stage, when the query error wraps one.
    public let underlying: (any Error & Sendable)?

    /// An error of `kind` saying `message`.
    public init(_ kind: Kind, _ message: String, category: ErrorCategory = .invalidRequest, inputLocation: InputLocation? = nil) {
        self.kind = kind
        self.message = message
        self.category = category
        self.inputLocation = inputLocation
        self.underlying = nil
    }

    /// `error` as a query error: itself when it is one; otherwise wrapped, its description kept
    /// as the message and its category (see ``/SieveBase/ErrorCategory/of(_:)``) kept, the kind
    /// read from its type and the stage's own kind (`kind`, when the caller knows better).
    public init(wrapping error: any Error, kind: Kind? = nil) {
        if let error = error as? QueryError {
            self = error
            return
        }
        self.kind = kind ?? Self.kind(of: error)
        self.message = "\(error)"
        self.category = self.kind == .cancelled ? .timedOut : ErrorCategory.of(error)
        self.inputLocation = (error as? any GeoSieveError)?.inputLocation
        self.underlying = error
    }

    /// The stage an error of another type comes from.
    private static func kind(of error: any Error) -> Kind {
        switch error {
        case let error as FeatureTableError:
            switch error.kind {
            case .cancelled: return .cancelled
            case .invalidGeometry: return .geometry
            default: return .parameter
            }
        case is WhereClauseError: return .whereClause
        case is CQL2Error: return .filter
        case is ProjectionError: return .projection
        case is GEOSError, is GeometryError: return .geometry
        default:
            // A database's or service's failure (their error types live above this module).
            let category = ErrorCategory.of(error)
            return category == .unavailable || category == .unreadable ? .source : .parameter
        }
    }

    /// The failing stage's message, without the kind: the stage's own error already says what
    /// it is.
    public var description: String { message }

    /// See ``Kind/whereClause``.
    public static var whereClause: Kind { .whereClause }
    /// See ``Kind/filter``.
    public static var filter: Kind { .filter }
    /// See ``Kind/parameter``.
    public static var parameter: Kind { .parameter }
    /// See ``Kind/geometry``.
    public static var geometry: Kind { .geometry }
    /// See ``Kind/projection``.
    public static var projection: Kind { .projection }
    /// See ``Kind/unsupported``.
    public static var unsupported: Kind { .unsupported }
    /// See ``Kind/source``.
    public static var source: Kind { .source }
    /// See ``Kind/cancelled``.
    public static var cancelled: Kind { .cancelled }
}
