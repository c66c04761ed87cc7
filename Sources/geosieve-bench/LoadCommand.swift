import ArgumentParser
import Foundation
import GeoSieve

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `geosieve-bench load`: loading files into a feature table. Writes seeded data files, then
/// loads each in a child process per round, so that each round starts cold and its peak memory
/// is the child's alone.
struct LoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load workload: seeded GeoJSON files loaded into feature tables.",
        discussion: """
            Writes points.geojson (--points point features with the w1 attributes), \
            points.geojsonl (the same as GeoJSONSeq, for peers) and polygons.geojson \
            (--polygons polygons of 8–20 vertices), then loads each table file in a child \
            process per round and prints one JSON line per file: {"workload":"load.points.geojson",\
            "engine":"geosieve","median_ms":…,"min_ms":…,"max_ms":…,"features":…,"result":…,\
            "bytes":…,"mb_per_s":…,"peak_rss_mb":…,"table_bytes":…}. The time is the child's \
            FeatureTable.load(contentsOf:) (reading the file included, process start excluded); \
            peak_rss_mb is the child's peak resident memory; table_bytes is FeatureTable.byteCount.
            """
    )

    @Option(help: "Point features to generate.")
    var points: Int = 1_000_000

    @Option(help: "Polygon features to generate.")
    var polygons: Int = 200_000

    @Option(help: "Seed of the generator (same seed, same files).")
    var seed: UInt64 = 42

    @Option(help: "Measured loads per file.")
    var rounds: Int = 3

    @Option(
        name: .customLong("emit-data"),
        help: ArgumentHelp("Write the files to DIR and keep them (default: a temporary folder, removed).", valueName: "DIR"))
    var emitData: String?

    @Option(name: .customLong("measure-file"), help: .hidden)
    var measureFile: String?

    @Option(name: .customLong("measure-threads"), help: .hidden)
    var measureThreads: Int?

    func validate() throws {
        guard points >= 1, polygons >= 1 else { throw ValidationError("--points and --polygons must be at least 1") }
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
    }

    func run() throws {
        if let measureFile {
            // Child: load once and report the time, features and table size on one line.
            let url = URL(fileURLWithPath: measureFile)
            let options = LoadOptions(threads: measureThreads)
            let load = try MonotonicClock.measure { () throws -> FeatureTable in
                try FeatureTable.loadReporting(contentsOfFile: url.path, options: options).table
            }
            print("\(load.nanoseconds) \(load.result.count) \(load.result.byteCount)")
            return
        }
        let directory: URL
        if let emitData {
            directory = URL(fileURLWithPath: emitData, isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } else {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("geosieve-load-\(getpid())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        defer { if emitData == nil { try? FileManager.default.removeItem(at: directory) } }

        var files: [(name: String, bytes: Int)] = []
        for (shape, count) in [(LoadData.Shape.points, points), (.polygons, polygons)] {
            for format in LoadData.Format.allCases where shape == .points || format == .geojson {
                let name = "\(shape.rawValue).\(format.fileExtension)"
                let bytes = try LoadData.write(
                    shape: shape, count: count, seed: seed, format: format, to: directory.appendingPathComponent(name))
                note("wrote \(name): \(bytes) bytes")
                files.append((name, bytes))
            }
        }
        // One thread, then every core (results are identical; the time is what differs).
        let cores = ProcessInfo.processInfo.activeProcessorCount
        for file in files {
            for threads in cores > 1 ? [1, cores] : [1] {
                try measure(file: file, path: directory.appendingPathComponent(file.name).path, threads: threads)
            }
        }
    }

    /// Loads `path` `rounds` times on `threads` threads, one child process each, and prints the
    /// result line.
    private func measure(file: (name: String, bytes: Int), path: String, threads: Int) throws {
        do {
            var samples: [UInt64] = []
            var peak = 0
            var features = 0
            var tableBytes = 0
            for _ in 0..<rounds {
                let child = try Self.runChild(file: path, threads: threads)
                samples.append(child.nanoseconds)
                peak = max(peak, child.peakKilobytes)
                features = child.features
                tableBytes = child.tableBytes
            }
            let timing = TimingSummary(nanoseconds: samples)
            let megabytesPerSecond = Double(file.bytes) / 1e6 / (timing.medianMilliseconds / 1000)
            emit(
                ResultLine(
                    workload: "load.\(file.name)", timing: timing, rows: features, result: features, sizeName: "features",
                    extras: [
                        ("bytes", String(file.bytes)), ("mb_per_s", ResultLine.milliseconds(megabytesPerSecond)),
                        ("peak_rss_mb", ResultLine.milliseconds(Double(peak) / 1024)), ("table_bytes", String(tableBytes)),
                        ("threads", String(threads)),
                    ]))
        }
    }

    /// What one child reported.
    struct ChildResult {
        var nanoseconds: UInt64
        var features: Int
        var tableBytes: Int
        var peakKilobytes: Int
    }

    /// Runs this executable with `load --measure-file file` and reads its report and peak RSS.
    static func runChild(file: String, threads: Int) throws -> ChildResult {
        let executable = CommandLine.arguments[0].contains("/")
            ? CommandLine.arguments[0] : "/proc/self/exe"
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw ExportError(message: "pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        let arguments = [executable, "load", "--measure-file", file, "--measure-threads", String(threads)]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, nil, &argv, environ)
        close(fds[1])
        guard status == 0 else {
            close(fds[0])
            throw ExportError(message: "cannot start \(executable): error \(status)")
        }
        var output = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fds[0], &chunk, chunk.count)
            if n <= 0 { break }
            output.append(contentsOf: chunk[0..<n])
        }
        close(fds[0])
        var exitStatus: Int32 = 0
        var usage = rusage()
        guard wait4(pid, &exitStatus, 0, &usage) == pid, exitStatus == 0 else {
            throw ExportError(message: "loading \(file) failed in the child (status \(exitStatus))")
        }
        let fields = String(decoding: output, as: UTF8.self).split(whereSeparator: \.isWhitespace)
        guard fields.count == 3, let nanoseconds = UInt64(fields[0]), let features = Int(fields[1]),
            let tableBytes = Int(fields[2])
        else {
            throw ExportError(message: "unexpected report from the child: \(String(decoding: output, as: UTF8.self))")
        }
        // Linux reports ru_maxrss in kilobytes.
        return ChildResult(
            nanoseconds: nanoseconds, features: features, tableBytes: tableBytes, peakKilobytes: Int(usage.ru_maxrss))
    }
}
