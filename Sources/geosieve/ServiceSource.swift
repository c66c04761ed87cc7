import Foundation
import GeoSieve
import SievePostGIS
import SieveService

/// Feature services as sources of the command line: an ArcGIS feature service layer
/// (`https://…/FeatureServer/0`) or an OGC API – Features collection (`OAPIF:https://…#id`,
/// as GDAL names them), read whole (snapshot: paged transparently) into a table, so that every
/// command works on them as on a file.
enum ServiceSource {
    /// Whether `source` names a feature service layer or an OGC API collection.
    static func isURL(_ source: String) -> Bool {
        if source.hasPrefix("OAPIF:") { return true }
        let lowered = source.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { return false }
        return lowered.contains("/featureserver/") || lowered.contains("/mapserver/")
    }

    /// The layer or collection `source` names, read whole, and its name. With `trace`, each
    /// request is printed on standard error.
    static func load(_ source: String, trace: Bool) throws -> (table: FeatureTable, layerName: String) {
        let client = makeClient(trace: trace)
        defer { try? waitForAsync { try await client.shutdown() } }
        return try run {
            let (service, name) = try await open(source, client: client)
            let table = try ServiceFeatureTable(service: service, mode: .snapshot)
            try await table.load()
            return (table.currentTable, name)
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
