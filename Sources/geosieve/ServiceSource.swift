import Foundation
import GeoSieve
import SievePostGIS
import SieveService

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
    static func isURL(_ source: String) -> Bool {
        if source.hasPrefix("OAPIF:") { return true }
        let lowered = source.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { return false }
        return lowered.contains("/featureserver/") || lowered.contains("/mapserver/")
    }

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

        /// A command that needs every feature.
        static func everything(_ command: String) -> Needs { Needs(command: command) }
    }

    /// The layer or collection `source` names, read as `loading`'s `--mode` says (every feature
    /// by default, paged), and its name. With `--trace-requests`, each request is printed on
    /// standard error.
    static func load(_ source: String, loading: LoadingOptions?, needs: Needs) throws -> (table: FeatureTable, layerName: String) {
        let mode = loading?.mode ?? .snapshot
        let bufferFactor = loading?.bufferFactor ?? 2
        guard bufferFactor.isFinite, bufferFactor >= 1 else { throw CommandFailure("--buffer-factor must be a number of at least 1") }
        switch mode {
        case .snapshot: break
        case .onDemand:
            guard needs.extent != nil else {
                throw CommandFailure(
                    "--mode on-demand reads the features in the command's extent: give \(needs.command) "
                        + (needs.selects ? "--geometry (with a relationship other than disjoint, in the layer's spatial reference)" : "--map-extent"))
            }
        case .selection:
            guard needs.selects else {
                throw CommandFailure("--mode selection reads what a where clause selects: it applies to query and convert, not \(needs.command)")
            }
        }
        let client = makeClient(trace: loading?.traceRequests ?? false)
        defer { try? waitForAsync { try await client.shutdown() } }
        return try run {
            let (service, name) = try await open(source, client: client)
            let requestMode: FeatureRequestMode =
                switch mode {
                case .snapshot: .snapshot
                case .onDemand: .onDemand(OnDemandOptions(bufferFactor: bufferFactor))
                case .selection: .selection
                }
            let table = try ServiceFeatureTable(service: service, mode: requestMode, definitionExpression: needs.definitionExpression ?? "")
            try await table.load()
            switch mode {
            case .snapshot: break
            case .onDemand: if let extent = needs.extent { try await table.display(extent) }
            case .selection: _ = try await table.selectFeatures(whereClause: needs.whereClause ?? "1=1", envelope: needs.extent)
            }
            return (table.currentTable, name)
        }
    }

    /// Applies an applyEdits `request` (JSON text) to the ArcGIS layer `source` names: the
    /// features it updates or deletes are read into a selection-mode service table, the edits
    /// applied to that cache (checked as any edit: fields, domains, capabilities), and those
    /// that applied sent with one applyEdits. The result is the local one with each added
    /// feature's object ID the service's.
    static func edit(
        _ source: String, request text: String, rollbackOnFailure: Bool?, user: String?, trace: Bool, editsPath: String
    ) throws -> ApplyEditsResult {
        let client = makeClient(trace: trace)
        defer { try? waitForAsync { try await client.shutdown() } }
        return try run {
            let (service, _) = try await open(source, client: client)
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

    /// The service `source` names, its metadata read, and its name.
    static func open(_ source: String, client: ServiceClient) async throws -> (ServiceFeatureTable.Service, String) {
        if source.hasPrefix("OAPIF:") {
            let rest = String(source.dropFirst("OAPIF:".count))
            guard let hash = rest.lastIndex(of: "#"), !rest[rest.index(after: hash)...].isEmpty else {
                throw CommandFailure("\(source): name the collection after '#': OAPIF:https://host/path#collection")
            }
            let name = String(rest[rest.index(after: hash)...])
            return (.ogc(try await OGCCollectionReader.open(String(rest[..<hash]), collection: name, client: client)), name)
        }
        let reader = try await ArcGISLayerReader.open(source, client: client)
        return (.arcGIS(reader), reader.info.name.isEmpty ? "layer" : reader.info.name)
    }

    /// `body`'s value, the command line waiting for it; its errors as command failures.
    static func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        do {
            return try waitForAsync(body)
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
