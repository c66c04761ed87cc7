import Hummingbird
import Prometheus
import SieveBase

/// What `/metrics` exposes in the Prometheus text format (``ServerConfiguration/metrics``): a
/// registry of the server's own, so that servers in one process keep their counts apart.
///
/// - `geosieve_http_requests_total{route,method,status}` and
///   `geosieve_http_request_duration_seconds{route}` (a histogram): every request, the route as
///   its template (`/ogc/collections/{collection}/items`, never a table or ID a client sent), or
///   `unmatched` for a path no route serves;
/// - `geosieve_features_served_total{table}`: features in query, item and `f=pbf` answers;
/// - `geosieve_tiles_served_total{table,cache}`: vector tiles, `hit` when the tile cache held
///   them;
/// - `geosieve_table_rows{table}`: each table's features, read when `/metrics` is asked (a
///   table served from a database: as counted when it was published).
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    /// The media type of the Prometheus text format, version 0.0.4.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"
    /// The latency buckets: 1 ms to 10 s, about three a decade.
    static let buckets: [Duration] = [1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000].map { .microseconds(Int64($0 * 1000)) }

    // The metrics' names and help (computed: the descriptor type is not Sendable).
    static var requests: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "geosieve", subsystem: "http", metricName: "requests", unitName: "total", helpText: "Requests answered, by route, method and status.")
    }
    static var duration: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "geosieve", subsystem: "http", metricName: "request_duration", unitName: "seconds", helpText: "Time to answer a request, by route.")
    }
    static var features: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "geosieve", metricName: "features_served", unitName: "total", helpText: "Features in query, item and PBF answers, by table.")
    }
    static var tiles: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "geosieve", metricName: "tiles_served", unitName: "total", helpText: "Vector tiles answered, by table and tile cache hit or miss.")
    }
    static var rows: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "geosieve", metricName: "table", unitName: "rows", helpText: "Features in each served table.")
    }

    /// The series a request counts in, by path, method and status.
    private struct RequestKey: Hashable {
        let path: String
        let method: String
        let status: Int
    }

    /// The series of the requests seen, so that a request's route template is worked out and
    /// its series looked up in the registry (names and labels checked, a lock taken) once per
    /// path, method and status rather than per request; at most ``seriesCacheLimit`` (other
    /// paths, which clients may vary without end, are worked out each time).
    private let requestSeries = Locked<[RequestKey: (Counter, DurationHistogram)]>([:])
    /// The counters of what answers served, by table (and `hit`/`miss` for tiles).
    private let servedSeries = Locked<[String: Counter]>([:])
    static let seriesCacheLimit = 4096

    /// Counts a request answered with `status` after `elapsed`.
    func request(path: String, method: String, status: Int, elapsed: Duration) {
        let key = RequestKey(path: path, method: method, status: status)
        let (counter, histogram) = requestSeries.withLock { $0[key] } ?? {
            let route = status == 404 ? "unmatched" : Self.route(path)
            let series = (
                registry.makeCounter(descriptor: Self.requests, labels: [("route", route), ("method", method), ("status", String(status))]),
                registry.makeDurationHistogram(descriptor: Self.duration, labels: [("route", route)], buckets: Self.buckets)
            )
            requestSeries.withLock { if $0.count < Self.seriesCacheLimit { $0[key] = series } }
            return series
        }()
        counter.increment()
        histogram.record(elapsed)
    }

    /// Counts what an answer served.
    func served(_ response: ServiceResponse) {
        guard let served = response.served else { return }
        if served.features > 0 {
            counter(served.table) { registry.makeCounter(descriptor: Self.features, labels: [("table", served.table)]) }
                .increment(by: Int64(served.features))
        }
        if let cached = served.tileFromCache {
            let cache = cached ? "hit" : "miss"
            counter(served.table + "\u{0}" + cache) {
                registry.makeCounter(descriptor: Self.tiles, labels: [("table", served.table), ("cache", cache)])
            }.increment()
        }
    }

    /// The counter of `key` (a table's name, and what else tells its series apart), made by
    /// `make` the first time.
    private func counter(_ key: String, make: () -> Counter) -> Counter {
        if let known = servedSeries.withLock({ $0[key] }) { return known }
        let made = make()
        servedSeries.withLock { $0[key] = made }
        return made
    }

    /// The text `/metrics` answers: the tables' rows as they are now, then every metric.
    func exposition(_ catalog: ServedCatalog) -> [UInt8] {
        for table in catalog.tables {
            registry.makeGauge(descriptor: Self.rows, labels: [("table", table.id)]).set(to: Double(table.snapshot?.featureCount ?? table.published?.featureCount ?? 0))
        }
        return registry.emitToBuffer()
    }

    /// The route template of `path`: the segment after `services` or `collections` is the
    /// table's name, after `FeatureServer` or `MapServer` the layer, after `items` the feature,
    /// numbers are IDs, a tile's numbers its address. A path of other words is `other`, so that
    /// what clients send never makes a new series.
    static func route(_ path: String) -> String {
        var segments = path.split(separator: "/").map(String.init)
        guard segments.count <= 9 else { return "other" }
        for i in segments.indices {
            switch i > 0 ? segments[i - 1] : "" {
            case "services": segments[i] = "{service}"
            case "collections": segments[i] = "{collection}"
            case "FeatureServer", "MapServer": segments[i] = "{layer}"
            case "items": segments[i] = "{feature}"
            case "attachments": segments[i] = "{attachment}"
            case "tileMatrixSets", "tiles": segments[i] = "{tileMatrixSet}"
            default:
                if !segments[i].isEmpty, segments[i].allSatisfy({ $0.isASCII && $0.isNumber }) { segments[i] = "{n}" }
            }
        }
        if let tiles = segments.lastIndex(of: "tiles"), segments.count == tiles + 5 {
            segments.replaceSubrange((tiles + 2)..., with: ["{z}", "{y}", "{x}"])
        }
        guard segments.allSatisfy({ $0.hasPrefix("{") || words.contains($0) }) else { return "other" }
        return "/" + segments.joined(separator: "/")
    }

    /// The words of the routes' paths.
    static let words: Set<String> = [
        "arcgis", "rest", "services", "FeatureServer", "MapServer", "query", "attachments", "applyEdits", "addFeatures",
        "updateFeatures", "deleteFeatures", "addAttachment", "updateAttachment", "deleteAttachments", "ogc", "api", "conformance",
        "collections", "queryables", "items", "tiles", "tileMatrixSets", "metrics",
    ]
}

/// Records each request in ``ServerMetrics``, outermost, so that refusals and unknown routes
/// count with the status the client got.
struct MetricsMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            metrics.request(path: request.uri.path, method: request.method.rawValue, status: Int(response.status.code), elapsed: ContinuousClock.now - start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.request(path: request.uri.path, method: request.method.rawValue, status: Int(status), elapsed: ContinuousClock.now - start)
            throw error
        }
    }
}
