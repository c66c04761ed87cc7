internal import CZlib
internal import CZstd

/// The page codecs of Parquet GeoSieve reads and writes: none, Snappy (libsnappy), GZIP (zlib)
/// and ZSTD (libzstd).
enum ParquetCompression {
    /// The largest page GeoSieve decompresses.
    static let maximumPageSize = 1 << 30

    /// `input`, decompressed to the `expected` bytes its page header says.
    static func decompress(_ input: UnsafeRawBufferPointer, codec: Int32, expected: Int) throws(FileFormatError) -> [UInt8] {
        guard let known = ParquetCodec(rawValue: codec) else { throw FileFormatError(.unsupported, "compression codec \(codec)") }
        // A header may declare any size: more than 16 MiB is allocated only when the data could
        // hold it (no codec GeoSieve reads expands more than 1,024 times on real pages).
        guard expected >= 0, expected <= maximumPageSize, expected <= max(16 << 20, input.count * 1024) else {
            throw FileFormatError(.malformed, "a page declares \(expected) uncompressed bytes from \(input.count) compressed")
        }
        switch known {
        case .uncompressed:
            guard input.count == expected else {
                throw FileFormatError(.malformed, "an uncompressed page of \(input.count) bytes whose header says \(expected)")
            }
            return Array(input)
        case .snappy:
            return try Snappy.decompress(input, expectedCount: expected)
        case .gzip:
            return try inflate(input, expected: expected)
        case .zstd:
            return try zstdDecompress(input, expected: expected)
        default:
            throw FileFormatError(.unsupported, "\(known.name) compression (none, SNAPPY, GZIP and ZSTD are read)")
        }
    }

    /// `input` compressed with `codec` (none, Snappy, GZIP or ZSTD).
    static func compress(_ input: [UInt8], codec: ParquetCodec) throws(FileFormatError) -> [UInt8] {
        switch codec {
        case .uncompressed: return input
        case .snappy: return input.withUnsafeBytes { Snappy.compress($0) }
        case .gzip: return try gzip(input)
        case .zstd: return try zstdCompress(input)
        default: throw FileFormatError(.cannotWrite, "\(codec.name) compression (none, snappy, gzip and zstd are written)")
        }
    }

    /// GZIP (or zlib) data inflated to exactly `expected` bytes; concatenated gzip members are
    /// read one after another, as gzip readers do.
    private static func inflate(_ input: UnsafeRawBufferPointer, expected: Int) throws(FileFormatError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: expected)
        var produced = 0
        var consumed = 0
        while consumed < input.count, produced < expected || consumed == 0 {
            var stream = z_stream()
            // 15 + 32: a gzip or a zlib header, detected.
            guard inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                throw FileFormatError(.malformed, "zlib could not start inflating")
            }
            defer { inflateEnd(&stream) }
            let status: Int32 = output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) + consumed })
                stream.avail_in = uInt(min(input.count - consumed, Int(UInt32.max)))
                stream.next_out = out.baseAddress.map { $0 + produced }
                stream.avail_out = uInt(out.count - produced)
                return CZlib.inflate(&stream, Z_FINISH)
            }
            consumed += Int(stream.total_in)
            produced += Int(stream.total_out)
            guard status == Z_STREAM_END else {
                throw FileFormatError(
                    .malformed,
                    status == Z_BUF_ERROR
                        ? "GZIP data that inflates to more or fewer than the \(expected) bytes its page header says"
                        : "bad GZIP data (zlib status \(status))",
                    byteOffset: consumed)
            }
            if stream.total_in == 0 { break }
        }
        guard produced == expected else {
            throw FileFormatError(.malformed, "GZIP data inflates to \(produced) bytes, its page header says \(expected)")
        }
        return output
    }

    private static func gzip(_ input: [UInt8]) throws(FileFormatError) -> [UInt8] {
        guard let compressed = Deflate.compress(input, windowBits: 15 + 16) else { throw FileFormatError(.writeFailed, "zlib could not deflate a page") }
        return compressed
    }

    private static func zstdDecompress(_ input: UnsafeRawBufferPointer, expected: Int) throws(FileFormatError) -> [UInt8] {
        var failure: FileFormatError?
        let output = [UInt8](unsafeUninitializedCapacity: expected) { buffer, count in
            let result = ZSTD_decompress(buffer.baseAddress, expected, input.baseAddress, input.count)
            if ZSTD_isError(result) != 0 {
                let name = ZSTD_getErrorName(result).map { String(cString: $0) } ?? "error \(result)"
                failure = FileFormatError(.malformed, "bad ZSTD data (\(name))")
                count = 0
            } else if result != expected {
                failure = FileFormatError(.malformed, "ZSTD data decompresses to \(result) bytes, its page header says \(expected)")
                count = 0
            } else {
                count = expected
            }
        }
        if let failure { throw failure }
        return output
    }

    private static func zstdCompress(_ input: [UInt8]) throws(FileFormatError) -> [UInt8] {
        let bound = ZSTD_compressBound(input.count)
        var failure: FileFormatError?
        let output = [UInt8](unsafeUninitializedCapacity: bound) { buffer, count in
            let result = input.withUnsafeBytes { ZSTD_compress(buffer.baseAddress, bound, $0.baseAddress, $0.count, 3) }
            if ZSTD_isError(result) != 0 {
                failure = FileFormatError(.writeFailed, "ZSTD could not compress a page")
                count = 0
            } else {
                count = result
            }
        }
        if let failure { throw failure }
        return output
    }
}
