import Foundation

/// Whole files written atomically: beside their target, then renamed into place, so that a
/// failed write leaves what was there.
enum AtomicFile {
    /// Writes `bytes` to a temporary file beside `path` and renames it into place.
    static func write(_ bytes: [UInt8], to path: String) throws(FileFormatError) {
        let temporary = path + ".geosieve-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))"
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: temporary))
            if rename(temporary, path) != 0 {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(atPath: temporary)
                throw FileFormatError(.writeFailed, "cannot move the new file into place: \(reason)", path: path)
            }
        } catch let error as FileFormatError {
            throw error
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw FileFormatError(.writeFailed, "cannot write \(path): \(error.localizedDescription)", path: path)
        }
    }

    /// Writes the bytes `body` hands to its sink, in order, to a temporary file beside `path`
    /// (through a 1 MiB buffer, so that a large file is never held whole) and renames it into
    /// place; a failure removes the temporary file and leaves what was at `path`.
    static func write(
        to path: String, _ body: (_ sink: (UnsafeRawBufferPointer) throws(FileFormatError) -> Void) throws(FileFormatError) -> Void
    ) throws(FileFormatError) {
        let temporary = path + ".geosieve-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))"
        guard FileManager.default.createFile(atPath: temporary, contents: nil), let handle = FileHandle(forWritingAtPath: temporary) else {
            throw FileFormatError(.writeFailed, "cannot create a file beside \(path)", path: path)
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20)
        func flush() throws(FileFormatError) {
            guard !buffer.isEmpty else { return }
            do {
                try handle.write(contentsOf: buffer)
            } catch {
                throw FileFormatError(.writeFailed, "cannot write \(path): \(error.localizedDescription)", path: path)
            }
            buffer.removeAll(keepingCapacity: true)
        }
        do throws(FileFormatError) {
            try body { (bytes) throws(FileFormatError) in
                buffer.append(contentsOf: bytes)
                if buffer.count >= 1 << 20 { try flush() }
            }
            try flush()
            do {
                try handle.close()
            } catch {
                throw FileFormatError(.writeFailed, "cannot write \(path): \(error.localizedDescription)", path: path)
            }
            if rename(temporary, path) != 0 {
                throw FileFormatError(.writeFailed, "cannot move the new file into place: \(String(cString: strerror(errno)))", path: path)
            }
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
    }
}
