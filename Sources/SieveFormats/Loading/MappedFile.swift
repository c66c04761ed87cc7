import SieveFeatures
import SieveGeometry
import SieveJSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A regular file mapped read-only into memory, for loaders that read it once from start to
/// end: the pages already read are handed back to the system as the loader moves on
/// (``release(_:_:)``), so that a load's memory is its table, not the table and the file.
/// Pages handed back are read again from the file if touched again.
final class MappedFile: @unchecked Sendable {
    /// The file's bytes (empty for an empty file).
    let buffer: UnsafeBufferPointer<UInt8>
    private let base: UnsafeMutableRawPointer?
    private let length: Int
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// Maps the regular file at `path`; `nil` when it cannot be mapped (not a regular file, a
    /// system without the call), so that the caller reads it instead.
    /// - Throws: ``/SieveFeatures/FeatureTableError/Kind/unreadableFile`` when it cannot be opened.
    init?(path: String) throws(FeatureTableError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw FeatureTableError(.unreadableFile, "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, let size = Int(exactly: status.st_size) else {
            return nil
        }
        if size == 0 {
            base = nil
            length = 0
            buffer = UnsafeBufferPointer(start: nil, count: 0)
            return
        }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else { return nil }
        base = mapped
        length = size
        buffer = UnsafeBufferPointer(start: mapped.assumingMemoryBound(to: UInt8.self), count: size)
        _ = madvise(mapped, size, MADV_SEQUENTIAL)
    }

    /// Hands the whole pages within bytes `start..<end` back to the system.
    func release(_ start: Int, _ end: Int) {
        guard let base, end > start else { return }
        let first = (start + Self.pageSize - 1) / Self.pageSize * Self.pageSize
        let last = Swift.min(end, length) / Self.pageSize * Self.pageSize
        guard last > first else { return }
        _ = madvise(base + first, last - first, MADV_DONTNEED)
    }

    deinit {
        if let base { munmap(base, length) }
    }
}

extension FeatureTable {
    /// Loads the GeoJSON, GeoJSONSeq or Esri JSON file at `path` as
    /// ``loadReporting(json:schema:options:)`` does. A regular file is mapped into memory and
    /// the pages already read are handed back as the load goes on, so that memory stays about
    /// the table's size however large the file; other files (pipes, devices) are read as
    /// ``loadReporting(fileDescriptor:name:limit:schema:options:)`` reads them, without a limit.
    /// - Throws: ``/SieveFeatures/FeatureTableError/Kind/unreadableFile`` when the file cannot be
    ///   read, else as the loaders do.
    public static func loadReporting(
        contentsOfFile path: String, schema: [Field]? = nil, options: LoadOptions = LoadOptions()
    ) throws(FeatureTableError) -> (table: FeatureTable, report: LoadReport) {
        if let file = try MappedFile(path: path) {
            return try StreamingLoader.load(file.buffer, schema: schema, options: options, expected: nil) { start, end in
                file.release(start, end)
            }
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw FeatureTableError(.unreadableFile, "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        return try loadReporting(fileDescriptor: descriptor, name: path, limit: nil, schema: schema, options: options)
    }

    /// Loads what can be read from `descriptor` (standard input, a pipe, a device) as
    /// ``loadReporting(json:schema:options:)`` does, reading to its end.
    ///
    /// The bytes are checked as they arrive, so reading stops at the first byte that cannot be
    /// part of JSON text and the load fails there, with the loader's message and position:
    /// `/dev/zero` fails at its first byte, not when memory runs out. Input that stays JSON is
    /// read whole before it is loaded; with `limit`, input longer than `limit` bytes is refused
    /// as soon as it passes the limit.
    /// - Parameter descriptor: The file descriptor to read from; it is not closed.
    /// - Parameter name: how the input is named in errors (a path, "standard input").
    /// - Parameter limit: The most bytes accepted; `nil` for no limit.
    /// - Parameter schema: The fields, as ``load(geoJSON:schema:)`` takes them; `nil` to infer
    ///   them.
    /// - Parameter options: How invalid features, the geometry type, threads and progress are
    ///   handled.
    /// - Throws: ``/SieveFeatures/FeatureTableError/Kind/unreadableFile`` when reading fails,
    ///   ``/SieveFeatures/FeatureTableError/Kind/inputTooLarge`` when the input is longer than
    ///   `limit`; else as the loaders do.
    public static func loadReporting(
        fileDescriptor descriptor: Int32, name: String, limit: Int?, schema: [Field]? = nil, options: LoadOptions = LoadOptions()
    ) throws(FeatureTableError) -> (table: FeatureTable, report: LoadReport) {
        var check = JSONSyntaxCheck()
        var bytes: [UInt8] = []
        var badByte: Int?
        let pieceSize = 1 << 20
        var piece = [UInt8](repeating: 0, count: pieceSize)
        reading: while true {
            let got = piece.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw FeatureTableError(.unreadableFile, "cannot read \(name): \(String(cString: strerror(errno)))")
            }
            if got == 0 { break }
            let bad = piece.withUnsafeBufferPointer { check.check(UnsafeBufferPointer(rebasing: $0[0..<got])) }
            // Up to and including a bad byte (the loader fails there), else the whole piece.
            let kept = bad.map { $0 - bytes.count + 1 } ?? got
            if let limit, kept > limit - bytes.count {
                throw FeatureTableError(
                    .inputTooLarge,
                    "\(name) holds more than \(limit) bytes, the most read from a pipe or device (a regular file has no such limit)")
            }
            bytes.append(contentsOf: piece[0..<kept])
            if let bad {
                badByte = bad
                break reading
            }
        }
        let loaded = try loadReporting(json: bytes, schema: schema, options: options)
        if let badByte {
            // The check accepts all the loader accepts, so this is not reached; should it be,
            // the input is still refused, at the byte the check found.
            throw FeatureTableError(.invalidJSON, "unexpected byte 0x\(String(bytes[badByte], radix: 16)) at byte offset \(badByte)")
        }
        return loaded
    }
}

extension FeatureTable {
    /// The most a table read from standard input, a pipe or a device may hold by default:
    /// 2 GiB. Such input is read into memory before it is loaded (a regular file is mapped and
    /// has no limit), so the limit bounds what an endless stream can make a load hold.
    public static let defaultStreamLimit = 2 << 30

    /// Loads the GeoJSON, GeoJSONSeq or Esri JSON at `path`, whatever it is: `-` for standard
    /// input; a regular file, mapped; a pipe, FIFO or device, read as a stream up to its first
    /// byte that cannot be JSON and at most `streamLimit` bytes. A FIFO is told apart by `stat`,
    /// never by opening it twice, so that its writer's stream is not cut.
    /// - Throws: ``/SieveFeatures/FeatureTableError/Kind/unreadableFile`` (`cannot read PATH: no
    ///   such file`, `… is a directory`, `… permission denied`),
    ///   ``/SieveFeatures/FeatureTableError/Kind/inputTooLarge``, else as the loaders do.
    public static func loadReporting(
        path: String, streamLimit: Int? = defaultStreamLimit, schema: [Field]? = nil, options: LoadOptions = LoadOptions()
    ) throws(FeatureTableError) -> (table: FeatureTable, report: LoadReport) {
        let name = path == "-" ? "standard input" : path
        if let stream = try openStream(path) {
            defer { _ = close(stream) }
            return try loadReporting(fileDescriptor: stream, name: name, limit: streamLimit, schema: schema, options: options)
        }
        return try loadReporting(contentsOfFile: path, schema: schema, options: options)
    }

    /// A descriptor open on `path` when it must be read as a stream (standard input, a pipe, a
    /// device); `nil` for a regular file, which is mapped.
    private static func openStream(_ path: String) throws(FeatureTableError) -> Int32? {
        if path == "-" { return dup(STDIN_FILENO) }
        var status = stat()
        guard stat(path, &status) == 0 else { throw unreadable(path, errno) }
        let fileType = status.st_mode & mode_t(S_IFMT)
        guard fileType != mode_t(S_IFDIR) else { throw unreadable(path, EISDIR) }
        if fileType == mode_t(S_IFREG) {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard descriptor >= 0 else { throw unreadable(path, errno) }
            _ = close(descriptor)
            return nil
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw unreadable(path, errno) }
        return descriptor
    }

    /// `cannot read PATH: reason`.
    static func unreadable(_ path: String, _ code: Int32) -> FeatureTableError {
        FeatureTableError(.unreadableFile, "cannot read \(path): \(unreadableReason(code))")
    }

    /// A short reason for an `errno` value.
    package static func unreadableReason(_ code: Int32) -> String {
        switch code {
        case ENOENT: "no such file"
        case EACCES, EPERM: "permission denied"
        case EISDIR: "is a directory"
        case ENOTDIR: "a component of the path is not a directory"
        default: String(cString: strerror(code))
        }
    }
}
