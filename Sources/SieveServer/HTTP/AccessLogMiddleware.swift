import Hummingbird
import Logging

/// Logs every request once it is answered, at info: method, path and query (a `token`
/// parameter's value hidden), status and duration, as an access log does, with the method, the
/// path, the status and the duration as metadata too:
///
/// ```
/// info geosieve.serve : duration_ms=0.41 method=GET path=/ogc/collections/cities/items status=200 [SieveServer] GET /ogc/collections/cities/items?limit=2
/// ```
///
/// It runs outside the request limits, so that refusals (414, 503) and unknown routes (404)
/// are logged with the status the client got.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, status: Int(response.status.code), since: start, logger: context.logger)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            log(request, status: Int(status), since: start, logger: context.logger)
            throw error
        }
    }

    private func log(_ request: Request, status: Int, since start: ContinuousClock.Instant, logger: Logger) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        logger.info(
            "\(request.method) \(Self.redacted(request.uri.string))",
            metadata: [
                "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(status)",
                "duration_ms": "\((milliseconds * 100).rounded() / 100)",
            ])
    }

    /// `uri` with the value of every `token` query parameter replaced by `***`.
    static func redacted(_ uri: String) -> String {
        guard let question = uri.firstIndex(of: "?") else { return uri }
        let query = uri[uri.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map { item in
            item.lowercased().hasPrefix("token=") ? "token=***" : String(item)
        }
        return String(uri[...question]) + query.joined(separator: "&")
    }
}
