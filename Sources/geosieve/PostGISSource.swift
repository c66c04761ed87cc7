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
    /// and comment. With `primary` (`HOST[:PORT]`), `url` names a hot-standby replica, which
    /// answers the queries, and the same table on the primary takes the edits
    /// (``PostGISReplicatedSource``).
    static func openForServing(_ url: String, connections: Int, timeout: Double?, primary: String? = nil) async throws
        -> (source: any FeatureSource, name: String, description: String)
    {
        #if RemoteSources
        let options = try connectionOptions(url)
        let pool = PostGISPoolOptions(maximumConnections: connections, statementTimeout: timeout)
        let source = try await PostGISFeatureSource.open(options, pool: pool)
        opened.withLock { $0.append({ await source.close() }) }
        guard let primary else { return (source, options.table, source.table.description) }
        var primaryOptions = options
        let parts = primary.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts.count == 1 || Int(parts[1]).map({ (1...65_535).contains($0) }) == true else {
            throw CommandFailure("--primary: \(primary) is not HOST or HOST:PORT")
        }
        primaryOptions.host = String(parts[0])
        if parts.count == 2, let port = Int(parts[1]) { primaryOptions.port = port }
        let writer = try await PostGISFeatureSource.open(primaryOptions, pool: pool)
        opened.withLock { $0.append({ await writer.close() }) }
        let replicated = PostGISReplicatedSource(replica: source, primary: writer, replayTimeout: timeout ?? 30)
        return (replicated, options.table, source.table.description)
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
