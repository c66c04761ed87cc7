import Foundation

/// A file written through a 4 MiB buffer: the generated data files of the workloads.
struct BufferedFile {
    private let handle: FileHandle
    private let path: String
    /// Bytes not yet written; append to it, then call ``flushIfFull()``.
    var buffer: [UInt8] = []
    /// Bytes written so far.
    private(set) var written = 0
    private static let flushSize = 1 << 22

    /// Creates (or truncates) the file at `url`.
    init(_ url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil),
            let handle = FileHandle(forWritingAtPath: url.path)
        else {
            throw ExportError(message: "cannot create \(url.path)")
        }
        self.handle = handle
        self.path = url.path
        buffer.reserveCapacity(Self.flushSize + 65_536)
    }

    /// Writes the buffer out once it holds 4 MiB.
    mutating func flushIfFull() throws {
        if buffer.count >= Self.flushSize { try flush() }
    }

    /// Writes what is buffered and closes the file; returns the bytes written in all.
    mutating func close() throws -> Int {
        try flush()
        try handle.close()
        return written
    }

    private mutating func flush() throws {
        try handle.write(contentsOf: buffer)
        written += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }
}
