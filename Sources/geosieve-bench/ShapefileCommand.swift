import ArgumentParser
import Foundation
import GeoSieve

/// `geosieve-bench shapefile`: Shapefile write and read of the generated point layer of
/// `geosieve-bench gpkg` (the w1 attributes plus a uniform point per row in WGS 84).
struct ShapefileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shapefile",
        abstract: "Shapefile write and read (one thread) of generated point features.",
        discussion: """
            Prints one JSON line for the write ("shapefile.write": .shp, .shx, .dbf, .prj, .cpg) \
            and one for the read ("shapefile.read": every record into the FeatureTable), each with \
            "features_per_s" and the files' "bytes". The files go to --directory (default: the \
            temporary folder) and are removed afterwards unless --keep is given (the .shp's path \
            is printed on standard error). --input FILE.shp times reads of another shapefile.
            """
    )

    @Option(help: "Features to generate.")
    var features: Int = 1_000_000

    @Option(help: "Seed of the generator (same seed, same features).")
    var seed: UInt64 = 42

    @Option(help: "Measured rounds, after one warm-up round.")
    var rounds: Int = 3

    @Option(help: "The folder to write the shapefile in.")
    var directory: String?

    @Flag(help: "Keep the written files.")
    var keep = false

    @Option(help: "Read this shapefile instead of writing one (--features is ignored).")
    var input: String?

    func validate() throws {
        guard features >= 1 else { throw ValidationError("--features must be at least 1") }
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
    }

    func run() throws {
        if let input {
            try measureReads(of: input, features: nil)
            return
        }
        note("generating \(features) point features (seed \(seed))")
        let table = try GeoPackageCommand.makeTable(features: features, seed: seed)
        let folder = directory ?? FileManager.default.temporaryDirectory.path
        let stem = "\(folder)/geosieve-bench-\(getpid())"
        let path = stem + ".shp"
        defer {
            if !keep { for ext in ["shp", "shx", "dbf", "prj", "cpg"] { try? FileManager.default.removeItem(atPath: stem + "." + ext) } }
        }
        var writes: [UInt64] = []
        for round in 0...rounds {
            let (_, nanoseconds) = try MonotonicClock.measure { () throws(FileFormatError) in
                try Shapefile.write(table, to: path)
            }
            if round > 0 { writes.append(nanoseconds) }
        }
        emit(GeoPackageCommand.line("shapefile.write", writes, features: features, bytes: Self.bytes(path)))
        try measureReads(of: path, features: features)
        if keep { note("kept \(path)") }
    }

    /// The bytes of the .shp, .shx and .dbf of `path`.
    static func bytes(_ path: String) -> Int {
        let stem = String(path.dropLast(4))
        return ["shp", "shx", "dbf"].reduce(0) { total, ext in
            total + ((try? FileManager.default.attributesOfItem(atPath: stem + "." + ext)[.size] as? Int) ?? 0)
        }
    }

    /// Times `--rounds` reads of the shapefile at `path` (after one warm-up read) and prints
    /// the line; checks the feature count when `features` is given.
    func measureReads(of path: String, features: Int?) throws {
        var reads: [UInt64] = []
        var count = 0
        for round in 0...rounds {
            let (layer, nanoseconds) = try MonotonicClock.measure { () throws(FileFormatError) in
                try Shapefile.read(at: path)
            }
            count = layer.table.count
            if round > 0 { reads.append(nanoseconds) }
        }
        if let features, count != features { throw ExportError(message: "read \(count) features, wrote \(features)") }
        emit(GeoPackageCommand.line("shapefile.read", reads, features: count, bytes: Self.bytes(path)))
    }
}
