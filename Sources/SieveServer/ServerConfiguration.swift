import SieveFeatures

/// How `geosieve serve` listens, pages and protects itself.
///
/// The defaults are those of the command line: loopback only, read-only, no token, no CORS,
/// 2,000 features per ArcGIS page (16,000 with `resultType=standard`, 8,000 with `tile`), 16 MiB bodies, 64 KiB URLs, 256 requests at once, queries
/// answered within 30 s, request heads read within 20 s, keep-alive connections closed after
/// 75 s without a request, 512 connections open at once, queries reading up to 10,000 rows run
/// inline.
public struct ServerConfiguration: Sendable, Hashable {
    /// The address to bind (default `127.0.0.1`: this machine only).
    public var host: String
    /// The port (default 8080; 0 picks a free one, reported when the server is running).
    public var port: Int
    /// The most features an ArcGIS query returns at once (the layers' `maxRecordCount`), and the
    /// most an OGC API page holds (larger `limit`s are clamped to it, as the standard asks).
    public var maxRecordCount: Int
    /// The most features an ArcGIS query with `resultType=standard` returns at once (the
    /// layers' `standardMaxRecordCount`). Default 16,000, the figure Esri's feature layer
    /// reference gives as its example.
    public var standardMaxRecordCount: Int
    /// The most features an ArcGIS query with `resultType=tile` returns at once (the layers'
    /// `tileMaxRecordCount`), the query a web map sends for each of its tiles. Default 8,000.
    public var tileMaxRecordCount: Int
    /// The OGC API page size when the request gives no `limit`.
    public var defaultOGCLimit: Int
    /// Whether edits are accepted (ArcGIS `applyEdits` and the other edit operations).
    public var allowEdits: Bool
    /// The token edits need (and reads too with ``tokenRequiredForRead``), given as `token=` or
    /// `Authorization: Bearer …`; `nil` for none.
    public var token: String?
    /// Whether reads need ``token`` too.
    public var tokenRequiredForRead: Bool
    /// The editing users, by name, each with the token that identifies them (given as ``token``
    /// is): a request bearing a user's token is theirs — editor tracking records their name and
    /// ownership-based access control lets them change what they created — and passes where
    /// ``token`` (or a service's) is needed. Empty by default: every editor is anonymous.
    public var users: [String: String] = [:]
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
    /// How long, in seconds, a client has to send a whole request head (request line and
    /// headers): counted from the connection's opening for its first request, from the first
    /// byte of the head for the next ones on a keep-alive connection. A connection that has
    /// not sent its head in time is closed, with a 408 when part of the head came. Default 20 s
    /// (nginx's `client_header_timeout` is 60 s; a client sends its head in one piece, so a
    /// slow head is a stalled or hostile client).
    public var headerReadTimeout: Double
    /// How long, in seconds, a connection may go without receiving anything while no answer is
    /// being prepared on it — a keep-alive connection between requests, or a client pausing in
    /// the middle of a request body — before it is closed. Default 75 s, nginx's
    /// `keepalive_timeout`.
    public var idleTimeout: Double
    /// The most connections open at once. At the bound a new connection takes the place of
    /// the connection that has waited longest without a request being answered on it (idle,
    /// or still sending its head); when every connection has a request being answered, the new
    /// one is answered 503 and closed. Default 512 (nginx's `worker_connections`).
    public var maxConnections: Int
    /// The most rows a query may read to run inline, on the request's own task, rather than on
    /// the engine's threads within ``queryTimeout``: every query on a table of at most this many
    /// rows (of small geometries), and a query by an envelope or a point whose box holds at most
    /// this many rows of a larger table's spatial index, as long as it asks GEOS for nothing but
    /// envelope tests. Such queries then cost no thread hop and no timer. Default 10,000: a
    /// where clause over every row read, an order and a page of features written stay within
    /// about a millisecond. 0 runs every query on the engine's threads.
    public var inlineQueryRowLimit: Int
    /// The most bytes of vector tiles kept for the next request of the same tile (the tiles of
    /// a map's first zoom levels are asked for by every visitor); an edit of a table makes its
    /// tiles new. Default 64 MiB; 0 keeps none.
    public var tileCacheBytes: Int
    /// Whether answers of 1,400 bytes or more are gzipped (or deflated) when the client accepts
    /// it. Default `true`; turn it off behind a proxy that compresses.
    public var compression: Bool
    /// The ArcGIS release the REST documents claim (`currentVersion`), which decides the field
    /// types they declare. Default ``ArcGISVersion/v11_1``, which every client reads.
    public var arcgisVersion: ArcGISVersion
    /// Whether `GET /metrics` answers the server's counters in the Prometheus text format:
    /// requests by route, method and status, their latency, features and tiles served, rows in
    /// each table. Default `false` (the route does not exist). Reads need the token there as
    /// elsewhere when ``tokenRequiredForRead`` is set.
    public var metrics: Bool

    /// A configuration; each argument defaults as described on its property.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, maxRecordCount: Int = 2000, defaultOGCLimit: Int = 10,
        allowEdits: Bool = false, token: String? = nil, tokenRequiredForRead: Bool = false, corsOrigin: String? = nil,
        maxBodyBytes: Int = 16 << 20, maxURLBytes: Int = 64 << 10, maxConcurrentRequests: Int = 256,
        queryTimeout: Double? = 30, title: String = "GeoSieve", headerReadTimeout: Double = 20, idleTimeout: Double = 75,
        maxConnections: Int = 512, inlineQueryRowLimit: Int = 10_000, tileCacheBytes: Int = 64 << 20,
        compression: Bool = true, arcgisVersion: ArcGISVersion = .v11_1, metrics: Bool = false,
        standardMaxRecordCount: Int = 16_000, tileMaxRecordCount: Int = 8_000
    ) {
        self.host = host
        self.port = port
        self.maxRecordCount = maxRecordCount
        self.standardMaxRecordCount = standardMaxRecordCount
        self.tileMaxRecordCount = tileMaxRecordCount
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
        self.headerReadTimeout = headerReadTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
        self.inlineQueryRowLimit = inlineQueryRowLimit
        self.tileCacheBytes = tileCacheBytes
        self.compression = compression
        self.arcgisVersion = arcgisVersion
        self.metrics = metrics
    }

    /// Checks the numbers.
    /// - Throws: ``ServerRequestError`` (bad request) naming the first value out of range.
    public func validate() throws(ServerRequestError) {
        func check(_ ok: Bool, _ message: String) throws(ServerRequestError) {
            if !ok { throw ServerRequestError(.badRequest, message) }
        }
        try check((0...65535).contains(port), "the port must be 0 to 65535, not \(port)")
        try check(maxRecordCount >= 1 && maxRecordCount <= 1_000_000, "the max record count must be 1 to 1000000, not \(maxRecordCount)")
        try check(
            standardMaxRecordCount >= 1 && standardMaxRecordCount <= 1_000_000,
            "the standard max record count must be 1 to 1000000, not \(standardMaxRecordCount)")
        try check(
            tileMaxRecordCount >= 1 && tileMaxRecordCount <= 1_000_000,
            "the tile max record count must be 1 to 1000000, not \(tileMaxRecordCount)")
        try check(defaultOGCLimit >= 1, "the default OGC limit must be at least 1, not \(defaultOGCLimit)")
        try check(maxBodyBytes >= 1024, "the body limit must be at least 1024 bytes")
        try check(maxURLBytes >= 1024, "the URL limit must be at least 1024 bytes")
        try check(maxConcurrentRequests >= 1, "at least one request must be allowed at once")
        if let token { try check(!token.isEmpty, "the token must not be empty") }
        if let queryTimeout { try check(queryTimeout > 0 && queryTimeout <= 86_400, "the query timeout must be more than 0 and at most 86400 s") }
        try check(!tokenRequiredForRead || token != nil, "reads can need a token only when a token is set")
        try check(headerReadTimeout > 0 && headerReadTimeout <= 3600, "the header read timeout must be more than 0 and at most 3600 s")
        try check(idleTimeout > 0 && idleTimeout <= 86_400, "the idle timeout must be more than 0 and at most 86400 s")
        try check(maxConnections >= 1 && maxConnections <= 1_000_000, "the connection bound must be 1 to 1000000, not \(maxConnections)")
        try check(tileCacheBytes >= 0 && tileCacheBytes <= 1 << 40, "the tile cache must be 0 to 1 TiB, not \(tileCacheBytes) bytes")
        try check(
            inlineQueryRowLimit >= 0 && inlineQueryRowLimit <= 1_000_000,
            "the inline query row limit must be 0 to 1000000, not \(inlineQueryRowLimit)")
    }
}

/// The ArcGIS Enterprise release the ArcGIS REST documents claim as their `currentVersion`.
///
/// The documents follow the shapes of 11.1 either way; the release decides which field types
/// they may declare. ArcGIS 11.2 added `esriFieldTypeBigInteger` and `esriFieldTypeDateOnly`,
/// which clients written for earlier releases do not know (QGIS 3.22 drops a
/// `esriFieldTypeBigInteger` field; GDAL 3.6 reads it as text): claiming 11.1, a 64-bit integer
/// field is declared `esriFieldTypeDouble` and a date-only field `esriFieldTypeDate`
/// (``/SieveFeatures/EsriFieldTypes/before11_2``), as that release would have stored them.
/// `f=pbf` answers declare the same (the protocol buffer has neither type).
public enum ArcGISVersion: String, Sendable, Hashable, CaseIterable {
    /// ArcGIS Enterprise 11.1: 64-bit integers declared as doubles, days as dates. The default.
    case v11_1 = "11.1"
    /// ArcGIS Enterprise 11.2: every GeoSieve field type declared as itself.
    case v11_2 = "11.2"

    /// The `currentVersion` number.
    public var number: Double {
        switch self {
        case .v11_1: 11.1
        case .v11_2: 11.2
        }
    }

    /// The field types the documents of this release declare.
    public var fieldTypes: EsriFieldTypes {
        switch self {
        case .v11_1: .before11_2
        case .v11_2: .all
        }
    }
}
