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
import SieveJSON

/// The output options `query` and `convert` share: `--format`, `--output`, `--pretty`,
/// `--precision` and `--layer-name`, and writing a result with them.
struct OutputOptions: ParsableArguments {
    /// The output formats.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case geojson, geojsonseq, esrijson, csv, gpkg, shp, fgb, parquet

        /// A format named in any case (`GPKG`, `GeoJSON`), as GDAL users type them.
        init?(argument: String) {
            self.init(rawValue: argument.lowercased())
        }

        /// The library's text format (`nil` for GeoPackage and Shapefile).
        var textFormat: FeatureOutputFormat? {
            switch self {
            case .geojson: .geoJSON
            case .geojsonseq: .geoJSONSeq
            case .esrijson: .esriJSON
            case .csv: .csv
            case .gpkg, .shp, .fgb, .parquet: nil
            }
        }

        /// The format of a file named `path`, by its extension as ogr2ogr picks it: `.geojson`
        /// and `.json` GeoJSON, `.geojsonl`, `.geojsons` and `.geojsonseq` GeoJSONSeq, `.esrijson`
        /// Esri JSON, `.csv` CSV, `.gpkg` GeoPackage, `.shp`, `.shz` and `.shp.zip` Shapefile,
        /// `.fgb` FlatGeobuf, `.parquet` and `.geoparquet` GeoParquet (any case); `nil` for any
        /// other.
        static func of(path: String) -> Format? {
            let lower = path.lowercased()
            let extensions: [(String, Format)] = [
                (".geojson", .geojson), (".json", .geojson), (".geojsonl", .geojsonseq), (".geojsons", .geojsonseq),
                (".geojsonseq", .geojsonseq), (".esrijson", .esrijson), (".csv", .csv), (".gpkg", .gpkg), (".shp", .shp),
                (".shz", .shp), (".shp.zip", .shp), (".fgb", .fgb), (".parquet", .parquet), (".geoparquet", .parquet),
            ]
            return extensions.first { lower.hasSuffix($0.0) }?.1
        }
    }

    @Option(
        help: """
            The output format: geojsonseq is one feature per line, csv has the WKT geometry \
            first, gpkg, shp (ESRI Shapefile; a .shz or .shp.zip --output zips it), parquet (GeoParquet 1.1) and fgb (FlatGeobuf, \
            with its spatial index unless --no-index) need --output. \
            Default: from the extension of --output (query: else geojson).
            """)
    var format: Format?

    @Option(
        name: .customLong("output"), parsing: .unconditional,
        help: "The file to write, replaced only when complete (a symbolic link's target; a FIFO or device written directly); '-' or none (query): standard output.")
    var output: String?

    @Flag(help: "Indent JSON output by two spaces (geojson, esrijson and the ids, count and extent documents).")
    var pretty = false

    @Option(
        parsing: .unconditional,
        help: "At most N digits (0…17) after the decimal point in feature coordinates, correctly rounded (default: as many as the value needs).")
    var precision: Int?

    @Option(name: .customLong("layer-name"), parsing: .unconditional, help: "The GeoPackage layer name (default: the source's); a FlatGeobuf file's name.")
    var layerName: String?

    @Flag(inversion: .prefixedNo, help: "With --format fgb: write the packed Hilbert R-tree, sorting the features along a Hilbert curve (default), or keep their order without one.")
    var index = true

    @Option(parsing: .unconditional, help: "With --format parquet: the page compression, none, snappy (default), gzip or zstd.")
    var compression: GeoParquetWriteOptions.Compression?

    @Option(name: .customLong("row-group-size"), parsing: .unconditional, help: "With --format parquet: the most rows in a row group (default 65536).")
    var rowGroupSize: Int?

    /// The GeoParquet writer's options from `--compression` and `--row-group-size`.
    var parquetOptions: GeoParquetWriteOptions {
        var options = GeoParquetWriteOptions()
        if let compression { options.compression = compression }
        if let rowGroupSize { options.rowGroupSize = rowGroupSize }
        return options
    }

    /// The format: `--format`, else the extension of `--output` when it names one, else
    /// `fallback` (a format, or an error message when there is none).
    func resolvedFormat(fallback: Result<Format, CommandFailure>) throws -> Format {
        if let format { return format }
        if let output, let format = Format.of(path: output) { return format }
        return try fallback.get()
    }

    /// `query`'s format (default geojson), with the options checked against it before anything
    /// is loaded. Documents other than features (ids, count, extent) are JSON whatever the
    /// format, which must then be geojson or esrijson.
    func checkedFormat(returningFeatures: Bool) throws -> Format {
        let format = try resolvedFormat(fallback: .success(.geojson))
        if returningFeatures {
            _ = try writerOptions(for: format)
        } else {
            guard format == .geojson || format == .esrijson else {
                throw CommandFailure("--format \(format.rawValue) writes features; --return ids, count and extent print JSON")
            }
            _ = try writerOptions(for: format)
        }
        return format
    }

    /// The writer options for `format`, checked against it: `--pretty` only for the JSON
    /// documents, `--precision` 0…17 and not for GeoPackages, GeoPackages only to a file.
    func writerOptions(for format: Format) throws -> FeatureWriterOptions {
        if let precision {
            guard (0...FeatureWriterOptions.maximumCoordinatePrecision).contains(precision) else {
                throw CommandFailure("--precision must be 0…17 digits, not \(precision)")
            }
            if format == .gpkg || format == .shp || format == .fgb || format == .parquet {
                let name = format == .gpkg ? "GeoPackage" : format == .shp ? "shapefile" : format == .fgb ? "FlatGeobuf file" : "GeoParquet file"
                throw CommandFailure("--precision applies to text formats; a \(name) stores coordinates as binary doubles")
            }
        }
        if pretty {
            switch format {
            case .geojson, .esrijson: break
            case .geojsonseq: throw CommandFailure("--pretty does not apply to geojsonseq: each feature must be one line (RFC 8142)")
            case .csv, .gpkg, .shp, .fgb, .parquet: throw CommandFailure("--pretty applies to the JSON formats (geojson, esrijson), not to \(format.rawValue)")
            }
        }
        if format == .gpkg, OutputFile.isStandardOutput(output) {
            throw CommandFailure("--format gpkg needs --output FILE: a GeoPackage cannot be written to standard output")
        }
        if format == .fgb, OutputFile.isStandardOutput(output) {
            throw CommandFailure("--format fgb needs --output FILE: the file is written whole, its index before its features")
        }
        if format != .parquet, compression != nil || rowGroupSize != nil {
            throw CommandFailure("--compression and --row-group-size apply to --format parquet, not to \(format.rawValue)")
        }
        if let rowGroupSize, rowGroupSize < 1 {
            throw CommandFailure("--row-group-size must be at least 1, not \(rowGroupSize)")
        }
        if format == .parquet, OutputFile.isStandardOutput(output) {
            throw CommandFailure("--format parquet needs --output FILE: the file ends with its footer, written last")
        }
        if format == .shp, OutputFile.isStandardOutput(output) {
            throw CommandFailure("--format shp needs --output FILE.shp (or .shz, .shp.zip): a shapefile is several files")
        }
        // As GDAL: RS-separated records for a .geojsons file.
        let recordSeparator = format == .geojsonseq && (output?.lowercased().hasSuffix(".geojsons") ?? false)
        return FeatureWriterOptions(pretty: pretty, coordinatePrecision: precision, recordSeparator: recordSeparator)
    }

    /// Writes `result` in `format` to ``output`` (atomically) or standard output. A GeoPackage
    /// layer is named ``layerName``, else `sourceLayer`. A GeoJSONSeq result not in 4326 gets
    /// a warning on stderr: RFC 8142 features are WGS 84 and cannot name another reference.
    /// `progress`, when given, shows how far the write has come.
    func write(_ result: FeatureQueryResult, format: Format, sourceLayer: String, progress: ProgressLine? = nil) throws {
        try Self.write(
            result, format: format, to: output, layerName: layerName ?? sourceLayer, options: try writerOptions(for: format),
            index: index, parquet: parquetOptions, progress: progress)
    }

    /// Writes `result` in `format` to `output` (atomically) or standard output, a GeoPackage
    /// layer named `layerName` (see ``write(_:format:sourceLayer:progress:)``); a FlatGeobuf
    /// file with its spatial index when `index` is set.
    static func write(
        _ result: FeatureQueryResult, format: Format, to output: String?, layerName: String, options: FeatureWriterOptions,
        index: Bool = true, parquet: GeoParquetWriteOptions = GeoParquetWriteOptions(), progress: ProgressLine? = nil
    ) throws {
        defer { progress?.finish() }
        guard let textFormat = format.textFormat else {
            guard let output, !OutputFile.isStandardOutput(output) else { throw CommandFailure("--format \(format.rawValue) needs --output FILE") }
            if format == .shp {
                try Self.writeShapefile(result, to: output)
            } else if format == .fgb {
                try Self.writeFlatGeobuf(result, to: output, index: index, layerName: layerName)
            } else if format == .parquet {
                try Self.writeGeoParquet(result, to: output, options: parquet)
            } else {
                try Self.writeGeoPackage(result, to: output, layerName: layerName, progress: progress)
            }
            return
        }
        if format == .geojsonseq, result.returnsGeometry, result.spatialReference.latestWkid != 4326 {
            FileHandle.standardError.write(
                Data(
                    ("warning: geojsonseq is WGS 84 longitude/latitude (RFC 8142); these coordinates are in wkid "
                        + "\(result.spatialReference.wkid), which a GeoJSONSeq cannot name (--out-sr 4326 projects them)\n").utf8))
        }
        try OutputFile.write(to: output) { sink in
            try result.write(
                textFormat, options: options, chunkSize: 1 << 20, progress: progress.map { line in { (written: WriteProgress) in line.update(written) } },
                flush: sink)
            if textFormat == .geoJSON || textFormat == .esriJSON { try sink([UInt8(ascii: "\n")]) }
        }
    }

    /// Writes a JSON document (a count, IDs, an extent) to ``output`` or standard output,
    /// indented with `--pretty`, followed by a line break.
    func writeDocument(_ json: [UInt8]) throws {
        try OutputFile.writeDocument(json, pretty: pretty, to: output)
    }

    /// The table and rows `result` writes: the table's own rows when the result is a plain
    /// subset of it (no copy), else a table made of the result (its fields, order and output
    /// spatial reference).
    static func tableAndRows(of result: FeatureQueryResult) throws -> (FeatureTable, [Int]?) {
        if result.isTableSubset { return (result.table, result.rows) }
        do {
            return (try result.makeTable(), nil)
        } catch {
            throw CommandFailure("", error)
        }
    }

    /// Writes `result` as a shapefile (a `.shp` with its companions, or a `.shz` / `.shp.zip`
    /// archive): the table's rows as they are when the result is a plain subset of it, else a
    /// table made of the result. What had to change to fit the format (long field names, times
    /// of day) is written to standard error as warnings.
    static func writeShapefile(_ result: FeatureQueryResult, to path: String) throws {
        let lower = path.lowercased()
        guard lower.hasSuffix(".shp") || lower.hasSuffix(".shz") || lower.hasSuffix(".zip") else {
            throw CommandFailure("--format shp writes FILE.shp, FILE.shz or FILE.shp.zip, not \(JSONKey.quoted(path))")
        }
        let (table, rows) = try tableAndRows(of: result)
        let target = try OutputFile.resolvedTarget(path)
        do throws(FileFormatError) {
            let report = try Shapefile.write(table, rows: rows, to: target)
            for warning in report.warnings {
                FileHandle.standardError.write(Data("warning: \(JSONKey.abbreviated(path)): \(warning)\n".utf8))
            }
        } catch {
            if error.kind == .writeFailed { throw CommandFailure.unreadable("cannot write \(path): \(error.message)") }
            throw CommandFailure("", error)
        }
    }

    /// Writes `result` as a FlatGeobuf file, with its spatial index when `index` is set.
    static func writeFlatGeobuf(_ result: FeatureQueryResult, to path: String, index: Bool, layerName: String?) throws {
        try writeFile(result, to: path) { (table, rows, target) throws(FileFormatError) in
            try FlatGeobuf.write(table, rows: rows, to: target, options: FlatGeobufWriteOptions(index: index, layerName: layerName))
        }
    }

    /// Writes `result` as a GeoParquet file.
    static func writeGeoParquet(_ result: FeatureQueryResult, to path: String, options: GeoParquetWriteOptions) throws {
        try writeFile(result, to: path) { (table, rows, target) throws(FileFormatError) in
            try GeoParquet.write(table, rows: rows, to: target, options: options)
        }
    }

    /// Writes `result`'s table and rows (``tableAndRows(of:)``) to the target of `path` with
    /// `write`; a file that cannot be written is exit status 1, a table the format cannot hold 2.
    private static func writeFile(
        _ result: FeatureQueryResult, to path: String, _ write: (FeatureTable, [Int]?, String) throws(FileFormatError) -> Void
    ) throws {
        let (table, rows) = try tableAndRows(of: result)
        let target = try OutputFile.resolvedTarget(path)
        do throws(FileFormatError) {
            try write(table, rows, target)
        } catch {
            if error.kind == .writeFailed { throw CommandFailure.unreadable("cannot write \(path): \(error.message)") }
            throw CommandFailure("", error)
        }
    }

    /// Writes `result` as a GeoPackage: the table's rows as they are when the result is a plain
    /// subset of it (no copy), else a table made of the result (its fields, order and output
    /// spatial reference, whose SRS row the file gets).
    static func writeGeoPackage(
        _ result: FeatureQueryResult, to path: String, layerName: String, progress: ProgressLine? = nil
    ) throws {
        // Spatial references other than 4326 and 3857 get PROJ's WKT 1 definition.
        let options = GeoPackageWriteOptions(
            layerName: layerName,
            spatialReferenceDefinition: { reference in
                try? ProjectionContext.withCurrent { (context) throws(ProjectionError) in try context.wkt(of: reference) }
            },
            progress: progress.map { line in { @Sendable (written: WriteProgress) in line.update(written) } })
        // Through a symbolic link to its target; only a regular file can hold a GeoPackage.
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & mode_t(S_IFMT) != mode_t(S_IFREG) {
            let what = status.st_mode & mode_t(S_IFMT) == mode_t(S_IFDIR) ? "is a directory" : "is not a regular file (a GeoPackage is a database file)"
            throw CommandFailure.unreadable("cannot write \(path): \(what)")
        }
        let (table, rows) = try tableAndRows(of: result)
        let target = try OutputFile.resolvedTarget(path)
        do throws(GeoPackageError) {
            try GeoPackage.write(table, rows: rows, to: target, options: options)
        } catch {
            if error.kind == .writeFailed { throw CommandFailure.unreadable("cannot write \(path): \(error.message)") }
            throw CommandFailure("", error)
        }
    }
}

/// Where output goes: standard output (no path, or `-`); a regular file (or a name not yet
/// taken) written whole before it replaces the target; anything else that is not a directory —
/// a FIFO, a character device such as `/dev/null` — written directly.
///
/// A symbolic link is followed to the file it names, as GDAL and the Unix tools do: the target
/// is written (a new target is created where a dangling link points), the link stays.
enum OutputFile {
    /// Writes the JSON document `json` to `path` (`nil` or `-`: standard output), indented when
    /// `pretty`, followed by a line break.
    static func writeDocument(_ json: [UInt8], pretty: Bool, to path: String?) throws {
        var bytes = JSONLayout(pretty: pretty, coordinates: .shortest).relaid(json) ?? json
        bytes.append(UInt8(ascii: "\n"))
        try write(to: path) { sink in try sink(bytes) }
    }

    /// Whether `path` means standard output.
    static func isStandardOutput(_ path: String?) -> Bool { path == nil || path == "-" }

    /// Runs `body` with a function that writes bytes to `path` (see ``OutputFile``) or, when
    /// `path` is `nil` or `-`, to standard output.
    /// - Throws: ``CommandFailure`` with status 1 when the bytes cannot be written or `path` is a
    ///   directory.
    static func write(to path: String?, _ body: (([UInt8]) throws -> Void) throws -> Void) throws {
        guard let path, path != "-" else {
            try body { bytes in try writeAll(bytes, to: STDOUT_FILENO, name: "standard output") }
            return
        }
        // What the path finally names, through every link (also the system's own, such as
        // /dev/stdout to /proc/self/fd/1 to a pipe, which only the system can follow).
        var status = stat()
        if stat(path, &status) == 0 {
            let type = status.st_mode & mode_t(S_IFMT)
            if type == mode_t(S_IFDIR) { throw CommandFailure.unreadable("cannot write \(path): is a directory") }
            if type != mode_t(S_IFREG) {
                try writeDirectly(to: path, name: path, body)
                return
            }
        }
        // A regular file, or none yet: replaced (or created) at the end of the links.
        try writeAtomically(to: try resolvedTarget(path), name: path, body)
    }

    /// The path a write to `path` lands on: `path`, or with symbolic links followed, the file
    /// the last link names (which need not exist yet).
    /// - Throws: ``CommandFailure`` (status 1) for a loop of links.
    static func resolvedTarget(_ path: String) throws -> String {
        var current = path
        for _ in 0..<40 {
            var status = stat()
            guard lstat(current, &status) == 0, status.st_mode & mode_t(S_IFMT) == mode_t(S_IFLNK) else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &buffer, buffer.count - 1)
            guard length >= 0 else { throw CommandFailure.unreadable("cannot write \(path): \(String(cString: strerror(errno)))") }
            let link = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if link.hasPrefix("/") {
                current = link
            } else {
                // Relative to the folder holding the link.
                let folder = current.lastIndex(of: "/").map { String(current[...$0]) } ?? ""
                current = folder + link
            }
        }
        throw CommandFailure.unreadable("cannot write \(path): too many levels of symbolic links")
    }

    /// Writes into the existing non-regular file `target` (a FIFO, a device) as it is opened,
    /// with no temporary file: such a file cannot be replaced, only written.
    private static func writeDirectly(to target: String, name: String, _ body: (([UInt8]) throws -> Void) throws -> Void) throws {
        let descriptor = open(target, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CommandFailure.unreadable("cannot write \(name): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        try body { bytes in try writeAll(bytes, to: descriptor, name: name) }
    }

    /// Writes a file through `body` (handed a function that appends bytes) into a temporary file
    /// next to `path`, renamed over `path` when complete and removed on failure: an interrupted
    /// or failed write never leaves a partial file under that name. A file replaced keeps its
    /// permissions. `name` is how errors name the file (the path given, before links were
    /// followed).
    static func writeAtomically(to path: String, name: String? = nil, _ body: (([UInt8]) throws -> Void) throws -> Void) throws {
        let name = name ?? path
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let file = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = "\(folder).\(file).\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CommandFailure.unreadable("cannot write \(name): \(String(cString: strerror(errno)))")
        }
        var closed = false
        do {
            var existing = stat()
            if stat(path, &existing) == 0 { _ = fchmod(descriptor, existing.st_mode & 0o7777) }
            try body { bytes in try writeAll(bytes, to: descriptor, name: name) }
            guard fsync(descriptor) == 0 else {
                throw CommandFailure.unreadable("cannot write \(name): \(String(cString: strerror(errno)))")
            }
            closed = true
            guard close(descriptor) == 0, rename(temporary, path) == 0 else {
                throw CommandFailure.unreadable("cannot write \(name): \(String(cString: strerror(errno)))")
            }
        } catch {
            if !closed { close(descriptor) }
            unlink(temporary)
            throw error
        }
    }

    /// Writes all of `bytes` to `descriptor`, retrying after interruptions.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, name: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { buffer in
                #if canImport(Glibc)
                    Glibc.write(descriptor, buffer.baseAddress, buffer.count)
                #elseif canImport(Musl)
                    Musl.write(descriptor, buffer.baseAddress, buffer.count)
                #else
                    Darwin.write(descriptor, buffer.baseAddress, buffer.count)
                #endif
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw CommandFailure.unreadable("cannot write \(name): \(String(cString: strerror(errno)))")
            }
            offset += written
        }
    }
}

/// `--output` and `--pretty` of the commands that answer with one JSON document (`identify`,
/// `info`).
struct DocumentOutputOptions: ParsableArguments {
    @Option(
        name: .customLong("output"), parsing: .unconditional,
        help: "The file to write, replaced only when complete (a symbolic link's target; a FIFO or device written directly); '-' or none: standard output.")
    var output: String?

    @Flag(help: "Indent the JSON by two spaces.")
    var pretty = false

    /// Writes `json` to `--output` or standard output.
    func write(_ json: [UInt8]) throws {
        try OutputFile.writeDocument(json, pretty: pretty, to: output)
    }
}

extension GeoParquetWriteOptions.Compression: ExpressibleByArgument {}
