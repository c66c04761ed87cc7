/// What kind of failure an error is. The category alone decides how every front door reports
/// it: the HTTP status and ArcGIS error code of the server and the exit status of `geosieve`
/// (see ``httpStatus``, ``arcGISCode``, ``exitStatus``).
///
/// | category | meaning | HTTP | ArcGIS code | exit |
/// |---|---|---|---|---|
/// | ``invalidRequest`` | the caller's input is wrong: a where clause, filter, geometry, parameter, file content | 400 | 400 | 2 |
/// | ``notFound`` | a named thing (layer, feature, field, table) does not exist | 404 | 404 | 2 |
/// | ``unsupported`` | asked for something GeoSieve does not do | 400 | 400 | 2 |
/// | ``tooLarge`` | input over a limit | 413 | 413 | 2 |
/// | ``conflict`` | an edit the data refuses (a duplicate ID, a rule) | 409 | 409 | 2 |
/// | ``unauthorized`` | a missing or wrong token | 401 | 498 | 2 |
/// | ``forbidden`` | an operation the configuration does not allow | 403 | 403 | 2 |
/// | ``unreadable`` | a file or stream that cannot be read or written | 500 | 500 | 1 |
/// | ``unavailable`` | a service or database that failed or did not answer | 502 | 500 | 1 |
/// | ``timedOut`` | work that did not finish in time | 503 | 503 | 1 |
/// | ``internal`` | a GeoSieve bug or a failure of a library beneath it | 500 | 500 | 70 |
public struct ErrorCategory: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The category's name.
    public let rawValue: String
    /// The category named `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The category's name.
    public var description: String { rawValue }

    /// The caller's input is wrong.
    public static let invalidRequest = ErrorCategory(rawValue: "invalid request")
    /// A named thing does not exist.
    public static let notFound = ErrorCategory(rawValue: "not found")
    /// Something GeoSieve does not do.
    public static let unsupported = ErrorCategory(rawValue: "unsupported")
    /// Input over a limit.
    public static let tooLarge = ErrorCategory(rawValue: "too large")
    /// An edit the data refuses.
    public static let conflict = ErrorCategory(rawValue: "conflict")
    /// A missing or wrong token.
    public static let unauthorized = ErrorCategory(rawValue: "unauthorized")
    /// An operation the configuration does not allow.
    public static let forbidden = ErrorCategory(rawValue: "forbidden")
    /// A file or stream that cannot be read or written.
    public static let unreadable = ErrorCategory(rawValue: "unreadable")
    /// A service or database that failed or did not answer.
    public static let unavailable = ErrorCategory(rawValue: "unavailable")
    /// Work that did not finish in time.
    public static let timedOut = ErrorCategory(rawValue: "timed out")
    /// A GeoSieve bug or a failure of a library beneath it.
    public static let `internal` = ErrorCategory(rawValue: "internal")

    /// The HTTP status the server answers with.
    public var httpStatus: Int {
        switch self {
        case .invalidRequest, .unsupported: 400
        case .unauthorized: 401
        case .forbidden: 403
        case .notFound: 404
        case .conflict: 409
        case .tooLarge: 413
        case .unavailable: 502
        case .timedOut: 503
        default: 500
        }
    }

    /// The `code` of an ArcGIS REST error document (`{"error":{"code":…}}`): the HTTP status,
    /// except 498 (invalid token) for ``unauthorized``, as ArcGIS Server answers.
    public var arcGISCode: Int {
        switch self {
        case .unauthorized: 498
        case .unavailable: 500
        default: httpStatus
        }
    }

    /// The exit status of `geosieve`: 1 when a file, stream, service or database failed, 70
    /// (`EX_SOFTWARE`) for an internal failure, 2 for everything the caller can correct.
    public var exitStatus: Int32 {
        switch self {
        case .unreadable, .unavailable, .timedOut: 1
        case .internal: 70
        default: 2
        }
    }
}

/// Where in its input an error was found.
public struct InputLocation: Hashable, Sendable, CustomStringConvertible {
    /// What the input is: `where`, `filter`, a file name, a parameter name.
    public var input: String?
    /// The 1-based line, when known.
    public var line: Int?
    /// The 1-based column (or character offset when ``line`` is `nil`), when known.
    public var column: Int?
    /// The path of the offending member of a JSON value (`rings[1][0]`,
    /// `uniqueValueInfos[2].symbol`), when known.
    public var path: String?
    /// The 0-based index of the offending feature in its file or request, when known.
    public var featureIndex: Int?

    /// A location.
    public init(
        input: String? = nil, line: Int? = nil, column: Int? = nil, path: String? = nil, featureIndex: Int? = nil
    ) {
        self.input = input
        self.line = line
        self.column = column
        self.path = path
        self.featureIndex = featureIndex
    }

    /// `input at L:C (path) in features[i]`, `input at character C`, or what is known of it.
    public var description: String {
        var parts: [String] = []
        if let input { parts.append(input) }
        switch (line, column) {
        case (let line?, let column?): parts.append("at \(line):\(column)")
        case (nil, let column?): parts.append("at character \(column)")
        case (let line?, nil): parts.append("at line \(line)")
        case (nil, nil): break
        }
        if let path, !path.isEmpty { parts.append("(\(path))") }
        if let featureIndex { parts.append("in features[\(featureIndex)]") }
        return parts.joined(separator: " ")
    }
}

/// The common shape of GeoSieve's errors: a ``category`` that decides how the command line and
/// the server report it, a one-line ``message`` saying what is wrong, and where known the
/// ``inputLocation`` in the input.
///
/// Adopted by every public error type (`WhereClauseError`, `CQL2Error`, `FeatureTableError`,
/// `QueryError`, …), so that a front door maps any of them the same way. The types with a kind
/// to match on adopt ``GeoSieveKindedError``, which gives them `~=` and a default description.
/// The default ``description`` is the ``message``.
///
/// ```swift
/// catch let error as any GeoSieveError {
///     exit(error.category.exitStatus)
/// }
/// ```
public protocol GeoSieveError: Error, Sendable, CustomStringConvertible {
    /// How the error is reported.
    var category: ErrorCategory { get }
    /// What is wrong, in one line.
    var message: String { get }
    /// Where in the input, when known.
    var inputLocation: InputLocation? { get }
}

extension GeoSieveError {
    /// No location by default.
    public var inputLocation: InputLocation? { nil }

    /// The ``message`` by default; a type that says more (its kind, a position) writes its own.
    public var description: String { message }
}

extension ErrorCategory {
    /// The category of any error: a ``GeoSieveError``'s own, ``timedOut`` for a task's
    /// `CancellationError` (work stopped before it finished), ``invalidRequest`` for the rest —
    /// an error reaching a front door without a category is taken as the caller's.
    public static func of(_ error: any Error) -> ErrorCategory {
        if let error = error as? any GeoSieveError { return error.category }
        if error is CancellationError { return .timedOut }
        return .invalidRequest
    }
}
