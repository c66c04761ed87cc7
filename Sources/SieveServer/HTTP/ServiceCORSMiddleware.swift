import Hummingbird

/// CORS by service: a request under a service (`/arcgis/rest/services/{service}/…`) or one of
/// its layers' collections (`/ogc/collections/{id}…`) gets the headers of the service's
/// ``ServedService/corsOrigin``, any other request (and a service without one) those of the
/// server's ``ServerConfiguration/corsOrigin``; where neither is set, none. Preflight
/// requests (`OPTIONS` with `Access-Control-Request-Method`) are answered here.
///
/// The origin is looked up in the catalog served when the request arrives, so a reloaded
/// configuration changes it at once.
struct ServiceCORSMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let server: GeoSieveServer
    /// One Hummingbird CORS middleware per origin, made once.
    private let byOrigin: Locked<[String: CORSMiddleware<Context>]>

    init(server: GeoSieveServer) {
        self.server = server
        byOrigin = Locked([:])
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = origin(of: request.uri.path) else { return try await next(request, context) }
        let middleware = byOrigin.withLock { cache in
            if let made = cache[origin] { return made }
            let made = CORSMiddleware<Context>(
                allowOrigin: origin == "*" ? .all : .custom(origin), allowHeaders: [.contentType, .authorization],
                allowMethods: [.get, .head, .post, .put, .delete, .options])
            cache[origin] = made
            return made
        }
        return try await middleware.handle(request, context: context, next: next)
    }

    /// The origin allowed for `path`: its service's, else the server's.
    func origin(of path: String) -> String? {
        server.service(atPath: path)?.corsOrigin ?? server.configuration.corsOrigin
    }
}
