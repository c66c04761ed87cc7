import Foundation
import Testing
import SieveTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Sources read as streams (standard input, pipes, devices, FIFOs) stop at their first byte
/// that is not JSON; the edits file is capped like every argument file; counts at the end of
/// their type do not trap.
@Suite("geosieve streams, caps and extreme counts", .tags(.cli))
struct InputStreamTests {
    static let countries = ArgumentTests.countries

    @Test func aDeviceThatNeverEndsFailsAtItsFirstByte() throws {
        let start = Date()
        let line = try ArgumentTests.failure(["query", "/dev/zero", "--return", "count"], status: 2)
        #expect(line.hasPrefix("error: /dev/zero: invalid JSON at line 1, column 1 (byte offset 0)"), "\(line)")
        #expect(Date().timeIntervalSince(start) < 10)
    }

    @Test func zerosOnAPipeFailAtTheFirstOne() throws {
        // 512 MiB offered: the tool stops reading at the first zero.
        let start = Date()
        let result = try CLI.run(["query", "-", "--return", "count"]) { descriptor in
            CLI.write(descriptor, zeros: 512 << 20)
        }
        #expect(Date().timeIntervalSince(start) < 10)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("error: standard input: invalid JSON at line 1, column 1 (byte offset 0)"), "\(result.stderr)")
        // After a FeatureCollection's opening: the first zero is byte 40.
        let prefix = Array(#"{"type":"FeatureCollection","features":["#.utf8)
        let cut = try CLI.run(["query", "-", "--return", "count"]) { descriptor in
            CLI.write(descriptor, prefix: prefix, zeros: 512 << 20)
        }
        #expect(cut.status == 2)
        #expect(cut.stderr.contains("(byte offset \(prefix.count))"), "\(cut.stderr)")
        #expect(cut.stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test func jsonOnAPipeOrAFIFOIsReadWhole() throws {
        let bytes = try [UInt8](Data(contentsOf: CLI.packageRoot.appendingPathComponent(Self.countries)))
        let expected = try ArgumentTests.success(["query", Self.countries, "--return", "count"])
        let piped = try CLI.run(["query", "-", "--return", "count"]) { descriptor in CLI.write(descriptor, prefix: bytes) }
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.stdout == expected)
        // A FIFO named as SOURCE: read as a stream too, to its end.
        let directory = try ArgumentTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("countries.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread {
            let descriptor = open(fifo, O_WRONLY)
            guard descriptor >= 0 else { return }
            CLI.write(descriptor, prefix: bytes)
            close(descriptor)
        }
        writer.start()
        #expect(try ArgumentTests.success(["query", fifo, "--return", "count"]) == expected)
    }

    @Test func theEditsFileIsCappedBeforeItIsRead() throws {
        let directory = try ArgumentTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let huge = directory.appendingPathComponent("edits.json").path
        #expect(FileManager.default.createFile(atPath: huge, contents: nil))
        #expect(truncate(huge, 2 << 30) == 0)  // sparse: no space taken
        let source = directory.appendingPathComponent("countries.geojson")
        try FileManager.default.copyItem(at: CLI.packageRoot.appendingPathComponent(Self.countries), to: source)
        let before = try Data(contentsOf: source)
        let start = Date()
        let line = try ArgumentTests.failure(["edit", source.path, "--edits", huge], status: 2)
        #expect(line == "error: --edits: the file \(huge) is 2147483648 bytes; argument files are limited to 64 MiB (67108864 bytes)")
        #expect(Date().timeIntervalSince(start) < 10)
        #expect(try Data(contentsOf: source) == before)
    }

    @Test func identifyWithTheLargestCount() throws {
        // One more than Int64.max results would not fit: no limit is the same answer.
        let base = ["identify", Self.countries, "--point", "0,0", "--tolerance", "3", "--map-extent=-180,-90,180,90", "--size", "100,100"]
        let largest = try ArgumentTests.success(base + ["--max-results", "9223372036854775807"])
        let many = try ArgumentTests.success(base + ["--max-results", "1000000"])
        #expect(largest == many)
        #expect(largest.contains(#""results":[{"#))
    }
}
