import ArgumentParser
import Foundation
import GeoSieve

/// `geosieve-bench geoparquet`: GeoParquet write and reads, whole and of a box covering 1 % of
/// the data, of a given file (`--input`, e.g. one pyarrow wrote) and of GeoSieve's own copy of it.
struct GeoParquetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geoparquet",
        abstract: "GeoParquet write and reads, whole and of a 1 % box, of a file and of GeoSieve's own copy.",
        discussion: """
            The table is --input's rows (read once, untimed), or --features generated points \
            (the gpkg workload's: the w1 attributes and a uniform point in [-180, 180] x \
            [-85, 85] per row) written in the order of a Hilbert curve over their extent, so \
            each row group covers a compact part of the map. Prints one JSON line each for \
            "geoparquet.write" (GeoParquet.write of the table: the covering, Snappy, row groups \
            of --row-group-size rows), then for --input (when given) and for the written copy \
            "geoparquet.read" (GeoParquet.read(at:): every row, geometries decoded into the \
            FeatureTable; --columns to read fewer) and "geoparquet.read_box" (the same with \
            GeoParquetReadOptions(box:): rows whose bounding box meets --box, row groups \
            skipped by the covering's statistics), each with "features" (the rows returned), "features_per_s", the \
            file's "bytes", "row_groups", "row_groups_read" and "file" (its name). The default \
            box has 10 % of the width and height of the table's extent at its centre, 1 % of \
            its area. Times are the median, min and max of --rounds rounds after one warm-up.
            """
    )

    @Option(help: "A GeoParquet file to read, whose rows are also the table written.")
    var input: String?

    @Option(help: "Features to generate (without --input).")
    var features: Int = 1_000_000

    @Option(help: "Seed of the generator (same seed, same features).")
    var seed: UInt64 = 42

    @Option(name: [.customLong("rounds"), .customLong("repeat")], help: "Measured rounds, after one warm-up round.")
    var rounds: Int = 5

    @Option(help: "The folder to write GeoSieve's copy in.")
    var directory: String?

    @Option(help: "The box of read_box, as xmin,ymin,xmax,ymax (default: the centre 1 % of the table's extent).")
    var box: String?

    @Option(help: "Read only these columns besides the geometry, comma-separated (default: every column; \"\" for none).")
    var columns: String?

    @Option(help: "The most rows in a row group of the written copy.")
    var rowGroupSize: Int = 65_536

    @Option(help: "The written copy's compression: none, snappy, gzip or zstd.")
    var compression: String = "snappy"

    @Flag(help: "Keep the written copy (its path is noted on standard error as \"kept PATH\").")
    var keep = false

    func validate() throws {
        guard features >= 1 else { throw ValidationError("--features must be at least 1") }
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
        guard rowGroupSize >= 1 else { throw ValidationError("--row-group-size must be at least 1") }
        guard GeoParquetWriteOptions.Compression(rawValue: compression) != nil else {
            throw ValidationError("--compression must be none, snappy, gzip or zstd")
        }
        if let box, Self.parseBox(box) == nil { throw ValidationError("--box must be xmin,ymin,xmax,ymax with xmin <= xmax, ymin <= ymax") }
    }

    static func parseBox(_ text: String) -> Envelope? {
        let values = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard values.count == 4, values[0] <= values[2], values[1] <= values[3] else { return nil }
        return Envelope(xmin: values[0], ymin: values[1], xmax: values[2], ymax: values[3])
    }

    func run() throws {
        let table: FeatureTable
        var rows: [Int]?
        if let input {
            note("reading \(input) for the table to write")
            table = try GeoParquet.read(at: input).table
        } else {
            note("generating \(features) point features (seed \(seed)), in Hilbert order")
            table = try GeoPackageCommand.makeTable(features: features, seed: seed)
            rows = Self.hilbertOrder(table)
        }
        let extent = table.extent
        let box =
            self.box.flatMap(Self.parseBox)
            ?? Envelope(
                xmin: extent.xmin + 0.45 * extent.width, ymin: extent.ymin + 0.45 * extent.height,
                xmax: extent.xmin + 0.55 * extent.width, ymax: extent.ymin + 0.55 * extent.height)
        note("box \(box.xmin),\(box.ymin),\(box.xmax),\(box.ymax)")

        let path = "\(directory ?? FileManager.default.temporaryDirectory.path)/geosieve-bench-\(getpid()).parquet"
        defer { if !keep { try? FileManager.default.removeItem(atPath: path) } }
        let options = GeoParquetWriteOptions(
            compression: GeoParquetWriteOptions.Compression(rawValue: compression) ?? .snappy, rowGroupSize: rowGroupSize)
        var writes: [UInt64] = []
        for round in 0...rounds {
            let (_, nanoseconds) = try MonotonicClock.measure { () throws(FileFormatError) in
                try GeoParquet.write(table, rows: rows, to: path, options: options)
            }
            if round > 0 { writes.append(nanoseconds) }
        }
        emit(GeoPackageCommand.line("geoparquet.write", writes, features: rows?.count ?? table.count, bytes: Self.size(path)))
        if keep { note("kept \(path)") }

        let wanted = columns.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        for file in [input, path].compactMap({ $0 }) {
            try measure("geoparquet.read", file, GeoParquetReadOptions(columns: wanted))
            try measure("geoparquet.read_box", file, GeoParquetReadOptions(box: box, columns: wanted))
        }
    }

    /// Times `--rounds` reads of `file` (after one warm-up read) and prints the line.
    func measure(_ workload: String, _ file: String, _ options: GeoParquetReadOptions) throws {
        var samples: [UInt64] = []
        var count = 0
        var groups = (all: 0, read: 0)
        for round in 0...rounds {
            let (layer, nanoseconds) = try MonotonicClock.measure { () throws(FileFormatError) in
                try GeoParquet.read(at: file, options: options)
            }
            count = layer.table.count
            groups = (layer.rowGroups, layer.rowGroupsRead)
            if options.box == nil, count != layer.rowsInFile {
                throw ExportError(message: "read \(count) rows of the \(layer.rowsInFile) in \(file)")
            }
            if round > 0 { samples.append(nanoseconds) }
        }
        var line = GeoPackageCommand.line(workload, samples, features: count, bytes: Self.size(file))
        line.extras += [
            ("row_groups", String(groups.all)), ("row_groups_read", String(groups.read)),
            ("file", "\"" + URL(fileURLWithPath: file).lastPathComponent.replacingOccurrences(of: "\"", with: "\\\"") + "\""),
        ]
        emit(line)
    }

    static func size(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    /// The rows of `table` in the order of a Hilbert curve of order 16 over its extent (by the
    /// centre of each row's envelope; rows without one last).
    static func hilbertOrder(_ table: FeatureTable) -> [Int] {
        let extent = table.extent
        let cells = Double((1 << 16) - 1)
        let (xmin, ymin, xmax, ymax) = (table.xmin, table.ymin, table.xmax, table.ymax)
        var keys: [(key: UInt64, row: Int)] = []
        keys.reserveCapacity(table.count)
        for row in 0..<table.count {
            let x = (xmin[row] + xmax[row]) / 2
            let y = (ymin[row] + ymax[row]) / 2
            guard x.isFinite, y.isFinite else {
                keys.append((UInt64.max, row))
                continue
            }
            let gx = UInt32(max(0, min(cells, ((x - extent.xmin) / max(extent.width, .leastNonzeroMagnitude) * cells).rounded(.down))))
            let gy = UInt32(max(0, min(cells, ((y - extent.ymin) / max(extent.height, .leastNonzeroMagnitude) * cells).rounded(.down))))
            keys.append((hilbert(gx, gy), row))
        }
        keys.sort { $0.key != $1.key ? $0.key < $1.key : $0.row < $1.row }
        return keys.map(\.row)
    }

    /// The distance along a Hilbert curve of order 16 of the cell (x, y).
    static func hilbert(_ x: UInt32, _ y: UInt32) -> UInt64 {
        var (x, y) = (x, y)
        var d: UInt64 = 0
        var s: UInt32 = 1 << 15
        while s > 0 {
            let rx: UInt32 = x & s != 0 ? 1 : 0
            let ry: UInt32 = y & s != 0 ? 1 : 0
            d += UInt64(s) * UInt64(s) * UInt64((3 * rx) ^ ry)
            if ry == 0 {
                if rx == 1 {
                    x = 0xFFFF - x
                    y = 0xFFFF - y
                }
                swap(&x, &y)
            }
            s >>= 1
        }
        return d
    }
}
