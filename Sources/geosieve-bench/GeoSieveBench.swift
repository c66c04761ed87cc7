import ArgumentParser

/// `geosieve-bench`: seeded workloads generated and measured in one process, each result printed
/// as one JSON line on standard output (notes go to standard error).
///
/// Build it in release mode, or the numbers mean nothing:
/// `swift build -c release --product geosieve-bench`.
@main
struct GeoSieveBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geosieve-bench",
        abstract: "Benchmark GeoSieve on generated workloads; one JSON line per measurement.",
        discussion: "Build with `swift build -c release --product geosieve-bench`.",
        subcommands: [
            WhereCommand.self, SpatialCommand.self, LoadCommand.self, GeoPackageCommand.self, ShapefileCommand.self, FlatGeobufCommand.self, GeoParquetCommand.self, EditCommand.self, StatsCommand.self, LayerCommand.self, CQL2Command.self, JSONNumbersCommand.self, PBFCommand.self, TilesCommand.self,
        ] + remoteCommands
    )

    /// The commands that need the RemoteSources trait (PostGIS).
    #if RemoteSources
    static let remoteCommands: [any ParsableCommand.Type] = [PostGISCommand.self]
    #else
    static let remoteCommands: [any ParsableCommand.Type] = []
    #endif
}
