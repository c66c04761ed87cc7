import ArgumentParser
import Foundation
import GeoSieve

/// `geosieve`: the command-line face of the engine. Every subcommand prints one JSON document on
/// standard output; every failure prints one line, `error: …`, on standard error and exits
/// with status 2 (bad input, including bad arguments) or 1 (a file that cannot be read).
@main
struct GeoSieveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geosieve",
        abstract: "Spatial query and filter engine for feature files.",
        discussion: """
            geosieve answers what a map client asks of a feature layer, printing JSON \
            shaped like the ArcGIS REST responses:

              query     features passing a where clause, object IDs and a spatial filter,
                        as features, ids, a count or an extent, in any reference
              identify  the features a tap on a map hits, nearest first
              relate    every spatial relationship and the DE-9IM matrix of two geometries
              convert   features from one format to another, filtered as query does
              edit      adds, updates and deletes (an applyEdits request) applied to a file
              serve     files as an ArcGIS FeatureServer and an OGC API – Features service

            Sources are GeoJSON, Esri JSON and GeoPackage (FILE.gpkg[:LAYER]) files. \
            Geometries may be WKT, GeoJSON, Esri JSON, 'xmin,ymin,xmax,ymax' or 'x,y', and \
            any value @FILE. Errors print one line, 'error: …', and exit with status 2 (bad \
            input) or 1 (a file that cannot be read). See 'geosieve help <command>'.
            """,
        version: "0.1.0",
        subcommands: [
            RelateCommand.self, QueryCommand.self, IdentifyCommand.self, CountCommand.self, RenderCommand.self, ConvertCommand.self,
            EditCommand.self, ServeCommand.self, PanCommand.self,
        ]
    )

    /// Parses, runs, and turns every error into the exit status and one line on stderr.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            fail(error)
        }
    }

    /// Exit status for bad input.
    static let inputErrorStatus: Int32 = 2

    static func fail(_ error: any Error) -> Never {
        if exitCode(for: error) == .success {
            exit(withError: error)  // --help, --version
        }
        let text: String
        var status = inputErrorStatus
        if let error = error as? CommandFailure {
            text = error.message
            status = error.status
        } else {
            text = message(for: error)
        }
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? "unknown error"
        FileHandle.standardError.write(Data("error: \(line)\n".utf8))
        Foundation.exit(status)
    }
}

/// An error a subcommand reports as one line, with the exit status it ends the process with.
struct CommandFailure: Error {
    var message: String
    var status: Int32

    /// Bad input: exit status 2.
    init(_ message: String) {
        self.message = message
        self.status = GeoSieveCommand.inputErrorStatus
    }

    /// A file that cannot be read: exit status 1.
    static func unreadable(_ message: String) -> CommandFailure {
        var failure = CommandFailure(message)
        failure.status = 1
        return failure
    }
}
