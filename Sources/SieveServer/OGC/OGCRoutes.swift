import Hummingbird
import SieveGeometry

/// The OGC API – Features routes under `/ogc`. Errors carry their HTTP status (400, 401, 404,
/// …) and the OGC exception document, as the standard asks.
struct OGCRoutes {
    let server: GeoSieveServer

    func add(to router: Router<BasicRequestContext>) {
        // The map page: every layer drawn from its vector tiles (MapPage).
        router.get("/") { request, _ in
            // view= and click= are the viewer's own (read by its script).
            await respond(request) { _, _ in
                ServiceResponse(contentType: "text/html; charset=utf-8", body: Array(MapPage.html(title: server.configuration.title).utf8))
            }
        }
        router.get("/ogc") { request, _ in
            await respond(request, only: ["f"]) { parameters, base in
                if OGCHTML.wanted(parameters, accept: request.headers[.accept]) {
                    return OGCHTML.landing(server.catalog, configuration: server.configuration)
                }
                return ServiceResponse.json(OGCDocuments.landing(base: base, configuration: server.configuration))
            }
        }
        router.get("/ogc/api") { request, _ in
            await respond(request, only: ["f"]) { _, base in
                ServiceResponse.json(
                    OGCOpenAPI.document(server.catalog, base: base, configuration: server.configuration), contentType: OGCOpenAPI.mediaType)
            }
        }
        router.get("/ogc/conformance") { request, _ in
            await respond(request, only: ["f"]) { parameters, _ in
                let document = OGCDocuments.conformanceDocument(edits: server.configuration.allowEdits)
                if OGCHTML.wanted(parameters, accept: request.headers[.accept]) {
                    return OGCHTML.conformance(document["conformsTo"]?.arrayValue?.compactMap(\.stringValue) ?? [])
                }
                return ServiceResponse.json(document)
            }
        }
        router.get("/ogc/collections") { request, _ in
            await respond(request, only: ["f"]) { parameters, base in
                if OGCHTML.wanted(parameters, accept: request.headers[.accept]) { return OGCHTML.collections(server.catalog) }
                return ServiceResponse.json(try ServerRequestError.catching(.internalError) { try OGCDocuments.collections(server.catalog, base: base) })
            }
        }
        router.get("/ogc/collections/{collection}") { request, context in
            await respond(request, only: ["f"]) { parameters, base in
                let served = try collection(context)
                if OGCHTML.wanted(parameters, accept: request.headers[.accept]) { return OGCHTML.collection(served) }
                return ServiceResponse.json(try ServerRequestError.catching(.internalError) { try OGCDocuments.collection(served, base: base) })
            }
        }
        router.get("/ogc/collections/{collection}/queryables") { request, context in
            await respond(request, only: ["f"]) { parameters, base in
                let served = try collection(context)
                if OGCHTML.wanted(parameters, accept: request.headers[.accept]) { return OGCHTML.queryables(served) }
                return ServiceResponse.json(OGCDocuments.queryables(served, base: base), contentType: "application/schema+json")
            }
        }
        router.get("/ogc/collections/{collection}/items") { request, context in
            await respond(request) { parameters, base in
                let served = try collection(context)
                let (path, configuration) = (request.uri.path, server.configuration(for: served))
                let html = OGCHTML.wanted(parameters, accept: request.headers[.accept])
                guard let snapshot = served.snapshot else {
                    // A database runs the queries; its statement timeout bounds them.
                    return try await server.timedRemote {
                        try await OGCItems.items(parameters, served: served, base: base, path: path, configuration: configuration, html: html)
                    }
                }
                let size = EngineWorkSize.ogcItems(
                    parameters, table: snapshot, configuration: configuration, indexed: server.spatialIndexes.isReady(served.id))
                let response = try await server.timed(size) {
                    try OGCItems.items(parameters, served: served, base: base, path: path, configuration: configuration, html: html)
                }
                // A bbox request has built the table's spatial index (when every feature has a
                // geometry; otherwise the rule never counts in it).
                if size == .large, EngineWorkSize.ogcItemsUseSpatialIndex(parameters) { server.spatialIndexes.setReady(served.id) }
                return response
            }
        }
        router.get("/ogc/collections/{collection}/items/{feature}") { request, context in
            await respond(request) { parameters, base in
                let (feature, served, path) = (context.parameters.get("feature") ?? "", try collection(context), request.uri.path)
                let html = OGCHTML.wanted(parameters, accept: request.headers[.accept])
                return try await server.timedRemote {
                    try await OGCItems.item(feature, parameters, served: served, base: base, path: path, html: html)
                }
            }
        }
        // OGC API – Tiles: the grid, and each collection's vector tiles.
        router.get("/ogc/tileMatrixSets") { request, _ in
            await respond(request, only: ["f"]) { _, base in ServiceResponse.json(OGCTiles.tileMatrixSets(base: base)) }
        }
        router.get("/ogc/tileMatrixSets/{tileMatrixSet}") { request, context in
            await respond(request, only: ["f"]) { _, _ in
                try tileMatrixSet(context)
                return ServiceResponse.json(OGCTiles.webMercatorQuad())
            }
        }
        router.get("/ogc/collections/{collection}/tiles") { request, context in
            await respond(request, only: ["f"]) { _, base in ServiceResponse.json(OGCTiles.tilesets(try collection(context), base: base)) }
        }
        router.get("/ogc/collections/{collection}/tiles/{tileMatrixSet}") { request, context in
            await respond(request) { parameters, base in
                let served = try collection(context)
                try tileMatrixSet(context)
                for name in parameters.names where name != "f" && name != "token" {
                    throw ServerRequestError(.badRequest, "unknown parameter \(RequestParameters.quoted(name)): a tileset takes f (json or tilejson)")
                }
                switch parameters["f"]?.lowercased() ?? "json" {
                case "json":
                    return ServiceResponse.json(try ServerRequestError.catching(.internalError) { try OGCTiles.tileset(served, base: base) })
                case "tilejson":
                    return ServiceResponse.json(try ServerRequestError.catching(.internalError) { try OGCTiles.tileJSON(served, base: base) })
                case let other:
                    throw ServerRequestError(.badRequest, "f=\(other) is not supported for a tileset: use json or tilejson")
                }
            }
        }
        router.get("/ogc/collections/{collection}/tiles/{tileMatrixSet}/{z}/{y}/{x}") { request, context in
            await respond(request) { parameters, _ in
                let served = try collection(context)
                try tileMatrixSet(context)
                if let format = parameters["f"], format.lowercased() != "mvt" {
                    throw ServerRequestError(.badRequest, "f=\(format) is not supported for a tile: tiles are Mapbox Vector Tiles (f=mvt)")
                }
                return try await server.vectorTile(
                    context.parameters.get("z") ?? "", context.parameters.get("y") ?? "", context.parameters.get("x") ?? "", parameters,
                    served: served, query: request.uri.query ?? "")
            }
        }
        // Part 4: create, replace, delete, when edits are allowed (a read-only server answers
        // them 405, as methods its routes do not take).
        guard server.configuration.allowEdits else { return }
        router.post("/ogc/collections/{collection}/items") { request, context in
            await respond(request, edit: true) { _, base, user in
                try await OGCTransactions.create(try await feature(request), served: try collection(context).acting(as: user), base: base)
            }
        }
        router.put("/ogc/collections/{collection}/items/{feature}") { request, context in
            await respond(request, edit: true) { _, _, user in
                try await OGCTransactions.replace(
                    context.parameters.get("feature") ?? "", try await feature(request), served: try collection(context).acting(as: user))
            }
        }
        router.delete("/ogc/collections/{collection}/items/{feature}") { request, context in
            await respond(request, edit: true) { _, _, user in
                try await OGCTransactions.delete(context.parameters.get("feature") ?? "", served: try collection(context).acting(as: user))
            }
        }
    }

    /// The GeoJSON body of a create or replace.
    private func feature(_ request: Request) async throws(ServerRequestError) -> [UInt8] {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        guard type.hasPrefix("application/geo+json") || type.hasPrefix("application/json") else {
            throw ServerRequestError(.badRequest, "the body must be application/geo+json, not \(type.isEmpty ? "untyped" : type)")
        }
        return try await server.body(request)
    }

    /// Reads the parameters (only those of `only`, and `token`, when given), checks the token
    /// (the collection's service's when it has one; for edits when one is set, for reads when
    /// reads need one) and that edits are allowed, runs `body` with the server's base URL, and
    /// writes its error, if any, with its status.
    private func respond(
        _ request: Request, only: Set<String>? = nil, edit: Bool = false,
        _ body: (RequestParameters, _ base: String) async throws -> ServiceResponse
    ) async -> Response {
        await respond(request, only: only, edit: edit) { parameters, base, _ in try await body(parameters, base) }
    }

    /// ``respond(_:only:edit:_:)`` whose `body` also takes the user the request's token names
    /// (`nil`: anonymous).
    private func respond(
        _ request: Request, only: Set<String>? = nil, edit: Bool = false,
        _ body: (RequestParameters, _ base: String, _ user: String?) async throws -> ServiceResponse
    ) async -> Response {
        do {
            // OGC API reads parameters from the query string only; bodies are features.
            let parameters = try RequestParameters(query: request.uri.query.map { Substring($0) }, caseInsensitiveNames: false)
            let user = try server.authorize(request, parameters, edit: edit, service: server.service(atPath: request.uri.path))
            if let only {
                for name in parameters.names where !only.contains(name) && name != "token" {
                    throw ServerRequestError(.badRequest, "unknown parameter \(RequestParameters.quoted(name))")
                }
                try OGCItems.checkFormat(parameters)
            }
            let host = request.head.authority ?? "\(server.configuration.host):\(server.configuration.port)"
            return try await ResponseEncoding.answer(request, server: server) { try await body(parameters, "http://" + host, user) }
        } catch {
            let error = ServerRequestError(error, fallback: .internalError)
            return ServiceResponse(status: error.status, contentType: ServiceResponse.jsonType, headers: error.headers, body: Array(error.ogcJSON.utf8)).response
        }
    }

    /// Checks that the path names the one grid served, `WebMercatorQuad`.
    private func tileMatrixSet(_ context: BasicRequestContext) throws(ServerRequestError) {
        let id = context.parameters.get("tileMatrixSet") ?? ""
        guard id == "WebMercatorQuad" else {
            throw ServerRequestError(.notFound, "no tile matrix set \(RequestParameters.quoted(id)): tiles are served on WebMercatorQuad")
        }
    }

    /// The collection the path names.
    private func collection(_ context: BasicRequestContext) throws(ServerRequestError) -> ServedTable {
        try server.catalog.table(context.parameters.get("collection") ?? "", what: "collection")
    }
}
