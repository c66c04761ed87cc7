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
}
