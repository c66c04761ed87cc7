// Needs the RemoteSources trait (on by default).
#if RemoteSources
import Foundation
import Hummingbird
import Logging
import NIOCore
import SieveColumns
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import Synchronization
import Testing

@testable import SieveClients
import SieveTestSupport

/// A loopback HTTP server whose routes misbehave on purpose, run on a free port for one test.
struct MisbehavingServer {
    /// What the routes saw: per route, how many requests, and the most in flight at once.
    final class Log: Sendable {
        let counts = Mutex<[String: Int]>([:])
        let inFlight = Atomic<Int>(0)
        let mostInFlight = Atomic<Int>(0)
        let authorizations = Mutex<[String]>([])
        /// The query forms the `unordered` and `old` layers received, each after its layer's name.
        let forms = Mutex<[String]>([])
        /// Bytes `/endless` wrote, and whether its writer stopped (the client hung up).
        let endlessBytes = Atomic<Int>(0)
        let endlessStopped = Atomic<Bool>(false)

        func count(_ route: String) -> Int {
            counts.withLock { counts in
                counts[route, default: 0] += 1
                return counts[route, default: 0]
            }
        }
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func router(_ log: Log) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/ok") { _, _ in json(#"{"a":1}"#) }
        router.get("/arcgis-error") { _, _ in
            json(#"{"error":{"code":400,"message":"Unable to complete operation.","details":["'where' parameter is invalid"]}}"#)
        }
        router.get("/ogc-error") { _, _ in json(#"{"code":"NotFound","description":"no collection named x"}"#, status: .notFound) }
        // Fails twice (503 with Retry-After: 0, then an ArcGIS document with code 500), then answers.
        router.get("/flaky") { _, _ in
            switch log.count("flaky") % 3 {
            case 1: json(#"{"code":"Busy","description":"try later"}"#, status: .serviceUnavailable, headers: [.retryAfter: "0"])
            case 2: json(#"{"error":{"code":500,"message":"Internal error"}}"#)
            default: json(#"{"a":2}"#)
            }
        }
        router.post("/flaky") { _, _ in
            _ = log.count("flaky-post")
            return json("{}", status: .serviceUnavailable)
        }
        router.get("/broken") { _, _ in
            _ = log.count("broken")
            return Response(status: .internalServerError, body: ResponseBody(byteBuffer: ByteBuffer(string: "boom")))
        }
        router.get("/big") { _, _ in json("[" + String(repeating: "0,", count: 600_000) + "0]") }
        // An answer that never ends: chunks of 64 KiB until the client hangs up.
        router.get("/endless") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody { writer in
                    let chunk = ByteBuffer(repeating: UInt8(ascii: " "), count: 64 << 10)
                    defer { log.endlessStopped.store(true, ordering: .relaxed) }
                    try await writer.write(ByteBuffer(string: "{\"features\":["))
                    while true {
                        try await writer.write(chunk)
                        log.endlessBytes.add(chunk.readableBytes, ordering: .relaxed)
                    }
                })
        }
        // A 53 KB gzip body inflating to 8 MiB (of zeros).
        router.get("/bomb") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json", .contentEncoding: "gzip"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: gzipBomb(repeats: 8 << 20 / 258))))
        }
        router.get("/gzip") { _, _ in
            let bytes = Data(base64Encoded: "H4sIAAAAAAACA6tWSs7PLShKLS5OTVGyKikqTdVRKkvMKU0tVrKKNtQx0jGOrQUA5//SSiQAAAA=") ?? Data()
            return Response(
                status: .ok, headers: [.contentType: "application/json", .contentEncoding: "gzip"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        router.get("/not-json") { _, _ in Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "<html>hello</html>"))) }
        router.get("/slow") { _, _ in
            try await Task.sleep(for: .seconds(2))
            return json("{}")
        }
        router.get("/token") { request, _ in
            let authorization = request.headers[.authorization] ?? "-"
            let parameter = request.uri.queryParameters.get("token") ?? "-"
            log.authorizations.withLock { $0.append("\(authorization) \(parameter)") }
            guard authorization == "Bearer s3cret" || parameter == "s3cret" else {
                return json(#"{"error":{"code":499,"message":"Token Required"}}"#)
            }
            return json(#"{"ok":true}"#)
        }
        // ArcGIS layers that answer queries wrongly: `/NAME/0` is the layer, `/NAME/0/query` its
        // query (a POST form); every one counts 5 features and pages by 2.
        for name in ["repeating", "truncated", "mistyped", "stalled"] {
            router.get("/\(name)/0") { _, _ in
                json(
                    #"{"name":"\#(name)","type":"Feature Layer","geometryType":"esriGeometryPoint","objectIdField":"OBJECTID","#
                        + #""fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"},{"name":"name","type":"esriFieldTypeString"}],"#
                        + #""maxRecordCount":2,"advancedQueryCapabilities":{"supportsPagination":true,"supportsOrderBy":true}}"#)
            }
            router.post("/\(name)/0/query") { request, _ in
                var request = request
                let form = String(buffer: try await request.collectBody(upTo: 1 << 20))
                if form.contains("returnCountOnly=true") { return json(#"{"count":5}"#) }
                _ = log.count(name)
                let feature = #"{"attributes":{"OBJECTID":1,"name":"a"},"geometry":{"x":1,"y":2}}"#
                switch name {
                case "repeating": return json(#"{"features":[\#(feature)],"exceededTransferLimit":true}"#)
                case "truncated": return json(#"{"features":[{"attributes":{"OBJECTID":1"#)
                case "mistyped": return json(#"{"features":[{"attributes":{"OBJECTID":"one","name":"a"},"geometry":{"x":1,"y":2}}]}"#)
                default: return json(#"{"features":[],"exceededTransferLimit":true}"#)
                }
            }
        }
        // ArcGIS layers that cannot do all a paging read needs: `unordered` pages but does not
        // order, `old` (currentVersion 9.3) predates counts. Both hold features 1…5, answer
        // object IDs and features by object ID, and log each query form.
        for name in ["unordered", "old"] {
            router.get("/\(name)/0") { _, _ in
                json(
                    #"{"currentVersion":\#(name == "old" ? "9.3" : "11.1"),"name":"\#(name)","type":"Feature Layer","#
                        + #""geometryType":"esriGeometryPoint","objectIdField":"OBJECTID","#
                        + #""fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"}],"#
                        + #""maxRecordCount":2,"advancedQueryCapabilities":{"supportsPagination":true}}"#)
            }
            router.post("/\(name)/0/query") { request, _ in
                var request = request
                let form = String(buffer: try await request.collectBody(upTo: 1 << 20))
                log.forms.withLock { $0.append(name + " " + form) }
                if form.contains("returnCountOnly=true") { return json(#"{"count":5}"#) }
                if form.contains("returnIdsOnly=true") { return json(#"{"objectIdFieldName":"OBJECTID","objectIds":[1,2,3,4,5]}"#) }
                let ids = form.split(separator: "&").first { $0.hasPrefix("objectIds=") }.map {
                    ($0.dropFirst("objectIds=".count).removingPercentEncoding ?? "").split(separator: ",")
                } ?? []
                let features = ids.map { #"{"attributes":{"OBJECTID":\#($0)},"geometry":{"x":1,"y":2}}"# }
                return json(#"{"features":[\#(features.joined(separator: ","))]}"#)
            }
        }
        // OGC API collections whose items never end: `/NAME/collections/x/items`.
        for name in ["looping", "hollow", "overmatched"] {
            router.get("/\(name)/conformance") { _, _ in json(#"{"conformsTo":[]}"#) }
            router.get("/\(name)/collections/x") { _, _ in json(#"{"id":"x","links":[]}"#) }
            router.get("/\(name)/collections/x/items") { request, _ in
                _ = log.count(name)
                let feature = #"{"type":"Feature","id":1,"properties":{"a":1},"geometry":{"type":"Point","coordinates":[1,2]}}"#
                let here = "http://\(request.head.authority ?? "127.0.0.1")/\(name)/collections/x/items"
                switch name {
                case "looping":
                    return json(#"{"type":"FeatureCollection","features":[\#(feature)],"links":[{"rel":"next","href":"\#(here)?page=2"}]}"#)
                case "hollow":
                    let page = (request.uri.queryParameters.get("page").flatMap(Int.init) ?? 0) + 1
                    return json(#"{"type":"FeatureCollection","features":[],"links":[{"rel":"next","href":"\#(here)?page=\#(page)"}]}"#)
                default:
                    return json(#"{"type":"FeatureCollection","numberMatched":1,"features":[\#(feature),\#(feature)]}"#)
                }
            }
        }
        // OGC API collections whose pages infer differently: west of 0 (by bbox) features 1 and
        // 2 with `v` whole and `w`, `d`, `b` null; east of it feature 3 with `v` 3 (3.5 for
        // `fractional`), `w` text, a property `z` the others lack, `d` a date and `b` a boolean;
        // east of 100 nothing. `declared` has queryables (`v` a number, `w` an integer, `d` a
        // date) and answers `w` 7 in the east.
        for name in ["drifting", "declared", "fractional"] {
            let queryables = name == "declared"
            router.get("/\(name)/conformance") { _, _ in
                json(queryables ? #"{"conformsTo":["http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables"]}"# : #"{"conformsTo":[]}"#)
            }
            router.get("/\(name)/collections/x") { _, _ in json(#"{"id":"x","links":[]}"#) }
            router.get("/\(name)/collections/x/queryables") { _, _ in
                _ = log.count(name + "-queryables")
                return json(#"{"type":"object","properties":{"geometry":{"format":"geometry-point"},"v":{"type":"number"},"w":{"type":"integer"},"d":{"type":"string","format":"date"}}}"#)
            }
            router.get("/\(name)/collections/x/items") { request, _ in
                let west = request.uri.queryParameters.get("bbox").flatMap { Double($0.split(separator: ",")[0]) } ?? -180
                func feature(_ id: Int, _ x: Double, _ properties: String) -> String {
                    #"{"type":"Feature","id":\#(id),"properties":{\#(properties)},"geometry":{"type":"Point","coordinates":[\#(x),0]}}"#
                }
                let features = west > 100 ? [] : west < 0
                    ? [feature(1, -10, #""v":1,"w":null,"d":null,"b":null"#), feature(2, -5, #""v":2,"w":null,"d":null,"b":null"#)]
                    : [feature(3, 10, #""v":\#(name == "fractional" ? "3.5" : "3"),"w":\#(queryables ? "7" : #""text""#),"z":true,"d":"2024-03-01","b":true"#)]
                return json(#"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#)
            }
        }
        // Collections whose features have string ids (`named`: from west of -15 c.1 and c.2,
        // else c.2 renamed and c.3) or none (`anonymous`).
        for name in ["named", "anonymous"] {
            router.get("/\(name)/conformance") { _, _ in json(#"{"conformsTo":[]}"#) }
            router.get("/\(name)/collections/x") { _, _ in json(#"{"id":"x","links":[]}"#) }
            router.get("/\(name)/collections/x/items") { request, _ in
                let west = request.uri.queryParameters.get("bbox").flatMap { Double($0.split(separator: ",")[0]) } ?? -180
                func feature(_ id: String, _ label: String, _ x: Double) -> String {
                    let member = name == "named" ? #""id":"\#(id)","# : ""
                    return #"{"type":"Feature",\#(member)"properties":{"label":"\#(label)"},"geometry":{"type":"Point","coordinates":[\#(x),0]}}"#
                }
                let features = west < -15 ? [feature("c.1", "one", -10), feature("c.2", "two", -5)] : [feature("c.2", "TWO", -5), feature("c.3", "three", 10)]
                return json(#"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#)
            }
        }
        router.get("/busy") { _, _ in
            let now = log.inFlight.add(1, ordering: .relaxed).newValue
            var most = log.mostInFlight.load(ordering: .relaxed)
            while now > most {
                let (exchanged, original) = log.mostInFlight.compareExchange(expected: most, desired: now, ordering: .relaxed)
                if exchanged { break }
                most = original
            }
            try await Task.sleep(for: .milliseconds(50))
            log.inFlight.subtract(1, ordering: .relaxed)
            return json("{}")
        }
        return router
    }

    /// Runs `body` with the base URL of a server on a free loopback port.
    static func with(_ body: @Sendable (String, Log) async throws -> Void) async throws {
        let log = Log()
        try await withLoopbackServer({ logger, onRunning in
            try await Application(
                router: router(log), configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { await onRunning($0.localAddress?.port ?? 0) }, logger: logger
            ).runService()
        }) { base in try await body(base, log) }
    }
}

/// Runs `body` with the base URL of a server that `run` starts on a free loopback port (telling
/// the port through its callback), then stops the server. The server logs only critical
/// messages: stopping it by cancellation logs errors of its own, which are not the test's.
func withLoopbackServer(
    log: ServerRequestLog? = nil,
    _ run: @escaping @Sendable (_ logger: Logger, _ onRunning: @escaping @Sendable (Int) async -> Void) async throws -> Void,
    _ body: (String) async throws -> Void
) async throws {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    let logger = log?.logger ?? {
        var logger = Logger(label: "loopback")
        logger.logLevel = .critical
        return logger
    }()
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await run(logger) { continuation.yield($0) } }
        var ports = stream.makeAsyncIterator()
        guard let port = await ports.next() else { throw CancellationError() }
        try await body("http://127.0.0.1:\(port)")
        group.cancelAll()
    }
}

/// The service client against a server that answers, fails, fails for a while, stalls and
/// compresses on purpose.
@Suite("Service HTTP client", .tags(.network))
struct ServiceClientTests {
    /// Values appended from any task.
    final class Recorder<Value: Sendable>: Sendable {
        private let values = Mutex<[Value]>([])
        func append(_ value: Value) { values.withLock { $0.append(value) } }
        var all: [Value] { values.withLock { $0 } }
        func clear() { values.withLock { $0 = [] } }
    }

    /// A configuration that records its retry waits instead of sleeping.
    static func configuration(_ waits: Recorder<Duration>? = nil) -> ServiceClient.Configuration {
        var configuration = ServiceClient.Configuration()
        configuration.sleep = { duration in waits?.append(duration) }
        return configuration
    }

    /// A client that sends each request once and takes answers of at most `bytes`.
    static func bounded(_ bytes: Int) -> ServiceClient {
        var configuration = configuration()
        configuration.maxAttempts = 1
        configuration.maxResponseBytes = bytes
        return ServiceClient(configuration: configuration)
    }

    static func error(_ body: () async throws -> Void) async -> ServiceError? {
        do {
            try await body()
            return nil
        } catch let error as ServiceError {
            return error
        } catch {
            Issue.record("not a ServiceError: \(error)")
            return nil
        }
    }

    @Test func answersAndTheServicesOwnErrors() async throws {
        try await MisbehavingServer.with { base, _ in
            let client = ServiceClient(configuration: Self.configuration())
            let ok = try await client.send(ServiceRequest(url: base + "/ok", parameters: [("f", "json")]))
            #expect(ok.status == 200)
            #expect(try ok.json()["a"]?.doubleValue == 1)
            // ArcGIS: HTTP 200 with an error document; its code and details are kept.
            let arcgis = await Self.error { _ = try await client.send(ServiceRequest(url: base + "/arcgis-error")) }
            #expect(arcgis?.kind == .serviceError)
            #expect(arcgis?.status == 400)
            #expect(arcgis?.message == "Unable to complete operation.")
            #expect(arcgis?.details == ["'where' parameter is invalid"])
            #expect(arcgis?.attempts == 1)
            #expect(arcgis?.description == "service error 400 from \(base)/arcgis-error: Unable to complete operation. ('where' parameter is invalid)")
            // OGC API: the status and the exception's code and description.
            let ogc = await Self.error { _ = try await client.send(ServiceRequest(url: base + "/ogc-error")) }
            #expect(ogc?.kind == .serviceError)
            #expect(ogc?.status == 404)
            #expect(ogc?.message == "NotFound: no collection named x")
            // Neither: the status and the start of the body.
            let missing = await Self.error { _ = try await client.send(ServiceRequest(url: base + "/nowhere")) }
            #expect(missing?.kind == .httpStatus)
            #expect(missing?.status == 404)
            // Not JSON where JSON was expected.
            let page = try await client.send(ServiceRequest(url: base + "/not-json"))
            #expect(throws: ServiceError.self) { try page.json() }
            // Not http(s).
            let ftp = await Self.error { _ = try await client.send(ServiceRequest(url: "ftp://127.0.0.1/x")) }
            #expect(ftp?.kind == .invalidURL)
            try await client.shutdown()
        }
    }

    @Test func idempotentRequestsAreRetriedWithBackoff() async throws {
        try await MisbehavingServer.with { base, log in
            let waits = Recorder<Duration>()
            let client = ServiceClient(configuration: Self.configuration(waits))
            // A 503 with Retry-After: 0, then an ArcGIS code 500, then the answer.
            let answer = try await client.send(ServiceRequest(url: base + "/flaky"))
            #expect(try answer.json()["a"]?.doubleValue == 2)
            #expect(waits.all == [.seconds(0), .seconds(1)])
            // Always 500: three sends, then the error, which says so.
            waits.clear()
            let broken = await Self.error { _ = try await client.send(ServiceRequest(url: base + "/broken")) }
            #expect(broken?.kind == .httpStatus)
            #expect(broken?.status == 500)
            #expect(broken?.attempts == 3)
            #expect(broken?.description.hasSuffix("[after 3 attempts]") == true)
            #expect(log.counts.withLock { $0["broken"] } == 3)
            #expect(waits.all == [.milliseconds(500), .seconds(1)])
            // A POST that is not marked idempotent (an edit) is sent once.
            let edit = await Self.error { _ = try await client.send(ServiceRequest(url: base + "/flaky", method: .post)) }
            #expect(edit?.status == 503)
            #expect(log.counts.withLock { $0["flaky-post"] } == 1)
            try await client.shutdown()
            // Nobody listening: network errors, retried. (AsyncHTTPClient keeps trying to connect
            // until the connect timeout; a short one keeps the test short.)
            var impatient = Self.configuration()
            impatient.connectTimeout = .milliseconds(100)
            let nobody = ServiceClient(configuration: impatient)
            let refused = await Self.error { _ = try await nobody.send(ServiceRequest(url: "http://127.0.0.1:1/x")) }
            #expect(refused?.kind == .network || refused?.kind == .timeout)
            #expect(refused?.isTransient == true)
            #expect(refused?.attempts == 3)
            try await nobody.shutdown()
        }
    }

    @Test func timeoutsSizeLimitsAndGzip() async throws {
        try await MisbehavingServer.with { base, _ in
            var configuration = Self.configuration()
            configuration.timeout = .milliseconds(200)
            configuration.maxAttempts = 1
            let client = ServiceClient(configuration: configuration)
            let slow = await Self.error { _ = try await client.send(ServiceRequest(url: base + "/slow")) }
            #expect(slow?.kind == .timeout)
            try await client.shutdown()
            // The answer-size bound and gzip, with a timeout a loaded machine meets.
            let patient = Self.bounded(1 << 20)
            let big = await Self.error { _ = try await patient.send(ServiceRequest(url: base + "/big")) }
            #expect(big?.kind == .responseTooLarge)
            let compressed = try await patient.send(ServiceRequest(url: base + "/gzip"))
            #expect(String(decoding: compressed.body, as: UTF8.self) == #"{"compressed":true,"values":[1,2,3]}"#)
            try await patient.shutdown()
        }
    }

    @Test func hugeAnswersStopAtTheBound() async throws {
        try await MisbehavingServer.with { base, log in
            let client = Self.bounded(4 << 20)
            // An answer without end: refused once over the bound, and the connection closed, so
            // the server stops writing (it would write for ever to a reader that kept reading).
            let endless = await Self.error { _ = try await client.send(ServiceRequest(url: base + "/endless")) }
            #expect(endless?.kind == .responseTooLarge)
            #expect(endless?.message == "the answer is over 4194304 bytes")
            for _ in 0..<200 where !log.endlessStopped.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(50)) }
            let stopped = log.endlessStopped.load(ordering: .relaxed)
            #expect(stopped)
            // What was written before the hang-up: loose (the server writes fast while the client
            // closes), but finite — the hang-up came; the reader kept at most the bound.
            let written = log.endlessBytes.load(ordering: .relaxed)
            #expect(written < 1 << 30)
            // A small body inflating past the bound: refused while inflating.
            let bomb = await Self.error { _ = try await client.send(ServiceRequest(url: base + "/bomb")) }
            #expect(bomb?.kind == .responseTooLarge)
            #expect(bomb?.message == "the answer is over 4194304 bytes decompressed")
            try await client.shutdown()
        }
    }

    @Test func tokensGoWhereConfiguredAndNeverIntoTraces() async throws {
        try await MisbehavingServer.with { base, log in
            let traces = Recorder<String>()
            for placement in [ServiceClient.TokenPlacement.parameter, .header, .both] {
                var configuration = Self.configuration()
                configuration.token = "s3cret"
                configuration.tokenPlacement = placement
                configuration.trace = { trace in traces.append(trace.description) }
                let client = ServiceClient(configuration: configuration)
                #expect(try await client.send(ServiceRequest(url: base + "/token?f=json")).json()["ok"]?.boolValue == true)
                try await client.shutdown()
            }
            #expect(log.authorizations.withLock { $0 } == ["- s3cret", "Bearer s3cret -", "Bearer s3cret s3cret"])
            // Without the token: the service's 499, not retried.
            let client = ServiceClient(configuration: Self.configuration())
            let refused = await Self.error { _ = try await client.send(ServiceRequest(url: base + "/token?token=wrong&f=json")) }
            #expect(refused?.status == 499)
            #expect(refused?.url == base + "/token?f=json")
            try await client.shutdown()
            let lines = traces.all
            #expect(lines.count == 3)
            #expect(lines.allSatisfy { $0.hasPrefix("GET \(base)/token?f=json → 200, 11 bytes, ") && !$0.contains("s3cret") })
            #expect(ServiceRequest.redacted("http://h/q?where=1%3D1&token=a&TOKEN=b&f=json") == "http://h/q?where=1%3D1&f=json")
            #expect(ServiceRequest.redacted("http://h/q?token=a") == "http://h/q")
            #expect(ServiceRequest(url: "http://h/q", parameters: [("where", "a = 'b'")]).redactedURL == "http://h/q")
        }
    }

    @Test func concurrentRequestsAreBounded() async throws {
        try await MisbehavingServer.with { base, log in
            var configuration = Self.configuration()
            configuration.maxConcurrentRequests = 2
            let client = ServiceClient(configuration: configuration)
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await client.send(ServiceRequest(url: base + "/busy")).status } }
                for try await status in group { #expect(status == 200) }
            }
            #expect(log.mostInFlight.load(ordering: .relaxed) == 2)
            try await client.shutdown()
        }
    }

    @Test func layersThatAnswerWronglyGiveClearErrors() async throws {
        try await MisbehavingServer.with { base, log in
            let client = ServiceClient(configuration: Self.configuration())
            func failure(_ name: String) async throws -> ServiceError? {
                let reader = try await ArcGISLayerReader.open(base + "/\(name)/0", client: client)
                return await Self.error { _ = try await reader.features() }
            }
            // The same feature whatever the offset, always "more": read up to the count, then
            // refused as one feature sent five times.
            let repeating = try await failure("repeating")
            #expect(repeating?.kind == .invalidResponse)
            #expect(repeating?.message.contains("duplicate object ID") == true)
            #expect(log.counts.withLock { $0["repeating"] } == 5)
            let truncated = try await failure("truncated")
            #expect(truncated?.kind == .invalidResponse)
            #expect(truncated?.message.hasPrefix("a page cannot be read: invalid JSON") == true)
            let mistyped = try await failure("mistyped")
            #expect(mistyped?.kind == .invalidResponse)
            #expect(mistyped?.message.contains("OBJECTID") == true)
            // No features, yet "more": an error at once, not a loop.
            let stalled = try await failure("stalled")
            #expect(stalled?.message == "a page at resultOffset 0 has no features but says exceededTransferLimit")
            #expect(log.counts.withLock { $0["stalled"] } == 1)
            try await client.shutdown()
        }
    }

    /// A layer is asked only what its document says it supports: without `supportsOrderBy`
    /// it is read by object-ID batches (no offsets, no order), and before 10.0 it is counted by
    /// its object IDs (no `returnCountOnly`).
    @Test func layersAreAskedOnlyWhatTheySupport() async throws {
        try await MisbehavingServer.with { base, log in
            let client = ServiceClient(configuration: Self.configuration())
            let unordered = try await ArcGISLayerReader.open(base + "/unordered/0", client: client)
            #expect(unordered.info.supportsPagination && !unordered.info.supportsOrderBy && !unordered.info.pagesByOffset)
            #expect(try await unordered.features().queryObjectIDs(QueryParameters()) == [1, 2, 3, 4, 5])
            let old = try await ArcGISLayerReader.open(base + "/old/0", client: client)
            #expect(!old.info.supportsCount)
            #expect(try await old.featureCount() == 5)
            let forms = log.forms.withLock { $0 }
            // The IDs, then three batches of two; then the old layer's IDs for its count.
            #expect(forms.count == 5)
            #expect(!forms.contains { $0.contains("resultOffset") || $0.contains("orderByFields") || $0.contains("returnCountOnly") })
            #expect(forms.last?.hasPrefix("old ") == true && forms.last?.contains("returnIdsOnly=true") == true)
            try await client.shutdown()
        }
    }

    @Test func collectionsThatNeverEndGiveClearErrors() async throws {
        try await MisbehavingServer.with { base, log in
            let client = ServiceClient(configuration: Self.configuration())
            func failure(_ name: String) async throws -> ServiceError? {
                let reader = try await OGCCollectionReader.open(base + "/\(name)", collection: "x", client: client)
                return await Self.error { _ = try await reader.features() }
            }
            let looping = try await failure("looping")
            #expect(looping?.message.hasPrefix("the next link repeats a page already read") == true)
            #expect(log.counts.withLock { $0["looping"] } == 2)
            let hollow = try await failure("hollow")
            #expect(hollow?.message == "a page without features links to a next page")
            #expect(log.counts.withLock { $0["hollow"] } == 1)
            let overmatched = try await failure("overmatched")
            #expect(overmatched?.message == "the pages hold 2 features, more than the numberMatched 1")
            try await client.shutdown()
        }
    }

    @Test func featureIdsThatAreNotIntegersKeepTheirObjectIDs() async throws {
        try await MisbehavingServer.with { base, _ in
            let client = ServiceClient(configuration: Self.configuration())
            let west = Envelope(xmin: -20, ymin: -1, xmax: -1, ymax: 1), east = Envelope(xmin: -6, ymin: -1, xmax: 20, ymax: 1)
            func rows(_ table: ServiceFeatureTable) throws -> [String] {
                let snapshot = table.currentTable
                return try snapshot.queryObjectIDs(QueryParameters()).map { id in
                    let row = try #require(snapshot.row(forObjectID: id))
                    return "\(id) \(snapshot.value(row: row, field: "id")) \(snapshot.value(row: row, field: "label"))"
                }
            }
            // Numbered in the order first read; c.2 read again is the same feature, updated.
            let named = try ServiceFeatureTable(
                service: .ogc(try await OGCCollectionReader.open(base + "/named", collection: "x", client: client)), mode: .manualCache)
            try await named.populateFromService(envelope: west)
            try await named.populateFromService(envelope: east)
            #expect(try rows(named) == ["1 'c.1' 'one'", "2 'c.2' 'TWO'", "3 'c.3' 'three'"])
            // No ids: one read fills the cache, a second cannot be merged into it.
            let anonymous = try ServiceFeatureTable(
                service: .ogc(try await OGCCollectionReader.open(base + "/anonymous", collection: "x", client: client)), mode: .manualCache)
            try await anonymous.populateFromService(envelope: west)
            let before = try OwnServerTests.text(anonymous.currentTable)
            await #expect {
                try await anonymous.populateFromService(envelope: east)
            } throws: { ($0 as? ServiceError)?.kind == .unsupported }
            #expect(try OwnServerTests.text(anonymous.currentTable) == before)
            #expect(try await anonymous.populateFromService(envelope: east, clearCache: true) == 2)
            try await client.shutdown()
        }
    }

    @Test func laterFetchesOfACollectionTakeTheCachesFields() async throws {
        try await MisbehavingServer.with { base, log in
            let client = ServiceClient(configuration: Self.configuration())
            let west = Envelope(xmin: -20, ymin: -1, xmax: -1, ymax: 1), east = Envelope(xmin: 1, ymin: -1, xmax: 20, ymax: 1)
            func values(_ table: ServiceFeatureTable, _ field: String) -> [ScalarValue] {
                let snapshot = table.currentTable
                return [1, 2, 3].map { id in snapshot.row(forObjectID: id).map { snapshot.value(row: $0, field: field) } ?? .null }
            }
            // No queryables: the fields of the first fetch (v Integer, w String from nulls) hold
            // the later features; z, which the cache does not have, is left out.
            let drifting = try await OGCCollectionReader.open(base + "/drifting", collection: "x", client: client)
            #expect(drifting.info.queryables.isEmpty)
            #expect(log.counts.withLock { $0["drifting-queryables"] } == nil)
            let table = try ServiceFeatureTable(service: .ogc(drifting), mode: .manualCache)
            #expect(try await table.populateFromService(envelope: west) == 2)
            #expect(try await table.populateFromService(envelope: east) == 1)
            let fields = table.currentTable.schema.fields.map { "\($0.name):\($0.type.name)" }
            #expect(fields == ["OBJECTID:OID", "v:Integer", "w:String", "d:String", "b:String"])
            #expect(values(table, "v") == [.integer(1), .integer(2), .integer(3)])
            #expect(values(table, "w") == [.null, .null, .string("text")])
            // Values are converted once, from what the service sent: the date and the boolean
            // as written.
            #expect(values(table, "d") == [.null, .null, .string("2024-03-01")])
            #expect(values(table, "b") == [.null, .null, .string("true")])
            // A value the cache's field cannot hold: a clear error, the cache as it was.
            let fraction = try await OGCCollectionReader.open(base + "/fractional", collection: "x", client: client)
            let strict = try ServiceFeatureTable(service: .ogc(fraction), mode: .manualCache)
            try await strict.populateFromService(envelope: west)
            let before = try OwnServerTests.text(strict.currentTable)
            do {
                try await strict.populateFromService(envelope: east)
                Issue.record("3.5 went into an Integer field")
            } catch let error as ServiceError {
                #expect(error.kind == .invalidResponse)
                // Where in the page, which feature and field.
                #expect(error.message == "a page cannot be read: conversion failed at line 1, column 84 (byte offset 83) in features[0] "
                    + #"(object ID 3), field "v": cannot convert the number 3.5 to Integer"#)
            }
            #expect(try OwnServerTests.text(strict.currentTable) == before)
            // Queryables: v is a number from the first fetch on, w an integer and d a day
            // (format `date`) though they were null.
            let declared = try await OGCCollectionReader.open(base + "/declared", collection: "x", client: client)
            #expect(declared.info.queryables.map(\.name) == ["geometry", "v", "w", "d"])
            #expect(declared.info.queryables.map(\.type) == [nil, .double, .bigInteger, .dateOnly])
            let typed = try ServiceFeatureTable(service: .ogc(declared), mode: .manualCache)
            try await typed.populateFromService(envelope: west)
            try await typed.populateFromService(envelope: east)
            #expect(typed.currentTable.schema.fields.map { "\($0.name):\($0.type.name)" }
                == ["OBJECTID:OID", "v:Double", "w:BigInteger", "d:DateOnly", "b:String"])
            #expect(values(typed, "v") == [.double(1), .double(2), .double(3)])
            #expect(values(typed, "w") == [.null, .null, .integer(7)])
            // 2024-03-01 is 19,783 days after 1970-01-01.
            #expect(values(typed, "d") == [.null, .null, .date(19_783 * 86_400_000)])
            // A first fetch that finds nothing: one feature of the collection tells the fields,
            // the cache is made empty with them.
            let empty = try ServiceFeatureTable(service: .ogc(drifting), mode: .manualCache)
            #expect(try await empty.populateFromService(envelope: Envelope(xmin: 150, ymin: -1, xmax: 160, ymax: 1)) == 0)
            #expect(empty.currentTable.count == 0)
            #expect(empty.currentTable.schema.fields.map(\.name) == ["OBJECTID", "v", "w", "d", "b"])
            #expect(empty.currentTable.schema.geometryType == .point)
            #expect(try empty.currentTable.queryFeatureCount(QueryParameters(whereClause: "v > 0")) == 0)
            try await empty.populateFromService(envelope: east)
            #expect(values(empty, "v") == [.null, .null, .integer(3)])
            try await client.shutdown()
        }
    }
}

/// A gzip body inflating to `"0"` followed by `repeats` × 258 more zeros: one fixed-Huffman
/// deflate block of a literal and back-references of length 258 at distance 1 (13 bits each,
/// 1:159). The trailer's CRC is not computed: a reader bounding the inflated size stops long
/// before it, and one that does not fails the test anyway.
func gzipBomb(repeats: Int) -> [UInt8] {
    var bytes: [UInt8] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]
    var bits: UInt64 = 0, count = 0
    func put(_ value: UInt64, _ length: Int) {  // least significant bit first
        bits |= value << count
        count += length
        while count >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bits >>= 8
            count -= 8
        }
    }
    func code(_ value: UInt64, _ length: Int) {  // Huffman codes go most significant bit first
        var reversed: UInt64 = 0
        for i in 0..<length where value & (1 << i) != 0 { reversed |= 1 << (length - 1 - i) }
        put(reversed, length)
    }
    put(1, 1)  // BFINAL
    put(1, 2)  // BTYPE 01: fixed Huffman codes
    code(0x30 + UInt64(UInt8(ascii: "0")), 8)  // the literal "0" (literals 0–143: 0x30 + value, 8 bits)
    for _ in 0..<repeats {
        code(0xC0 + (285 - 280), 8)  // length 258 (code 285, no extra bits)
        code(0, 5)  // distance 1 (code 0)
    }
    code(0, 7)  // end of block (256)
    if count > 0 { put(0, 8 - count) }
    bytes += [0, 0, 0, 0]  // CRC-32 (not computed)
    let size = UInt32(truncatingIfNeeded: 1 + repeats * 258)
    bytes += (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) }
    return bytes
}

/// The requests a server logged (its access log at info level: method and path), so
/// that tests count what the server saw, not only what the client says it sent.
final class ServerRequestLog: Sendable {
    private let entries = Mutex<[String]>([])

    /// Every request logged so far, `METHOD URI`.
    var all: [String] { entries.withLock { $0 } }

    /// Forgets the requests logged so far.
    func clear() { entries.withLock { $0.removeAll() } }

    /// A logger at info level recording each request here (and nothing else).
    var logger: Logger {
        var logger = Logger(label: "server-requests") { _ in Handler(log: self) }
        logger.logLevel = .info
        return logger
    }

    private struct Handler: LogHandler {
        let log: ServerRequestLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(
            level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String, function: String,
            line: UInt
        ) {
            guard let method = metadata?["method"], let uri = metadata?["path"] else { return }
            log.entries.withLock { $0.append("\(method) \(uri)") }
        }
    }
}
#endif
