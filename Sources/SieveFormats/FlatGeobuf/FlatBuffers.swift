/// A table of a FlatBuffers buffer (the encoding FlatGeobuf's header and features use), read in
/// place with every offset checked against the buffer: what a field of a schema holds is found
/// through the table's vtable by the field's index in the schema.
struct FlatBufferTable {
    let bytes: UnsafeRawBufferPointer
    /// Where the table starts (its offset to the vtable), from the start of `bytes`.
    let position: Int
    private let vtable: Int
    private let vtableLength: Int

    /// The root table of the buffer `bytes[start..<end]`.
    static func root(_ bytes: UnsafeRawBufferPointer, start: Int, end: Int) throws(FileFormatError) -> FlatBufferTable {
        guard start >= 0, start + 4 <= end, end <= bytes.count else { throw malformed("a FlatBuffers buffer too short for its root", at: start) }
        return try FlatBufferTable(bytes, position: start + Int(uint32(bytes, start)), start: start, end: end)
    }

    private let start: Int
    private let end: Int

    private init(_ bytes: UnsafeRawBufferPointer, position: Int, start: Int, end: Int) throws(FileFormatError) {
        self.bytes = bytes
        self.start = start
        self.end = end
        guard position >= start, position + 4 <= end else { throw Self.malformed("a table offset outside its buffer", at: position) }
        self.position = position
        let vtable = position - Int(Int32(bitPattern: Self.uint32(bytes, position)))
        guard vtable >= start, vtable + 4 <= end else { throw Self.malformed("a vtable outside its buffer", at: position) }
        let length = Int(Self.uint16(bytes, vtable))
        guard length >= 4, length % 2 == 0, vtable + length <= end else { throw Self.malformed("a vtable of \(length) bytes", at: vtable) }
        self.vtable = vtable
        self.vtableLength = length
    }

    /// Where field `id` is stored, or `nil` when the table leaves it out (its default).
    private func field(_ id: Int, size: Int) throws(FileFormatError) -> Int? {
        let entry = 4 + 2 * id
        guard entry + 2 <= vtableLength else { return nil }
        let offset = Int(Self.uint16(bytes, vtable + entry))
        guard offset != 0 else { return nil }
        guard position + offset + size <= end else { throw Self.malformed("field \(id) outside its buffer", at: position) }
        return position + offset
    }

    func uint8(_ id: Int, default value: UInt8 = 0) throws(FileFormatError) -> UInt8 {
        guard let at = try field(id, size: 1) else { return value }
        return bytes[at]
    }

    func bool(_ id: Int, default value: Bool = false) throws(FileFormatError) -> Bool {
        guard let at = try field(id, size: 1) else { return value }
        return bytes[at] != 0
    }

    func uint16(_ id: Int, default value: UInt16 = 0) throws(FileFormatError) -> UInt16 {
        guard let at = try field(id, size: 2) else { return value }
        return Self.uint16(bytes, at)
    }

    func int32(_ id: Int, default value: Int32 = 0) throws(FileFormatError) -> Int32 {
        guard let at = try field(id, size: 4) else { return value }
        return Int32(bitPattern: Self.uint32(bytes, at))
    }

    func uint64(_ id: Int, default value: UInt64 = 0) throws(FileFormatError) -> UInt64 {
        guard let at = try field(id, size: 8) else { return value }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))
    }

    /// The target of the offset stored at field `id`, or `nil`.
    private func indirect(_ id: Int) throws(FileFormatError) -> Int? {
        guard let at = try field(id, size: 4) else { return nil }
        let target = at + Int(Self.uint32(bytes, at))
        guard target + 4 <= end else { throw Self.malformed("field \(id) points outside its buffer", at: at) }
        return target
    }

    /// The vector at field `id` of elements of `size` bytes: where its first element is and how
    /// many there are; `nil` when absent.
    func vector(_ id: Int, elementSize size: Int) throws(FileFormatError) -> (start: Int, count: Int)? {
        guard let at = try indirect(id) else { return nil }
        let count = Int(Self.uint32(bytes, at))
        guard count <= (end - at - 4) / max(size, 1) else {
            throw Self.malformed("a vector of \(count) elements of \(size) bytes runs past its buffer", at: at)
        }
        return (at + 4, count)
    }

    /// The string at field `id` (its UTF-8 bytes), or `nil`.
    func string(_ id: Int) throws(FileFormatError) -> UnsafeRawBufferPointer? {
        guard let (start, count) = try vector(id, elementSize: 1) else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<(start + count)])
    }

    /// The string at field `id`, or `nil`.
    func text(_ id: Int) throws(FileFormatError) -> String? {
        try string(id).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The table at field `id`, or `nil`.
    func table(_ id: Int) throws(FileFormatError) -> FlatBufferTable? {
        guard let at = try indirect(id) else { return nil }
        return try FlatBufferTable(bytes, position: at, start: start, end: end)
    }

    /// The tables of the vector at field `id` (empty when absent).
    func tables(_ id: Int) throws(FileFormatError) -> [FlatBufferTable] {
        guard let (first, count) = try vector(id, elementSize: 4) else { return [] }
        var result: [FlatBufferTable] = []
        result.reserveCapacity(count)
        for k in 0..<count {
            let at = first + 4 * k
            result.append(try FlatBufferTable(bytes, position: at + Int(Self.uint32(bytes, at)), start: start, end: end))
        }
        return result
    }

    /// Element `k` of a vector of doubles starting at `first`.
    @inline(__always)
    func double(at first: Int, _ k: Int) -> Double {
        Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: first + 8 * k, as: UInt64.self)))
    }

    /// Element `k` of a vector of 32-bit unsigned integers starting at `first`.
    @inline(__always)
    func uint32(at first: Int, _ k: Int) -> UInt32 {
        Self.uint32(bytes, first + 4 * k)
    }

    @inline(__always)
    static func uint16(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt16 {
        UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self))
    }

    @inline(__always)
    static func uint32(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }

    static func malformed(_ message: String, at offset: Int) -> FileFormatError {
        FileFormatError(.malformed, message, byteOffset: offset)
    }
}

/// Builds FlatBuffers buffers front to back: a table is written before what it points to, and
/// its offset fields are filled in when their targets are written (FlatBuffers offsets only point
/// forward, and nothing requires the usual back-to-front order). Every scalar is aligned to its
/// size from the start of the buffer, as FlatBuffers verifiers check.
struct FlatBufferBuilder {
    /// A field of a table being written.
    enum Value {
        case uint8(UInt8)
        case uint16(UInt16)
        case int32(Int32)
        case uint64(UInt64)
        /// A string, a vector, or a table: written after the table by the closure, which
        /// returns the position of what the offset points to.
        case offset((inout FlatBufferBuilder) -> Int)

        var size: Int {
            switch self {
            case .uint8: 1
            case .uint16: 2
            case .int32, .offset: 4
            case .uint64: 8
            }
        }
    }

    private(set) var bytes: [UInt8] = []

    /// A builder whose buffer starts with the root offset, to be set by ``finish(root:)``.
    init() {
        bytes = [0, 0, 0, 0]
    }

    /// Sets the root offset to the table at `root`; returns the buffer.
    mutating func finish(root: Int) -> [UInt8] {
        setUInt32(UInt32(root), at: 0)
        pad(to: 8)
        return bytes
    }

    private mutating func pad(to alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    private mutating func setUInt32(_ value: UInt32, at position: Int) {
        for k in 0..<4 { bytes[position + k] = UInt8(truncatingIfNeeded: value >> UInt32(8 * k)) }
    }

    private mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Writes a table of `fields` (by index in the schema; absent ones left out) and then what
    /// its offset fields point to; returns the table's position.
    @discardableResult
    mutating func table(_ fields: [(id: Int, value: Value)]) -> Int {
        let slots = (fields.map(\.id).max() ?? -1) + 1
        // The fields laid out largest first, each aligned to its size after the 4-byte offset to
        // the vtable.
        let ordered = fields.sorted { $0.value.size > $1.value.size }
        var layout: [(id: Int, offset: Int, value: Value)] = []
        var objectSize = 4
        for field in ordered {
            let size = field.value.size
            objectSize = (objectSize + size - 1) / size * size
            layout.append((field.id, objectSize, field.value))
            objectSize += size
        }
        // The vtable, then the table aligned to 8 (its largest scalar) — table offsets are
        // relative to the table, so the object is laid out from an 8-aligned start.
        pad(to: 2)
        var vtable = [UInt16](repeating: 0, count: slots)
        for entry in layout { vtable[entry.id] = UInt16(entry.offset) }
        let vtableLength = 4 + 2 * slots
        let vtableStart = bytes.count
        // Room so that the table after the vtable starts 8-aligned.
        var tableStart = vtableStart + vtableLength
        tableStart = (tableStart + 7) / 8 * 8
        append(UInt16(vtableLength))
        append(UInt16(objectSize))
        for entry in vtable { append(entry) }
        while bytes.count < tableStart { bytes.append(0) }
        append(Int32(tableStart - vtableStart))
        var pending: [(position: Int, write: (inout FlatBufferBuilder) -> Int)] = []
        for entry in layout.sorted(by: { $0.offset < $1.offset }) {
            while bytes.count < tableStart + entry.offset { bytes.append(0) }
            switch entry.value {
            case .uint8(let v): append(v)
            case .uint16(let v): append(v)
            case .int32(let v): append(v)
            case .uint64(let v): append(v)
            case .offset(let write):
                pending.append((bytes.count, write))
                append(UInt32(0))
            }
        }
        while bytes.count < tableStart + objectSize { bytes.append(0) }
        for (position, write) in pending {
            let target = write(&self)
            setUInt32(UInt32(target - position), at: position)
        }
        return tableStart
    }

    /// Writes a string (its length, UTF-8 bytes and a NUL); returns where its length is.
    mutating func string(_ text: String) -> Int {
        byteVector(Array(text.utf8), nulTerminated: true)
    }

    /// Writes a vector of bytes; returns where its length is.
    mutating func byteVector(_ values: [UInt8], nulTerminated: Bool = false) -> Int {
        pad(to: 4)
        let start = bytes.count
        append(UInt32(values.count))
        bytes.append(contentsOf: values)
        if nulTerminated { bytes.append(0) }
        return start
    }

    /// Writes a vector of doubles; returns where its length is.
    mutating func doubles(_ values: [Double]) -> Int {
        // The elements 8-aligned: the length just before them.
        while (bytes.count + 4) % 8 != 0 { bytes.append(0) }
        let start = bytes.count
        append(UInt32(values.count))
        for value in values { append(value.bitPattern) }
        return start
    }

    /// Writes a vector of 32-bit unsigned integers; returns where its length is.
    mutating func uint32s(_ values: [UInt32]) -> Int {
        pad(to: 4)
        let start = bytes.count
        append(UInt32(values.count))
        for value in values { append(value) }
        return start
    }

    /// Writes a vector of tables, each by its closure (returning its position); returns where
    /// the vector's length is.
    mutating func tables(_ writers: [(inout FlatBufferBuilder) -> Int]) -> Int {
        pad(to: 4)
        let start = bytes.count
        append(UInt32(writers.count))
        let slots = bytes.count
        for _ in writers { append(UInt32(0)) }
        for (k, write) in writers.enumerated() {
            let target = write(&self)
            setUInt32(UInt32(target - (slots + 4 * k)), at: slots + 4 * k)
        }
        return start
    }
}
