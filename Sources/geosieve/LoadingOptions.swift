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
import SieveBase
import SieveJSON

/// The options of every command that loads a SOURCE: what to do with invalid features, the
/// geometry type, and the progress lines of loading and writing.
struct LoadingOptions: ParsableArguments {
    /// `--on-invalid`.
    enum InvalidFeatures: String, ExpressibleByArgument, CaseIterable {
        case fail, skip
    }

    @Option(
        name: .customLong("on-invalid"),
        help: "What to do with a feature that cannot be loaded: fail (exit 2 at the first, the default) or skip (load the rest; the count and the first five reasons go to standard error).")
    var onInvalid: InvalidFeatures = .fail

    @Option(
        name: .customLong("geometry-type"), parsing: .unconditional,
        help: "The table's geometry type (point, multipoint, polyline, polygon, or the GeoJSON names): features of other types are invalid.")
    var geometryType: String?

    @Option(
        parsing: .unconditional,
        help: "The encoding of a shapefile's texts when its .cpg and .dbf do not say it right: UTF-8, ISO-8859-1 or windows-1252 (GDAL's ENCODING open option).")
    var encoding: String?

    @Option(name: .customLong("x-field"), parsing: .unconditional, help: "For a CSV SOURCE: the column of the points' x (longitude), with --y-field (default: lon/lat, longitude/latitude, x/y, … by name).")
    var xField: String?

    @Option(name: .customLong("y-field"), parsing: .unconditional, help: "For a CSV SOURCE: the column of the points' y (latitude), with --x-field.")
    var yField: String?

    @Option(name: .customLong("wkt-field"), parsing: .unconditional, help: "For a CSV SOURCE: the column of WKT geometries (default: WKT, geometry, geom, the_geom, wkt_geom or shape by name).")
    var wktField: String?

    @Option(parsing: .unconditional, help: "For a CSV SOURCE: the field delimiter, one character (default: the most frequent of , ; tab | in the header; 'tab' names the tab).")
    var delimiter: String?

    @Option(
        name: .customLong("s-srs"), parsing: .unconditional,
        help: "For a CSV SOURCE: the spatial reference of its coordinates, a WKID or EPSG:N (default 4326), as ogr2ogr's -s_srs.")
    var sourceReference: SpatialReferenceCode?

    /// The options of a CSV source: `--x-field`, `--y-field`, `--wkt-field`, `--delimiter`,
    /// `--s-srs`.
    func csvOptions() throws -> CSVReadOptions {
        var options = CSVReadOptions(xField: xField, yField: yField, wktField: wktField)
        if let delimiter {
            let named = delimiter.lowercased() == "tab" ? "\t" : delimiter
            guard named.count == 1, let character = named.first, character.isASCII else {
                throw CommandFailure("--delimiter must be one ASCII character (or 'tab'), not \(JSONKey.quoted(delimiter))")
            }
            options.delimiter = character
        }
        if let sourceReference { options.spatialReference = SpatialReference(wkid: sourceReference.wkid) }
        return options
    }

    @Flag(help: "No progress line on standard error (shown for loads and writes over a second when it is a terminal).")
    var quiet = false

    /// `--mode`.
    enum ServiceMode: String, ExpressibleByArgument, CaseIterable {
        case snapshot, onDemand = "on-demand", selection
    }

    @Option(
        help: """
            For a feature service SOURCE: snapshot (the default: every feature, paged), on-demand (the features in the \
            command's extent scaled by --buffer-factor: query's and convert's --geometry, the --map-extent of \
            render, count and identify) or selection (only what query's or convert's --where and --geometry select). The command \
            then works on what was read, exactly as on a file.
            """)
    var mode: ServiceMode = .snapshot

    @Option(
        name: .customLong("buffer-factor"), parsing: .unconditional,
        help: "With --mode on-demand: how much larger than the command's extent the read one is (at least 1; default 2).")
    var bufferFactor: Double = 2

    @Flag(
        name: .customLong("trace-requests"),
        help: ArgumentHelp(ServiceSource.traceRequestsHelp))
    var traceRequests = false

    /// The load options these flags ask for, with a progress line when standard error is a
    /// terminal.
    func options(progress: ProgressLine?) throws -> LoadOptions {
        var options = LoadOptions(onInvalid: onInvalid == .skip ? .skip : .fail)
        if let geometryType {
            options.geometryType = try Self.geometryType(geometryType)
        }
        if let progress { options.progress = { progress.update($0) } }
        return options
    }

    /// The progress line to show for a load, or `nil` (with `--quiet`, or when standard error
    /// is not a terminal).
    func progressLine(verb: String) -> ProgressLine? {
        guard !quiet, isatty(STDERR_FILENO) == 1 else { return nil }
        return ProgressLine(verb: verb)
    }

    /// The progress line to show while writing to `output` (a file; `nil` for standard output),
    /// or `nil`: with `--quiet`, when standard error is not a terminal, or when standard output
    /// is written and is that terminal too (the line would land among the output).
    func writeProgressLine(output: String?) -> ProgressLine? {
        let toStandardOutput = OutputFile.isStandardOutput(output)
        if toStandardOutput, isatty(STDOUT_FILENO) == 1 { return nil }
        return progressLine(verb: "writing \(toStandardOutput ? "standard output" : output ?? "")")
    }

    /// A geometry type named as GeoSieve (point, multipoint, polyline, polygon) or GeoJSON
    /// (Point, MultiPoint, LineString, MultiLineString, Polygon, MultiPolygon) names it.
    static func geometryType(_ name: String) throws -> GeometryType {
        switch name.lowercased() {
        case "point", "esrigeometrypoint": return .point
        case "multipoint", "esrigeometrymultipoint": return .multipoint
        case "polyline", "linestring", "multilinestring", "esrigeometrypolyline": return .polyline
        case "polygon", "multipolygon", "esrigeometrypolygon": return .polygon
        default:
            throw CommandFailure(
                "--geometry-type: \(JSONKey.quoted(name)) is not a geometry type (point, multipoint, polyline or polygon)")
        }
    }

    /// Prints what a load skipped: the count and the first five reasons.
    static func printSkipped(_ report: LoadReport, source: String) {
        guard report.skippedCount > 0 else { return }
        var text = "note: \(source): skipped \(report.skippedCount) invalid feature\(report.skippedCount == 1 ? "" : "s")"
        text += report.skippedCount > report.firstSkipped.count ? " (the first \(report.firstSkipped.count)):\n" : ":\n"
        for error in report.firstSkipped { text += "  \(error)\n" }
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// A progress line on standard error (a terminal): bytes read or written, features per second
/// and the time left, redrawn at most four times a second once the work has taken a second.
final class ProgressLine: Sendable {
    private let verb: String
    private let start = Date()
    /// When the line was last drawn, and whether it is on the screen.
    private let line = Locked<(lastDraw: Date, drawn: Bool)>((Date.distantPast, false))

    init(verb: String) { self.verb = verb }

    /// Shows how far a load has come: bytes read of all, features so far.
    func update(_ progress: LoadProgress) {
        let fraction = progress.totalBytes > 0 ? Double(progress.bytesRead) / Double(progress.totalBytes) : 0
        draw(fraction: fraction, features: progress.features) {
            "\(Self.megabytes(progress.bytesRead)) of \(Self.megabytes(progress.totalBytes)) (\(Int(fraction * 100))%), "
                + "\(progress.features) features"
        }
    }

    /// Shows how far a GeoPackage read has come: features read, part of the table.
    func update(_ progress: GeoPackageReadProgress) {
        draw(fraction: progress.fraction, features: progress.features) {
            "\(progress.features) features (\(Int(progress.fraction * 100))%)"
        }
    }

    /// Shows how far a write has come: features written of all, bytes written when known.
    func update(_ progress: WriteProgress) {
        let fraction = progress.totalFeatures > 0 ? Double(progress.features) / Double(progress.totalFeatures) : 0
        draw(fraction: fraction, features: progress.features) {
            "\(progress.features) of \(progress.totalFeatures) features (\(Int(fraction * 100))%)"
                + (progress.bytesWritten.map { ", \(Self.megabytes($0))" } ?? "")
        }
    }

    private static func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1_000_000) }

    /// Redraws the line (`verb: amount, rate, ETA`) once the work has taken a second, at most
    /// four times a second.
    private func draw(fraction: Double, features: Int, amount: () -> String) {
        line.withLock { state in
            let now = Date()
            let elapsed = now.timeIntervalSince(start)
            guard elapsed >= 1, now.timeIntervalSince(state.lastDraw) >= 0.25 else { return }
            state.lastDraw = now
            let rate = Double(features) / elapsed
            let left = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0
            let text = "\(verb): \(amount()), \(Int(rate)) features/s, ETA \(Int(left.rounded())) s"
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + text).utf8))
            state.drawn = true
        }
    }

    /// Clears the line (when one was drawn).
    func finish() {
        line.withLock { state in
            if state.drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            state.drawn = false
        }
    }
}
