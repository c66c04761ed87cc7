internal import CZlib
import SieveColumns

/// The members of a zip archive (PKWARE APPNOTE 6.3): read from its central directory, stored
/// or deflated, each checked against its CRC-32. Enough for zipped shapefiles (`.shp.zip`,
/// `.shz`, any `.zip` holding a shapefile), not a general archiver: no ZIP64 (members and
/// archives under 4 GiB), no encryption, no spanning.
struct ZipArchive {
    /// A member as the central directory describes it.
    struct Entry {
        /// The member's path in the archive (`data/roads.shp`).
        var name: String
        /// 0 stored, 8 deflated.
        var method: UInt16
        var flags: UInt16
        var crc32: UInt32
        var compressedSize: Int
        var uncompressedSize: Int
        /// Where its local header starts.
        var localHeaderOffset: Int

        /// The name after the last `/`.
        var fileName: String {
            name.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? name
        }
    }

    let bytes: [UInt8]
    let entries: [Entry]

    /// Reads the central directory of `bytes`.
    /// - Throws: ``FileFormatError/Kind/malformed`` (no end record, offsets outside the
    ///   archive), ``FileFormatError/Kind/unsupported`` for ZIP64 archives and spanned ones.
    init(_ bytes: [UInt8]) throws(FileFormatError) {
        self.bytes = bytes
        let reader = LittleEndianBytes(bytes)
        // The end of central directory record: 22 bytes and a comment of at most 65,535.
        guard bytes.count >= 22 else { throw FileFormatError(.malformed, "not a zip archive: \(bytes.count) bytes") }
        var end = -1
        var at = bytes.count - 22
        let lowest = max(0, bytes.count - 22 - 65_535)
        while at >= lowest {
            if reader.uint32(at) == 0x0605_4B50 { end = at; break }
            at -= 1
        }
        guard end >= 0 else { throw FileFormatError(.malformed, "not a zip archive: no end of central directory record") }
        let disk = reader.uint16(end + 4)
        let entryCount = Int(reader.uint16(end + 10))
        let directorySize = Int(reader.uint32(end + 12))
        let directoryOffset = Int(reader.uint32(end + 16))
        if entryCount == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            throw FileFormatError(.unsupported, "ZIP64 archives (over 4 GiB or 65,535 members) are not read", byteOffset: end)
        }
        guard disk == 0 else { throw FileFormatError(.unsupported, "archives spanning several disks are not read", byteOffset: end) }
        guard directoryOffset + directorySize <= end else {
            throw FileFormatError(.malformed, "the central directory (\(directorySize) bytes at \(directoryOffset)) lies outside the archive", byteOffset: end)
        }
        var entries: [Entry] = []
        var offset = directoryOffset
        for _ in 0..<entryCount {
            guard offset + 46 <= end, reader.uint32(offset) == 0x0201_4B50 else {
                throw FileFormatError(.malformed, "expected a central directory header", byteOffset: offset)
            }
            let nameLength = Int(reader.uint16(offset + 28))
            let extraLength = Int(reader.uint16(offset + 30))
            let commentLength = Int(reader.uint16(offset + 32))
            guard offset + 46 + nameLength <= end else {
                throw FileFormatError(.malformed, "a member name runs past the central directory", byteOffset: offset)
            }
            let entry = Entry(
                name: String(decoding: bytes[(offset + 46)..<(offset + 46 + nameLength)], as: UTF8.self),
                method: reader.uint16(offset + 10), flags: reader.uint16(offset + 8), crc32: reader.uint32(offset + 16),
                compressedSize: Int(reader.uint32(offset + 20)), uncompressedSize: Int(reader.uint32(offset + 24)),
                localHeaderOffset: Int(reader.uint32(offset + 42)))
            entries.append(entry)
            offset += 46 + nameLength + extraLength + commentLength
        }
        self.entries = entries
    }

    /// The bytes of `entry`, inflated and checked against its CRC-32.
    /// - Throws: ``FileFormatError`` (kind malformed or unsupported) naming the member.
    func contents(of entry: Entry) throws(FileFormatError) -> [UInt8] {
        let reader = LittleEndianBytes(bytes)
        let header = entry.localHeaderOffset
        guard header + 30 <= bytes.count, reader.uint32(header) == 0x0403_4B50 else {
            throw FileFormatError(.malformed, "expected the member's local header", member: entry.name, byteOffset: header)
        }
        guard entry.flags & 1 == 0 else {
            throw FileFormatError(.unsupported, "the member is encrypted", member: entry.name, byteOffset: header)
        }
        let start = header + 30 + Int(reader.uint16(header + 26)) + Int(reader.uint16(header + 28))
        guard start + entry.compressedSize <= bytes.count else {
            throw FileFormatError(.malformed, "the member's \(entry.compressedSize) bytes run past the archive", member: entry.name, byteOffset: start)
        }
        var output: [UInt8]
        switch entry.method {
        case 0:
            output = Array(bytes[start..<(start + entry.compressedSize)])
        case 8:
            output = try Self.inflate(bytes, start: start, count: entry.compressedSize, expected: entry.uncompressedSize, member: entry.name)
        default:
            throw FileFormatError(
                .unsupported, "compression method \(entry.method) (only stored and deflated members are read)",
                member: entry.name, byteOffset: header)
        }
        guard output.count == entry.uncompressedSize else {
            throw FileFormatError(
                .malformed, "the member holds \(output.count) bytes, its header says \(entry.uncompressedSize)",
                member: entry.name, byteOffset: start)
        }
        guard Self.crc32(output) == entry.crc32 else {
            throw FileFormatError(.malformed, "the member's CRC-32 does not match its contents", member: entry.name, byteOffset: start)
        }
        return output
    }

    /// Raw deflate data `bytes[start..<start + count]`, inflated to `expected` bytes. The output
    /// grows with what inflates (from at most a few times the compressed size), so that a header
    /// declaring more than the data holds allocates nothing for it.
    private static func inflate(_ bytes: [UInt8], start: Int, count: Int, expected: Int, member: String) throws(FileFormatError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: min(expected, max(64 << 10, count * 4)))
        var stream = z_stream()
        guard inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw FileFormatError(.malformed, "zlib could not start inflating", member: member)
        }
        defer { inflateEnd(&stream) }
        var produced = 0
        var consumed = 0
        while true {
            let (status, used, written): (Int32, Int, Int) = bytes.withUnsafeBufferPointer { input in
                output.withUnsafeMutableBufferPointer { out in
                    let available = min(count - consumed, Int(UInt32.max))
                    stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress.map { $0 + start + consumed })
                    stream.avail_in = uInt(available)
                    stream.next_out = out.baseAddress.map { $0 + produced }
                    stream.avail_out = uInt(out.count - produced)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (status, available - Int(stream.avail_in), out.count - produced - Int(stream.avail_out))
                }
            }
            consumed += used
            produced += written
            if status == Z_STREAM_END { break }
            guard status == Z_OK || status == Z_BUF_ERROR else {
                throw FileFormatError(
                    .malformed, "cannot inflate the member: bad deflate data (zlib status \(status))", member: member, byteOffset: start + consumed)
            }
            if produced == output.count {
                guard output.count < expected else {
                    throw FileFormatError(
                        .malformed, "cannot inflate the member: it inflates to more than the \(expected) bytes its header says",
                        member: member, byteOffset: start + consumed)
                }
                output += [UInt8](repeating: 0, count: min(expected - output.count, max(output.count, 64 << 10)))
            } else if used == 0 && written == 0 {
                throw FileFormatError(.malformed, "cannot inflate the member: its deflate data ends early", member: member, byteOffset: start + consumed)
            }
        }
        return Array(output[0..<produced])
    }

    /// The CRC-32 of `bytes`.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            var crc: uLong = CZlib.crc32(0, nil, 0)
            var offset = 0
            // zlib takes at most 4 GiB per call.
            while offset < buffer.count {
                let length = min(buffer.count - offset, 1 << 30)
                crc = CZlib.crc32(crc, buffer.baseAddress.map { $0 + offset }, uInt(length))
                offset += length
            }
            return UInt32(truncatingIfNeeded: crc)
        }
    }

    /// An archive of `members` (name, bytes), each deflated (or stored when deflating does not
    /// make it smaller), stamped with `modified` (DOS date and time, local to no zone).
    /// - Throws: ``FileFormatError/Kind/cannotWrite`` when a member or the archive would need
    ///   ZIP64 (4 GiB or more).
    static func archive(_ members: [(name: String, bytes: [UInt8])], modified: (date: UInt16, time: UInt16)) throws(FileFormatError) -> [UInt8] {
        var output: [UInt8] = []
        var directory: [UInt8] = []
        for member in members {
            guard member.bytes.count < 0xFFFF_FFFF else {
                throw FileFormatError(.cannotWrite, "\(member.name) is 4 GiB or more, over what a zip archive without ZIP64 holds")
            }
            let crc = crc32(member.bytes)
            let method: UInt16
            let data: [UInt8]
            if let deflated = deflate(member.bytes), deflated.count < member.bytes.count {
                (method, data) = (8, deflated)
            } else {
                (method, data) = (0, member.bytes)
            }
            let offset = output.count
            guard offset + 30 + member.name.utf8.count + data.count < 0xFFFF_FFFF else {
                throw FileFormatError(.cannotWrite, "the archive would be 4 GiB or more, over what a zip archive without ZIP64 holds")
            }
            let name = Array(member.name.utf8)
            // The fields the local header and the central directory entry share, from the
            // version needed (2.0) to the extra field's length: flags bit 11 (UTF-8 names),
            // the method, the time, the CRC, both sizes, the name's length, no extra field.
            var shared = LittleEndianWriter()
            for value in [20, 0x0800, method, modified.time, modified.date] { shared.uint16(value) }
            shared.uint32(crc)
            shared.uint32(UInt32(data.count))
            shared.uint32(UInt32(member.bytes.count))
            shared.uint16(UInt16(name.count))
            shared.uint16(0)
            var header = LittleEndianWriter()
            header.uint32(0x0403_4B50)
            output += header.bytes + shared.bytes
            output += name
            output += data
            var entry = LittleEndianWriter()
            entry.uint32(0x0201_4B50)
            entry.uint16(0x031E)  // made by: Unix, version 3.0
            entry.bytes += shared.bytes
            // No comment, disk 0, no internal attributes.
            entry.uint16(0)
            entry.uint16(0)
            entry.uint16(0)
            entry.uint32(0o100644 << 16)  // a regular file, rw-r--r--
            entry.uint32(UInt32(offset))
            directory += entry.bytes
            directory += name
        }
        let directoryOffset = output.count
        guard directoryOffset + directory.count < 0xFFFF_FFFF, members.count < 0xFFFF else {
            throw FileFormatError(.cannotWrite, "the archive would be 4 GiB or more, over what a zip archive without ZIP64 holds")
        }
        output += directory
        var end = LittleEndianWriter()
        end.uint32(0x0605_4B50)
        end.uint16(0)
        end.uint16(0)
        end.uint16(UInt16(members.count))
        end.uint16(UInt16(members.count))
        end.uint32(UInt32(directory.count))
        end.uint32(UInt32(directoryOffset))
        end.uint16(0)
        output += end.bytes
        return output
    }

    /// `bytes` as raw deflate data (zlib level 6); `nil` if zlib fails.
    private static func deflate(_ bytes: [UInt8]) -> [UInt8]? {
        Deflate.compress(bytes, windowBits: -MAX_WBITS)
    }

    /// The DOS date and time of `milliseconds` since 1970 (UTC), as zip headers store them
    /// (two-second resolution, years 1980…2107).
    static func dosTimestamp(milliseconds: Int64) -> (date: UInt16, time: UInt16) {
        let c = CivilTimeComponents(milliseconds: milliseconds)
        let year = min(max(c.year, 1980), 2107)
        let date = UInt16((year - 1980) << 9 | c.month << 5 | c.day)
        let time = UInt16(c.hour << 11 | c.minute << 5 | c.second / 2)
        return (date, time)
    }
}

/// The calendar fields of an instant, as small integers.
struct CivilTimeComponents {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int

    init(milliseconds: Int64) {
        let c = CivilTime.components(milliseconds: milliseconds)
        year = Int(c.year)
        month = Int(c.month)
        day = Int(c.day)
        hour = Int(c.hour)
        minute = Int(c.minute)
        second = Int(c.second)
    }
}

/// Little-endian integers read from a byte array at offsets the caller has checked.
struct LittleEndianBytes {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func uint16(_ at: Int) -> UInt16 {
        UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    func uint32(_ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }
}

/// Bytes written as little- and big-endian integers and doubles.
struct LittleEndianWriter {
    var bytes: [UInt8] = []

    mutating func uint16(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func uint32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func int32(_ value: Int32) { uint32(UInt32(bitPattern: value)) }

    mutating func bigEndianInt32(_ value: Int32) {
        let bits = UInt32(bitPattern: value)
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt32(shift))) }
    }

    mutating func double(_ value: Double) { uint64(value.bitPattern) }

    mutating func int64(_ value: Int64) { uint64(UInt64(bitPattern: value)) }

    mutating func uint64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
