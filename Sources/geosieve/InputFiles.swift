#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading the files named on the command line: the SOURCE data file, `--schema FILE` and
/// `@FILE` arguments.
///
/// The exit status rule: a file that cannot be opened or read (missing, a directory, no
/// permission, an I/O error) exits with status 1, like every "cannot read" failure of the tool;
/// a file that reads but whose content is rejected (too large for an argument file, not UTF-8,
/// not valid JSON, WKT, …) is bad input and exits with status 2.
///
/// Argument files (`@FILE`, `--schema FILE`) hold one geometry or one fields list, which
/// have no business being gigabytes, so they are capped at ``argumentFileLimit``: a regular
/// file's size is checked before anything is read, and any other file (a pipe, a device such as
/// `/dev/zero`) is read only until it passes the limit. The SOURCE file is not capped.
enum InputFiles {
    /// The largest argument file accepted: 64 MiB.
    ///
    /// A polygon of a million vertices written with full double precision is about 40 MB of
    /// GeoJSON, Esri JSON or WKT, so this leaves room for the largest single geometries real
    /// data has, while bounding the memory one argument can make the tool use (the parsed JSON
    /// of a 64 MiB geometry takes a few hundred MB).
    static let argumentFileLimit = 64 << 20

    /// The text of an argument file, for `option` (`--a`, `--schema`, …).
    /// - Throws: ``CommandFailure`` with status 1 when the file cannot be read, status 2 when
    ///   it is larger than ``argumentFileLimit`` or not UTF-8.
    static func argumentText(_ path: String, option: String) throws -> String {
        let bytes = try contents(of: path, limit: argumentFileLimit, option: option)
        return try text(bytes, path: path, option: option)
    }

    /// The bytes of the file at `path`, read whole; with `limit`, at most that many (a larger
    /// file is an error, found from its size before reading when it is a regular file).
    /// - Throws: ``CommandFailure`` with status 1 when the file cannot be opened or read, or
    ///   is a directory; status 2 when it is larger than `limit`.
    static func contents(of path: String, limit: Int?, option: String?) throws -> [UInt8] {
        let prefix = option.map { "\($0): " } ?? ""
        func unreadable(_ reason: String) -> CommandFailure {
            .unreadable("\(prefix)cannot read \(path): \(reason)")
        }
        func tooLarge(_ size: Int?) -> CommandFailure {
            let limitText = "\(argumentFileLimit >> 20) MiB"
            let sizeText = size.map { "is \($0) bytes" } ?? "holds more than \(limitText)"
            return CommandFailure(
                "\(prefix)the file \(path) \(sizeText); argument files are limited to \(limitText) "
                    + "(\(limit ?? argumentFileLimit) bytes)")
        }
        let descriptor = path == "-" ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw unreadable(reason(errno)) }
        defer { _ = close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw unreadable(reason(errno)) }
        let fileType = status.st_mode & mode_t(S_IFMT)
        guard fileType != mode_t(S_IFDIR) else { throw unreadable("is a directory") }
        let isRegular = fileType == mode_t(S_IFREG)
        let knownSize = isRegular ? Int(exactly: status.st_size) : nil
        if let limit, let knownSize, knownSize > limit { throw tooLarge(knownSize) }

        // Read until end of file; never more than limit + 1 bytes, so that a pipe or a device
        // that never ends (/dev/zero) stops at the limit. A regular file is read in one piece
        // of its size (plus one byte, to see the end); anything else in growing pieces.
        let ceiling = limit.map { $0 + 1 } ?? Int.max
        var bytes: [UInt8] = []
        var pieceSize = Swift.min(ceiling, knownSize.map { $0 < Int.max ? $0 + 1 : $0 } ?? 64 << 10)
        while true {
            let piece = try readPiece(descriptor, count: pieceSize, unreadable: unreadable)
            if bytes.isEmpty { bytes = piece } else { bytes.append(contentsOf: piece) }
            if piece.count < pieceSize || bytes.count >= ceiling { break }  // end of file, or enough
            pieceSize = Swift.min(ceiling - bytes.count, Swift.min(pieceSize * 2, 16 << 20))
        }
        if let limit, bytes.count > limit { throw tooLarge(isRegular ? bytes.count : nil) }
        return bytes
    }

    /// Up to `count` bytes from `descriptor`: fewer only at the end of the file.
    private static func readPiece(
        _ descriptor: Int32, count: Int, unreadable: (String) -> CommandFailure
    ) throws -> [UInt8] {
        var failure: Int32 = 0
        let piece = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = 0
            guard let base = buffer.baseAddress else { return }
            while initialized < count {
                let got = read(descriptor, base + initialized, Swift.min(count - initialized, 1 << 30))
                if got < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if got == 0 { return }
                initialized += got
            }
        }
        if failure != 0 { throw unreadable(reason(failure)) }
        return piece
    }

    /// The UTF-8 text of an argument file's bytes, without a leading byte order mark.
    /// - Throws: ``CommandFailure`` (status 2) naming the byte offset of the first byte that is
    ///   not UTF-8.
    static func text(_ bytes: [UInt8], path: String, option: String) throws -> String {
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes[3...] : bytes[...]
        if let text = String(validating: body, as: UTF8.self) { return text }
        // Not UTF-8: find the offset of the first bad byte for the message.
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: break decoding
            case .error:
                throw CommandFailure("\(option): the file \(path) is not UTF-8 text (byte offset \(offset))")
            }
        }
        return String(decoding: body, as: UTF8.self)
    }

    /// The most a SOURCE read from standard input, a pipe or a device may hold: 2 GiB. Such
    /// input is read into memory before it is loaded (a regular file is mapped instead and has
    /// no limit), so the limit bounds what an endless stream can make the tool hold.
    static let streamLimit = 2 << 30

    /// A descriptor open on the SOURCE `path` when it must be read as a stream: standard input
    /// (`-`), a pipe, a device; `nil` for a regular file (which the loader maps).
    /// - Throws: ``CommandFailure`` (status 1) when the file is missing, a directory or not
    ///   readable.
    static func openStream(_ path: String) throws -> Int32? {
        if path == "-" { return dup(STDIN_FILENO) }
        // Told by stat, not by opening: opening a FIFO and closing it again would end the
        // writer's stream.
        var status = stat()
        guard stat(path, &status) == 0 else { throw CommandFailure.unreadable("cannot read \(path): \(reason(errno))") }
        let fileType = status.st_mode & mode_t(S_IFMT)
        guard fileType != mode_t(S_IFDIR) else { throw CommandFailure.unreadable("cannot read \(path): is a directory") }
        if fileType == mode_t(S_IFREG) {
            try checkReadable(path)
            return nil
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CommandFailure.unreadable("cannot read \(path): \(reason(errno))") }
        return descriptor
    }

    /// Throws an unreadable-file failure (exit status 1) when the file at `path` is missing, a
    /// directory or not readable.
    static func checkReadable(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw CommandFailure.unreadable("cannot read \(path): \(reason(errno))") }
        defer { _ = close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & mode_t(S_IFMT) == mode_t(S_IFDIR) {
            throw CommandFailure.unreadable("cannot read \(path): is a directory")
        }
    }

    /// A short reason for an `errno` value.
    private static func reason(_ code: Int32) -> String {
        switch code {
        case ENOENT: return "no such file"
        case EACCES, EPERM: return "permission denied"
        case EISDIR: return "is a directory"
        case ENOTDIR: return "a component of the path is not a directory"
        default: return String(cString: strerror(code))
        }
    }
}

/// The text of an argument: the argument itself, or with `@PATH` the contents of that file (for
/// geometries and where clauses too large for a command line, which holds at most 128 KiB per
/// argument on Linux), read as ``InputFiles`` reads argument files.
func argumentText(_ argument: String, argument name: String) throws -> String {
    guard argument.hasPrefix("@") else { return argument }
    return try InputFiles.argumentText(String(argument.dropFirst()), option: name)
}
