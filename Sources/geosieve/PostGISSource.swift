import Foundation
import GeoSieve
import SievePostGIS

/// PostGIS tables as sources and outputs of the command line: `postgresql://…?table=NAME`.
///
/// `query` pushes its where clause, CQL2 filter, spatial filter, order and paging down to the
/// database (``PostGISFeatureSource``); every other use reads the table into memory first (the
/// import), so each command works on a PostGIS table as on a file.
enum PostGISSource {
    /// Whether `source` names a PostGIS table.
    static func isURL(_ source: String) -> Bool { PostGISConnectionOptions.isURL(source) }

    /// The table `url` names, read whole, and its name.
    static func load(_ url: String) throws -> (table: FeatureTable, layerName: String) {
        (try with(url) { try await $0.readTable() }, try options(url).table)
    }

    /// Opens the table `url` names, runs `body` on it and closes it; the command line waits.
    static func with<T: Sendable>(_ url: String, _ body: @escaping @Sendable (PostGISFeatureSource) async throws -> T) throws -> T {
        let options = try options(url)
        return try waitForAsync { try await PostGISFeatureSource.using(options, body) }
    }

    /// Writes `table` as the PostGIS table `url` names, replacing one of that name.
    static func write(_ table: FeatureTable, to url: String) throws {
        let options = try options(url)
        try waitForAsync {
            let source = try await PostGISFeatureSource.write(table, to: options, replace: true)
            try await source.close()
        }
    }

    private static func options(_ url: String) throws -> PostGISConnectionOptions {
        do {
            return try PostGISConnectionOptions(url: url)
        } catch {
            throw CommandFailure("\(error)")
        }
    }
}
