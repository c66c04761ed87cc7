import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import SieveFeatures
import SieveEditing
import SieveFormats
import Synchronization

/// The HTTP server of `geosieve serve`: the catalog's tables as an ArcGIS REST FeatureServer
/// (`/arcgis/rest/services/{id}/FeatureServer`) and an OGC API – Features service (`/ogc`).
///
/// ``router(logRequests:)`` builds the routes, callable in-process (Hummingbird's router test mode)
/// as over a socket; ``run(logger:onRunning:)`` serves them until SIGTERM or SIGINT, then stops
/// accepting connections, lets the requests in flight finish and returns.
///
/// Reads run in parallel, each on the snapshot of its table published when it started; edits
/// are serialized by each table and saved before their answer is sent.
public struct GeoSieveServer: Sendable {
    /// The services and tables served now (``replaceCatalog(_:)`` changes them).
    public var catalog: ServedCatalog { published.withLock { $0.catalog } }
    /// Addresses, limits and security.
    public let configuration: ServerConfiguration
    /// Counts the requests running, to shed load above the limit.
    let admission: Admission
    /// The tables whose spatial index a query has built (see ``EngineWorkSize``).
    var spatialIndexes: SpatialIndexReadiness { published.withLock { $0.spatialIndexes } }
    /// The catalog and what is kept per table of it, swapped whole by ``replaceCatalog(_:)``.
    private let published: Locked<Published>
    /// A number drawn when the server is made, in every entity tag (``ResponseEncoding``), so
    /// that a restarted server never answers a tag of its former self with 304.
    let instance = UInt64.random(in: .min ... .max)
    /// The vector tiles made recently (``ServerConfiguration/tileCacheBytes``).
    let tiles: TileCache
    /// What `/metrics` exposes, when ``ServerConfiguration/metrics`` is on.
    let metrics: ServerMetrics?

    /// A server of `catalog`.
    /// - Throws: ``ServerRequestError`` when `configuration` is out of range.
    public init(catalog: ServedCatalog, configuration: ServerConfiguration = ServerConfiguration()) throws(ServerRequestError) {
        try configuration.validate()
        published = Locked(Published(catalog: catalog, spatialIndexes: SpatialIndexReadiness(catalog)))
        self.configuration = configuration
        admission = Admission(limit: configuration.maxConcurrentRequests)
        tiles = TileCache(capacity: configuration.tileCacheBytes)
        metrics = configuration.metrics ? ServerMetrics() : nil
    }

    /// What the server serves at one time.
    private struct Published: Sendable {
        var catalog: ServedCatalog
        var spatialIndexes: SpatialIndexReadiness
    }

    /// Serves `catalog` from now on, in place of the catalog served until now: requests that
    /// have started finish with the old one, connections stay open. The vector tiles kept are
    /// not used again, nor are entity tags (a layer's definition or renderer may have changed:
    /// every table published anew answers under new tags and tile keys).
    ///
    /// The routes do not change: a new service answers under the same paths as the old ones,
    /// and the edit routes exist only when ``ServerConfiguration/allowEdits`` was set at start.
    public func replaceCatalog(_ catalog: ServedCatalog) {
        published.withLock { $0 = Published(catalog: catalog, spatialIndexes: SpatialIndexReadiness(catalog)) }
    }

    /// The configuration that applies to `table`'s requests: the server's, with what its
    /// service overrides (``ServedService/configuration(_:)``).
    func configuration(for table: ServedTable) -> ServerConfiguration {
        catalog.service(of: table)?.configuration(configuration) ?? configuration
    }

    /// The service a request path is under: `/arcgis/rest/services/{service}/…`, or
    /// `/ogc/collections/{id}…` of one of its layers; `nil` for other paths and names that do
    /// not exist.
    func service(atPath path: String) -> ServedService? {
        let catalog = self.catalog
        let arcGIS = ArcGISDocuments.root + "/"
        let collections = "/ogc/collections/"
        if path.hasPrefix(arcGIS) {
            return try? catalog.service(String(path.dropFirst(arcGIS.count).prefix { $0 != "/" }))
        }
        if path.hasPrefix(collections), let table = try? catalog.table(String(path.dropFirst(collections.count).prefix { $0 != "/" }), what: "collection") {
            return catalog.service(of: table)
        }
        return nil
    }

    /// The routes, with the request limits, request logging (unless `logRequests` is `false`)
    /// and (when configured) CORS. Every GET route answers HEAD too (RFC 9110 §9.3.2): the GET's
    /// status and headers, its `Content-Length` included, without the body.
    public func router(logRequests: Bool = true) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self, options: .autoGenerateHeadEndpoints)
        // Logged at info, outermost (refusals included): with a logger above info the
        // middleware would only cost time.
        if logRequests { router.add(middleware: AccessLogMiddleware()) }
        if let metrics { router.add(middleware: MetricsMiddleware(metrics: metrics)) }
        let routes = Locked(RouteMethods())
        router.add(middleware: LimitsMiddleware(server: self, routes: routes))
        router.add(middleware: ServiceCORSMiddleware(server: self))
        ArcGISRoutes(server: self).add(to: router)
        OGCRoutes(server: self).add(to: router)
        if let metrics {
            router.get("/metrics") { request, _ in
                do {
                    let parameters = try RequestParameters(query: request.uri.query.map { Substring($0) }, caseInsensitiveNames: false)
                    try authorize(request, parameters, edit: false)
                    return ServiceResponse(contentType: ServerMetrics.contentType, body: metrics.exposition(catalog)).response
                } catch {
                    let error = ServerRequestError(error, fallback: .internalError)
                    return ServiceResponse(status: error.status, contentType: ServiceResponse.jsonType, headers: error.headers, body: Array(error.ogcJSON.utf8)).response
                }
            }
        }
        routes.withLock { $0 = RouteMethods(router) }
        return router
    }

    /// Serves until SIGTERM or SIGINT; `onRunning` is given the port listened on (useful with
    /// port 0) once the server accepts connections.
    ///
    /// Connections are held to the limits of the configuration: a request head must arrive
    /// within ``ServerConfiguration/headerReadTimeout``, a connection receiving nothing while no
    /// answer is being prepared is closed after ``ServerConfiguration/idleTimeout``, at most
    /// ``ServerConfiguration/maxConnections`` are open at once. An HTTP/1.1 request without a
    /// `Host` header, or any request with two, is answered 400 (RFC 9112 §3.2); a request
    /// declaring a body over ``ServerConfiguration/maxBodyBytes`` is answered 413 from its head.
    /// Refusals close the connection.
    public func run(logger: Logger, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let limits = ConnectionLimits(configuration)
        let registry = ConnectionRegistry(limit: configuration.maxConnections)
        let app = Application(
            router: router(logRequests: logger.logLevel <= .info),
            server: HTTPServerBuilder { responder in
                GuardedHTTP1Channel(http1: HTTP1Channel(responder: responder), limits: limits, registry: registry)
            },
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: "GeoSieve"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
        try await app.runService()
    }

    // MARK: Request plumbing shared by the protocols

    /// The request's parameters: its query string and, for a POST, its body (at most
    /// ``ServerConfiguration/maxBodyBytes``) — a URL-encoded form's parameters, or a multipart
    /// form's text fields, the form itself returned too (for its files).
    func read(_ request: Request, caseInsensitiveNames: Bool) async throws(ServerRequestError) -> (RequestParameters, MultipartForm?) {
        var form: [UInt8]?
        var multipart: MultipartForm?
        if request.method == .post {
            let type = request.headers[.contentType] ?? ""
            let lowered = type.lowercased()
            if lowered.hasPrefix("application/x-www-form-urlencoded") || type.isEmpty {
                form = try await body(request)
            } else if lowered.hasPrefix("multipart/form-data") {
                multipart = try MultipartForm(body: try await body(request), contentType: type)
            } else {
                throw ServerRequestError(.badRequest, "a POST body must be application/x-www-form-urlencoded or multipart/form-data, not \(type)")
            }
        }
        let parameters = try RequestParameters(
            query: request.uri.query.map { Substring($0) }, form: form, fields: multipart?.fields ?? [],
            caseInsensitiveNames: caseInsensitiveNames)
        return (parameters, multipart)
    }

    /// The request body, at most ``ServerConfiguration/maxBodyBytes``.
    func body(_ request: Request) async throws(ServerRequestError) -> [UInt8] {
        var request = request
        do {
            let buffer = try await request.collectBody(upTo: configuration.maxBodyBytes)
            return Array(buffer.readableBytesView)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw ServerRequestError(.contentTooLarge, "the request body is over \(configuration.maxBodyBytes) bytes")
        } catch {
            throw ServerRequestError(.badRequest, "the request body could not be read (a malformed or cut body)")
        }
    }

    /// Refuses edits when the server (or the service, when given) does not allow them, then
    /// checks the token when one is required: for edits when a token is set, for reads too with
    /// ``ServerConfiguration/tokenRequiredForRead``. The token is the service's when it has one,
    /// else the server's; it comes as `token=` or `Authorization: Bearer …` and is compared in
    /// constant time. A user's token (``ServerConfiguration/users``) passes too.
    /// - Returns: The user whose token the request bears, `nil` for none (anonymous).
    @discardableResult
    func authorize(
        _ request: Request, _ parameters: RequestParameters, edit: Bool, service: ServedService? = nil
    ) throws(ServerRequestError) -> String? {
        if edit, !configuration.allowEdits {
            throw ServerRequestError(
                .forbidden, "Requested operation is not supported by this service.",
                details: ["the server is read-only (start it with --allow-edits)"])
        }
        if edit, let service, !service.allowsEditing {
            throw ServerRequestError(
                .forbidden, "Requested operation is not supported by this service.",
                details: ["the service \(RequestParameters.quoted(service.name)) is read-only (its capabilities are Query)"])
        }
        var given = parameters["token"]
        if given == nil, let header = request.headers[.authorization] {
            let prefix = "bearer "
            if header.lowercased().hasPrefix(prefix) { given = String(header.dropFirst(prefix.count)) }
        }
        // Every user's token is compared (in constant time each), so that the time does not say
        // which matched.
        var user: String?
        if let given, !configuration.users.isEmpty {
            for (name, token) in configuration.users.sorted(by: { $0.key < $1.key })
            where Self.constantTimeEqual(Array(given.utf8), Array(token.utf8)) && user == nil {
                user = name
            }
        }
        guard let token = service?.token ?? configuration.token, edit || configuration.tokenRequiredForRead, user == nil else { return user }
        guard let given else {
            throw ServerRequestError(.unauthorized, "this operation needs a token (token= or Authorization: Bearer)")
        }
        guard Self.constantTimeEqual(Array(given.utf8), Array(token.utf8)) else {
            throw ServerRequestError(.unauthorized, "the token is not valid", tokenGiven: true)
        }
        return nil
    }

    /// The value of engine work — a query — run where its size says, within
    /// ``ServerConfiguration/queryTimeout``.
    ///
    /// - ``EngineWorkSize/small`` work runs inline, on the request's own task: no thread hop,
    ///   no timer. The rule that calls work small (``EngineWorkSize``) bounds the rows it reads —
    ///   at most ``ServerConfiguration/inlineQueryRowLimit``, of a few vertices each: the whole
    ///   table, or the rows the spatial index holds in the request's box — and what it may ask
    ///   GEOS to do (no exact spatial test beyond an envelope or a point): it finishes in about a
    ///   millisecond at worst, so it neither needs a timeout nor holds a thread of the
    ///   cooperative pool for long.
    /// - ``EngineWorkSize/large`` work runs on ``EngineExecutor/shared``, a pool of threads of
    ///   its own, so that it never holds one of the cooperative pool's threads (one per core),
    ///   which every other request and the event loops' hand-offs need. With a timeout, a timer
    ///   (``DeadlineTimer/shared``, a thread of its own) answers 503 "the query did not finish
    ///   within N s" when the work is late and cancels it (``QueryCancellation``): the exact
    ///   spatial test stops at its next feature, every other step finishes in time
    ///   proportional to the rows it reads, and work that had not started yet never starts.
    ///   Until it ends it holds a place of the concurrency limit (``Admission``), so abandoned
    ///   queries cannot pile up beyond the limit. A request task that is cancelled cancels its
    ///   work the same way.
    ///
    /// Neither path schedules anything through Dispatch.
    /// Runs `work`, which a source answers elsewhere (a database), within the query timeout: past
    /// it the work's task is cancelled — which cancels its statement in the database — and the
    /// request answered 503. (The database's own statement timeout, of the same length, bounds
    /// the statement; this bounds the wait for a connection too.)
    func timedRemote<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        guard let seconds = configuration.queryTimeout else { return try await work() }
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw ServerRequestError(.serviceUnavailable, "the query did not finish within \(seconds) s")
            }
            return value
        }
    }

    func timed<T: Sendable>(_ size: EngineWorkSize = .large, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        if size == .small { return try work() }
        let cancellation = QueryCancellation()
        let executor = EngineExecutor.shared
        let timeout = configuration.queryTimeout
        let answered = Once()
        let admission = self.admission
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                var ticket: DeadlineTimer.Ticket?
                if let seconds = timeout {
                    ticket = DeadlineTimer.shared.schedule(after: seconds) {
                        guard answered.claim() else { return }
                        cancellation.cancel()
                        // The request's place passes to the work, which gives it back when it ends.
                        admission.hold()
                        continuation.resume(throwing: ServerRequestError(.serviceUnavailable, "the query did not finish within \(seconds) s"))
                    }
                }
                executor.submit { [ticket] in
                    // Work whose request was answered (or went away) while it waited for a
                    // thread does not start.
                    let result: Result<T, any Error> =
                        cancellation.isCancelled
                        ? .failure(ServerRequestError(.serviceUnavailable, "the query was cancelled before it started"))
                        : Result { try QueryCancellation.$current.withValue(cancellation) { try work() } }
                    if answered.claim() {
                        if let ticket { DeadlineTimer.shared.cancel(ticket) }
                        continuation.resume(with: result)
                    } else {
                        admission.leave()
                    }
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }

    /// Whether `a` equals `b`, in a time that depends only on their lengths.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for i in 0..<Swift.max(a.count, b.count) {
            let x = i < a.count ? a[i] : 0
            let y = i < b.count ? b[i] : 0
            difference |= x ^ y
        }
        return difference == 0
    }
}

extension ServiceResponse {
    /// The Hummingbird response.
    var response: Response {
        var fields = HTTPFields()
        fields[.contentType] = contentType
        for header in headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        return Response(
            status: HTTPResponse.Status(code: status), headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// A flag that can be claimed once, by whichever of several tasks comes first.
final class Once: Sendable {
    private let claimed = Atomic<Bool>(false)

    /// `true` the first time only.
    func claim() -> Bool { !claimed.exchange(true, ordering: .acquiringAndReleasing) }
}

/// Counts the requests running; a request over the limit is refused at once.
final class Admission: Sendable {
    private let running = Atomic<Int>(0)
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Takes a place, `false` when all are taken.
    func enter() -> Bool {
        let now = running.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
        if now > limit {
            running.wrappingSubtract(1, ordering: .acquiringAndReleasing)
            return false
        }
        return true
    }

    /// Takes a place whatever the count (for work that outlives its request).
    func hold() { running.wrappingAdd(1, ordering: .acquiringAndReleasing) }

    /// Gives a place back.
    func leave() { running.wrappingSubtract(1, ordering: .acquiringAndReleasing) }
}

/// Refuses what is over the limits before any work: URLs over the size limit (414), requests
/// over the concurrency limit (503, with `Retry-After`); and answers unknown routes in the
/// protocol's error shape: 404 for a path no route has, 405 with `Allow` for a method its route
/// does not take.
struct LimitsMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let server: GeoSieveServer
    /// The router's routes, set once they are all added.
    let routes: Locked<RouteMethods>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        let ogc = path == "/ogc" || path.hasPrefix("/ogc/")
        func failure(_ error: ServerRequestError) -> Response {
            let response = ServiceResponse(
                status: error.status, contentType: ServiceResponse.jsonType, headers: error.headers, body: Array((ogc ? error.ogcJSON : error.arcGISJSON).utf8)
            ).response
            // A HEAD request gets the headers of the error a GET would get, without its body.
            return request.method == .head ? response.createHeadResponse() : response
        }
        if request.uri.string.utf8.count > server.configuration.maxURLBytes {
            return failure(ServerRequestError(.uriTooLong, "the URL is over \(server.configuration.maxURLBytes) bytes"))
        }
        guard server.admission.enter() else {
            return failure(ServerRequestError(.serviceUnavailable, "the server is busy: try again"))
        }
        defer { server.admission.leave() }
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let allowed = routes.withLock { $0.allowed(path) }
            if !allowed.isEmpty, !allowed.contains(request.method) {
                let edit = [.post, .put, .delete, .patch].contains(request.method) && !server.configuration.allowEdits
                var response = failure(
                    ServerRequestError(
                        .methodNotAllowed,
                        "\(request.method) is not allowed on \(RequestParameters.quoted(path)): use \(allowed.map(\.rawValue).joined(separator: ", "))"
                            + (edit ? " (the server is read-only: start it with --allow-edits to edit)" : "")))
                response.headers[.allow] = allowed.map(\.rawValue).joined(separator: ", ")
                return response
            }
            return failure(ServerRequestError(.notFound, "no resource at \(RequestParameters.quoted(path))"))
        } catch let error as HTTPError where error.status == .methodNotAllowed {
            return failure(ServerRequestError(.methodNotAllowed, "\(request.method) is not allowed on \(RequestParameters.quoted(path))"))
        }
    }
}
