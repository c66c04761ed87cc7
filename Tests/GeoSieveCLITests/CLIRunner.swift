import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What one run of `geosieve` did.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the `geosieve` executable built beside the test binary.
enum CLI {
    /// The package root, where the shipped examples are.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The built `geosieve` binary: it sits in the same products folder as the test binary.
    static var executable: URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent(),
        ]
        for folder in candidates {
            let url = folder.appendingPathComponent("geosieve")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return candidates[0].appendingPathComponent("geosieve")
    }

    /// Runs geosieve; with `feed`, its standard input is a pipe that `feed` writes from another
    /// thread (given the pipe's descriptor, closed when `feed` returns; writes fail quietly once
    /// the tool has gone, SIGPIPE being ignored).
    static func run(_ arguments: [String], feed: (@Sendable (Int32) -> Void)? = nil) throws -> CLIResult {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = feed.map { _ in Pipe() }
        if let input { process.standardInput = input }
        try process.run()
        if let feed, let input {
            signal(SIGPIPE, SIG_IGN)
            let descriptor = dup(input.fileHandleForWriting.fileDescriptor)
            try input.fileHandleForWriting.close()
            Thread {
                feed(descriptor)
                close(descriptor)
            }.start()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLIResult(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}

extension CLI {
    /// Writes `prefix`, then `zeros` zero bytes, to `descriptor`; `false` once a write fails (the
    /// reader has gone).
    @discardableResult
    static func write(_ descriptor: Int32, prefix: [UInt8] = [], zeros: Int = 0) -> Bool {
        func all(_ bytes: ArraySlice<UInt8>) -> Bool {
            var offset = bytes.startIndex
            while offset < bytes.endIndex {
                let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
        guard all(prefix[...]) else { return false }
        let piece = [UInt8](repeating: 0, count: 1 << 20)
        var left = zeros
        while left > 0 {
            guard all(piece.prefix(left)) else { return false }
            left -= min(left, piece.count)
        }
        return true
    }
}
