/// Writes protocol buffer messages (the proto3 wire format; Mapbox Vector Tiles and Esri's
/// `FeatureCollection` answers) straight into bytes: a key per
/// field, varints, zigzag varints, little-endian doubles and length-delimited bytes and
/// messages, with nothing built per message.
///
/// A nested message is written in place: one byte is reserved for its length, the message is
/// written after it, and the length is filled in afterwards; a message of 128 bytes or more
/// moves once to make room for its longer length.
package struct ProtobufWriter {
    /// The bytes written so far.
    package var bytes: [UInt8] = []

    /// An empty writer.
    @inlinable
    package init() {}

    /// The wire types this writer uses.
    package enum WireType: UInt64 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
    }

    /// The key of field `field` of wire type `type`.
    @inlinable
    package mutating func key(_ field: UInt64, _ type: WireType) {
        varint(field << 3 | type.rawValue)
    }

    /// `value` as a base-128 varint.
    @inlinable
    package mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    /// The zigzag form of a signed value (`sint32`, `sint64`): 0, -1, 1, -2 … as 0, 1, 2, 3 ….
    @inlinable
    package static func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    /// A `uint32`, `uint64` or enum field; nothing for 0, proto3's default.
    @inlinable
    package mutating func unsigned(_ field: UInt64, _ value: UInt64) {
        guard value != 0 else { return }
        key(field, .varint)
        varint(value)
    }

    /// An `int64` field (two's complement varint); nothing for 0.
    @inlinable
    package mutating func int64(_ field: UInt64, _ value: Int64) {
        unsigned(field, UInt64(bitPattern: value))
    }

    /// A `bool` field; nothing for `false`.
    @inlinable
    package mutating func bool(_ field: UInt64, _ value: Bool) {
        unsigned(field, value ? 1 : 0)
    }

    /// A `double` field, written even when 0 when `always` (a member of a `oneof`, whose
    /// presence is its meaning).
    @inlinable
    package mutating func double(_ field: UInt64, _ value: Double, always: Bool = false) {
        guard always || value.bitPattern != 0 else { return }
        key(field, .fixed64)
        var bits = value.bitPattern.littleEndian
        withUnsafeBytes(of: &bits) { bytes.append(contentsOf: $0) }
    }

    /// A `string` field; nothing for the empty string unless `always`.
    @inlinable
    package mutating func string(_ field: UInt64, _ value: String, always: Bool = false) {
        guard always || !value.isEmpty else { return }
        var value = value
        value.withUTF8 { utf8 in
            key(field, .lengthDelimited)
            varint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// A `string` field from its UTF-8 bytes, written even when empty.
    @inlinable
    package mutating func string(_ field: UInt64, utf8: UnsafeBufferPointer<UInt8>) {
        key(field, .lengthDelimited)
        varint(UInt64(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// A message field whose content `body` writes (an empty message when it writes nothing).
    @inlinable
    package mutating func message(_ field: UInt64, _ body: (inout ProtobufWriter) -> Void) {
        key(field, .lengthDelimited)
        let start = bytes.count
        bytes.append(0)
        body(&self)
        finishLength(at: start)
    }

    /// A packed repeated field (`[packed = true]`) whose elements `body` writes as varints;
    /// nothing when it writes none.
    @inlinable
    package mutating func packed(_ field: UInt64, _ body: (inout ProtobufWriter) -> Void) {
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
    @inlinable
    package mutating func finishLength(at start: Int) {
        let length = bytes.count - start - 1
        if length < 0x80 {
            bytes[start] = UInt8(truncatingIfNeeded: length)
            return
        }
        // Room for the longer varint, made once, then the varint written in place.
        var size = 1
        while UInt64(length) >> (7 * UInt64(size)) != 0 { size += 1 }
        bytes.insert(contentsOf: repeatElement(0, count: size - 1), at: start + 1)
        var value = UInt64(length)
        for i in 0..<size {
            bytes[start + i] = UInt8(truncatingIfNeeded: value) | (i < size - 1 ? 0x80 : 0)
            value >>= 7
        }
    }
}
