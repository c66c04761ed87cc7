/// Writes protocol buffer messages (the proto3 wire format) straight into bytes: a key per
/// field, varints, zigzag varints, little-endian doubles and length-delimited bytes and
/// messages, with nothing built per message.
///
/// A nested message is written in place: one byte is reserved for its length, the message is
/// written after it, and the length is filled in afterwards; a message of 128 bytes or more
/// moves once to make room for its longer length.
struct ProtobufWriter {
    /// The bytes written so far.
    var bytes: [UInt8] = []

    /// The wire types this writer uses.
    enum WireType: UInt64 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
    }

    /// The key of field `field` of wire type `type`.
    @inline(__always)
    mutating func key(_ field: UInt64, _ type: WireType) {
        varint(field << 3 | type.rawValue)
    }

    /// `value` as a base-128 varint.
    @inline(__always)
    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    /// The zigzag form of a signed value (`sint32`, `sint64`): 0, -1, 1, -2 … as 0, 1, 2, 3 ….
    @inline(__always)
    static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    /// A `uint32`, `uint64` or enum field; nothing for 0, proto3's default.
    @inline(__always)
    mutating func unsigned(_ field: UInt64, _ value: UInt64) {
        guard value != 0 else { return }
        key(field, .varint)
        varint(value)
    }

    /// An `int64` field (two's complement varint); nothing for 0.
    @inline(__always)
    mutating func int64(_ field: UInt64, _ value: Int64) {
        unsigned(field, UInt64(bitPattern: value))
    }

    /// A `bool` field; nothing for `false`.
    @inline(__always)
    mutating func bool(_ field: UInt64, _ value: Bool) {
        unsigned(field, value ? 1 : 0)
    }

    /// A `double` field, written even when 0 when `always` (a member of a `oneof`, whose
    /// presence is its meaning).
    @inline(__always)
    mutating func double(_ field: UInt64, _ value: Double, always: Bool = false) {
        guard always || value.bitPattern != 0 else { return }
        key(field, .fixed64)
        var bits = value.bitPattern.littleEndian
        withUnsafeBytes(of: &bits) { bytes.append(contentsOf: $0) }
    }

    /// A `string` field; nothing for the empty string unless `always`.
    @inline(__always)
    mutating func string(_ field: UInt64, _ value: String, always: Bool = false) {
        guard always || !value.isEmpty else { return }
        var value = value
        value.withUTF8 { utf8 in
            key(field, .lengthDelimited)
            varint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// A `string` field from its UTF-8 bytes, written even when empty.
    @inline(__always)
    mutating func string<Bytes: Collection<UInt8>>(_ field: UInt64, utf8: Bytes) {
        key(field, .lengthDelimited)
        varint(UInt64(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// A message field whose content `body` writes (an empty message when it writes nothing).
    @inline(__always)
    mutating func message(_ field: UInt64, _ body: (inout ProtobufWriter) -> Void) {
        key(field, .lengthDelimited)
        let start = bytes.count
        bytes.append(0)
        body(&self)
        finishLength(at: start)
    }

    /// A packed repeated field (`[packed = true]`) whose elements `body` writes as varints;
    /// nothing when it writes none.
    @inline(__always)
    mutating func packed(_ field: UInt64, _ body: (inout ProtobufWriter) -> Void) {
        key(field, .lengthDelimited)
        let keyStart = bytes.count - 1
        let start = bytes.count
        bytes.append(0)
        body(&self)
        if bytes.count == start + 1 {
            // No element: no field (the key was one byte, as every field number here is < 16).
            bytes.removeSubrange(keyStart...)
            return
        }
        finishLength(at: start)
    }

    /// Fills in the length of the content after the byte reserved at `start`.
    @inline(__always)
    private mutating func finishLength(at start: Int) {
        let length = bytes.count - start - 1
        if length < 0x80 {
            bytes[start] = UInt8(truncatingIfNeeded: length)
            return
        }
        var prefix: [UInt8] = []
        var value = UInt64(length)
        while value >= 0x80 {
            prefix.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        prefix.append(UInt8(truncatingIfNeeded: value))
        bytes.replaceSubrange(start..<(start + 1), with: prefix)
    }
}
