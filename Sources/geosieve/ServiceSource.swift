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
        var configuration = ServiceClient.Configuration(token: ProcessInfo.processInfo.environment["GEOSIEVE_SERVICE_TOKEN"])
        if trace {
            configuration.trace = { line in FileHandle.standardError.write(Data("request: \(line)\n".utf8)) }
        }
        let client = ServiceClient(configuration: configuration)
        let result = Result {
            try waitForAsync { () -> (FeatureTable, String) in
                let service: ServiceFeatureTable.Service
                let name: String
                if source.hasPrefix("OAPIF:") {
                    let rest = String(source.dropFirst("OAPIF:".count))
                    guard let hash = rest.lastIndex(of: "#"), !rest[rest.index(after: hash)...].isEmpty else {
                        throw CommandFailure("\(source): name the collection after '#': OAPIF:https://host/path#collection")
                    }
                    name = String(rest[rest.index(after: hash)...])
                    service = .ogc(try await OGCCollectionReader.open(String(rest[..<hash]), collection: name, client: client))
                } else {
                    let reader = try await ArcGISLayerReader.open(source, client: client)
                    name = reader.info.name.isEmpty ? "layer" : reader.info.name
                    service = .arcGIS(reader)
                }
                let table = try ServiceFeatureTable(service: service, mode: .snapshot)
                try await table.load()
                return (table.currentTable, name)
            }
        }
        try? waitForAsync { try await client.shutdown() }
        do {
            return try result.get()
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
