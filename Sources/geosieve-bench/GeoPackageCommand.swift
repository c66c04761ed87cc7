import ArgumentParser
import Foundation
import GeoSieve

/// `geosieve-bench gpkg`: GeoPackage write and read of a generated point layer (the w1
/// attributes plus a uniform point per row in WGS 84).
struct GeoPackageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gpkg",
        abstract: "GeoPackage write (with the R-tree index) and read of generated point features.",
        discussion: """
            Prints one JSON line for the write ("gpkg.write": temporary file, tables, rows, \
            R-tree, triggers, fsync, rename) and one for the read ("gpkg.read": open, one SELECT, \
            typed columns, geometries, the FeatureTable), each with "features_per_s" and the \
            file's "bytes". The file goes to --directory (default: the temporary folder) and is \
            removed afterwards unless --keep is given. --only write or --only read measures one \
            part; --input FILE times reads of another GeoPackage (GDAL's, say) instead.
            """
    )

    @Option(help: "Features to generate.")
    var features: Int = 1_000_000

    @Option(help: "Seed of the generator (same seed, same features).")
    var seed: UInt64 = 42

    @Option(help: "Measured rounds, after one warm-up round.")
    var rounds: Int = 3

    @Option(help: "The folder to write the GeoPackage in.")
    var directory: String?

    @Flag(help: "Keep the written file (its path is printed on standard error).")
    var keep = false

    /// Which measurements to make.
    enum Part: String, ExpressibleByArgument, CaseIterable {
        case write, read
    }

    @Option(help: "Measure only this part (write or read; a read still writes the file once, untimed).")
    var only: Part?

    @Option(help: "Read this GeoPackage's only feature table instead of writing one (read only; --features is ignored).")
    var input: String?

    func validate() throws {
        guard features >= 1 else { throw ValidationError("--features must be at least 1") }
        guard input == nil || only != .write else { throw ValidationError("--input is read, not written") }
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
    }

    /// The w1 table with one uniform point per row.
    static func makeTable(features: Int, seed: UInt64) throws -> FeatureTable {
        let rows = W1.generate(count: features, seed: seed)
        let attributes = try W1.makeTable(rows)
        var random = SplitMix64(seed: seed ^ 0x9E37_79B9_7F4A_7C15)
        var geometries: [Geometry?] = []
        geometries.reserveCapacity(features)
        for _ in 0..<features {
            let x = -180 + 360 * random.nextUnit()
            let y = -85 + 170 * random.nextUnit()
            geometries.append(.point(Point(x: x, y: y)))
        }
        let schema = try Schema(
            fields: attributes.schema.fields, objectIdFieldName: "OBJECTID", geometryType: .point,
            spatialReference: .wgs84)
        return try FeatureTable(schema: schema, columns: attributes.columns, geometries: geometries)
    }

    func run() throws {
        if let input {
            try measureReads(of: input, features: nil)
            return
        }
        note("generating \(features) point features (seed \(seed))")
        let table = try Self.makeTable(features: features, seed: seed)
        let folder = directory ?? FileManager.default.temporaryDirectory.path
        let path = "\(folder)/geosieve-bench-\(getpid()).gpkg"
        defer { if !keep { try? FileManager.default.removeItem(atPath: path) } }
        let options = GeoPackageWriteOptions(layerName: "points")

        var writes: [UInt64] = []
        for round in 0...(only == .read ? 0 : rounds) {
            let (_, nanoseconds) = try MonotonicClock.measure { () throws(GeoPackageError) in
                try GeoPackage.write(table, to: path, options: options)
            }
            if round > 0 { writes.append(nanoseconds) }
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        if only != .read { emit(Self.line("gpkg.write", writes, features: features, bytes: bytes)) }
        guard only != .write else {
            if keep { note("kept \(path)") }
            return
        }

        try measureReads(of: path, features: features)
        if keep { note("kept \(path)") }
    }

    /// Times `--rounds` reads of the file at `path` (after one warm-up read) and prints the line;
    /// checks the feature count when `features` is given.
    func measureReads(of path: String, features: Int?) throws {
        let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        var reads: [UInt64] = []
        var count = 0
        for round in 0...rounds {
            let (layer, nanoseconds) = try MonotonicClock.measure { () throws(GeoPackageError) in
                try GeoPackage.read(at: path)
            }
            count = layer.table.count
            if round > 0 { reads.append(nanoseconds) }
        }
        if let features, count != features { throw ExportError(message: "read \(count) features, wrote \(features)") }
        emit(Self.line("gpkg.read", reads, features: count, bytes: bytes))
    }

    static func line(_ workload: String, _ samples: [UInt64], features: Int, bytes: Int) -> ResultLine {
        let timing = TimingSummary(nanoseconds: samples)
        let perSecond = Double(features) / (timing.medianMilliseconds / 1000)
        return ResultLine(
            workload: workload, timing: timing, rows: features, result: features, sizeName: "features",
            extras: [("features_per_s", String(Int(perSecond.rounded()))), ("bytes", String(bytes))])
    }
}
