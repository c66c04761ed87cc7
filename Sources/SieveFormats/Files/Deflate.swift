internal import CZlib

/// Deflate compression through the system zlib, for zip archives (raw deflate) and GZIP
/// Parquet pages (a gzip header and trailer).
package enum Deflate {
    /// `bytes` deflated at zlib level `level` (1 fastest … 9 smallest, 6 by default);
    /// `windowBits` chooses the wrapping as zlib's `deflateInit2` does (−15 raw, 15 zlib, 31
    /// gzip). `nil` if zlib fails.
    package static func compress(_ bytes: [UInt8], windowBits: Int32, level: Int32 = 6) -> [UInt8]? {
        var stream = z_stream()
        guard deflateInit2_(&stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        // deflateBound leaves out the gzip wrapper's 18 bytes.
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 32)
        let status: Int32 = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                return CZlib.deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }
}
