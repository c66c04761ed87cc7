import ArgumentParser
import Foundation
import GeoSieve
import SieveJSON

/// `geosieve convert SOURCE --output FILE [--format …] [--where SQL] [--geometry GEOM …] [--out-sr WKID]`:
/// reads any source, keeps the features the optional filter selects, and writes them in the
/// format the output's extension names.
struct ConvertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert features between GeoJSON, GeoJSONSeq, Esri JSON, CSV and GeoPackage, optionally filtered.",
        discussion: """
            SOURCE is a GeoJSON FeatureCollection, an Esri JSON FeatureSet, FILE.gpkg (its only \
            feature table) or FILE.gpkg:LAYER. The output format comes from the extension of \
            --output, as ogr2ogr chooses it: .gpkg GeoPackage, .geojson or .json GeoJSON, \
            .geojsonl, .geojsonseq or .geojsons GeoJSONSeq (.geojsons with RS separators), \
            .esrijson Esri JSON, .csv CSV; --format overrides it. Every field and the geometry \
            are written, features in ascending object-ID order, geometries in --out-sr when \
            given. A GeoPackage gets one feature table (named by --layer-name, default the \
            source's layer or file name) with an R-tree spatial index and the SRS row of its \
            spatial reference. The output is written to a temporary file next to it and renamed \
            into place when complete: a failed conversion leaves no partial file, and an \
            existing file is replaced only by a complete one. A symbolic link is followed to its \
            target (the link stays); a FIFO or device is written directly; --output - writes to \
            standard output (with --format, any but gpkg). --where, --geometry, --spatial-rel, \
            --relation and --in-sr select features as in 'geosieve query'. \
            Exit status: 1 when SOURCE or an argument file cannot be read or the output cannot be \
            written, 2 for any other error.

            Examples:
              geosieve convert countries.geojson --output countries.gpkg
              geosieve convert countries.gpkg --format csv --output -
              geosieve convert cities.geojson --where "name LIKE 'San%'" \\
                  --out-sr 3857 --output san-cities.geojson
            """
    )

    @Argument(help: "A GeoJSON or Esri JSON feature file, FILE.gpkg or FILE.gpkg:LAYER.")
    var source: String

    @Option(
        name: .customLong("where"), parsing: .unconditional,
        help: "The SQL where clause (1=1 selects every feature), or @FILE to read it from a file.")
    var whereClause: String = "1=1"

    @OptionGroup var spatialFilter: SpatialFilterOptions

    @OptionGroup(title: "Loading") var loading: LoadingOptions

    @Option(
        name: .customLong("out-sr"), parsing: .unconditional,
        help: "The WKID (EPSG or ESRI code) to write the geometries in (default: the source's).")
    var outSR: SpatialReferenceCode?

    @OptionGroup(title: "Output") var outputOptions: OutputOptions

    /// The format of `--format`, or else of the output's extension.
    func outputFormat() throws -> OutputOptions.Format {
        guard let output = outputOptions.output else { throw CommandFailure("convert needs --output FILE") }
        return try outputOptions.resolvedFormat(
            fallback: .failure(
                CommandFailure(
                    "--output: cannot tell the format from the name \(JSONKey.quoted(output)); use .gpkg, .geojson, .json, "
                        + ".geojsonl, .geojsonseq, .geojsons, .esrijson or .csv, or --format")))
    }

    func run() async throws {
        if let output = outputOptions.output, PostGISSource.isURL(output) {
            try await convertToPostGIS(output)
            return
        }
        let format = try outputFormat()
        _ = try outputOptions.writerOptions(for: format)
        var query = QueryParameters(whereClause: try argumentText(whereClause, argument: "--where"))
        try spatialFilter.apply(to: &query)
        if let outSR { query.outSpatialReference = try QueryCommand.spatialReference(outSR.wkid, option: "--out-sr") }
        let (table, sourceLayer) = try await CommandSource.loadTable(source, loading: loading, needs: needs(query))
        do {
            let result = try table.queryFeatures(query)
            try outputOptions.write(
                result, format: format, sourceLayer: sourceLayer, progress: loading.writeProgressLine(output: outputOptions.output))
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure("", error)
        }
    }

    /// What a feature service SOURCE must give for `query` (see `--mode`).
    private func needs(_ query: QueryParameters) -> ServiceSource.Needs {
        ServiceSource.Needs(command: "convert", whereClause: query.whereClause, extent: spatialFilter.readExtent(query), selects: true)
    }

    /// Writes the selected features as a new PostGIS table (replacing one of that name).
    private func convertToPostGIS(_ url: String) async throws {
        var query = QueryParameters(whereClause: try argumentText(whereClause, argument: "--where"))
        try spatialFilter.apply(to: &query)
        if let outSR { query.outSpatialReference = try QueryCommand.spatialReference(outSR.wkid, option: "--out-sr") }
        let (table, _) = try await CommandSource.loadTable(source, loading: loading, needs: needs(query))
        do {
            try await PostGISSource.write(try table.queryFeatures(query).makeTable(), to: url)
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure("", error)
        }
    }
}
