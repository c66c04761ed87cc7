// Part of the RemoteSources trait (on by default): HTTP clients of feature services.
#if RemoteSources
// Re-exported: the error's category, its location and the `~=` that matches its kinds are
// SieveBase's, and a client of this module uses them with the error.
@_exported import SieveBase

/// The error thrown by SieveClients: a request to a feature service that failed, with the URL
/// it went to and, when the service said why, the service's own message.
///
/// ```swift
/// do {
///     _ = try await client.get(url)
/// } catch let error as ServiceError where error.kind == .serviceError {
///     print(error)  // service error 400 from http://…/query: Unable to complete operation: 'where' …
/// }
/// ```
public struct ServiceError: GeoSieveKindedError, Hashable {
    /// The category of a ``ServiceError``. New kinds may be added; `switch` over them with a
    /// `default` case.
    public struct Kind: GeoSieveErrorKind {
        /// The error type of these kinds.
        public typealias Failure = ServiceError
        /// The kind's name, as the error's description starts with it.
        public var rawValue: String
        /// Creates a kind from its name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A URL that cannot be requested (not http or https, no host, unparsable).
        public static let invalidURL = Kind(rawValue: "invalid URL")
        /// The connection failed, was refused or closed before a whole answer came.
        public static let network = Kind(rawValue: "network error")
        /// No whole answer within the request timeout.
        public static let timeout = Kind(rawValue: "timeout")
        /// An HTTP status of 400 or more without an error document of the service's own.
        public static let httpStatus = Kind(rawValue: "HTTP error")
        /// The service answered with its error document: ArcGIS's `{"error":{…}}` (often with
        /// HTTP 200) or an OGC API exception (`{"code","description"}`).
        public static let serviceError = Kind(rawValue: "service error")
        /// An answer larger than ``ServiceClient/Configuration/maxResponseBytes`` (after
        /// decompression).
        public static let responseTooLarge = Kind(rawValue: "response too large")
        /// An answer that is not what the protocol promises (not JSON, missing members, wrong
        /// types).
        public static let invalidResponse = Kind(rawValue: "invalid response")
        /// What the service (or its kind) does not offer: editing an OGC API collection.
        public static let unsupported = Kind(rawValue: "unsupported")
        /// The caller's task was cancelled.
        public static let cancelled = Kind(rawValue: "cancelled")
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// What went wrong, in words: the service's message for ``Kind/serviceError``.
    public var message: String
    /// The URL of the request, without its token.
    public var url: String
    /// The HTTP status, when an answer came; for ``Kind/serviceError`` the service's own code
    /// when it gave one (ArcGIS sends 400, 498, 499 … inside an HTTP 200).
    public var status: Int?
    /// The service's details (ArcGIS `details`), when any.
    public var details: [String]
    /// How many times the request was sent (retries included).
    public var attempts: Int
    /// The service's `Retry-After`, in seconds, when it sent one.
    public var retryAfter: Int?

    /// Creates an error.
    public init(_ kind: Kind, _ message: String, url: String, status: Int? = nil, details: [String] = [], attempts: Int = 1) {
        self.kind = kind
        self.message = message
        self.url = url
        self.status = status
        self.details = details
        self.attempts = attempts
    }

    /// Whether sending the same request again may succeed: network failures, timeouts and the
    /// statuses that say so (429, 500, 502, 503, 504).
    public var isTransient: Bool {
        switch kind {
        case .network, .timeout: return true
        case .httpStatus, .serviceError: return [429, 500, 502, 503, 504].contains(status ?? 0)
        default: return false
        }
    }

    /// How the error is reported. A service that failed, did not answer in time or answered
    /// what the protocol does not promise is ``/SieveBase/ErrorCategory/unavailable`` — except the
    /// answers that say the caller is at fault: a missing or refused token (HTTP 401, ArcGIS 498
    /// and 499) is ``/SieveBase/ErrorCategory/unauthorized``, 403
    /// ``/SieveBase/ErrorCategory/forbidden``, 404 (no such layer or collection)
    /// ``/SieveBase/ErrorCategory/notFound``. A URL that cannot be requested is
    /// ``/SieveBase/ErrorCategory/invalidRequest``, an answer over the size limit
    /// ``/SieveBase/ErrorCategory/tooLarge``, an operation the service does not offer
    /// ``/SieveBase/ErrorCategory/unsupported``, a cancelled request
    /// ``/SieveBase/ErrorCategory/timedOut``.
    public var category: ErrorCategory {
        switch kind {
        case .invalidURL: return .invalidRequest
        case .responseTooLarge: return .tooLarge
        case .unsupported: return .unsupported
        case .cancelled: return .timedOut
        case .httpStatus, .serviceError:
            switch status {
            case 401, 498, 499: return .unauthorized
            case 403: return .forbidden
            case 404: return .notFound
            default: return .unavailable
            }
        default: return .unavailable
        }
    }

    /// One line: kind, status, URL, message and details.
    public var description: String {
        var text = "\(kind)"
        if let status { text += " \(status)" }
        text += " from \(url): \(message)"
        if !details.isEmpty { text += " (" + details.joined(separator: "; ") + ")" }
        if attempts > 1 { text += " [after \(attempts) attempts]" }
        return text
    }
}
#endif
