import ArgumentParser
import GeoSieve

@main
struct GeoSieveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geosieve",
        abstract: "Spatial query and filter engine."
    )
}
