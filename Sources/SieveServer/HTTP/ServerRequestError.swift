// Re-exported: the error's category and location are SieveBase's, and a client of this module
// uses them with the error.
@_exported import SieveBase
import SieveGeometry
import SieveJSON

/// Why a request could not be answered: the HTTP status it maps to and a message for the
/// client. Each protocol writes it in its own error shape: ArcGIS REST as
/// `{"error":{"code":…,"message":…,"details":[…]}}`, OGC API as `{"code":…,"description":…}`.
///
/// Every other error reaching a route becomes one through its ``/SieveBase/ErrorCategory``
/// (``init(_:fallback:)``): the category's HTTP status is the kind, so the server and the
/// command line report an error the same way (see ``/SieveBase/ErrorCategory``). The kinds map back
/// to categories (``category``).
public struct ServerRequestError: GeoSieveError, Hashable {
    /// The kinds of failure, each with its HTTP status.
    public enum Kind: Int, Hashable, Sendable {
        /// A parameter or body that is malformed or invalid (400).
        case badRequest = 400
        /// No token, or a wrong one, where one is required (401; ArcGIS codes 499 and 498).
        case unauthorized = 401
        /// An operation the server does not allow, such as an edit of a read-only service (403).
        case forbidden = 403
        /// No such service, layer, collection, feature or attachment (404).
        case notFound = 404
        /// A method the route does not take (405).
        case methodNotAllowed = 405
        /// A format the route cannot give (406).
        case notAcceptable = 406
        /// An edit the data refuses, such as one rolled back with its batch (409).
        case conflict = 409
        /// A body over the size limit (413).
        case contentTooLarge = 413
        /// A URL over the size limit (414).
        case uriTooLong = 414
        /// A failure of the server itself, such as a file that could not be saved (500).
        case internalError = 500
        /// What the server does not do for this layer, such as vector tiles of a layer served from
        /// a database (501).
        case notImplemented = 501
        /// A database or service behind the server failed or did not answer (502).
        case badGateway = 502
        /// Too many requests at once, or a query that did not finish in time: try again later
        /// (503).
        case serviceUnavailable = 503

        /// The kind whose status is `category`'s HTTP status
        /// (``/SieveBase/ErrorCategory/httpStatus``): 400 for an invalid or unsupported request,
        /// 404, 409, 413 for input over a limit, 401, 403, 500 for an unreadable file or an
        /// internal failure, 502 for a failed database or service, 503 for work that did not finish
        /// in time.
        public init(_ category: ErrorCategory) {
            self = Kind(rawValue: category.httpStatus) ?? .internalError
        }

        /// The category of a failure of this kind: the one whose HTTP status it is, and for the
        /// statuses no category has, the nearest — ``/SieveBase/ErrorCategory/unsupported`` for 405
        /// and 406, ``/SieveBase/ErrorCategory/tooLarge`` for 414.
        public var category: ErrorCategory {
            switch self {
            case .badRequest: .invalidRequest
            case .unauthorized: .unauthorized
            case .forbidden: .forbidden
            case .notFound: .notFound
            case .methodNotAllowed, .notAcceptable: .unsupported
            case .contentTooLarge, .uriTooLong: .tooLarge
            case .conflict: .conflict
            case .internalError: .internal
            case .notImplemented: .unsupported
            case .badGateway: .unavailable
            case .serviceUnavailable: .timedOut
            }
        }
    }

    /// What failed.
    public var kind: Kind
    /// The message for the client.
    public var message: String
    /// Further lines (ArcGIS `details`).
    public var details: [String]
    /// For ``Kind/unauthorized``: whether a token was given (wrong) or missing.
    public var tokenGiven: Bool

    /// A failure of `kind` saying `message`.
    public init(_ kind: Kind, _ message: String, details: [String] = [], tokenGiven: Bool = false) {
        self.kind = kind
        self.message = message
        self.details = details
        self.tokenGiven = tokenGiven
    }

    /// `error` as a failure to answer with: itself when it is one; otherwise a failure of the
    /// kind its category says (see ``Kind/init(_:)``), saying the error's description. An error
    /// without a category (not a ``/SieveBase/GeoSieveError``) is a failure of `fallback`.
    public init(_ error: any Error, fallback: Kind = .badRequest) {
        if let error = error as? ServerRequestError {
            self = error
            return
        }
        let kind = error is any GeoSieveError || error is CancellationError ? Kind(ErrorCategory.of(error)) : fallback
        self.init(kind, "\(error)")
    }

    /// The HTTP status code.
    public var status: Int { kind.rawValue }

    /// The category of the failure (see ``Kind/category``).
    public var category: ErrorCategory { kind.category }

    /// The headers the answer carries: `Retry-After` when the server is busy; `Connection:
    /// close` after a body or URL over the limit (the rest of the request is not read, so the
    /// connection cannot carry another).
    var headers: [(name: String, value: String)] {
        switch kind {
        case .serviceUnavailable: [("Retry-After", "1")]
        case .contentTooLarge, .uriTooLong: [("Connection", "close")]
        default: []
        }
    }

    /// The message for the client.
    public var description: String { message }

    /// The ArcGIS REST error document. Authentication failures carry ArcGIS's codes (499 token
    /// required, 498 invalid token); the others their category's ArcGIS code
    /// (``/SieveBase/ErrorCategory/arcGISCode``: the HTTP status, but 500 for a failed database or
    /// service), or their HTTP status when it is not their category's (405, 406, 414).
    public var arcGISJSON: String {
        let code: Int
        let message: String
        if kind == .unauthorized {
            code = tokenGiven ? 498 : 499
            message = tokenGiven ? "Invalid Token" : "Token Required"
        } else {
            code = category.httpStatus == status ? category.arcGISCode : status
            message = self.message
        }
        let lines = kind == .unauthorized ? [self.message] : details
        var error = JSONObject()
        error.append("code", .integer(code))
        error.append("message", .string(message))
        error.append("details", .array(lines.map { .string($0) }))
        return JSONWriter.string(.object(JSONObject([("error", .object(error))])))
    }

    /// The OGC API exception document: `{"code":"InvalidParameterValue","description":…}`
    /// (the shape of OGC API – Features 1.0's exception schema, as pygeoapi writes it).
    public var ogcJSON: String {
        let code: String
        switch kind {
        case .badRequest: code = "InvalidParameterValue"
        case .unauthorized: code = "Unauthorized"
        case .forbidden: code = "Forbidden"
        case .notFound: code = "NotFound"
        case .methodNotAllowed: code = "MethodNotAllowed"
        case .notAcceptable: code = "NotAcceptable"
        case .contentTooLarge: code = "ContentTooLarge"
        case .conflict: code = "Conflict"
        case .uriTooLong: code = "URITooLong"
        case .internalError: code = "ServerError"
        case .notImplemented: code = "NotImplemented"
        case .badGateway: code = "BadGateway"
        case .serviceUnavailable: code = "ServiceUnavailable"
        }
        let text = ([message] + details).joined(separator: ": ")
        return JSONWriter.string(.object(JSONObject([("code", .string(code)), ("description", .string(text))])))
    }

    /// The value of `work`, its errors (the engine's) turned into failures by their category
    /// (see ``init(_:fallback:)``), and a ``ServerRequestError`` passed on as it is.
    ///
    /// `kind` is what the caller expects a failure of `work` to be: the kind of an error without
    /// a category, and the one `message` describes. A failure of that kind says `message` with
    /// the engine's reason as the detail (or the reason itself, without a `message`); a failure
    /// of another kind (a query that timed out where a bad parameter was expected) says the
    /// reason itself. When `kind` is a server failure (5xx: `work` reads nothing of the
    /// request, such as a metadata document), an error whose category blames the input (4xx)
    /// is about the server's own data, and a failure of `kind`.
    static func catching<T>(_ kind: Kind, message: String? = nil, _ work: () throws -> T) throws(ServerRequestError) -> T {
        do {
            return try work()
        } catch {
            throw converting(error, kind, message: message)
        }
    }

    /// ``catching(_:message:_:)`` for work that suspends (a query a database runs).
    static func catching<T>(_ kind: Kind, message: String? = nil, _ work: () async throws -> T) async throws(ServerRequestError) -> T {
        do {
            return try await work()
        } catch {
            throw converting(error, kind, message: message)
        }
    }

    /// The request error `error` answers as, as ``catching(_:message:_:)`` describes.
    private static func converting(_ error: any Error, _ kind: Kind, message: String?) -> ServerRequestError {
        if let error = error as? ServerRequestError { return error }
        var failure = ServerRequestError(error, fallback: kind)
        if kind.rawValue >= 500, failure.status < 500 { failure = ServerRequestError(kind, "\(error)") }
        if let message, failure.kind == kind { return ServerRequestError(kind, message, details: ["\(error)"]) }
        return failure
    }
}
