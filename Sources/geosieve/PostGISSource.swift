import Foundation
import GeoSieve
import SieveClients
#if RemoteSources
import SievePostGIS
#endif

/// PostGIS tables as outputs of the command line: `postgresql://…?table=NAME`. (As sources they
/// open through ``CommandSource``: `query` runs in the database, every other command reads the
/// table into memory.)
enum PostGISSource {
    /// Whether `source` names a PostGIS table.
    static func isURL(_ source: String) -> Bool { SourceLocator.isPostGISURL(source) }

    /// Opens the PostGIS table `url` names to be served where it lives: a pool of at most
    /// `connections` connections, statements bound by `timeout` seconds; with the table's name
    /// and comment.
    static func openForServing(_ url: String, connections: Int, timeout: Double?) async throws
        -> (source: any FeatureSource, name: String, description: String)
    {
        #if RemoteSources
        let options = try connectionOptions(url)
        let source = try await PostGISFeatureSource.open(
            options, pool: PostGISPoolOptions(maximumConnections: connections, statementTimeout: timeout))
        opened.withLock { $0.append({ await source.close() }) }
        return (source, options.table, source.table.description)
        #else
        throw CommandFailure("", SourceLocatorError.withoutRemoteSources(.postGIS(url: url)))
        #endif
    }

    /// What closes each source ``openForServing(_:connections:timeout:)`` opened since the last
    /// ``takeServed()``.
    private static let opened = Locked([@Sendable () async -> Void]())

    /// What closes the pools of the sources opened for serving so far, which are then no longer
    /// counted: a reloaded configuration opens its sources anew, and closes the former ones
    /// once the requests in flight on them are done (or the new ones, when it fails).
    static func takeServed() -> [@Sendable () async -> Void] {
        opened.withLock { closers in
            defer { closers.removeAll() }
            return closers
        }
    }

    /// Counts `closers` again as the served sources' (a reload that failed keeps the former
    /// sources).
    static func restoreServed(_ closers: [@Sendable () async -> Void]) {
        opened.withLock { $0.append(contentsOf: closers) }
    }

    /// Writes `table` as the PostGIS table `url` names, replacing one of that name.
    static func write(_ table: FeatureTable, to url: String) async throws {
        #if RemoteSources
        let options = try connectionOptions(url)
        let source = try await PostGISFeatureSource.write(table, to: options, replace: true)
        await source.close()
        #else
        throw CommandFailure("", SourceLocatorError.withoutRemoteSources(.postGIS(url: url)))
        #endif
    }

    #if RemoteSources
    /// The connection options of `url`, its errors as the command's.
    private static func connectionOptions(_ url: String) throws -> PostGISConnectionOptions {
        do {
            return try PostGISConnectionOptions(url: url)
        } catch {
            throw CommandFailure("", error)
        }
    }
    #endif
}
