internal import CSnappy

/// Snappy's raw block format, as Parquet pages use it (not the framing format of Snappy
/// streams), through the system Snappy library's C interface.
///
/// A block starts with its uncompressed length (a little-endian base-128 varint); GeoSieve checks
/// it against what the caller expects and against what the block could hold before allocating,
/// and Snappy's decompressor checks every element, so hostile bytes throw rather than read or
/// write out of bounds or allocate what they declare.
enum Snappy {
    /// Decompresses one Snappy block.
    /// - Parameters:
    ///   - input: The compressed block.
    ///   - expectedCount: The uncompressed size the caller knows (Parquet page headers give it);
    ///     the block's own length must equal it when given.
    /// - Returns: The uncompressed bytes.
    /// - Throws: ``FileFormatError`` of kind ``FileFormatError/Kind/malformed``.
    static func decompress(_ input: UnsafeRawBufferPointer, expectedCount: Int? = nil) throws(FileFormatError) -> [UInt8] {
        guard let base = input.baseAddress?.assumingMemoryBound(to: CChar.self), !input.isEmpty else {
            throw FileFormatError(.malformed, "snappy: an empty block has no length", byteOffset: 0)
        }
        var declared = 0
        guard snappy_uncompressed_length(base, input.count, &declared) == SNAPPY_OK else {
            throw FileFormatError(.malformed, "snappy: the block does not start with a valid length", byteOffset: 0)
        }
        if let expectedCount, declared != expectedCount {
            throw FileFormatError(.malformed, "snappy: the block holds \(declared) bytes, \(expectedCount) were expected", byteOffset: 0)
        }
        // No element writes more than 64 bytes from 3: a block cannot hold more than 32 times
        // its size.
        guard declared <= 32 * input.count else {
            throw FileFormatError(.malformed, "snappy: a block of \(input.count) bytes cannot hold the \(declared) it declares", byteOffset: 0)
        }
        var status = SNAPPY_OK
        let output = [UInt8](unsafeUninitializedCapacity: declared) { buffer, count in
            var length = declared
            status = buffer.baseAddress.map { out in
                out.withMemoryRebound(to: CChar.self, capacity: declared) { snappy_uncompress(base, input.count, $0, &length) }
            } ?? (declared == 0 ? snappy_uncompress(base, input.count, nil, &length) : SNAPPY_BUFFER_TOO_SMALL)
            count = status == SNAPPY_OK ? length : 0
        }
        guard status == SNAPPY_OK, output.count == declared else {
            throw FileFormatError(.malformed, "snappy: the block is corrupt (its elements do not decode to the \(declared) bytes it declares)")
        }
        return output
    }

    /// Compresses `input` as one Snappy block.
    static func compress(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        let bound = snappy_max_compressed_length(input.count)
        return [UInt8](unsafeUninitializedCapacity: bound) { buffer, count in
            var length = bound
            let source = input.baseAddress?.assumingMemoryBound(to: CChar.self)
            let status = buffer.baseAddress.map { out in
                out.withMemoryRebound(to: CChar.self, capacity: bound) { snappy_compress(source, input.count, $0, &length) }
            }
            count = status == SNAPPY_OK ? length : 0
        }
    }
}
