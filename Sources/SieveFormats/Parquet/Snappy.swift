/// Snappy's raw block format (as Parquet uses it): the uncompressed length as a little-endian
/// base-128 varint (at most 32 bits), then elements whose tag byte's low 2 bits say what they are:
///
/// - `00` a literal: the upper 6 bits hold the length − 1 when under 60; 60 … 63 say that the
///   next 1 … 4 bytes hold it (little-endian). The literal's bytes follow.
/// - `01` a copy with a 1-byte offset: length 4 + bits 2 … 4 (4 … 11), offset bits 5 … 7 × 256 +
///   the next byte (below 2048).
/// - `10` a copy with a 2-byte little-endian offset: length (upper 6 bits) + 1 (1 … 64).
/// - `11` a copy with a 4-byte little-endian offset: length (upper 6 bits) + 1 (1 … 64).
///
/// A copy repeats `length` bytes starting `offset` bytes back in the output; when the offset is
/// below the length, the bytes it writes are read again (a run of `offset`-byte patterns).
///
/// This is not the framing format of Snappy streams (`sNaPpY` chunks with CRCs).
enum Snappy {
    /// The size of the pieces ``compress(_:)`` matches independently: a copy then never reaches
    /// back more than 65 535 bytes, so a 2-byte offset always suffices.
    static let blockSize = 1 << 16

    // MARK: Decompression

    /// Decompresses one Snappy block.
    ///
    /// Every length and offset is checked against the input and the declared length, so hostile
    /// bytes throw rather than read or write out of bounds, and the output is allocated only once
    /// the declared length is known to be reachable from the input (a copy element of 3 bytes
    /// writes at most 64, so no more than 32 × the bytes after the preamble).
    ///
    /// - Parameters:
    ///   - input: The compressed block.
    ///   - expectedCount: The uncompressed size the caller knows (Parquet page headers give it);
    ///     the block's own varint preamble must equal it when given.
    /// - Returns: The uncompressed bytes, exactly as many as the preamble declares.
    /// - Throws: ``FileFormatError`` of kind ``FileFormatError/Kind/malformed`` whose byte offset
    ///   is where in `input` the problem is.
    static func decompress(_ input: UnsafeRawBufferPointer, expectedCount: Int? = nil) throws(FileFormatError) -> [UInt8] {
        guard let source = input.baseAddress, !input.isEmpty else { throw malformed("no length preamble", at: 0) }
        let inputEnd = input.count

        // The preamble: at most 5 bytes, the fifth holding the top 4 bits.
        var declared: UInt64 = 0
        var position = 0
        var shift: UInt64 = 0
        while true {
            guard position < inputEnd else { throw malformed("a truncated length preamble", at: position) }
            let byte = source.load(fromByteOffset: position, as: UInt8.self)
            position += 1
            declared |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { break }
            shift += 7
            guard shift < 35 else { throw malformed("a length preamble longer than 5 bytes", at: 0) }
        }
        guard declared <= UInt64(UInt32.max), let count = Int(exactly: declared) else {
            throw malformed("a length preamble over 32 bits", at: 0)
        }
        if let expectedCount, expectedCount != count {
            throw malformed("the block declares \(count) bytes where \(expectedCount) were expected", at: 0)
        }
        // No element writes more than 32 times its own size (a 3-byte copy writes up to 64).
        guard (declared + 31) / 32 <= UInt64(inputEnd - position) else {
            throw malformed("a declared length of \(count) bytes that \(inputEnd - position) compressed bytes cannot hold", at: 0)
        }
        if count == 0 {
            guard position == inputEnd else { throw malformed("elements after an empty block's preamble", at: position) }
            return []
        }

        var failure: FileFormatError?
        let output = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = 0
            guard let base = buffer.baseAddress else { return }
            do throws(FileFormatError) {
                try decodeElements(source, from: position, to: inputEnd, into: UnsafeMutableRawPointer(base), count: count)
                initialized = count
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return output
    }

    /// Decodes the elements of `source[start ..< inputEnd]` into `output`, which has room for
    /// exactly `count` bytes and must be filled exactly.
    @inline(__always)
    private static func decodeElements(
        _ source: UnsafeRawPointer, from start: Int, to inputEnd: Int, into output: UnsafeMutableRawPointer, count: Int
    ) throws(FileFormatError) {
        var position = start
        var written = 0
        while position < inputEnd {
            let tagOffset = position
            let tag = source.load(fromByteOffset: position, as: UInt8.self)
            let room = count &- written
            let length: Int
            let offset: Int
            switch tag & 3 {
            case 0:
                var literal = Int(tag >> 2) &+ 1
                position &+= 1
                if literal > 60 {
                    // 61 … 64: the length − 1 is in the next 1 … 4 bytes.
                    let extra = literal &- 60
                    guard inputEnd &- position >= extra else { throw malformed("a truncated literal length", at: tagOffset) }
                    var value: UInt64 = 0
                    for index in 0 ..< extra {
                        value |= UInt64(source.load(fromByteOffset: position &+ index, as: UInt8.self)) << UInt64(8 &* index)
                    }
                    position &+= extra
                    guard value < UInt64(room) else { throw literalPastLength(value, at: tagOffset) }
                    literal = Int(value) &+ 1
                }
                let available = inputEnd &- position
                let from = source + position
                let to = output + written
                if literal <= 16, available >= 16, room >= 16 {
                    // Two 8-byte moves beat a call for the short literals between copies.
                    let low = from.loadUnaligned(as: UInt64.self)
                    let high = from.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                    to.storeBytes(of: low, as: UInt64.self)
                    to.storeBytes(of: high, toByteOffset: 8, as: UInt64.self)
                } else {
                    guard literal <= room else { throw literalPastLength(UInt64(literal &- 1), at: tagOffset) }
                    guard literal <= available else { throw literalPastInput(literal, at: tagOffset) }
                    to.copyMemory(from: from, byteCount: literal)
                }
                position &+= literal
                written &+= literal
                continue
            case 1:
                guard inputEnd &- position >= 2 else { throw malformed("a truncated copy", at: tagOffset) }
                length = 4 &+ Int((tag >> 2) & 7)
                offset = Int(tag >> 5) << 8 | Int(source.load(fromByteOffset: position &+ 1, as: UInt8.self))
                position &+= 2
            case 2:
                guard inputEnd &- position >= 3 else { throw malformed("a truncated copy", at: tagOffset) }
                length = Int(tag >> 2) &+ 1
                offset = Int(UInt16(littleEndian: source.loadUnaligned(fromByteOffset: position &+ 1, as: UInt16.self)))
                position &+= 3
            default:
                guard inputEnd &- position >= 5 else { throw malformed("a truncated copy", at: tagOffset) }
                length = Int(tag >> 2) &+ 1
                let wide = UInt32(littleEndian: source.loadUnaligned(fromByteOffset: position &+ 1, as: UInt32.self))
                // Beyond what is written either way when it does not fit an Int.
                offset = Int(exactly: wide) ?? Int.max
                position &+= 5
            }
            // 1 ≤ offset ≤ written, in one comparison.
            guard UInt(bitPattern: offset &- 1) < UInt(bitPattern: written) else {
                throw badOffset(offset, written: written, at: tagOffset)
            }
            if room &- length >= 16 {
                copyMatchFast(output + written, offset: offset, length: length)
            } else {
                guard length <= room else { throw copyPastLength(length, at: tagOffset) }
                let to = output + written
                let from = to - offset
                for index in 0 ..< length {
                    to.storeBytes(of: from.load(fromByteOffset: index, as: UInt8.self), toByteOffset: index, as: UInt8.self)
                }
            }
            written &+= length
        }
        guard written == count else {
            throw malformed("the block ends after \(written) of its \(count) declared bytes", at: inputEnd)
        }
    }

    /// Writes `length` bytes at `destination` from `offset` bytes back, as Snappy replicates
    /// them (byte after byte, so that an offset below the length repeats a pattern), 8 or 16
    /// bytes at a time: it may write up to 15 bytes past the copy's end, which the caller has
    /// room for and later elements overwrite.
    ///
    /// 16 at a time when the offset allows, else 8 at a time; a pattern shorter than 8 bytes is
    /// first written out byte by byte until it can be read from a multiple of its period at
    /// least 8 bytes back.
    @inline(__always)
    private static func copyMatchFast(_ destination: UnsafeMutableRawPointer, offset: Int, length: Int) {
        var to = destination
        let end = destination + length
        if offset >= 16 {
            var from = UnsafeRawPointer(destination - offset)
            repeat {
                let low = from.loadUnaligned(as: UInt64.self)
                let high = from.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                to.storeBytes(of: low, as: UInt64.self)
                to.storeBytes(of: high, toByteOffset: 8, as: UInt64.self)
                from += 16
                to += 16
            } while to < end
            return
        }
        // The smallest multiple of the period that is at least 8.
        let distance = offset >= 8 ? offset : offset &* ((7 &+ offset) / offset)
        let lead = min(length, distance &- offset)
        for index in 0 ..< lead {
            to.storeBytes(of: (to - offset).load(fromByteOffset: index, as: UInt8.self), toByteOffset: index, as: UInt8.self)
        }
        to += lead
        guard to < end else { return }
        var from = UnsafeRawPointer(to - distance)
        repeat {
            to.storeBytes(of: from.loadUnaligned(as: UInt64.self), as: UInt64.self)
            from += 8
            to += 8
        } while to < end
    }

    /// A literal of `stored` + 1 bytes that runs past the declared length.
    @inline(never)
    private static func literalPastLength(_ stored: UInt64, at offset: Int) -> FileFormatError {
        malformed("a literal of \(stored + 1) bytes past the declared length", at: offset)
    }

    /// A literal of `length` bytes that runs past the end of the input.
    @inline(never)
    private static func literalPastInput(_ length: Int, at offset: Int) -> FileFormatError {
        malformed("a literal of \(length) bytes past the end of the input", at: offset)
    }

    /// A copy whose offset is 0 or reaches before the output's start.
    @inline(never)
    private static func badOffset(_ copyOffset: Int, written: Int, at offset: Int) -> FileFormatError {
        copyOffset == 0
            ? malformed("a copy with offset 0", at: offset)
            : malformed("a copy \(copyOffset) bytes back where only \(written) are written", at: offset)
    }

    /// A copy of `length` bytes that runs past the declared length.
    @inline(never)
    private static func copyPastLength(_ length: Int, at offset: Int) -> FileFormatError {
        malformed("a copy of \(length) bytes past the declared length", at: offset)
    }

    /// A malformed-block error at `offset` in the compressed input.
    @inline(never)
    private static func malformed(_ message: String, at offset: Int) -> FileFormatError {
        FileFormatError(.malformed, "snappy: " + message, byteOffset: offset)
    }

    // MARK: Compression

    /// Compresses `input` as one Snappy block.
    ///
    /// Greedy LZ77 as the reference compressor does it: each 64 KiB piece is matched on its own
    /// with a hash table of the 4-byte sequences seen, a match is extended as far as it goes and
    /// emitted as copies with 1- or 2-byte offsets, the bytes between matches as literals. Past
    /// long runs without a match it probes ever more sparsely, so that incompressible input costs
    /// little time (and at most 1 byte in 6 of size).
    ///
    /// - Precondition: `input` is under 4 GiB, as the format's 32-bit length requires.
    static func compress(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        let count = input.count
        precondition(UInt64(count) <= UInt64(UInt32.max), "snappy: a block holds at most 4 GiB − 1 bytes")
        // Literals cost at most 3 bytes per 64 KiB piece and 1 per 61 bytes between matches,
        // copies less than the bytes they stand for: well within 32 + 1/6.
        let capacity = 32 + count + count / 6
        return [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            initialized = 0
            guard let base = buffer.baseAddress else { return }
            let output = UnsafeMutableRawPointer(base)
            var written = 0
            var remaining = UInt32(truncatingIfNeeded: count)
            while remaining >= 0x80 {
                output.storeBytes(of: UInt8(truncatingIfNeeded: remaining) | 0x80, toByteOffset: written, as: UInt8.self)
                remaining >>= 7
                written += 1
            }
            output.storeBytes(of: UInt8(truncatingIfNeeded: remaining), toByteOffset: written, as: UInt8.self)
            written += 1
            guard let source = input.baseAddress, count > 0 else {
                initialized = written
                return
            }
            var table = [UInt16](repeating: 0, count: tableSize(for: min(count, blockSize)))
            table.withUnsafeMutableBufferPointer { table in
                var start = 0
                while start < count {
                    let length = min(blockSize, count - start)
                    compressBlock(source + start, count: length, into: output, at: &written, table: table)
                    start += length
                }
            }
            initialized = written
        }
    }

    /// The bits of the hash table for a piece of `count` bytes: from 2⁸ to 2¹⁴ entries, no more
    /// than the piece has positions.
    private static func tableBits(for count: Int) -> Int {
        var bits = 8
        while bits < 14, 1 << bits < count { bits += 1 }
        return bits
    }

    /// The entries of the hash table for a piece of `count` bytes.
    private static func tableSize(for count: Int) -> Int { 1 << tableBits(for: count) }

    /// The hash table slot of a 4-byte sequence (multiplicative hashing, top bits).
    @inline(__always)
    private static func hash(_ word: UInt32, shift: UInt32) -> Int {
        Int((word &* 0x1E35_A7BD) >> shift)
    }

    /// Appends one piece of at most 64 KiB, matched against itself only.
    private static func compressBlock(
        _ block: UnsafeRawPointer, count: Int, into output: UnsafeMutableRawPointer, at written: inout Int,
        table: UnsafeMutableBufferPointer<UInt16>
    ) {
        // Too short to be worth matching.
        guard count >= 16 else {
            emitLiteral(block, count: count, into: output, at: &written)
            return
        }
        let bits = tableBits(for: count)
        let shift = UInt32(32 - bits)
        for index in 0 ..< 1 << bits { table[index] = 0 }
        @inline(__always) func word(_ at: Int) -> UInt32 { UInt32(littleEndian: block.loadUnaligned(fromByteOffset: at, as: UInt32.self)) }

        let last = count - 4  // the last position a 4-byte sequence starts at
        var position = 1
        var pending = 0  // the first byte not emitted yet
        var skip = 32  // misses since the last match, × 32: the step grows by 1 every 32 misses
        while position <= last {
            let current = word(position)
            let slot = hash(current, shift: shift)
            let candidate = Int(table[slot])
            table[slot] = UInt16(truncatingIfNeeded: position)
            guard word(candidate) == current else {
                position += skip >> 5
                skip += 1
                continue
            }
            emitLiteral(block + pending, count: position - pending, into: output, at: &written)
            let length = 4 + matchLength(block, candidate + 4, position + 4, end: count)
            emitCopy(offset: position - candidate, length: length, into: output, at: &written)
            position += length
            pending = position
            skip = 32
            if position <= last {
                table[hash(word(position - 1), shift: shift)] = UInt16(truncatingIfNeeded: position - 1)
            }
        }
        emitLiteral(block + pending, count: count - pending, into: output, at: &written)
    }

    /// How many bytes from `earlier` equal those from `later` (`earlier < later`), up to `end`.
    @inline(__always)
    private static func matchLength(_ block: UnsafeRawPointer, _ earlier: Int, _ later: Int, end: Int) -> Int {
        var matched = 0
        while later + matched + 8 <= end {
            let a = UInt64(littleEndian: block.loadUnaligned(fromByteOffset: earlier + matched, as: UInt64.self))
            let b = UInt64(littleEndian: block.loadUnaligned(fromByteOffset: later + matched, as: UInt64.self))
            let difference = a ^ b
            if difference != 0 { return matched + difference.trailingZeroBitCount / 8 }
            matched += 8
        }
        while later + matched < end,
            block.load(fromByteOffset: earlier + matched, as: UInt8.self) == block.load(fromByteOffset: later + matched, as: UInt8.self)
        {
            matched += 1
        }
        return matched
    }

    /// Appends a literal element of `count` bytes (none when 0).
    @inline(__always)
    private static func emitLiteral(_ bytes: UnsafeRawPointer, count: Int, into output: UnsafeMutableRawPointer, at written: inout Int) {
        guard count > 0 else { return }
        let stored = count - 1
        if stored < 60 {
            output.storeBytes(of: UInt8(truncatingIfNeeded: stored << 2), toByteOffset: written, as: UInt8.self)
            written += 1
        } else {
            var extra = 1
            while extra < 4, stored >> (8 * extra) != 0 { extra += 1 }
            output.storeBytes(of: UInt8(truncatingIfNeeded: (59 + extra) << 2), toByteOffset: written, as: UInt8.self)
            for index in 0 ..< extra {
                output.storeBytes(of: UInt8(truncatingIfNeeded: stored >> (8 * index)), toByteOffset: written + 1 + index, as: UInt8.self)
            }
            written += 1 + extra
        }
        (output + written).copyMemory(from: bytes, byteCount: count)
        written += count
    }

    /// Appends copy elements for a match of `length` (at least 4) bytes `offset` (1 … 65 535)
    /// bytes back: pieces of 64, leaving at least 4 for the last, which takes a 1-byte offset
    /// when it fits.
    @inline(__always)
    private static func emitCopy(offset: Int, length: Int, into output: UnsafeMutableRawPointer, at written: inout Int) {
        var length = length
        while length >= 68 {
            emitCopy2(offset: offset, length: 64, into: output, at: &written)
            length -= 64
        }
        if length > 64 {
            emitCopy2(offset: offset, length: 60, into: output, at: &written)
            length -= 60
        }
        if length <= 11, offset < 2048 {
            let tag = 1 | (length - 4) << 2 | (offset >> 8) << 5
            output.storeBytes(of: UInt8(truncatingIfNeeded: tag), toByteOffset: written, as: UInt8.self)
            output.storeBytes(of: UInt8(truncatingIfNeeded: offset), toByteOffset: written + 1, as: UInt8.self)
            written += 2
        } else {
            emitCopy2(offset: offset, length: length, into: output, at: &written)
        }
    }

    /// Appends a copy element with a 2-byte offset (`length` 1 … 64).
    @inline(__always)
    private static func emitCopy2(offset: Int, length: Int, into output: UnsafeMutableRawPointer, at written: inout Int) {
        output.storeBytes(of: UInt8(truncatingIfNeeded: 2 | (length - 1) << 2), toByteOffset: written, as: UInt8.self)
        output.storeBytes(of: UInt16(truncatingIfNeeded: offset).littleEndian, toByteOffset: written + 1, as: UInt16.self)
        written += 3
    }
}
