import Hummingbird
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGeometry
import SieveJSON

/// The ArcGIS REST routes. Errors are answered as ArcGIS answers them: HTTP 200 with an
/// `{"error":{…}}` body (clients test the body; authentication failures carry codes 499 and
/// 498), except the request limits (413, 414, 503), which keep their status so that clients
/// back off. Successful GET answers carry entity tags and are compressed as
/// ``ResponseEncoding`` says.
struct ArcGISRoutes {
    let server: GeoSieveServer

    /// What a handler is given: the parameters, the multipart form (if the body was one) and
    /// whether to indent (`f=pjson`).
    struct Input {
        var parameters: RequestParameters
        var form: MultipartForm?
        var pretty: Bool
    }

    func add(to router: Router<BasicRequestContext>) {
        let root = ArcGISDocuments.root
        let service = root + "/{service}/FeatureServer"
        let layer = service + "/{layer}"
        for method in [HTTPRequest.Method.get, .post] {
            router.on(RouterPath(root), method: method) { request, _ in
                await respond(request) { input in ServiceResponse.json(ArcGISDocuments.directory(server.catalog, configuration: server.configuration), pretty: input.pretty) }
            }
            // The feature service and the read-only map service of the same layer: documents and
            // queries (the map service has no edit routes).
            for kind in [ArcGISDocuments.Kind.featureServer, .mapServer] {
                let service = root + "/{service}/" + kind.rawValue
                let layer = service + "/{layer}"
                router.on(RouterPath(service), method: method) { request, context in
                    await respondDocument(request, context) { service in
                        try ArcGISDocuments.service(service, configuration: service.configuration(server.configuration), kind: kind)
                    }
                }
                // All layers and tables, each as its own document describes it.
                router.on(RouterPath(service + "/layers"), method: method) { request, context in
                    await respondDocument(request, context) { service in
                        try ArcGISDocuments.allLayers(service, configuration: service.configuration(server.configuration), kind: kind)
                    }
                }
                router.on(RouterPath(layer), method: method) { request, context in
                    await respondDocument(request, context) { service in
                        try ArcGISDocuments.layer(
                            try self.layer(context, of: service), configuration: service.configuration(server.configuration), kind: kind,
                            copyright: service.copyright)
                    }
                }
                router.on(RouterPath(layer + "/query"), method: method) { request, context in
                    await respond(request, context) { input, service in
                        let served = try self.layer(context, of: service)
                        let configuration = service.configuration(server.configuration)
                        // Read once, on the request's task; its size decided from what was read.
                        var read = try ArcGISQuery.prepare(
                            input.parameters, schema: served.visibleSchema, configuration: configuration, time: served.time)
                        try served.restrictToVisibleFields(&read.request.parameters, statistics: read.request.statisticsRequest)
                        let prepared = read
                        let query = prepared.request.parameters
                        guard let snapshot = served.snapshot else {
                            // A database runs the query; its statement timeout bounds it.
                            return try await server.timedRemote { try await ArcGISQuery.respond(prepared, on: served) }
                        }
                        let size = EngineWorkSize.query(
                            query, declaresBox: prepared.declaresBox, table: snapshot, configuration: configuration,
                            indexed: server.spatialIndexes.isReady(served.id))
                        let response = try await server.timed(size) { try ArcGISQuery.respond(prepared, on: served) }
                        // A box query has built the table's spatial index: the next ones can count their rows in it.
                        if size == .large, EngineWorkSize.readsSpatialIndex(query) { server.spatialIndexes.setReady(served.id) }
                        return response
                    }
                }
            }
            // The vector tile service of the same table: its document and style (the tiles
            // below, GET only).
            let vectorTiles = root + "/{service}/VectorTileServer"
            router.on(RouterPath(vectorTiles), method: method) { request, context in
                await respondDocument(request, context) { service in
                    try ArcGISVectorTiles.service(service, configuration: server.configuration)
                }
            }
            for path in [vectorTiles + "/resources/styles", vectorTiles + "/resources/styles/root.json"] {
                router.on(RouterPath(path), method: method) { request, context in
                    await respondDocument(request, context) { service in try ArcGISVectorTiles.style(service) }
                }
            }
            router.on(RouterPath(layer + "/{feature}/attachments"), method: method) { request, context in
                await respond(request, context) { _, service in
                    let served = try self.layer(context, of: service)
                    let id = try await ArcGISAttachments.objectID(context.parameters.get("feature") ?? "", in: served)
                    return try await ArcGISAttachments.infos(id, in: served)
                }
            }
            router.on(RouterPath(layer + "/{feature}/attachments/{attachment}"), method: method) { request, context in
                await respond(request, context) { _, service in
                    let served = try self.layer(context, of: service)
                    let id = try await ArcGISAttachments.objectID(context.parameters.get("feature") ?? "", in: served)
                    return try await ArcGISAttachments.download(id, context.parameters.get("attachment") ?? "", in: served)
                }
            }
        }
        // A vector tile: its HTTP status says when there is none (404), as ArcGIS answers, for
        // map clients that read statuses.
        router.get(RouterPath(root + "/{service}/VectorTileServer/tile/{z}/{y}/{x}.pbf")) { request, context in
            await respondTile(request, context) { service in
                // One tile holds a layer for each of the service's layers with geometry: the
                // layers' own tiles, concatenated (a tile's layers are a repeated field).
                let none = try RequestParameters(query: nil, caseInsensitiveNames: true)
                var response: ServiceResponse?
                for served in try ArcGISVectorTiles.tiledLayers(service) {
                    let tile = try await server.vectorTile(
                        context.parameters.get("z") ?? "", context.parameters.get("y") ?? "", context.parameters.get("x") ?? "",
                        none, served: served, query: "")
                    if var combined = response {
                        combined.body += tile.body
                        response = combined
                    } else {
                        response = tile
                    }
                }
                guard let response else { throw ServerRequestError(.notFound, "no tile") }
                return response
            }
        }
        // Edits: POST only, as ArcGIS.
        router.post(RouterPath(service + "/applyEdits")) { request, context in
            await respond(request, context, edit: true) { input, service in try await ArcGISEdits.runService(input.parameters, on: service) }
        }
        for operation in ArcGISEdits.Operation.allCases {
            router.post(RouterPath(layer + "/" + operation.rawValue)) { request, context in
                await respond(request, context, edit: true) { input, service in
                    try await ArcGISEdits.run(operation, input.parameters, on: try self.layer(context, of: service))
                }
            }
        }
        for (name, update) in [("addAttachment", false), ("updateAttachment", true)] {
            router.post(RouterPath(layer + "/{feature}/" + name)) { request, context in
                await respond(request, context, edit: true) { input, service in
                    let served = try self.layer(context, of: service)
                    let id = try await ArcGISAttachments.objectID(context.parameters.get("feature") ?? "", in: served)
                    guard let form = input.form else {
                        throw ServerRequestError(.badRequest, "Unable to complete operation.", details: ["\(name) needs a multipart/form-data body"])
                    }
                    return try await ArcGISAttachments.upload(id, form: form, parameters: input.parameters, update: update, in: served)
                }
            }
        }
        router.post(RouterPath(layer + "/{feature}/deleteAttachments")) { request, context in
            await respond(request, context, edit: true) { input, service in
                let served = try self.layer(context, of: service)
                let id = try await ArcGISAttachments.objectID(context.parameters.get("feature") ?? "", in: served)
                return try await ArcGISAttachments.delete(id, parameters: input.parameters, in: served)
            }
        }
    }

    /// Reads the request, checks the token (edits need one when it is set; reads only with
    /// `tokenRequiredForRead`) and that edits are allowed, runs `body` and writes its error, if
    /// any, as ArcGIS does.
    private func respond(_ request: Request, edit: Bool = false, _ body: (Input) async throws -> ServiceResponse) async -> Response {
        await respond(request, edit: edit, service: { nil }) { input, _ in try await body(input) }
    }

    /// Reads the request of the service the path names, checks the token (the service's when
    /// it has one) and that edits are allowed, runs `body` with the service and writes its
    /// error, if any, as ArcGIS does.
    private func respond(
        _ request: Request, _ context: BasicRequestContext, edit: Bool = false,
        _ body: (Input, ServedService) async throws -> ServiceResponse
    ) async -> Response {
        await respond(request, edit: edit, service: { () throws(ServerRequestError) -> ServedService? in try self.service(context) }) { input, service in
            // Never nil: the lookup above returns a service or throws.
            guard let service else { throw ServerRequestError(.notFound, "no service") }
            return try await body(input, service)
        }
    }

    /// The one path of every ArcGIS answer but tiles: reads the request, looks the service up
    /// (`nil` for the directory), authorizes, answers.
    private func respond(
        _ request: Request, edit: Bool, service lookUp: () throws(ServerRequestError) -> ServedService?,
        _ body: (Input, ServedService?) async throws -> ServiceResponse
    ) async -> Response {
        do {
            let (parameters, form) = try await server.read(request, caseInsensitiveNames: true)
            let looked = try lookUp()
            let user = try server.authorize(request, parameters, edit: edit, service: looked)
            let service = user == nil ? looked : looked?.acting(as: user)
            let pretty = parameters.nonEmpty("f")?.lowercased() == "pjson"
            return try await ResponseEncoding.answer(request, server: server) {
                try await body(Input(parameters: parameters, form: form, pretty: pretty), service)
            }
        } catch {
            let error = ServerRequestError(error, fallback: .internalError)
            let status = [.contentTooLarge, .uriTooLong, .serviceUnavailable].contains(error.kind) ? error.status : 200
            return ServiceResponse(status: status, contentType: ServiceResponse.jsonType, headers: error.headers, body: Array(error.arcGISJSON.utf8)).response
        }
    }

    /// Answers a vector tile `make` makes of the service the path names, or its error with its
    /// HTTP status (404 for a tile that does not exist) in the ArcGIS error shape.
    private func respondTile(
        _ request: Request, _ context: BasicRequestContext, _ make: (ServedService) async throws -> ServiceResponse
    ) async -> Response {
        do {
            let parameters = try RequestParameters(query: request.uri.query.map { Substring($0) }, caseInsensitiveNames: true)
            let service = try self.service(context)
            try server.authorize(request, parameters, edit: false, service: service)
            return try await ResponseEncoding.answer(request, server: server) { try await make(service) }
        } catch {
            let error = ServerRequestError(error, fallback: .internalError)
            return ServiceResponse(status: error.status, contentType: ServiceResponse.jsonType, headers: error.headers, body: Array(error.arcGISJSON.utf8)).response
        }
    }

    /// Answers the metadata document `make` writes of the service the path names (`f=pjson`
    /// indented); a failure to write it is ArcGIS's "Unable to complete operation.", a missing
    /// service or layer its own error.
    private func respondDocument(
        _ request: Request, _ context: BasicRequestContext, _ make: (ServedService) throws -> JSONValue
    ) async -> Response {
        await respond(request, context) { input, service in
            ServiceResponse.json(
                try ServerRequestError.catching(.internalError, message: "Unable to complete operation.") { try make(service) }, pretty: input.pretty)
        }
    }

    /// The service the path names.
    private func service(_ context: BasicRequestContext) throws(ServerRequestError) -> ServedService {
        try server.catalog.service(context.parameters.get("service") ?? "")
    }

    /// The layer of `service` the path names.
    private func layer(_ context: BasicRequestContext, of service: ServedService) throws(ServerRequestError) -> ServedTable {
        try service.layer(context.parameters.get("layer") ?? "")
    }
}
