/// The types of Thrift's compact protocol, as the low nibble of a field header or a list header
/// carries them.
enum ThriftType: UInt8 {
    case stop = 0
    case boolTrue = 1
    case boolFalse = 2
    case byte = 3
    case i16 = 4
    case i32 = 5
    case i64 = 6
    case double = 7
    case binary = 8
    case list = 9
    case set = 10
    case map = 11
    case structure = 12
}

/// Reads Thrift's compact protocol (the encoding of Parquet's footer and page headers) from
/// bytes in memory, every length and count checked against what is left.
///
/// Structs are read field by field: ``nextField(after:)`` gives each field's id and type until
/// the struct's end, the caller reads the fields it knows and ``skip(_:)``s the others, so that
/// fields added by later versions of the format are passed over.
struct ThriftCompactReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var position: Int
    let end: Int
    /// How deep the structs and containers being read are nested.
    private var depth = 0
    /// Structs and containers nested deeper than this are an error (a hostile footer cannot
    /// exhaust the stack).
    static let maximumDepth = 64
    /// Lists longer than this are an error.
    static let maximumListCount = 1_000_000

    init(_ bytes: UnsafeRawBufferPointer, start: Int, end: Int) {
        self.bytes = bytes
        self.position = start
        self.end = end
    }

    func failure(_ message: String) -> FileFormatError {
        FileFormatError(.malformed, "Thrift: " + message, byteOffset: position)
    }

    mutating func byte() throws(FileFormatError) -> UInt8 {
        guard position < end else { throw failure("the data ends inside a value") }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func varint() throws(FileFormatError) -> UInt64 {
        try ULEB128.read(bytes, at: &position, end: end, what: "Thrift data")
    }

    mutating func zigzag() throws(FileFormatError) -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    mutating func i32() throws(FileFormatError) -> Int32 {
        let value = try zigzag()
        guard let exact = Int32(exactly: value) else { throw failure("\(value) does not fit a 32-bit field") }
        return exact
    }

    mutating func i64() throws(FileFormatError) -> Int64 { try zigzag() }

    mutating func double() throws(FileFormatError) -> Double {
        guard end - position >= 8 else { throw failure("the data ends inside a double") }
        defer { position += 8 }
        return Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self)))
    }

    /// A binary or string value: where its bytes are.
    mutating func binaryRange() throws(FileFormatError) -> Range<Int> {
        let length = try varint()
        guard length <= UInt64(end - position) else { throw failure("a value of \(length) bytes runs past the end") }
        let start = position
        position += Int(length)
        return start..<position
    }

    mutating func binary() throws(FileFormatError) -> [UInt8] {
        let range = try binaryRange()
        return Array(UnsafeRawBufferPointer(rebasing: bytes[range]))
    }

    mutating func string() throws(FileFormatError) -> String {
        let range = try binaryRange()
        let raw = UnsafeRawBufferPointer(rebasing: bytes[range])
        guard let text = String(validating: raw, as: UTF8.self) else {
            throw FileFormatError(.malformed, "Thrift: a string that is not UTF-8", byteOffset: range.lowerBound)
        }
        return text
    }

    /// The next field of the struct being read: its id and type, `nil` at the struct's end.
    /// `last` is the previous field's id (0 before the first); it is updated.
    mutating func nextField(after last: inout Int16) throws(FileFormatError) -> (id: Int16, type: ThriftType)? {
        let header = try byte()
        guard let type = ThriftType(rawValue: header & 0x0F) else { throw failure("unknown field type \(header & 0x0F)") }
        if type == .stop { return nil }
        let delta = Int16(header >> 4)
        if delta != 0 {
            last &+= delta
        } else {
            let id = try zigzag()
            guard let exact = Int16(exactly: id) else { throw failure("field id \(id)") }
            last = exact
        }
        return (last, type)
    }

    /// A field's boolean value, which its type carries.
    func bool(_ type: ThriftType) -> Bool { type == .boolTrue }

    /// A list's (or set's) element type and count.
    mutating func listHeader() throws(FileFormatError) -> (type: ThriftType, count: Int) {
        let header = try byte()
        guard let type = ThriftType(rawValue: header & 0x0F) else { throw failure("unknown element type \(header & 0x0F)") }
        var count = UInt64(header >> 4)
        if count == 15 { count = try varint() }
        // Every element takes at least a byte (booleans in lists do too), and no footer needs
        // more than a million (as pyarrow limits them): a hostile footer cannot make millions of
        // structs from a few megabytes.
        guard count <= UInt64(end - position) else { throw failure("a list of \(count) elements in \(end - position) bytes") }
        guard count <= Self.maximumListCount else { throw failure("a list of \(count) elements (at most \(Self.maximumListCount) are read)") }
        return (type, Int(count))
    }

    /// Reads a struct, handing each field to `body`, which reads it or skips it.
    mutating func readStruct(_ body: (inout ThriftCompactReader, Int16, ThriftType) throws(FileFormatError) -> Void) throws(FileFormatError) {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw failure("structs nested more than \(Self.maximumDepth) deep") }
        var last: Int16 = 0
        while let (id, type) = try nextField(after: &last) {
            try body(&self, id, type)
        }
    }

    /// Reads a list whose elements `element` reads.
    mutating func readList<T>(_ element: (inout ThriftCompactReader, ThriftType) throws(FileFormatError) -> T) throws(FileFormatError) -> [T] {
        let (type, count) = try listHeader()
        var result: [T] = []
        result.reserveCapacity(count)
        for _ in 0..<count { result.append(try element(&self, type)) }
        return result
    }

    /// Passes over a value of `type`.
    mutating func skip(_ type: ThriftType) throws(FileFormatError) {
        switch type {
        case .stop, .boolTrue, .boolFalse: return
        case .byte: _ = try byte()
        case .i16, .i32, .i64: _ = try varint()
        case .double: _ = try double()
        case .binary: _ = try binaryRange()
        case .list, .set:
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maximumDepth else { throw failure("containers nested more than \(Self.maximumDepth) deep") }
            let (element, count) = try listHeader()
            for _ in 0..<count {
                // Booleans in containers take a byte each.
                if element == .boolTrue || element == .boolFalse { _ = try byte() } else { try skip(element) }
            }
        case .map:
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maximumDepth else { throw failure("containers nested more than \(Self.maximumDepth) deep") }
            let count = try varint()
            guard count > 0 else { return }
            guard count <= UInt64(end - position) else { throw failure("a map of \(count) entries in \(end - position) bytes") }
            let types = try byte()
            guard let key = ThriftType(rawValue: types >> 4), let value = ThriftType(rawValue: types & 0x0F) else {
                throw failure("unknown map types \(types)")
            }
            for _ in 0..<count {
                for element in [key, value] {
                    if element == .boolTrue || element == .boolFalse { _ = try byte() } else { try skip(element) }
                }
            }
        case .structure:
            try readStruct { (reader, _, type) throws(FileFormatError) in try reader.skip(type) }
        }
    }

    /// An i32 field, or an error when the field has another type.
    mutating func i32(_ type: ThriftType) throws(FileFormatError) -> Int32 {
        guard type == .i32 || type == .i16 || type == .byte else { throw failure("an i32 field of type \(type)") }
        if type == .byte { return Int32(Int8(bitPattern: try byte())) }
        return try i32()
    }

    /// An i64 field (an i32 one is widened), or an error when the field has another type.
    mutating func i64(_ type: ThriftType) throws(FileFormatError) -> Int64 {
        guard type == .i64 || type == .i32 || type == .i16 else { throw failure("an i64 field of type \(type)") }
        return try i64()
    }
}

/// Writes Thrift's compact protocol: fields of structs by id, lists, values.
struct ThriftCompactWriter {
    private(set) var bytes: [UInt8] = []
    /// The last field id of each struct being written, innermost last.
    private var lastFields: [Int16] = [0]

    mutating func varint(_ value: UInt64) {
        ULEB128.append(value, to: &bytes)
    }

    /// A byte value (the body of a `.byte` field).
    mutating func varintByte(_ value: UInt8) {
        bytes.append(value)
    }

    mutating func zigzag(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    mutating func fieldHeader(_ id: Int16, _ type: ThriftType) {
        let last = lastFields[lastFields.count - 1]
        let delta = id - last
        if delta > 0, delta <= 15 {
            bytes.append(UInt8(delta) << 4 | type.rawValue)
        } else {
            bytes.append(type.rawValue)
            zigzag(Int64(id))
        }
        lastFields[lastFields.count - 1] = id
    }

    mutating func i32(_ id: Int16, _ value: Int32) {
        fieldHeader(id, .i32)
        zigzag(Int64(value))
    }

    mutating func i64(_ id: Int16, _ value: Int64) {
        fieldHeader(id, .i64)
        zigzag(value)
    }

    mutating func bool(_ id: Int16, _ value: Bool) {
        fieldHeader(id, value ? .boolTrue : .boolFalse)
    }

    mutating func binary(_ id: Int16, _ value: some Collection<UInt8>) {
        fieldHeader(id, .binary)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func string(_ id: Int16, _ value: String) {
        binary(id, Array(value.utf8))
    }

    mutating func stringValue(_ value: String) {
        let utf8 = Array(value.utf8)
        varint(UInt64(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    mutating func listHeader(_ id: Int16, _ type: ThriftType, count: Int) {
        fieldHeader(id, .list)
        listHeader(type, count: count)
    }

    mutating func listHeader(_ type: ThriftType, count: Int) {
        if count < 15 {
            bytes.append(UInt8(count) << 4 | type.rawValue)
        } else {
            bytes.append(0xF0 | type.rawValue)
            varint(UInt64(count))
        }
    }

    /// Writes a struct field (or, with `id` `nil`, a struct element of a list) whose fields
    /// `body` writes.
    mutating func structure(_ id: Int16?, _ body: (inout ThriftCompactWriter) -> Void) {
        if let id { fieldHeader(id, .structure) }
        lastFields.append(0)
        body(&self)
        bytes.append(ThriftType.stop.rawValue)
        lastFields.removeLast()
    }

    /// The bytes of a top-level struct whose fields `body` writes.
    static func message(_ body: (inout ThriftCompactWriter) -> Void) -> [UInt8] {
        var writer = ThriftCompactWriter()
        body(&writer)
        writer.bytes.append(ThriftType.stop.rawValue)
        return writer.bytes
    }
}
