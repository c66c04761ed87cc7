import Hummingbird
import SieveFeatures
import SieveGeometry

/// The ArcGIS REST routes. Errors are answered as ArcGIS answers them: HTTP 200 with an
/// `{"error":{…}}` body (clients test the body; authentication failures carry codes 499 and
/// 498), except the request limits (413, 414, 503), which keep their status so that clients
/// back off.
struct ArcGISRoutes {
    let server: GeoSieveServer

    func add(to router: Router<BasicRequestContext>) {
        let root = ArcGISDocuments.root
        for method in [HTTPRequest.Method.get, .post] {
            router.on(RouterPath(root), method: method) { request, _ in
                await respond(request) { parameters, pretty in
                    ServiceResponse.json(ArcGISDocuments.directory(server.catalog), pretty: pretty)
                }
            }
            router.on(RouterPath(root + "/{service}/FeatureServer"), method: method) { request, context in
                await respond(request) { parameters, pretty in
                    let served = try service(context)
                    return ServiceResponse.json(try document { try ArcGISDocuments.service(served, configuration: server.configuration) }, pretty: pretty)
                }
            }
            router.on(RouterPath(root + "/{service}/FeatureServer/{layer}"), method: method) { request, context in
                await respond(request) { parameters, pretty in
                    let served = try layer(context)
                    return ServiceResponse.json(try document { try ArcGISDocuments.layer(served, configuration: server.configuration) }, pretty: pretty)
                }
            }
            router.on(RouterPath(root + "/{service}/FeatureServer/{layer}/query"), method: method) { request, context in
                await respond(request) { parameters, _ in
                    try ArcGISQuery.run(parameters, on: try layer(context), configuration: server.configuration)
                }
            }
        }
    }

    /// Reads the parameters, checks the token (reads need one only with
    /// `tokenRequiredForRead`), runs `body` and writes its error, if any, as ArcGIS does.
    private func respond(
        _ request: Request, edit: Bool = false,
        _ body: (RequestParameters, _ pretty: Bool) async throws -> ServiceResponse
    ) async -> Response {
        do {
            let parameters = try await server.parameters(request, caseInsensitiveNames: true)
            try server.authorize(request, parameters, edit: edit)
            let pretty = parameters.nonEmpty("f")?.lowercased() == "pjson"
            return try await body(parameters, pretty).response
        } catch {
            let error = error as? ServerRequestError ?? ServerRequestError(.internalError, "\(error)")
            let status = [.contentTooLarge, .uriTooLong, .serviceUnavailable].contains(error.kind) ? error.status : 200
            return ServiceResponse(status: status, contentType: ServiceResponse.jsonType, body: Array(error.arcGISJSON.utf8)).response
        }
    }

    /// The service the path names.
    private func service(_ context: BasicRequestContext) throws(ServerRequestError) -> ServedTable {
        try server.catalog.table(context.parameters.get("service") ?? "", what: "service")
    }

    /// The layer the path names: layer 0 of the service.
    private func layer(_ context: BasicRequestContext) throws(ServerRequestError) -> ServedTable {
        let served = try service(context)
        let id = context.parameters.get("layer") ?? ""
        guard id == "0" else { throw ServerRequestError(.notFound, "layer \(RequestParameters.quoted(id)) does not exist: the service has layer 0") }
        return served
    }

    /// A metadata document; engine failures (an extent that cannot be computed) as server errors.
    private func document(_ make: () throws -> JSONValue) throws(ServerRequestError) -> JSONValue {
        do {
            return try make()
        } catch let error as ServerRequestError {
            throw error
        } catch {
            throw ServerRequestError(.internalError, "Unable to complete operation.", details: ["\(error)"])
        }
    }
}
