import Hummingbird
import SieveGeometry

/// The OGC API – Features routes under `/ogc`. Errors carry their HTTP status (400, 401, 404,
/// …) and the OGC exception document, as the standard asks.
struct OGCRoutes {
    let server: GeoSieveServer

    func add(to router: Router<BasicRequestContext>) {
        router.get("/ogc") { request, _ in
            await respond(request, only: ["f"]) { _, base in
                ServiceResponse.json(OGCDocuments.landing(base: base, configuration: server.configuration))
            }
        }
        router.get("/ogc/api") { request, _ in
            await respond(request, only: ["f"]) { _, base in
                ServiceResponse.json(
                    OGCOpenAPI.document(server.catalog, base: base, configuration: server.configuration), contentType: OGCOpenAPI.mediaType)
            }
        }
        router.get("/ogc/conformance") { request, _ in
            await respond(request, only: ["f"]) { _, _ in ServiceResponse.json(OGCDocuments.conformanceDocument) }
        }
        router.get("/ogc/collections") { request, _ in
            await respond(request, only: ["f"]) { _, base in
                ServiceResponse.json(try document { try OGCDocuments.collections(server.catalog, base: base) })
            }
        }
        router.get("/ogc/collections/{collection}") { request, context in
            await respond(request, only: ["f"]) { _, base in
                let served = try collection(context)
                return ServiceResponse.json(try document { try OGCDocuments.collection(served, base: base) })
            }
        }
        router.get("/ogc/collections/{collection}/queryables") { request, context in
            await respond(request, only: ["f"]) { _, base in
                ServiceResponse.json(OGCDocuments.queryables(try collection(context), base: base), contentType: "application/schema+json")
            }
        }
        router.get("/ogc/collections/{collection}/items") { request, context in
            await respond(request) { parameters, base in
                try OGCItems.items(parameters, served: try collection(context), base: base, path: request.uri.path, configuration: server.configuration)
            }
        }
        router.get("/ogc/collections/{collection}/items/{feature}") { request, context in
            await respond(request) { parameters, base in
                try OGCItems.item(
                    context.parameters.get("feature") ?? "", parameters, served: try collection(context), base: base, path: request.uri.path)
            }
        }
    }

    /// Reads the parameters (only those of `only`, and `token`, when given), checks the token
    /// when reads need one, runs `body` with the server's base URL, and writes its error, if
    /// any, with its status.
    private func respond(
        _ request: Request, only: Set<String>? = nil,
        _ body: (RequestParameters, _ base: String) async throws -> ServiceResponse
    ) async -> Response {
        do {
            let parameters = try await server.parameters(request, caseInsensitiveNames: false)
            try server.authorize(request, parameters, edit: false)
            if let only {
                for name in parameters.names where !only.contains(name) && name != "token" {
                    throw ServerRequestError(.badRequest, "unknown parameter \(RequestParameters.quoted(name))")
                }
                try OGCItems.checkFormat(parameters)
            }
            let host = request.head.authority ?? "\(server.configuration.host):\(server.configuration.port)"
            return try await body(parameters, "http://" + host).response
        } catch {
            let error = error as? ServerRequestError ?? ServerRequestError(.internalError, "\(error)")
            return ServiceResponse(status: error.status, contentType: ServiceResponse.jsonType, body: Array(error.ogcJSON.utf8)).response
        }
    }

    /// The collection the path names.
    private func collection(_ context: BasicRequestContext) throws(ServerRequestError) -> ServedTable {
        try server.catalog.table(context.parameters.get("collection") ?? "", what: "collection")
    }

    /// A document; engine failures (an extent that cannot be projected) as server errors.
    private func document(_ make: () throws -> JSONValue) throws(ServerRequestError) -> JSONValue {
        do {
            return try make()
        } catch let error as ServerRequestError {
            throw error
        } catch {
            throw ServerRequestError(.internalError, "\(error)")
        }
    }
}
