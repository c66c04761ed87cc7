import Foundation
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveGEOS
import SieveClients
#if RemoteSources
import SievePostGIS
#endif
import Testing

@testable import geosieve
import SieveTestSupport

/// `geosieve`'s exit status is its error's category's (`ErrorCategory.exitStatus`): 2 for what
/// the caller can correct, 1 for a file, service or database that failed, 70 for an internal
/// failure. One real failure per category where the command line can produce one; the mapping
/// itself for the categories it cannot (a query does not time out on the command line, and an
/// internal failure is a bug).
@Suite(.tags(.cli)) struct ErrorExitStatusTests {
    static let countries = "Tests/Fixtures/naturalearth_lowres.geojson"

    /// Runs geosieve expecting a failure with the exit status of `category`; the one line it
    /// prints on standard error.
    static func failure(_ arguments: [String], _ category: ErrorCategory) throws -> String {
        let result = try CLI.run(arguments)
        #expect(result.status == category.exitStatus, "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty, "\(arguments)")
        #expect(result.stderr.hasPrefix("error: "), "\(arguments): \(result.stderr)")
        #expect(result.stderr.filter { $0 == "\n" }.count == 1, "one line: \(result.stderr)")
        return result.stderr
    }

    /// A new temporary folder.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("geosieve-exit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func invalidRequestExitsWith2() throws {
        let line = try Self.failure(["query", Self.countries, "--where", "popu > 1"], .invalidRequest)
        #expect(line.contains("unknown field \"popu\""))
        #expect(ErrorCategory.invalidRequest.exitStatus == 2)
        // Arguments the parser refuses are bad input too.
        #expect(try CLI.run(["query", Self.countries, "--no-such-option"]).status == 2)
    }

    @Test func notFoundExitsWith2() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cities.gpkg").path
        #expect(try CLI.run(["convert", "Tests/Fixtures/naturalearth_cities.geojson", "--format", "gpkg", "--output", file]).status == 0)
        let line = try Self.failure(["query", file + ":nolayer", "--return", "count"], .notFound)
        #expect(line.contains("layer not found"))
        #expect(ErrorCategory.notFound.exitStatus == 2)
    }

    @Test func unsupportedExitsWith2() throws {
        let line = try Self.failure(["query", Self.countries, "--out-sr", "5703", "--return", "extent"], .unsupported)
        #expect(line.contains("unsupported spatial reference"))
        #expect(ErrorCategory.unsupported.exitStatus == 2)
    }

    @Test func tooLargeExitsWith2() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let features = (0..<2_100).map { #"{"type":"Feature","geometry":null,"properties":{"p\#($0)":\#($0)}}"# }
        let file = folder.appendingPathComponent("wide.geojson")
        try Data((#"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}").utf8).write(to: file)
        let line = try Self.failure(["query", file.path, "--return", "count"], .tooLarge)
        #expect(line.contains("too many fields"))
        #expect(ErrorCategory.tooLarge.exitStatus == 2)
    }

    @Test func conflictExitsWith2() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("twice.json")
        try Data(
            #"{"objectIdFieldName":"OBJECTID","fields":[{"name":"OBJECTID","type":"esriFieldTypeOID"}],"features":[{"attributes":{"OBJECTID":1}},{"attributes":{"OBJECTID":1}}]}"#
                .utf8
        ).write(to: file)
        let line = try Self.failure(["query", file.path, "--return", "count"], .conflict)
        #expect(line.contains("duplicate object ID"))
        #expect(ErrorCategory.conflict.exitStatus == 2)
    }

    @Test func unauthorizedExitsWith2() throws {
        let server = try ServeCLITests.Server(["Tests/Fixtures/nybb.geojson:nyc", "--token", "s3cret", "--token-required-for-read"])
        defer { _ = server.stop() }
        let line = try Self.failure(["query", server.base + "/arcgis/rest/services/nyc/FeatureServer/0", "--return", "count"], .unauthorized)
        #expect(line.contains("499"))
        #expect(ErrorCategory.unauthorized.exitStatus == 2)
    }

    @Test func forbiddenExitsWith2() throws {
        let line = try Self.failure(["serve", "-", "--allow-edits", "--port", "0"], .forbidden)
        #expect(line.contains("standard input cannot be saved"))
        #expect(ErrorCategory.forbidden.exitStatus == 2)
    }

    /// `--time-field` naming what no table has, or a field that is not a date, stops the server
    /// before it listens.
    @Test func timeFieldsNoTableHasAreRefused() throws {
        let cities = "Tests/Fixtures/naturalearth_cities.geojson"
        #expect(try Self.failure(["serve", cities, "--time-field", "nope", "--port", "0"], .invalidRequest).contains("nope"))
        #expect(try Self.failure(["serve", cities, "--time-field", "name", "--port", "0"], .invalidRequest).contains("not a date"))
        #expect(try Self.failure(["serve", cities, "--time-field", "a,b,c", "--port", "0"], .invalidRequest).contains("START,END"))
    }

    @Test func unreadableExitsWith1() throws {
        let line = try Self.failure(["query", "Tests/Fixtures/no-such-file.geojson"], .unreadable)
        #expect(line.contains("cannot read"))
        #expect(ErrorCategory.unreadable.exitStatus == 1)
    }

    @Test func unavailableExitsWith1() throws {
        #expect(ErrorCategory.unavailable.exitStatus == 1)
        #if RemoteSources
        #expect(GeoSieveCommand.exitStatus(for: PostGISError("cannot connect to PostgreSQL at 127.0.0.1:1")) == 1)
        #expect(GeoSieveCommand.exitStatus(for: ServiceError(.network, "connection refused", url: "http://127.0.0.1:1")) == 1)
        // A database that refuses the connection: the subcommands keep the engine error's
        // category when they add context (`CommandFailure(prefix, error)`).
        _ = try Self.failure(["serve", "postgresql://nobody@127.0.0.1:1/geosieve?table=none", "--port", "0"], .unavailable)
        #endif
    }

    @Test func timedOutExitsWith1() {
        #expect(ErrorCategory.timedOut.exitStatus == 1)
        #expect(GeoSieveCommand.exitStatus(for: FeatureTableError(.cancelled, "the query was cancelled before it finished")) == 1)
        #expect(GeoSieveCommand.exitStatus(for: CancellationError()) == 1)
    }

    @Test func internalExitsWith70() {
        #expect(ErrorCategory.internal.exitStatus == 70)
        #expect(GeoSieveCommand.exitStatus(for: GEOSError(.initialization, "GEOS_init_r failed")) == 70)
    }

    @Test func commandFailuresAreErrorsOfTheModel() {
        let bad = CommandFailure("--limit must be positive")
        #expect(bad.category == .invalidRequest)
        #expect(bad.status == 2)
        #expect("\(bad)" == "--limit must be positive")
        #expect(CommandFailure.unreadable("cannot read x").status == 1)
        // Context added to an engine's error keeps its category.
        #if RemoteSources
        let wrapped = CommandFailure("SOURCE: ", PostGISError("cannot connect"))
        #expect(wrapped.message == "SOURCE: cannot connect")
        #expect(wrapped.category == .unavailable)
        #endif
        #expect(CommandFailure("x: ", CommandFailure.unreadable("cannot read y")).message == "x: cannot read y")
        #expect(CommandFailure("x: ", CommandFailure.unreadable("cannot read y")).status == 1)
    }
}
