import ArgumentParser
import Foundation
import GeoSieve

/// `geosieve`: the command-line face of the engine. Every subcommand prints one JSON document on
/// standard output; every failure prints one line, `error: …`, on standard error and exits
/// with the status of its ``ErrorCategory`` (``ErrorCategory/exitStatus``): 2 for what the
/// caller can correct (bad input, including bad arguments), 1 for a file, stream, service or
/// database that failed, 70 for an internal failure.
@main
struct GeoSieveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geosieve",
        abstract: "Spatial query and filter engine for feature files.",
        discussion: """
            geosieve answers what a map client asks of a feature layer, printing JSON \
            shaped like the ArcGIS REST responses:

              info      what a source holds: layers, fields, extent, reference, count
              query     features passing a where clause, object IDs and a spatial filter,
                        as features, ids, a count or an extent, in any reference
              identify  the features a tap on a map hits, nearest first
              count     the features of a map view, and those its display filter draws
              render    layers drawn as an SVG map with their renderers
              relate    every spatial relationship and the DE-9IM matrix of two geometries
              convert   features from one format to another, filtered as query does
              edit      adds, updates and deletes (an applyEdits request) applied to a file
              serve     files as an ArcGIS FeatureServer and an OGC API – Features service
              pan       map extents replayed over a feature service, per request mode

            Sources are GeoJSON, Esri JSON and GeoPackage (FILE.gpkg[:LAYER]) files, PostGIS \
            tables (postgresql://…?table=NAME) and feature services (…/FeatureServer/N, \
            OAPIF:URL#collection). \
            Geometries may be WKT, GeoJSON, Esri JSON, 'xmin,ymin,xmax,ymax' or 'x,y', and \
            any value @FILE. Errors print one line, 'error: …', and exit with status 2 (bad \
            input), 1 (a file, service or database that failed) or 70 (an internal failure). \
            See 'geosieve help <command>'.
            """,
        version: "0.1.0",
        subcommands: [
            InfoCommand.self, QueryCommand.self, IdentifyCommand.self, CountCommand.self, RenderCommand.self, RelateCommand.self,
            ConvertCommand.self, EditCommand.self, ServeCommand.self, PanCommand.self, TilesCommand.self,
        ]
    )

    /// Parses, runs (an asynchronous subcommand awaited, a synchronous one called), and turns
    /// every error into the exit status and one line on stderr.
    static func main() async {
        do {
            var command = try await asyncParseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            fail(error)
        }
    }

    /// Exit status for bad input (``ErrorCategory/invalidRequest``).
    static let inputErrorStatus: Int32 = ErrorCategory.invalidRequest.exitStatus

    /// Prints `error` as one line, `error: …`, and exits with its status (``exitStatus(for:)``);
    /// `--help` and `--version` print what they ask for and exit with 0.
    static func fail(_ error: any Error) -> Never {
        if exitCode(for: error) == .success {
            exit(withError: error)  // --help, --version
        }
        let text = (error as? CommandFailure)?.message ?? message(for: error)
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? "unknown error"
        FileHandle.standardError.write(Data("error: \(line)\n".utf8))
        Foundation.exit(exitStatus(for: error))
    }

    /// The exit status of a failure: its category's (``ErrorCategory/of(_:)``), so that an
    /// argument the parser refuses, like every error without a category, is bad input (2).
    static func exitStatus(for error: any Error) -> Int32 {
        ErrorCategory.of(error).exitStatus
    }
}

/// An error a subcommand reports as one line: its ``message``, and its ``category``, which
/// gives the exit status the process ends with.
struct CommandFailure: GeoSieveError {
    /// The line printed after `error: `.
    var message: String
    /// How the failure is reported (``ErrorCategory/exitStatus``).
    var category: ErrorCategory

    /// A failure saying `message`, by default bad input (exit status 2).
    init(_ message: String, category: ErrorCategory = .invalidRequest) {
        self.message = message
        self.category = category
    }

    /// `error` reported as a command failure, its message after `prefix` (`"FILE: "`) and its
    /// category kept, so that a subcommand adding context to an engine's error keeps its exit
    /// status.
    init(_ prefix: String = "", _ error: any Error) {
        self.init(prefix + ((error as? CommandFailure)?.message ?? "\(error)"), category: ErrorCategory.of(error))
    }

    /// A file that cannot be read or written: exit status 1.
    static func unreadable(_ message: String) -> CommandFailure {
        CommandFailure(message, category: .unreadable)
    }

    /// The exit status the failure ends the process with.
    var status: Int32 { category.exitStatus }
}
