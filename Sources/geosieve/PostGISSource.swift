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

    /// Runs `body` and waits for it: the command line is synchronous.
    static func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        try waitForAsync(body)
    }

    /// The table `url` names, read whole, and its name.
    static func load(_ url: String) throws -> (table: FeatureTable, layerName: String) {
        let options = try options(url)
        let table = try wait {
            let source = try await PostGISFeatureSource.open(options)
            do {
                let table = try await source.readTable()
                try await source.close()
                return table
            } catch {
                try? await source.close()
                throw error
            }
        }
        return (table, options.table)
    }

    /// Opens the table `url` names, runs `body` on it and closes it.
    static func with<T: Sendable>(_ url: String, _ body: @escaping @Sendable (PostGISFeatureSource) async throws -> T) throws -> T {
        let options = try options(url)
        return try wait {
            let source = try await PostGISFeatureSource.open(options)
            do {
                let value = try await body(source)
                try await source.close()
                return value
            } catch {
                try? await source.close()
                throw error
            }
        }
    }

    /// Writes `table` as the PostGIS table `url` names, replacing one of that name.
    static func write(_ table: FeatureTable, to url: String) throws {
        let options = try options(url)
        try wait {
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
