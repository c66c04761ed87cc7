// Re-exported: the error's category, its location and the `~=` that matches its kinds are
// SieveBase's, and a client of this module uses them with the error.
@_exported import SieveBase

/// What went wrong talking to PostgreSQL: the statement's purpose and the server's own message.
///
/// Its ``kind`` tells a database that cannot be reached (``Kind/connection``, the kind of an
/// error made without one) from a query the server refused, a table or column that does not
/// exist, connection options that are wrong and a table GeoSieve cannot read; its
/// ``description`` is the ``message`` alone.
public struct PostGISError: GeoSieveKindedError {
    /// What kind of failure this is. New kinds may be added; `switch` over them with a `default`
    /// case.
    public struct Kind: GeoSieveErrorKind {
        /// The error type of these kinds.
        public typealias Failure = PostGISError
        /// The kind's name.
        public var rawValue: String
        /// Creates a kind from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The server cannot be reached, or the connection failed or was lost.
        public static let connection = Kind(rawValue: "connection")
        /// The server refused a statement (an error of the query, such as an overflow PostgreSQL
        /// raises where GeoSieve gives NULL).
        public static let queryRefused = Kind(rawValue: "query refused")
        /// The table, or a column the options name, does not exist.
        public static let notFound = Kind(rawValue: "not found")
        /// A URL or options that cannot be used: a missing part, an unknown parameter, a table
        /// whose key or geometry column must be named.
        public static let invalidOptions = Kind(rawValue: "invalid options")
        /// A table GeoSieve cannot read: a geometry column mixing kinds, a geometry that is not
        /// WKB GeoSieve reads.
        public static let unsupported = Kind(rawValue: "unsupported")
        /// The database cancelled a query: its statement timeout passed, or its request went
        /// away.
        public static let cancelled = Kind(rawValue: "cancelled")
    }

    /// What kind of failure this is.
    public let kind: Kind
    /// What was being done and what the server said.
    public let message: String

    /// A connection failure (``Kind/connection``) saying `message`.
    public init(_ message: String) {
        self.init(.connection, message)
    }

    /// An error of `kind` saying `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// How the error is reported: ``/SieveBase/ErrorCategory/unavailable`` for a database that
    /// cannot be reached, ``/SieveBase/ErrorCategory/invalidRequest`` for a refused query or wrong
    /// options, ``/SieveBase/ErrorCategory/notFound`` for a missing table or column,
    /// ``/SieveBase/ErrorCategory/unsupported`` for a table GeoSieve cannot read.
    public var category: ErrorCategory {
        switch kind {
        case .queryRefused, .invalidOptions: .invalidRequest
        case .notFound: .notFound
        case .unsupported: .unsupported
        case .cancelled: .timedOut
        default: .unavailable
        }
    }

    /// The message: what was being done and what the server said.
    public var description: String { message }
}
