import Foundation
import GeoSieve
import SieveClients
import SieveJSON

/// Every SOURCE of the command line, opened through the library's one door, ``SourceLocator``:
/// files (GeoJSON, GeoJSONSeq, Esri JSON, standard input), GeoPackage layers, PostGIS tables and
/// feature services. The command line adds what is its own: the options' names in errors, exit
/// status 1 for what cannot be read, progress lines, and notes on what a load left out.
enum CommandSource {
    /// The locator `argument` names.
    static func locator(_ argument: String) throws -> SourceLocator {
        do {
            return try SourceLocator(argument)
        } catch {
            throw CommandFailure(error.message)
        }
    }

    /// The path and layer of `argument` when it names a GeoPackage layer, else `nil`.
    static func geoPackage(_ argument: String) -> (path: String, layer: String?)? {
        guard case .geoPackage(let path, let layer) = try? SourceLocator(argument) else { return nil }
        return (path, layer)
    }

    /// Opens SOURCE `path`, runs `body` on it and closes it. A file, a GeoPackage layer and a
    /// service are read into memory (a service as `loading`'s `--mode` and `needs` say); a
    /// PostGIS table is queried where it lives unless `inMemory`. `fields` is `--schema`'s, for
    /// JSON files only; with `keepingFileShape` a JSON table remembers its file's shape, for
    /// saving edits into it.
    static func withSource<T: Sendable>(
        _ path: String, fields: [Field]? = nil, loading: LoadingOptions? = nil, needs: ServiceSource.Needs = .everything("this command"),
        keepingFileShape: Bool = false, inMemory: Bool = true, _ body: (OpenedSource) async throws -> T
    ) async throws -> T {
        let locator = try locator(path)
        var options = SourceOptions()
        options.schema = fields
        options.readsDatabaseIntoMemory = inMemory
        var progress: ProgressLine?
        defer { progress?.finish() }
        #if RemoteSources
        var client: ServiceClient?
        #else
        let client: NoClient? = nil
        #endif
        switch locator {
        case .featureService, .ogcCollection:
            // The layer's fields come from the service.
            guard fields == nil else { throw CommandFailure("--schema does not apply to a feature service: its fields come from the service") }
            try ServiceSource.configure(&options, loading: loading, needs: needs)
            #if RemoteSources
            client = ServiceSource.makeClient(trace: loading?.traceRequests ?? false)
            options.client = client
            #endif
        case .postGIS:
            try checkSnapshotMode(loading)
            guard fields == nil else { throw CommandFailure("--schema does not apply to a PostGIS table: its fields come from the catalogue") }
        case .geoPackage(let file, _):
            try checkSnapshotMode(loading)
            if fields != nil {
                throw CommandFailure("--schema applies to GeoJSON and Esri JSON sources, not to a GeoPackage (its columns are typed)")
            }
            try InputFiles.checkReadable(file)
            let line = loading?.progressLine(verb: "loading \(file)")
            progress = line
            if let line {
                options.geoPackageProgress = { @Sendable (read: GeoPackageReadProgress) in line.update(read) }
            }
        case .shapefile(let file, _):
            try checkSnapshotMode(loading)
            if fields != nil {
                throw CommandFailure("--schema applies to GeoJSON and Esri JSON sources, not to a shapefile (its fields are typed)")
            }
            try InputFiles.checkReadable(file)
            options.shapefileEncoding = loading?.encoding
        case .flatGeobuf(let file):
            try checkSnapshotMode(loading)
            if fields != nil {
                throw CommandFailure("--schema applies to GeoJSON and Esri JSON sources, not to a FlatGeobuf file (its columns are typed)")
            }
            try InputFiles.checkReadable(file)
            // Only the features the command's extent meets, through the file's index.
            options.readExtent = needs.extent
        case .geoParquet(let file):
            try checkSnapshotMode(loading)
            if fields != nil {
                throw CommandFailure("--schema applies to GeoJSON and Esri JSON sources, not to a Parquet file (its columns are typed)")
            }
            try InputFiles.checkReadable(file)
            // Only the row groups whose statistics leave room for the command's extent and
            // where clause are read; the command filters their rows as from any source.
            options.readExtent = needs.extent
            options.parquet.columns = needs.columns
            let clauses = [needs.whereClause, needs.definitionExpression].compactMap { $0 }.filter { !$0.isEmpty }
            if !clauses.isEmpty {
                options.parquet.rowGroupFilter = try? ParquetStatisticsFilter(whereClause: clauses.map { "(\($0))" }.joined(separator: " AND "))
            }
        case .csvFile(let file):
            try checkSnapshotMode(loading)
            if fields != nil {
                throw CommandFailure("--schema applies to GeoJSON and Esri JSON sources, not to a CSV file (its columns are typed by their values)")
            }
            try InputFiles.checkReadable(file)
            if let loading { options.csv = try loading.csvOptions() }
        case .jsonFile(let file):
            try checkSnapshotMode(loading)
            progress = loading?.progressLine(verb: "loading \(file == "-" ? "standard input" : file)")
            options.load = try loading?.options(progress: progress) ?? LoadOptions()
            options.streamLimit = InputFiles.streamLimit
        }
        options.load.keepsFileRepresentation = keepingFileShape
        do {
            let value = try await locator.withOpened(options) { opened in
                progress?.finish()
                report(opened, locator: locator)
                do {
                    return try await body(opened)
                } catch {
                    throw BodyFailure(error: error)
                }
            }
            try await client?.shutdown()
            return value
        } catch let failure as BodyFailure {
            try? await client?.shutdown()
            throw failure.error
        } catch {
            try? await client?.shutdown()
            throw failure(error, locator: locator)
        }
    }

    #if !RemoteSources
    /// Stands for the HTTP client of service sources in a build without them.
    private struct NoClient {
        func shutdown() async throws {}
    }
    #endif

    /// An error of the work done on an opened source, told apart from the opening's own.
    private struct BodyFailure: Error {
        let error: any Error
    }

    /// The table SOURCE `path` holds, read into memory, and its layer name.
    static func loadTable(
        _ path: String, fields: [Field]? = nil, loading: LoadingOptions? = nil, needs: ServiceSource.Needs = .everything("this command"),
        keepingFileShape: Bool = false
    ) async throws -> (table: FeatureTable, layerName: String) {
        try await withSource(path, fields: fields, loading: loading, needs: needs, keepingFileShape: keepingFileShape) { opened in
            guard let table = opened.source.inMemoryTable else { throw CommandFailure("\(path): the source was not read into memory") }
            return (table, opened.name)
        }
    }

    /// `--mode` other than snapshot is for feature services.
    private static func checkSnapshotMode(_ loading: LoadingOptions?) throws {
        if let loading, loading.mode != .snapshot {
            throw CommandFailure("--mode \(loading.mode.rawValue) applies to a feature service SOURCE (…/FeatureServer/N, OAPIF:URL#collection)")
        }
    }

    /// Notes on standard error about what opening left out: skipped features, unread columns.
    private static func report(_ opened: OpenedSource, locator: SourceLocator) {
        switch locator {
        case .jsonFile(let path):
            if let report = opened.loadReport { LoadingOptions.printSkipped(report, source: path == "-" ? "standard input" : path) }
        case .geoPackage(let path, _), .shapefile(let path, _), .flatGeobuf(let path), .geoParquet(let path):
            for note in opened.notes {
                FileHandle.standardError.write(Data("note: \(JSONKey.abbreviated(path)): \(note)\n".utf8))
            }
            for skipped in opened.skippedFields {
                let type = skipped.declaredType.isEmpty ? "no declared type" : skipped.declaredType
                FileHandle.standardError.write(
                    Data(
                        "note: \(JSONKey.abbreviated(path)): layer \(JSONKey.quoted(opened.name)): column \(JSONKey.quoted(skipped.name)) (\(JSONKey.abbreviated(type))) is not read\n"
                            .utf8))
            }
        default: break
        }
    }

    /// `error` as the command line reports it: what cannot be read with status 1 and its own
    /// message; bad file content prefixed with the file's name.
    private static func failure(_ error: any Error, locator: SourceLocator) -> any Error {
        if error is CommandFailure { return error }
        switch locator {
        case .jsonFile(let path):
            if let error = error as? FeatureTableError {
                if error.kind == .unreadableFile { return CommandFailure.unreadable(error.message) }
                return CommandFailure("\(path == "-" ? "standard input" : path): ", error)
            }
        case .geoPackage(let path, _):
            if let error = error as? GeoPackageError, error.kind == .cannotOpen {
                return CommandFailure.unreadable("cannot read \(path): \(error.message)")
            }
        case .shapefile(let path, _), .csvFile(let path), .flatGeobuf(let path), .geoParquet(let path):
            if let error = error as? FileFormatError, error.kind == .cannotOpen {
                return CommandFailure.unreadable("cannot read \(path): \(error.message)")
            }
        default: break
        }
        return CommandFailure("", error)
    }
}
