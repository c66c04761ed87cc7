/// How `geosieve serve` listens, pages and protects itself.
///
/// The defaults are those of the command line: loopback only, read-only, no token, no CORS,
/// 2,000 features per ArcGIS page, 16 MiB bodies, 64 KiB URLs, 256 requests at once, queries
/// answered within 30 s.
public struct ServerConfiguration: Sendable, Hashable {
    /// The address to bind (default `127.0.0.1`: this machine only).
    public var host: String
    /// The port (default 8080; 0 picks a free one, reported when the server is running).
    public var port: Int
    /// The most features an ArcGIS query returns at once (the layers' `maxRecordCount`), and the
    /// most an OGC API page holds (larger `limit`s are clamped to it, as the standard asks).
    public var maxRecordCount: Int
    /// The OGC API page size when the request gives no `limit`.
    public var defaultOGCLimit: Int
    /// Whether edits are accepted (ArcGIS `applyEdits` and the other edit operations).
    public var allowEdits: Bool
    /// The token edits need (and reads too with ``tokenRequiredForRead``), given as `token=` or
    /// `Authorization: Bearer …`; `nil` for none.
    public var token: String?
    /// Whether reads need ``token`` too.
    public var tokenRequiredForRead: Bool
    /// The origin allowed to call from a browser (CORS), `*` for any; `nil` sends no CORS
    /// headers.
    public var corsOrigin: String?
    /// The largest request body read, in bytes; larger ones get 413.
    public var maxBodyBytes: Int
    /// The longest request target (path and query), in bytes; longer ones get 414.
    public var maxURLBytes: Int
    /// How many requests run at once; more get 503 at once (load shedding), never a queue
    /// that grows without bound.
    public var maxConcurrentRequests: Int
    /// How long a query may run, in seconds, before its request is answered 503 (the work
    /// finishes in the background, still counted against ``maxConcurrentRequests``); `nil` for
    /// no limit.
    public var queryTimeout: Double?
    /// The service description shown on the landing page and service documents.
    public var title: String

    /// A configuration; each argument defaults as described on its property.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, maxRecordCount: Int = 2000, defaultOGCLimit: Int = 10,
        allowEdits: Bool = false, token: String? = nil, tokenRequiredForRead: Bool = false, corsOrigin: String? = nil,
        maxBodyBytes: Int = 16 << 20, maxURLBytes: Int = 64 << 10, maxConcurrentRequests: Int = 256,
        queryTimeout: Double? = 30, title: String = "GeoSieve"
    ) {
        self.host = host
        self.port = port
        self.maxRecordCount = maxRecordCount
        self.defaultOGCLimit = defaultOGCLimit
        self.allowEdits = allowEdits
        self.token = token
        self.tokenRequiredForRead = tokenRequiredForRead
        self.corsOrigin = corsOrigin
        self.maxBodyBytes = maxBodyBytes
        self.maxURLBytes = maxURLBytes
        self.maxConcurrentRequests = maxConcurrentRequests
        self.queryTimeout = queryTimeout
        self.title = title
    }

    /// Checks the numbers.
    /// - Throws: ``ServerRequestError`` (bad request) naming the first value out of range.
    public func validate() throws(ServerRequestError) {
        func check(_ ok: Bool, _ message: String) throws(ServerRequestError) {
            if !ok { throw ServerRequestError(.badRequest, message) }
        }
        try check((0...65535).contains(port), "the port must be 0 to 65535, not \(port)")
        try check(maxRecordCount >= 1 && maxRecordCount <= 1_000_000, "the max record count must be 1 to 1000000, not \(maxRecordCount)")
        try check(defaultOGCLimit >= 1, "the default OGC limit must be at least 1, not \(defaultOGCLimit)")
        try check(maxBodyBytes >= 1024, "the body limit must be at least 1024 bytes")
        try check(maxURLBytes >= 1024, "the URL limit must be at least 1024 bytes")
        try check(maxConcurrentRequests >= 1, "at least one request must be allowed at once")
        if let token { try check(!token.isEmpty, "the token must not be empty") }
        if let queryTimeout { try check(queryTimeout > 0 && queryTimeout <= 86_400, "the query timeout must be more than 0 and at most 86400 s") }
        try check(!tokenRequiredForRead || token != nil, "reads can need a token only when a token is set")
    }
}
