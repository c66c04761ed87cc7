// Part of the RemoteSources trait (on by default): HTTP clients of feature services.
#if RemoteSources
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import SieveFeatures
import SieveEditing
import SieveArcGISREST
import SieveFormats
import SieveGeometry
import Synchronization
import SieveJSON

/// The HTTP side of every service table: requests to ArcGIS feature services and OGC API –
/// Features servers with timeouts, retries, gzip, a bound on concurrent requests and token
/// authentication, every failure a ``ServiceError`` naming the URL and the service's message.
///
/// - **Timeouts**: a connect timeout and a whole-request timeout (``Configuration/timeout``).
/// - **Retries**: requests marked idempotent (every GET; queries sent as POST forms) are sent
///   again after a network failure, a timeout or HTTP 429/500/502/503/504 — or an ArcGIS error
///   document with one of those codes — waiting ``Configuration/retryDelay`` doubled at each
///   attempt, or the service's `Retry-After` (at most ``Configuration/maxRetryDelay``), up to
///   ``Configuration/maxAttempts`` sends in all. Edits are sent once.
/// - **gzip**: `Accept-Encoding: gzip, deflate`, decompressed with the same size bound.
/// - **Bounded**: at most ``Configuration/maxConcurrentRequests`` requests in flight (others
///   wait their turn), answers of at most ``Configuration/maxResponseBytes``.
/// - **Tokens**: ``Configuration/token`` goes as `token=` in the query or form and as
///   `Authorization: Bearer` (``Configuration/tokenPlacement``); URLs in errors and traces
///   never show it.
///
/// ```swift
/// let client = ServiceClient(configuration: .init(token: "secret"))
/// let info = try await client.send(ServiceRequest(url: layerURL, parameters: [("f", "json")]))
/// try await client.shutdown()
/// ```
public final class ServiceClient: Sendable {
    /// How a client sends its requests.
    public struct Configuration: Sendable {
        /// How long a connection may take to open. Default 10 s.
        public var connectTimeout: Duration = .seconds(10)
        /// How long one send may take, from the request to the last byte of the answer.
        /// Default 60 s.
        public var timeout: Duration = .seconds(60)
        /// How many times an idempotent request is sent at most. Default 3.
        public var maxAttempts: Int = 3
        /// The wait before the first retry, doubled before each next one. Default 0.5 s.
        public var retryDelay: Duration = .milliseconds(500)
        /// The longest wait before a retry, whatever the service's `Retry-After`. Default 30 s.
        public var maxRetryDelay: Duration = .seconds(30)
        /// How many requests may be in flight at once. Default 4.
        public var maxConcurrentRequests: Int = 4
        /// The largest answer body accepted, after decompression. Default 256 MiB.
        public var maxResponseBytes: Int = 256 << 20
        /// The token sent with every request, if any.
        public var token: String?
        /// Where the token goes.
        public var tokenPlacement: TokenPlacement = .both
        /// The `User-Agent` header.
        public var userAgent: String = "GeoSieve"
        /// Called once per send with what was sent and what came back (`--trace-requests`).
        public var trace: (@Sendable (ServiceTrace) -> Void)?
        /// How the client waits before a retry; tests replace it to run without waiting.
        public var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }

        /// The defaults, with `token` when given.
        public init(token: String? = nil) { self.token = token }
    }

    /// Where the token of a ``Configuration`` goes.
    public enum TokenPlacement: Sendable {
        /// `token=` in the query (GET) or the form (POST), as ArcGIS clients send it.
        case parameter
        /// `Authorization: Bearer TOKEN`.
        case header
        /// Both.
        case both
    }

    /// The configuration.
    public let configuration: Configuration
    private let http: HTTPClient
    private let limiter: AsyncLimiter

    /// A client with its own connection pool; call ``shutdown()`` when done with it.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        var settings = HTTPClient.Configuration(
            timeout: .init(connect: timeAmount(configuration.connectTimeout)),
            decompression: .enabled(limit: .size(configuration.maxResponseBytes)))
        settings.redirectConfiguration = HTTPClient.Configuration.RedirectConfiguration.follow(max: 5, allowCycles: false)
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: settings)
        limiter = AsyncLimiter(limit: Swift.max(1, configuration.maxConcurrentRequests))
    }

    /// Whether ``shutdown()`` was called.
    private let isShutDown = Atomic<Bool>(false)

    /// Closes the client's connections. Requests still running fail.
    public func shutdown() async throws {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try await http.shutdown()
    }

    /// A client dropped without ``shutdown()`` closes its connections in the background (the
    /// task keeps the connection pool alive until they are closed).
    deinit {
        guard !isShutDown.load(ordering: .acquiring) else { return }
        let http = self.http
        Task { try? await http.shutdown() }
    }

    /// Sends `request`, retrying it as the configuration says when it is idempotent.
    /// - Returns: The answer, whose status is below 400 and which is not an ArcGIS error
    ///   document.
    /// - Throws: ``ServiceError``.
    public func send(_ request: ServiceRequest) async throws -> ServiceResponse {
        var attempt = 1
        while true {
            do {
                return try await sendOnce(request, attempt: attempt)
            } catch var error as ServiceError {
                error.attempts = attempt
                guard request.isIdempotent, error.isTransient, attempt < configuration.maxAttempts else { throw error }
                let delay = retryDelay(after: attempt, error: error)
                do {
                    try await configuration.sleep(delay)
                } catch {
                    throw ServiceError(.cancelled, "cancelled while waiting to retry", url: request.redactedURL, attempts: attempt)
                }
                attempt += 1
            }
        }
    }

    /// The wait before attempt `attempt + 1`: the service's `Retry-After` when it gave one,
    /// else the configured delay doubled per attempt, at most ``Configuration/maxRetryDelay``.
    private func retryDelay(after attempt: Int, error: ServiceError) -> Duration {
        var delay = configuration.retryDelay
        for _ in 1..<attempt { delay = delay * 2 }
        if let seconds = error.retryAfter { delay = .seconds(seconds) }
        return Swift.min(delay, configuration.maxRetryDelay)
    }

    /// One send of `request`.
    private func sendOnce(_ request: ServiceRequest, attempt: Int) async throws -> ServiceResponse {
        guard let (target, body) = prepared(request) else {
            throw ServiceError(.invalidURL, "not an http or https URL with a host", url: request.redactedURL)
        }
        // Errors and traces show what was sent, the token left out: a GET's whole URL, a POST's
        // URL without its form.
        let url = request.method == .get ? ServiceRequest.redacted(target) : request.redactedURL
        var http = HTTPClientRequest(url: target)
        http.method = request.method == .post ? .POST : .GET
        http.headers.add(name: "User-Agent", value: configuration.userAgent)
        http.headers.add(name: "Accept", value: request.accept)
        http.headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        if let token = configuration.token, configuration.tokenPlacement != .parameter {
            http.headers.add(name: "Authorization", value: "Bearer \(token)")
        }
        if let body {
            http.headers.add(name: "Content-Type", value: request.contentType ?? "application/x-www-form-urlencoded")
            http.body = .bytes(ByteBuffer(bytes: body))
        }
        let started = ContinuousClock.now
        var status: Int?
        var received = 0
        defer {
            configuration.trace?(ServiceTrace(
                method: request.method, url: url, attempt: attempt, status: status, bytes: received,
                duration: ContinuousClock.now - started))
        }
        try await limiter.acquire()
        defer { Task { await limiter.release() } }
        let response: HTTPClientResponse
        let bytes: ByteBuffer
        do {
            response = try await self.http.execute(http, timeout: timeAmount(configuration.timeout))
            status = Int(response.status.code)
            bytes = try await response.body.collect(upTo: configuration.maxResponseBytes)
        } catch {
            throw ServiceError.from(error, url: url, status: status, limit: configuration.maxResponseBytes)
        }
        received = bytes.readableBytes
        let answer = ServiceResponse(
            url: url, status: Int(response.status.code), contentType: response.headers.first(name: "Content-Type"),
            retryAfter: response.headers.first(name: "Retry-After").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) },
            body: Array(buffer: bytes))
        try answer.checkForError()
        return answer
    }

    /// The URL to send (the parameters in its query for a GET) and the form body of a POST;
    /// `nil` for a URL that is not http(s) with a host.
    private func prepared(_ request: ServiceRequest) -> (String, [UInt8]?)? {
        guard let components = URLComponents(string: request.url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", components.host?.isEmpty == false
        else { return nil }
        var parameters = request.parameters
        // A URL that already carries a token (a server's next link echoing it) keeps its own.
        let carriesToken = components.queryItems?.contains { $0.name.lowercased() == "token" } ?? false
        if let token = configuration.token, configuration.tokenPlacement != .header, !carriesToken { parameters.append(("token", token)) }
        let encoded = FormEncoding.encode(parameters)
        if request.method == .post {
            return (request.url, request.body ?? Array(encoded.utf8))
        }
        guard !encoded.isEmpty else { return (request.url, nil) }
        return (request.url + (components.query == nil ? "?" : "&") + encoded, nil)
    }
}

/// A request to a service: a URL and its parameters, sent as a GET query or a POST form.
public struct ServiceRequest: Sendable {
    /// GET or POST.
    public enum Method: String, Sendable { case get = "GET", post = "POST" }

    /// The URL, which may carry a query of its own.
    public var url: String
    /// The parameters: the query of a GET, the form body of a POST.
    public var parameters: [(name: String, value: String)]
    /// GET or POST.
    public var method: Method
    /// A body to send instead of the form (a POST of JSON), with its ``contentType``.
    public var body: [UInt8]?
    /// The body's media type; the form's by default.
    public var contentType: String?
    /// The `Accept` header.
    public var accept: String
    /// Whether sending it twice does no harm, so that it may be retried: every GET, and
    /// queries sent as POST. Default: `true` for GET, `false` for POST.
    public var isIdempotent: Bool

    /// A request; a POST is idempotent only when `idempotent` says so.
    public init(
        url: String, parameters: [(name: String, value: String)] = [], method: Method = .get,
        accept: String = "application/json", idempotent: Bool? = nil
    ) {
        self.url = url
        self.parameters = parameters
        self.method = method
        self.accept = accept
        self.isIdempotent = idempotent ?? (method == .get)
    }

    /// The URL without its query's `token`.
    public var redactedURL: String { Self.redacted(url) }

    /// `url` without the `token` parameters of its query, the rest of it as it was.
    static func redacted(_ url: String) -> String {
        guard let question = url.firstIndex(of: "?") else { return url }
        let kept = url[url.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).filter {
            !$0.lowercased().hasPrefix("token=") && $0.lowercased() != "token"
        }
        return kept.isEmpty ? String(url[..<question]) : url[...question] + kept.joined(separator: "&")
    }
}

/// An answer from a service: its status, media type and body.
public struct ServiceResponse: Sendable {
    /// The request's URL, without its token.
    public var url: String
    /// The HTTP status.
    public var status: Int
    /// The `Content-Type` header.
    public var contentType: String?
    /// The `Retry-After` header in seconds, when the service sent one.
    public var retryAfter: Int?
    /// The body, decompressed.
    public var body: [UInt8]

    /// The body as JSON.
    /// - Throws: ``ServiceError/Kind/invalidResponse`` when it is not JSON.
    package func json() throws -> JSONValue {
        do {
            return try JSONReader.parse(bytes: body)
        } catch {
            throw ServiceError(.invalidResponse, "the answer is not JSON: \(error.message)\(snippet)", url: url, status: status)
        }
    }

    /// The start of the body, for messages: ` (starts "…")`.
    var snippet: String {
        guard !body.isEmpty else { return " (empty body)" }
        let text = String(decoding: body.prefix(120), as: UTF8.self)
        return " (starts \"\(text.replacingOccurrences(of: "\n", with: " "))\(body.count > 120 ? "…" : "")\")"
    }

    /// Throws the service's error: an ArcGIS error document (whatever the HTTP status), an OGC
    /// API exception or any other answer with a status of 400 or more.
    /// - Throws: ``ServiceError/Kind/serviceError`` or ``ServiceError/Kind/httpStatus``.
    func checkForError() throws {
        // ArcGIS error documents start with {"error": — read JSON only when the body may be one.
        let looksLikeJSON = body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{")
        let document = looksLikeJSON ? try? JSONReader.parse(bytes: body) : nil
        if let error = document?["error"]?.objectValue {
            let code = error["code"]?.doubleValue.flatMap { Int(exactly: $0) }
            let message = error["message"]?.stringValue ?? error["description"]?.stringValue ?? "no message"
            let details = error["details"]?.arrayValue?.compactMap { $0.stringValue } ?? []
            var failure = ServiceError(.serviceError, message, url: url, status: code ?? (status >= 400 ? status : nil), details: details)
            if status >= 400, code == nil { failure.status = status }
            failure.retryAfter = retryAfter
            throw failure
        }
        guard status >= 400 else { return }
        // OGC API – Features exceptions: {"code": "...", "description": "..."}.
        if let description = document?["description"]?.stringValue {
            let code = document?["code"]?.stringValue
            var failure = ServiceError(.serviceError, (code.map { "\($0): " } ?? "") + description, url: url, status: status)
            failure.retryAfter = retryAfter
            throw failure
        }
        var failure = ServiceError(.httpStatus, "HTTP \(status)\(snippet)", url: url, status: status)
        failure.retryAfter = retryAfter
        throw failure
    }
}

/// One send of a request, as ``ServiceClient/Configuration/trace`` reports it.
public struct ServiceTrace: Sendable, CustomStringConvertible {
    /// GET or POST.
    public var method: ServiceRequest.Method
    /// The URL without its token: a GET's with its parameters, a POST's without its form.
    public var url: String
    /// 1 for the first send, 2 for the first retry, …
    public var attempt: Int
    /// The HTTP status, `nil` when no answer came.
    public var status: Int?
    /// The body's size, decompressed.
    public var bytes: Int
    /// From the send to the last byte.
    public var duration: Duration

    /// `GET http://… → 200, 1234 bytes, 12 ms` (and `(attempt 2)` for retries).
    public var description: String {
        let milliseconds = Int((Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15).rounded())
        return "\(method.rawValue) \(url) → \(status.map(String.init) ?? "no answer"), \(bytes) bytes, \(milliseconds) ms"
            + (attempt > 1 ? " (attempt \(attempt))" : "")
    }
}

extension ServiceError {
    /// The error for a failure of AsyncHTTPClient or NIO.
    static func from(_ error: any Error, url: String, status: Int?, limit: Int) -> ServiceError {
        if let error = error as? ServiceError { return error }
        if error is CancellationError { return ServiceError(.cancelled, "the request was cancelled", url: url) }
        if let error = error as? HTTPClientError {
            if [.deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout].contains(error) {
                return ServiceError(.timeout, "no whole answer in time (\(error))", url: url, status: status)
            }
            if error == .cancelled { return ServiceError(.cancelled, "the request was cancelled", url: url) }
            if error == .invalidURL || error == .emptyHost || error == .emptyScheme {
                return ServiceError(.invalidURL, "\(error)", url: url)
            }
        }
        if error is NIOTooManyBytesError {
            return ServiceError(.responseTooLarge, "the answer is over \(limit) bytes", url: url, status: status)
        }
        if let error = error as? NIOHTTPDecompression.DecompressionError {
            if error == .limit {
                return ServiceError(.responseTooLarge, "the answer is over \(limit) bytes decompressed", url: url, status: status)
            }
            return ServiceError(.invalidResponse, "the compressed answer cannot be inflated (\(error))", url: url, status: status)
        }
        if let error = error as? NIOHTTPDecompression.ExtraDecompressionError {
            return ServiceError(.invalidResponse, "the compressed answer is cut or followed by other bytes (\(error))", url: url, status: status)
        }
        return ServiceError(.network, String(describing: error), url: url, status: status)
    }
}

/// `duration` as NIO's `TimeAmount`.
func timeAmount(_ duration: Duration) -> TimeAmount {
    let (seconds, attoseconds) = duration.components
    return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
}
#endif
