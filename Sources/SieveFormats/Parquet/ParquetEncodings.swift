// Parquet's encodings of levels and values (Encodings.md of the format): the RLE/bit-packed
// hybrid (levels, dictionary indices, booleans), DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
// DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT read, and the hybrid written.

/// Unsigned LEB128 variable-length integers (7 bits a byte, least significant first), as Thrift's
/// compact protocol, the hybrid's run headers and the DELTA encodings write them.
enum ULEB128 {
    /// The integer at `position` of `bytes[..<end]` (at most 10 bytes); `position` moves past it.
    /// `what` names the data in errors ("RLE data", "Thrift").
    static func read(_ bytes: UnsafeRawBufferPointer, at position: inout Int, end: Int, what: String) throws(FileFormatError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw FileFormatError(.malformed, "\(what) ends inside a variable-length integer", byteOffset: position) }
            let b = bytes[position]
            position += 1
            guard shift < 64 else { throw FileFormatError(.malformed, "\(what): a variable-length integer of more than 10 bytes", byteOffset: position) }
            result |= UInt64(b & 0x7F) << shift
            if b & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// Appends `value` to `bytes`.
    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }
}

/// Reads the RLE/bit-packed hybrid: runs of one repeated value (a varint header whose low bit is
/// 0) and groups of eight bit-packed values (low bit 1).
struct RLEHybridDecoder {
    let bytes: UnsafeRawBufferPointer
    private var position: Int
    let end: Int
    let bitWidth: Int

    init(_ bytes: UnsafeRawBufferPointer, start: Int, end: Int, bitWidth: Int) throws(FileFormatError) {
        guard (0...32).contains(bitWidth) else { throw FileFormatError(.malformed, "a bit width of \(bitWidth)", byteOffset: start) }
        self.bytes = bytes
        self.position = start
        self.end = end
        self.bitWidth = bitWidth
    }

    private mutating func varint() throws(FileFormatError) -> UInt64 {
        try ULEB128.read(bytes, at: &position, end: end, what: "RLE data")
    }

    /// Decodes `count` values into `output`; data that ends before them, or a run value wider
    /// than the bit width, is an error.
    mutating func decode(count: Int) throws(FileFormatError) -> [UInt32] {
        var output = [UInt32](repeating: 0, count: count)
        var done = 0
        let mask: UInt64 = bitWidth == 32 ? 0xFFFF_FFFF : (1 << UInt64(bitWidth)) - 1
        while done < count {
            let header = try varint()
            if header & 1 == 0 {
                // A run: the value in ceil(bitWidth / 8) bytes, little endian.
                let length = Int(clamping: header >> 1)
                let width = (bitWidth + 7) / 8
                guard end - position >= width else { throw FileFormatError(.malformed, "RLE data ends inside a run value", byteOffset: position) }
                var value: UInt32 = 0
                for k in 0..<width { value |= UInt32(bytes[position + k]) << UInt32(8 * k) }
                position += width
                guard UInt64(value) <= mask else { throw FileFormatError(.malformed, "a run value \(value) wider than \(bitWidth) bits", byteOffset: position - width) }
                let n = min(length, count - done)
                if value != 0 {
                    for k in done..<(done + n) { output[k] = value }
                }
                done += n
            } else {
                // Groups of eight values, bitWidth bits each, least significant bit first.
                let groups = Int(clamping: header >> 1)
                let values = groups > Int.max / 8 ? Int.max : groups * 8
                let take = min(values, count - done)
                // Only the values wanted need be there (some writers end the last group early).
                guard (take * bitWidth + 7) / 8 <= end - position else {
                    throw FileFormatError(.malformed, "bit-packed values run past the end of the data", byteOffset: position)
                }
                if bitWidth > 0 {
                    // Each value from the 8 bytes at its first bit while they are in the data
                    // (a value of at most 32 bits shifted by at most 7 fits in them), then byte
                    // by byte.
                    output.withUnsafeMutableBufferPointer { out in
                        var k = 0
                        var bit = 0
                        while k < take, position + (bit >> 3) + 8 <= end {
                            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position + (bit >> 3), as: UInt64.self))
                            out[done + k] = UInt32(truncatingIfNeeded: (word >> UInt64(bit & 7)) & mask)
                            bit += bitWidth
                            k += 1
                        }
                        while k < take {
                            var value: UInt64 = 0
                            var got = 0
                            while got < bitWidth {
                                let b = bit + got
                                let byte = UInt64(bytes[position + (b >> 3)])
                                let offset = b & 7
                                let n = Swift.min(8 - offset, bitWidth - got)
                                value |= ((byte >> UInt64(offset)) & ((1 << UInt64(n)) - 1)) << UInt64(got)
                                got += n
                            }
                            out[done + k] = UInt32(truncatingIfNeeded: value & mask)
                            bit += bitWidth
                            k += 1
                        }
                    }
                }
                position += min(groups <= (end - position) / max(bitWidth, 1) ? groups * bitWidth : end - position, end - position)
                done += take
            }
        }
        return output
    }
}

/// Writes the RLE/bit-packed hybrid: runs of eight or more equal values as RLE runs, the rest
/// bit-packed in groups of eight.
struct RLEHybridEncoder {
    let bitWidth: Int
    private(set) var bytes: [UInt8] = []

    init(bitWidth: Int) { self.bitWidth = bitWidth }

    private mutating func varint(_ value: Int) {
        ULEB128.append(UInt64(value), to: &bytes)
    }

    mutating func encode(_ values: [UInt32]) {
        var i = 0
        let n = values.count
        var pending: [UInt32] = []
        func flushPacked(_ encoder: inout RLEHybridEncoder, _ pending: inout [UInt32]) {
            guard !pending.isEmpty else { return }
            while pending.count % 8 != 0 { pending.append(0) }
            encoder.varint((pending.count / 8) << 1 | 1)
            var buffer: UInt64 = 0
            var bits = 0
            for value in pending {
                buffer |= UInt64(value) << UInt64(bits)
                bits += encoder.bitWidth
                while bits >= 8 {
                    encoder.bytes.append(UInt8(truncatingIfNeeded: buffer))
                    buffer >>= 8
                    bits -= 8
                }
            }
            if bits > 0 { encoder.bytes.append(UInt8(truncatingIfNeeded: buffer)) }
            pending.removeAll(keepingCapacity: true)
        }
        while i < n {
            var j = i + 1
            while j < n, values[j] == values[i] { j += 1 }
            let run = j - i
            // A run is worth it only from a group boundary of the packed values before it.
            if run >= 8, pending.count % 8 == 0 {
                flushPacked(&self, &pending)
                varint(run << 1)
                let width = (bitWidth + 7) / 8
                for k in 0..<width { bytes.append(UInt8(truncatingIfNeeded: values[i] >> UInt32(8 * k))) }
                i = j
            } else {
                pending.append(values[i])
                i += 1
            }
        }
        flushPacked(&self, &pending)
    }
}

/// A cursor over a page's value bytes.
struct ParquetValueCursor {
    let bytes: UnsafeRawBufferPointer
    var position: Int
    let end: Int

    mutating func uleb() throws(FileFormatError) -> UInt64 {
        try ULEB128.read(bytes, at: &position, end: end, what: "the values")
    }

    mutating func zigzag() throws(FileFormatError) -> Int64 {
        let raw = try uleb()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    /// DELTA_BINARY_PACKED integers: `count` of them (at most what the header says).
    mutating func deltaBinaryPacked(count wanted: Int? = nil) throws(FileFormatError) -> [Int64] {
        let start = position
        let blockSize = Int(clamping: try uleb())
        let miniblocks = Int(clamping: try uleb())
        let total = Int(clamping: try uleb())
        var value = try zigzag()
        guard blockSize > 0, blockSize % 128 == 0, miniblocks > 0, blockSize % miniblocks == 0, (blockSize / miniblocks) % 32 == 0,
            total <= (end - start) * 64 + 1
        else { throw FileFormatError(.malformed, "a DELTA_BINARY_PACKED header of block \(blockSize), \(miniblocks) miniblocks, \(total) values", byteOffset: start) }
        let count = min(total, wanted ?? total)
        var result: [Int64] = []
        result.reserveCapacity(count)
        guard total > 0 else { return result }
        result.append(value)
        let perMiniblock = blockSize / miniblocks
        var remaining = total - 1
        while remaining > 0 {
            let minDelta = try zigzag()
            guard end - position >= miniblocks else { throw FileFormatError(.malformed, "the values end inside a DELTA_BINARY_PACKED block", byteOffset: position) }
            let widths = (0..<miniblocks).map { Int(bytes[position + $0]) }
            position += miniblocks
            for width in widths {
                guard remaining > 0 else { break }
                guard width <= 64 else { throw FileFormatError(.malformed, "a miniblock bit width of \(width)", byteOffset: position) }
                let size = perMiniblock * width / 8
                guard end - position >= size else { throw FileFormatError(.malformed, "the values end inside a DELTA_BINARY_PACKED miniblock", byteOffset: position) }
                var bitPosition = 0
                for _ in 0..<min(perMiniblock, remaining) {
                    var delta: UInt64 = 0
                    if width > 0 {
                        var got = 0
                        while got < width {
                            let byte = UInt64(bytes[position + (bitPosition >> 3)])
                            let offset = bitPosition & 7
                            let take = min(8 - offset, width - got)
                            delta |= ((byte >> UInt64(offset)) & ((1 << UInt64(take)) - 1)) << UInt64(got)
                            got += take
                            bitPosition += take
                        }
                    }
                    value = value &+ minDelta &+ Int64(bitPattern: delta)
                    if result.count < count { result.append(value) }
                    remaining -= 1
                }
                position += size
            }
        }
        return result
    }
}
