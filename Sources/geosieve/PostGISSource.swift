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

    /// Writes `table` as the PostGIS table `url` names, replacing one of that name.
    static func write(_ table: FeatureTable, to url: String) async throws {
        #if RemoteSources
        let options: PostGISConnectionOptions
        do {
            options = try PostGISConnectionOptions(url: url)
        } catch {
            throw CommandFailure("", error)
        }
        let source = try await PostGISFeatureSource.write(table, to: options, replace: true)
        try await source.close()
        #else
        throw CommandFailure("", SourceLocatorError.withoutRemoteSources(.postGIS(url: url)))
        #endif
    }
}
