import ArgumentParser
import Foundation
import GeoSieve

/// `geosieve edit SOURCE --edits EDITS.json [--output FILE] [--no-rollback] [--user NAME]`:
/// applies an ArcGIS REST applyEdits request to a feature file and writes the edited table back,
/// or checks it against a feature service layer's features and sends it there.
struct EditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Apply adds, updates and deletes (an applyEdits request) to a feature file.",
        discussion: """
            EDITS.json has the ArcGIS REST applyEdits shape: {"adds":[…],"updates":[…],\
            "deletes":[…]}, adds and updates being Esri JSON features ({"attributes":{…},\
            "geometry":{…}}) or GeoJSON features, deletes object IDs (an array, or "1,2,3"). \
            Updates name their feature with the object-ID attribute (or a GeoJSON feature's id). \
            Standard output gets the REST response, {"addResults":[…],"updateResults":[…],\
            "deleteResults":[…]}, one result per edit: {"objectId":…,"globalId":…,"success":…} \
            with {"code":…,"description":…} when it failed. By default one failed edit fails them \
            all and nothing changes; with --no-rollback (or "rollbackOnFailure":false in the \
            request) the valid edits apply. Edits are saved only when some applied: into a \
            GeoPackage SOURCE in place, in one transaction (its other tables kept, the R-tree \
            updated); to --output, or over any other SOURCE, as a GeoPackage (.gpkg), Esri JSON \
            (.esrijson, or a SOURCE that is an Esri JSON FeatureSet) or GeoJSON file, written to a \
            temporary file renamed into place, in the file's own shape when the format is the \
            SOURCE's (ids where they were, no field added, members and number forms kept); \
            --output - writes the table to standard output and the response to standard error. \
            A feature service layer SOURCE \
            (https://…/FeatureServer/N) gets the edits through a service table: the features \
            updated or deleted are read, the edits checked against them and the layer's fields, \
            domains and capabilities, and those that pass sent with applyEdits (all or none); \
            the response gives added features the object IDs the service assigned. \
            Exit status: 0 when every edit succeeded, 1 when some failed (or a file cannot be \
            read or written), 2 for an unusable edits file (with where the problem is) or any \
            other bad input.

            Examples:
              geosieve edit places.geojson --edits edits.json
              geosieve edit places.gpkg:cities --edits edits.json --no-rollback
            where edits.json is an applyEdits request, e.g.
              {"adds":[{"attributes":{"name":"Lyon"},
                        "geometry":{"x":4.84,"y":45.76}}],
               "deletes":[12]}
            """
    )

    @Argument(help: "A GeoJSON or Esri JSON feature file, FILE.gpkg, FILE.gpkg:LAYER or a feature service layer URL.")
    var source: String

    @Option(name: .customLong("edits"), parsing: .unconditional, help: "The applyEdits request (JSON).")
    var edits: String

    @Option(
        name: .customLong("output"), parsing: .unconditional,
        help: "Where to write the edited table (default: over SOURCE; '-': standard output, the response then on standard error).")
    var output: String?

    @Flag(name: .customLong("no-rollback"), help: "Apply the valid edits even when some fail.")
    var noRollback = false

    @Option(name: .customLong("user"), parsing: .unconditional, help: "The editing user (editor tracking and ownership).")
    var user: String?

    @Flag(
        name: .customLong("trace-requests"),
        help: ArgumentHelp(ServiceSource.traceRequestsHelp))
    var traceRequests = false

    func run() async throws {
        let text = try InputFiles.text(
            InputFiles.contents(of: edits, limit: InputFiles.argumentFileLimit, option: "--edits"), path: edits, option: "--edits")
        if ServiceSource.isURL(source) {
            guard output == nil else { throw CommandFailure("--output does not apply to a feature service: the edits are sent to it") }
            let result = try await ServiceSource.edit(
                source, request: text, rollbackOnFailure: noRollback ? false : nil, user: user, trace: traceRequests, editsPath: edits)
            try report(result, applied: true)
            return
        }
        let (table, layerName) = try await CommandSource.loadTable(source, keepingFileShape: true)
        let request: ApplyEditsRequest
        do {
            request = try ApplyEditsRequest(json: text, schema: table.schema)
        } catch {
            throw CommandFailure("--edits \(edits): \(error)")
        }
        let editable = try EditableFeatureTable(table)
        let result = editable.applyEdits(request, rollbackOnFailure: noRollback ? false : nil, user: user)
        let applied = result.addResults.contains(where: \.success) || result.updateResults.contains(where: \.success)
            || result.deleteResults.contains(where: \.success)
        if applied {
            if output == nil, let gpkg = CommandSource.geoPackage(source) {
                // A GeoPackage is saved in place, in one transaction: its other tables stay.
                let (written, deleted) = editable.localEditObjectIDs
                do throws(GeoPackageError) {
                    try GeoPackage.save(editable.snapshot, writing: written, deleting: deleted, to: gpkg.path, layer: layerName)
                } catch {
                    throw CommandFailure.unreadable("\(error)")
                }
            } else {
                try Self.write(editable.snapshot, source: source, output: output, layerName: layerName)
            }
        }
        try report(result, applied: applied)
    }

    /// Prints the REST response (on standard error when the table went to standard output);
    /// fails (exit 1) when some edit failed.
    private func report(_ result: ApplyEditsResult, applied: Bool) throws {
        let response = Array((result.json + "\n").utf8)
        if output == "-" {
            FileHandle.standardError.write(Data(response))
        } else {
            try OutputFile.write(to: nil) { sink in try sink(response) }
        }
        if !result.allSucceeded {
            let all = result.addResults + result.updateResults + result.deleteResults
            let failed = all.filter { !$0.success }.count
            let anyApplied = applied && all.contains(where: \.success)
            throw CommandFailure.unreadable(
                "\(failed) of \(all.count) edits failed" + (anyApplied ? "; the others were applied" : "; nothing was changed"))
        }
    }

    /// Writes the edited table to `output` (or over `source`), in the format its name (or the
    /// source's content) says; `-` is standard output, in the source's format.
    ///
    /// A table loaded from a GeoJSON FeatureCollection or an Esri JSON FeatureSet written in
    /// the same format keeps the file's shape (``FeatureWriterOptions/keepsFileRepresentation``):
    /// its root members, feature order and member order, ids where they were, no field the
    /// loader added, and whole coordinates with or without a fraction as the source file wrote
    /// them.
    /// Refuses to save edits into a source they cannot be saved into as it is: a CSV file (its
    /// columns typed by their values) or a zip archive that may hold several shapefiles (a `.shz`
    /// is one shapefile and is rewritten). `option` names what asks.
    static func checkSavable(_ source: String, option: String) throws {
        let lower = source.lowercased()
        if lower.hasSuffix(".csv") || lower.hasSuffix(".tsv") {
            throw CommandFailure("\(option): a CSV source cannot be saved into; write the edits to another format with --output")
        }
        if lower.hasSuffix(".zip") || (Shapefile.source(source)?.layer != nil && !FileManager.default.fileExists(atPath: source)) {
            throw CommandFailure("\(option): edits are not saved into a zip archive of shapefiles; write them with --output FILE.shp or FILE.shz")
        }
    }

    static func write(_ table: FeatureTable, source: String, output: String?, layerName: String) throws {
        if output == nil { try checkSavable(source, option: "edit") }
        let sourcePath = CommandSource.geoPackage(source)?.path ?? source
        let target = output ?? sourcePath
        guard output != nil || target != "-" else {
            throw CommandFailure("edit cannot write the table back to standard input; use --output (--output - for standard output)")
        }
        // The source file's first bytes, read once if needed.
        var sourceHead: [UInt8]?
        func head() -> [UInt8] {
            if let sourceHead { return sourceHead }
            let read = CommandSource.geoPackage(source) == nil ? Self.head(of: sourcePath) : []
            sourceHead = read
            return read
        }
        let format: OutputOptions.Format
        if let named = OutputOptions.Format.of(path: target), named != .geojson {
            format = named
        } else if target == sourcePath || target == "-", isEsriJSON(head: head()) {
            format = .esrijson
        } else {
            format = .geojson
        }
        guard format != .csv, format != .geojsonseq || table.spatialReference.latestWkid == 4326 else {
            throw CommandFailure("edit writes GeoPackage, GeoJSON or Esri JSON, not \(format.rawValue) (\(target))")
        }
        // Written in the format it was loaded from: in the file's own shape.
        let keepsShape = format.textFormat.map { table.keepsFileRepresentation(in: $0) } ?? false
        do {
            let result = keepsShape ? table.savedFeatures() : try table.queryFeatures(QueryParameters())
            var options = FeatureWriterOptions()
            options.keepsFileRepresentation = keepsShape
            options.wholeCoordinatesWithFraction = keepsShape && CoordinateFormat.wholeCoordinatesHaveFraction(in: head()) == true
            try OutputOptions.write(result, format: format, to: target, layerName: layerName, options: options)
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure("", error)
        }
    }

    /// Whether the first 64 KiB of a JSON file, `head`, are an Esri JSON FeatureSet's: they name
    /// `"attributes"` or `"geometryType"` and not a GeoJSON `"FeatureCollection"`.
    static func isEsriJSON(head bytes: [UInt8]) -> Bool {
        let head = String(decoding: bytes, as: UTF8.self)
        if head.contains("\"FeatureCollection\"") { return false }
        return head.contains("\"geometryType\"") || head.contains("\"attributes\"")
    }

    /// The first 64 KiB of the file at `path` (none when it cannot be read).
    static func head(of path: String) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? handle.close() }
        return [UInt8](handle.readData(ofLength: 1 << 16))
    }
}
