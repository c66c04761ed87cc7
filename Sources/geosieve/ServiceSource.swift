import Foundation
import GeoSieve
import SieveClients

/// Feature services as sources of the command line: an ArcGIS feature service or map service
/// layer (`https://…/FeatureServer/0`, `…/MapServer/0`) or an OGC API – Features collection
/// (`OAPIF:https://…#id`, as GDAL names them), read into a table — whole by default (snapshot:
/// paged transparently), or what the command needs with `--mode` — so that every command works
/// on them as on a file.
enum ServiceSource {
    /// The help of `--trace-requests`, wherever a command reads a service.
    static let traceRequestsHelp =
        "Print each request to a feature service SOURCE on standard error: method, URL (without token), status, bytes and time."

    /// Whether `source` names a feature service layer or an OGC API collection.
    static func isURL(_ source: String) -> Bool { SourceLocator.isServiceURL(source) }

    /// What a command will ask of a service SOURCE: what `--mode` other than snapshot reads.
    struct Needs: Sendable {
        /// The command's name, for errors.
        var command: String
        /// The where clause its answer passes (a selection reads only what passes it).
        var whereClause: String?
        /// The extent it looks at (query's geometry, a map extent), in the layer's spatial
        /// reference; `nil` when it looks everywhere.
        var extent: Envelope?
        /// Whether `--mode selection` fits the command (it selects by a where clause).
        var selects = false
        /// The layer's definition expression, sent with every fetch.
        var definitionExpression: String?
        /// The only fields the command reads (`nil`: every field); a GeoParquet file reads only
        /// their columns.
        var columns: [String]?

        /// A command that needs every feature.
        static func everything(_ command: String) -> Needs { Needs(command: command) }
    }

    /// Sets the service options of `options` from `--mode`, `--buffer-factor` and what the
    /// command needs: every feature by default (paged), or with `--mode` the features of the
    /// command's extent (on demand) or what its where clause and geometry select (selection).
    static func configure(_ options: inout SourceOptions, loading: LoadingOptions?, needs: Needs) throws {
        let mode = loading?.mode ?? .snapshot
        let bufferFactor = loading?.bufferFactor ?? 2
        guard bufferFactor.isFinite, bufferFactor >= 1 else { throw CommandFailure("--buffer-factor must be a number of at least 1") }
        switch mode {
        case .snapshot: options.serviceMode = .snapshot
        case .onDemand:
            guard needs.extent != nil else {
                throw CommandFailure(
                    "--mode on-demand reads the features in the command's extent: give \(needs.command) "
                        + (needs.selects ? "--geometry (with a relationship other than disjoint, in the layer's spatial reference)" : "--map-extent"))
            }
            options.serviceMode = .onDemand(OnDemandOptions(bufferFactor: bufferFactor))
        case .selection:
            guard needs.selects else {
                throw CommandFailure("--mode selection reads what a where clause selects: it applies to query and convert, not \(needs.command)")
            }
            options.serviceMode = .selection
        }
        options.serviceScope = (needs.extent, needs.whereClause)
        options.serviceDefinitionExpression = needs.definitionExpression ?? ""
    }

    #if RemoteSources
    /// Applies an applyEdits `request` (JSON text) to the ArcGIS layer `source` names: the
    /// features it updates or deletes are read into a selection-mode service table, the edits
    /// applied to that cache (checked as any edit: fields, domains, capabilities), and those
    /// that applied sent with one applyEdits. The result is the local one with each added
    /// feature's object ID the service's.
    static func edit(
        _ source: String, request text: String, rollbackOnFailure: Bool?, user: String?, trace: Bool, editsPath: String
    ) async throws -> ApplyEditsResult {
        let client = makeClient(trace: trace)
        do {
            let result = try await edit(source, request: text, rollbackOnFailure: rollbackOnFailure, user: user, client: client, editsPath: editsPath)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            if error is CommandFailure { throw error }
            throw CommandFailure("", error)
        }
    }

    /// ``edit(_:request:rollbackOnFailure:user:trace:editsPath:)`` with `client`.
    private static func edit(
        _ source: String, request text: String, rollbackOnFailure: Bool?, user: String?, client: ServiceClient, editsPath: String
    ) async throws -> ApplyEditsResult {
        do {
            let (service, _) = try await CommandSource.locator(source).openService(client: client)
            guard case .arcGIS(let reader) = service else {
                throw CommandFailure("\(source): OGC API collections are read here, not edited; edit a feature service layer")
            }
            guard reader.info.serviceKind == .featureServer else {
                throw CommandFailure("\(source): a map service's layers are read-only; edit the layer of its feature service")
            }
            let table = try ServiceFeatureTable(service: service, mode: .selection)
            guard let cache = table.cache else { throw CommandFailure("\(source): the layer has no cache to edit") }
            let request: ApplyEditsRequest
            do {
                request = try ApplyEditsRequest(json: text, schema: cache.snapshot.schema)
            } catch {
                throw CommandFailure("--edits \(editsPath): \(error)")
            }
            // The features the edits name, read first, in batches of 500 object IDs (an update
            // naming none fails below, as on a file).
            let schema = cache.snapshot.schema
            let updated = request.updates.compactMap { edit in try? edit.namedObjectID(in: schema) }
            let named = Array(Set(updated + request.deletes)).sorted()
            var start = 0
            while start < named.count {
                let batch = named[start..<min(named.count, start + 500)].map(String.init).joined(separator: ",")
                try await table.populateFromService(whereClause: "\(reader.info.objectIdFieldName) IN (\(batch))")
                start += 500
            }
            var result = cache.applyEdits(request, rollbackOnFailure: rollbackOnFailure, user: user)
            guard cache.hasLocalEdits else { return result }
            let sent: SentEdits
            do {
                sent = try await table.applyEdits()
            } catch let error as ServiceError where error.kind == .serviceError {
                throw CommandFailure.unreadable("\(error)")
            }
            let serviceIDs = Dictionary(sent.added.map { ($0.local, $0.service) }, uniquingKeysWith: { a, _ in a })
            for i in result.addResults.indices where result.addResults[i].success {
                result.addResults[i].objectID = serviceIDs[result.addResults[i].objectID] ?? result.addResults[i].objectID
            }
            return result
        }
    }

    /// A client sending `GEOSIEVE_SERVICE_TOKEN` when set, printing each request with `trace`
    /// (and calling `count` for each).
    static func makeClient(trace: Bool, count: (@Sendable () -> Void)? = nil) -> ServiceClient {
        var configuration = ServiceClient.Configuration(token: ProcessInfo.processInfo.environment["GEOSIEVE_SERVICE_TOKEN"])
        configuration.trace = { line in
            count?()
            if trace { FileHandle.standardError.write(Data("request: \(line)\n".utf8)) }
        }
        return ServiceClient(configuration: configuration)
    }
    #else
    /// Without the RemoteSources trait, no service is edited.
    static func edit(
        _ source: String, request text: String, rollbackOnFailure: Bool?, user: String?, trace: Bool, editsPath: String
    ) async throws -> ApplyEditsResult {
        throw CommandFailure("", SourceLocatorError.withoutRemoteSources(try CommandSource.locator(source)))
    }
    #endif
}
