import Foundation
import Testing
import SieveTestSupport

/// The progress lines of loading and writing: shown on a terminal (a pseudo-terminal made by
/// util-linux's `script`) once the work takes a second, never with `--quiet`, never when
/// standard error is not a terminal.
@Suite("geosieve progress lines", .tags(.cli))
struct ProgressCLITests {
    static let script = ["/usr/bin/script", "/bin/script"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// A GeoJSONSeq of `count` points, big enough that loading and writing it takes seconds in
    /// a debug build.
    static func writeSequence(count: Int, to url: URL) throws {
        var text = ""
        text.reserveCapacity(count * 100)
        for i in 0..<count {
            text += #"{"type":"Feature","properties":{"name":"point number \#(i)","v":\#(i)},"#
            text += #""geometry":{"type":"Point","coordinates":[\#(Double(i % 3600) / 10 - 180),\#(Double(i % 1800) / 10 - 90)]}}"#
            text += "\n"
        }
        try Data(text.utf8).write(to: url)
    }

    /// Runs `arguments` with standard error (and output) on a pseudo-terminal; the terminal's text.
    static func onTerminal(_ arguments: [String], script: String) throws -> (status: Int32, text: String) {
        let command = ([CLI.executable.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = ["-qec", command, "/dev/null"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test(.enabled(if: script != nil, "needs util-linux script for a pseudo-terminal"))
    func shownOnATerminalOnly() throws {
        let script = try #require(Self.script)
        let directory = try ArgumentTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("points.geojsonl")
        try Self.writeSequence(count: 400_000, to: input)
        let output = directory.appendingPathComponent("out.csv").path

        let shown = try Self.onTerminal(["convert", input.path, "--output", output], script: script)
        #expect(shown.status == 0)
        // Redrawn in place (carriage return, erase line), naming what is done and how fast.
        #expect(shown.text.contains("\r\u{1B}[Kloading \(input.path): "))
        #expect(shown.text.contains(" features/s, ETA "))
        #expect(shown.text.contains("\r\u{1B}[Kwriting \(output): "))
        #expect(shown.text.contains(" of 400000 features ("))
        // Cleared at the end.
        #expect(shown.text.hasSuffix("\r\u{1B}[K"))

        let quiet = try Self.onTerminal(["convert", input.path, "--output", output, "--quiet"], script: script)
        #expect(quiet.status == 0)
        #expect(quiet.text.isEmpty)

        // Standard error a pipe: nothing.
        let piped = try CLI.run(["convert", input.path, "--output", output])
        #expect(piped.status == 0)
        #expect(piped.stderr.isEmpty)
    }
}
