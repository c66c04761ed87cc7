import Foundation
import Testing
import SieveTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What `--output` does with each kind of path: a regular file is replaced whole (keeping its
/// permissions), a symbolic link is followed to its target, a FIFO or device is written
/// directly, a directory is refused, and `-` is standard output for every command.
@Suite("geosieve --output paths", .tags(.cli))
struct OutputPathTests {
    static let cities = ArgumentTests.cities
    static let query = ["query", cities, "--where", "name = 'Paris'", "--out-fields", "name"]

    /// The file type bits of `path` itself (not followed).
    static func type(_ path: String) -> mode_t {
        var status = stat()
        guard lstat(path, &status) == 0 else { return 0 }
        return status.st_mode & mode_t(S_IFMT)
    }

    @Test func aSymbolicLinkIsFollowedAndKept() throws {
        let directory = try ArgumentTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let expected = try ArgumentTests.success(Self.query)
        let target = directory.appendingPathComponent("target.geojson").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        #expect(chmod(target, 0o600) == 0)
        let link = directory.appendingPathComponent("link.geojson").path
        #expect(symlink("target.geojson", link) == 0)  // relative to the link's folder
        #expect(try ArgumentTests.success(Self.query + ["--output", link]).isEmpty)
        #expect(Self.type(link) == mode_t(S_IFLNK))
        #expect(try String(contentsOfFile: target, encoding: .utf8) == expected)
        // The replaced file keeps its permissions.
        var status = stat()
        #expect(stat(target, &status) == 0 && status.st_mode & 0o777 == 0o600)
        // A dangling link: its target is created.
        let dangling = directory.appendingPathComponent("dangling.geojson").path
        let missing = directory.appendingPathComponent("new.geojson").path
        #expect(symlink(missing, dangling) == 0)
        #expect(try ArgumentTests.success(Self.query + ["--output", dangling]).isEmpty)
        #expect(Self.type(dangling) == mode_t(S_IFLNK))
        #expect(try String(contentsOfFile: missing, encoding: .utf8) == expected)
        // A GeoPackage through a link too.
        let gpkgTarget = directory.appendingPathComponent("cities.gpkg").path
        let gpkgLink = directory.appendingPathComponent("link.gpkg").path
        #expect(symlink(gpkgTarget, gpkgLink) == 0)
        #expect(try ArgumentTests.success(["convert", Self.cities, "--output", gpkgLink]).isEmpty)
        #expect(Self.type(gpkgLink) == mode_t(S_IFLNK))
        #expect(Self.type(gpkgTarget) == mode_t(S_IFREG))
        #expect(try ArgumentTests.success(["query", gpkgTarget, "--return", "count"]) == #"{"count":243}"# + "\n")
        // A loop of links is an error, not a hang.
        let loop = directory.appendingPathComponent("loop.geojson").path
        #expect(symlink(loop, loop) == 0)
        let line = try ArgumentTests.failure(Self.query + ["--output", loop], status: 1)
        #expect(line.contains("too many levels of symbolic links"), "\(line)")
    }

    @Test func aFIFOIsWrittenDirectly() throws {
        let directory = try ArgumentTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let expected = try ArgumentTests.success(Self.query)
        let fifo = directory.appendingPathComponent("out.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let received = Received()
        let reader = Thread {
            guard let handle = FileHandle(forReadingAtPath: fifo) else { return }
            received.set(handle.readDataToEndOfFile())
        }
        reader.start()
        #expect(try ArgumentTests.success(Self.query + ["--output", fifo]).isEmpty)
        for _ in 0..<200 where received.data == nil { usleep(10_000) }
        #expect(received.data.map { String(decoding: $0, as: UTF8.self) } == expected)
        #expect(Self.type(fifo) == mode_t(S_IFIFO))
    }

    @Test func aDeviceIsWrittenAndKept() throws {
        #expect(try ArgumentTests.success(Self.query + ["--output", "/dev/null"]).isEmpty)
        #expect(Self.type("/dev/null") == mode_t(S_IFCHR))
        // /dev/stdout: a link to /proc/self/fd/1, here a pipe; the link stays.
        #expect(try ArgumentTests.success(Self.query + ["--output", "/dev/stdout"]) == ArgumentTests.success(Self.query))
        #expect(Self.type("/dev/stdout") == mode_t(S_IFLNK))
        // A GeoPackage needs a regular file.
        let line = try ArgumentTests.failure(["convert", Self.cities, "--format", "gpkg", "--output", "/dev/null"], status: 1)
        #expect(line == "error: cannot write /dev/null: is not a regular file (a GeoPackage is a database file)")
    }

    @Test func aDirectoryIsRefused() throws {
        let directory = try ArgumentTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let line = try ArgumentTests.failure(Self.query + ["--output", directory.path], status: 1)
        #expect(line == "error: cannot write \(directory.path): is a directory")
        let gpkg = try ArgumentTests.failure(["convert", Self.cities, "--format", "gpkg", "--output", directory.path], status: 1)
        #expect(gpkg == "error: cannot write \(directory.path): is a directory")
        #expect(Self.type(directory.path) == mode_t(S_IFDIR))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func aDashIsStandardOutput() throws {
        let directory = try ArgumentTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let expected = try ArgumentTests.success(Self.query)
        #expect(try ArgumentTests.success(Self.query + ["--output", "-"]) == expected)
        let converted = try ArgumentTests.success(["convert", Self.cities, "--where", "name = 'Paris'", "--output", "-", "--format", "geojson"])
        #expect(converted.contains(#""name":"Paris""#))
        let identify = ["identify", Self.cities, "--point", "2.35,48.86", "--tolerance", "3", "--map-extent", "0,47,5,50", "--size", "500,300"]
        #expect(try ArgumentTests.success(identify + ["--output", "-"]) == ArgumentTests.success(identify))
        // render: the SVG on standard output, the summary on standard error.
        let render = ["render", Self.cities, "--map-extent", "0,47,5,50", "--size", "500,300"]
        let file = directory.appendingPathComponent("map.svg").path
        let summary = try ArgumentTests.success(render + ["--output", file])
        let svg = try String(contentsOfFile: file, encoding: .utf8)
        let result = try CLI.run(render + ["--output", "-"])
        #expect(result.status == 0)
        #expect(result.stdout == svg)
        #expect(result.stderr == summary.replacingOccurrences(of: #""output":"\#(file)""#, with: #""output":"-""#))
        // No file named "-" anywhere.
        #expect(!FileManager.default.fileExists(atPath: CLI.packageRoot.appendingPathComponent("-").path))
        let gpkg = try ArgumentTests.failure(["convert", Self.cities, "--format", "gpkg", "--output", "-"], status: 2)
        #expect(gpkg.contains("a GeoPackage cannot be written to standard output"))
    }
}

/// Bytes read on another thread.
final class Received: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes: Data?
    func set(_ new: Data) { lock.withLock { bytes = new } }
    var data: Data? { lock.withLock { bytes } }
}
