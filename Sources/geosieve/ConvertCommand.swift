#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import ArgumentParser
import Foundation
import GeoSieve

/// `geosieve convert SOURCE --output FILE [--format …] [--where SQL] [--geometry GEOM …]`:
/// reads any source, keeps the features the optional filter selects, and writes them in the
/// format the output's extension names.
struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert features between GeoJSON, Esri JSON and GeoPackage, optionally filtered.",
        discussion: """
            SOURCE is a GeoJSON FeatureCollection, an Esri JSON FeatureSet, FILE.gpkg (its only \
            feature table) or FILE.gpkg:LAYER. The output format comes from the extension of \
            --output, as ogr2ogr chooses it: .gpkg GeoPackage, .geojson or .json GeoJSON, \
            .esrijson Esri JSON; --format overrides it. Every field and the geometry are written, \
            features in ascending object-ID order. A GeoPackage gets one feature table (named by \
            --layer-name, default the source's layer or file name) with an R-tree spatial index. \
            The output is written to a temporary file next to it and renamed into place when \
            complete: a failed conversion leaves no partial file, and an existing file is \
            replaced only by a complete one. --where, --geometry, --spatial-rel, --relation and \
            --in-sr select features as in 'geosieve query'. \
            Exit status: 1 when SOURCE or an argument file cannot be read or the output cannot be \
            written, 2 for any other error.
            """
    )

    /// The output formats.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case gpkg, geojson, esrijson
    }

    @Argument(help: "A GeoJSON or Esri JSON feature file, FILE.gpkg or FILE.gpkg:LAYER.")
    var source: String

    @Option(name: .customLong("output"), parsing: .unconditional, help: "The file to write (.gpkg, .geojson, .json or .esrijson).")
    var output: String

    @Option(help: "The output format (default: from the extension of --output): gpkg, geojson or esrijson.")
    var format: Format?

    @Option(name: .customLong("layer-name"), parsing: .unconditional, help: "The GeoPackage layer name (default: the source's).")
    var layerName: String?

    @Option(
        name: .customLong("where"), parsing: .unconditional,
        help: "The SQL where clause (1=1 selects every feature), or @FILE to read it from a file.")
    var whereClause: String = "1=1"

    @OptionGroup var spatialFilter: SpatialFilterOptions

    @OptionGroup(title: "Loading") var loading: LoadingOptions

    /// The format of `--format`, or else of the output's extension.
    func outputFormat() throws -> Format {
        if let format { return format }
        let lower = output.lowercased()
        if lower.hasSuffix(".gpkg") { return .gpkg }
        if lower.hasSuffix(".geojson") || lower.hasSuffix(".json") { return .geojson }
        if lower.hasSuffix(".esrijson") { return .esrijson }
        throw CommandFailure(
            "--output: cannot tell the format from the name \(JSONKey.quoted(output)); use .gpkg, .geojson, .json or "
                + ".esrijson, or --format")
    }

    func run() throws {
        let format = try outputFormat()
        var query = QueryParameters(whereClause: try argumentText(whereClause, argument: "--where"))
        try spatialFilter.apply(to: &query)
        let table: FeatureTable
        let sourceLayer: String
        if let geoPackage = GeoPackageSource.parse(source) {
            (table, sourceLayer) = try GeoPackageSource.load(path: geoPackage.path, layer: geoPackage.layer, fields: nil)
        } else {
            table = try QueryCommand.loadTable(source, fields: nil, loading: loading)
            sourceLayer = URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent
        }
        do {
            switch format {
            case .gpkg:
                let rows = try table.queryObjectIDs(query).compactMap { table.row(forObjectID: $0) }
                try writeGeoPackage(table, rows: rows, layerName: layerName ?? sourceLayer)
            case .geojson, .esrijson:
                let result = try table.queryFeatures(query)
                try Self.writeAtomically(to: output) { write in
                    if format == .geojson {
                        try result.writeGeoJSON(chunkSize: 1 << 20, flush: write)
                    } else {
                        try result.writeEsriJSON(chunkSize: 1 << 20, flush: write)
                    }
                    try write([UInt8(ascii: "\n")])
                }
            }
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure("\(error)")
        }
    }

    /// Writes `rows` of `table` as a GeoPackage to ``output``.
    private func writeGeoPackage(_ table: FeatureTable, rows: [Int], layerName: String) throws(CommandFailure) {
        do throws(GeoPackageError) {
            // Spatial references other than 4326 and 3857 get PROJ's WKT 1 definition.
            let options = GeoPackageWriteOptions(
                layerName: layerName,
                spatialReferenceDefinition: { reference in
                    try? ProjectionContext.withCurrent { (context) throws(ProjectionError) in try context.wkt(of: reference) }
                })
            try GeoPackage.write(table, rows: rows, to: output, options: options)
        } catch {
            if error.kind == .writeFailed { throw CommandFailure.unreadable("cannot write \(output): \(error.message)") }
            throw CommandFailure("\(error)")
        }
    }

    /// Writes a file through `body` (handed a function that appends bytes) into a temporary file
    /// next to `path`, renamed over `path` when complete and removed on failure.
    static func writeAtomically(to path: String, _ body: (([UInt8]) throws -> Void) throws -> Void) throws {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = "\(folder).\(name).\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CommandFailure.unreadable("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        var closed = false
        do {
            try body { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw CommandFailure.unreadable("cannot write \(path): \(String(cString: strerror(errno)))")
                    }
                    offset += written
                }
            }
            guard fsync(descriptor) == 0 else {
                throw CommandFailure.unreadable("cannot write \(path): \(String(cString: strerror(errno)))")
            }
            closed = true
            guard close(descriptor) == 0, rename(temporary, path) == 0 else {
                throw CommandFailure.unreadable("cannot write \(path): \(String(cString: strerror(errno)))")
            }
        } catch {
            if !closed { close(descriptor) }
            unlink(temporary)
            throw error
        }
    }
}
