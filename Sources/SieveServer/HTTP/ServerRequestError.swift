import SieveGeometry

/// Why a request could not be answered: the HTTP status it maps to and a message for the
/// client. Each protocol writes it in its own error shape: ArcGIS REST as
/// `{"error":{"code":…,"message":…,"details":[…]}}`, OGC API as `{"code":…,"description":…}`.
public struct ServerRequestError: Error, Hashable, Sendable, CustomStringConvertible {
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
        /// A body over the size limit (413).
        case contentTooLarge = 413
        /// A URL over the size limit (414).
        case uriTooLong = 414
        /// A failure of the server itself, such as a file that could not be saved (500).
        case internalError = 500
        /// Too many requests at once: try again later (503).
        case serviceUnavailable = 503
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

    /// The HTTP status code.
    public var status: Int { kind.rawValue }

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

    public var description: String { message }

    /// The ArcGIS REST error document. Authentication failures carry ArcGIS's codes (499 token
    /// required, 498 invalid token); the others their HTTP status.
    public var arcGISJSON: String {
        let code: Int
        let message: String
        if kind == .unauthorized {
            code = tokenGiven ? 498 : 499
            message = tokenGiven ? "Invalid Token" : "Token Required"
        } else {
            code = status
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
        case .uriTooLong: code = "URITooLong"
        case .internalError: code = "ServerError"
        case .serviceUnavailable: code = "ServiceUnavailable"
        }
        let text = ([message] + details).joined(separator: ": ")
        return JSONWriter.string(.object(JSONObject([("code", .string(code)), ("description", .string(text))])))
    }

    /// The value of `work`, its errors (the engine's) turned into a failure of `kind` — saying
    /// `message` with the engine's reason as the detail, or the reason itself — and a
    /// ``ServerRequestError`` passed on as it is.
    static func catching<T>(_ kind: Kind, message: String? = nil, _ work: () throws -> T) throws(ServerRequestError) -> T {
        do {
            return try work()
        } catch let error as ServerRequestError {
            throw error
        } catch {
            if let message { throw ServerRequestError(kind, message, details: ["\(error)"]) }
            throw ServerRequestError(kind, "\(error)")
        }
    }
}
