import ArgumentParser
import Foundation
import GeoSieve

/// `geosieve-bench flatgeobuf`: FlatGeobuf write (with the index) and reads of the generated
/// point layer of `geosieve-bench gpkg`: whole, and a box covering 1 % of the extent.
struct FlatGeobufCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flatgeobuf",
        abstract: "FlatGeobuf write (with its packed Hilbert R-tree) and reads, whole and of a 1 % box, of generated points.",
        discussion: """
            Prints one JSON line each for "fgb.write" (sort along the Hilbert curve, index, \
            features), "fgb.read" (every feature into the FeatureTable) and "fgb.read_box" (a \
            box of 10 % of the width and height at the centre of the extent, 1 % of its area, \
            read through the index), with "features_per_s" (read_box: the features found) and \
            the file's "bytes".
            """
    )

    @Option(help: "Features to generate.")
    var features: Int = 1_000_000

    @Option(help: "Seed of the generator (same seed, same features).")
    var seed: UInt64 = 42

    @Option(help: "Measured rounds, after one warm-up round.")
    var rounds: Int = 5

    @Option(help: "The folder to write the file in.")
    var directory: String?

    func validate() throws {
        guard features >= 1 else { throw ValidationError("--features must be at least 1") }
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
    }

    func run() throws {
        note("generating \(features) point features (seed \(seed))")
        let table = try GeoPackageCommand.makeTable(features: features, seed: seed)
        let path = "\(directory ?? FileManager.default.temporaryDirectory.path)/geosieve-bench-\(getpid()).fgb"
        defer { try? FileManager.default.removeItem(atPath: path) }
        func measure<T>(_ workload: String, features: (T) -> Int, _ body: () throws(FileFormatError) -> T) throws {
            var samples: [UInt64] = []
            var count = 0
            for round in 0...rounds {
                let (value, nanoseconds) = try MonotonicClock.measure(body)
                count = features(value)
                if round > 0 { samples.append(nanoseconds) }
            }
            let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            emit(GeoPackageCommand.line(workload, samples, features: count, bytes: bytes))
        }
        try measure("fgb.write", features: { _ in table.count }) { () throws(FileFormatError) in try FlatGeobuf.write(table, to: path) }
        try measure("fgb.read", features: { $0.table.count }) { () throws(FileFormatError) in try FlatGeobuf.read(at: path) }
        // The generator's points cover x in [-180, 180] and y in [-85, 85].
        let box = Envelope(xmin: -18, ymin: -8.5, xmax: 18, ymax: 8.5)
        try measure("fgb.read_box", features: { $0.table.count }) { () throws(FileFormatError) in try FlatGeobuf.read(at: path, intersecting: box) }
    }
}
