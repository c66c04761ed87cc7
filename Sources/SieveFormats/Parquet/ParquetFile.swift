/// A leaf column of a Parquet schema: its path, type and levels.
struct ParquetLeaf {
    /// The names from the top-level field down to the leaf.
    var path: [String]
    var element: ParquetSchemaElement
    /// The definition level of a present value, and the most repetition levels.
    var maxDefinition: Int
    var maxRepetition: Int
    /// Its position among the leaves (its column chunk's in every row group).
    var index: Int
    /// The top-level field it belongs to.
    var field: Int
}

/// The values of one column chunk, decoded.
struct ParquetChunkValues {
    /// Whether each row has a value (`nil`: every row has).
    var present: [Bool]?
    /// The present values, in row order.
    var values: ParquetValues
    var rowCount: Int
}

/// Decoded values of a column: integers (INT32, INT64, BOOLEAN as 0/1, INT96 as milliseconds),
/// doubles (FLOAT, DOUBLE) or byte strings (BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY).
enum ParquetValues {
    case integers([Int64])
    case doubles([Double])
    case bytes(ParquetByteValues)

    var count: Int {
        switch self {
        case .integers(let v): v.count
        case .doubles(let v): v.count
        case .bytes(let v): v.count
        }
    }
}

/// Byte strings end to end, with where each starts.
struct ParquetByteValues {
    var storage: [UInt8] = []
    /// `count + 1` offsets into `storage`.
    var offsets: [Int] = [0]

    var count: Int { offsets.count - 1 }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        storage.append(contentsOf: bytes)
        offsets.append(storage.count)
    }

    func withValue<T>(_ i: Int, _ body: (UnsafeRawBufferPointer) throws(FileFormatError) -> T) throws(FileFormatError) -> T {
        let range = offsets[i]..<offsets[i + 1]
        let result: Result<T, FileFormatError> = storage.withUnsafeBytes { raw in
            Result { () throws(FileFormatError) in try body(UnsafeRawBufferPointer(rebasing: raw[range])) }
        }
        return try result.get()
    }
}

/// A Parquet file in memory: the footer read and the schema's leaves resolved; column chunks
/// are decoded on demand.
struct ParquetFile {
    let bytes: UnsafeRawBufferPointer
    let metadata: ParquetFileMetaData
    let leaves: [ParquetLeaf]
    /// The top-level fields: their schema elements and leaves.
    let fields: [(element: ParquetSchemaElement, leaves: [Int])]

    init(_ bytes: UnsafeRawBufferPointer) throws(FileFormatError) {
        self.bytes = bytes
        let magic: [UInt8] = [0x50, 0x41, 0x52, 0x31]
        guard bytes.count >= 12, Array(bytes[0..<4]) == magic else {
            throw FileFormatError(.malformed, "not a Parquet file: it does not start with \"PAR1\"", byteOffset: 0)
        }
        guard Array(bytes[(bytes.count - 4)...]) == magic else {
            throw FileFormatError(
                .malformed, Array(bytes[(bytes.count - 4)...]) == [0x50, 0x41, 0x52, 0x45]
                    ? "an encrypted Parquet file (\"PARE\"), which GeoSieve does not read" : "the file does not end with \"PAR1\" (truncated?)",
                byteOffset: bytes.count - 4)
        }
        let footerLength = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt32.self)))
        guard footerLength <= bytes.count - 12 else {
            throw FileFormatError(.malformed, "a footer of \(footerLength) bytes in a file of \(bytes.count)", byteOffset: bytes.count - 8)
        }
        var reader = ThriftCompactReader(bytes, start: bytes.count - 8 - footerLength, end: bytes.count - 8)
        metadata = try ParquetFileMetaData.read(&reader)
        (leaves, fields) = try Self.resolve(metadata.schema)
        for (g, group) in metadata.rowGroups.enumerated() {
            guard group.columns.count == leaves.count else {
                throw FileFormatError(.malformed, "row group \(g + 1) has \(group.columns.count) column chunks for \(leaves.count) columns")
            }
            guard group.rowCount >= 0, group.rowCount <= Int64(bytes.count) * 8 else {
                throw FileFormatError(.malformed, "row group \(g + 1) counts \(group.rowCount) rows in a file of \(bytes.count) bytes")
            }
        }
    }

    /// The leaves of the schema's tree (written depth first, each group with its child count).
    private static func resolve(_ schema: [ParquetSchemaElement]) throws(FileFormatError) -> (
        [ParquetLeaf], [(element: ParquetSchemaElement, leaves: [Int])]
    ) {
        guard let root = schema.first else { throw FileFormatError(.malformed, "the footer has no schema") }
        var leaves: [ParquetLeaf] = []
        var fields: [(element: ParquetSchemaElement, leaves: [Int])] = []
        var next = 1
        func walk(path: [String], definition: Int, repetition: Int, field: Int, depth: Int) throws(FileFormatError) {
            guard next < schema.count else { throw FileFormatError(.malformed, "the schema ends inside a group") }
            guard depth < 64 else { throw FileFormatError(.malformed, "a schema nested more than 64 levels") }
            let element = schema[next]
            next += 1
            let definition = definition + (element.repetition == 0 ? 0 : 1)
            let repetition = repetition + (element.repetition == 2 ? 1 : 0)
            let path = path + [element.name]
            if let children = element.childCount, element.type == nil {
                guard children >= 0, Int(children) <= schema.count - next else {
                    throw FileFormatError(.malformed, "group \"\(element.name)\" has \(children) children")
                }
                for _ in 0..<children {
                    try walk(path: path, definition: definition, repetition: repetition, field: field, depth: depth + 1)
                }
            } else {
                guard element.type != nil else { throw FileFormatError(.malformed, "column \"\(element.name)\" has no type") }
                leaves.append(ParquetLeaf(path: path, element: element, maxDefinition: definition, maxRepetition: repetition, index: leaves.count, field: field))
            }
        }
        let count = Int(root.childCount ?? 0)
        guard count >= 0, count < schema.count else { throw FileFormatError(.malformed, "the schema's root has \(count) children") }
        for k in 0..<count {
            let first = leaves.count
            guard next < schema.count else { throw FileFormatError(.malformed, "the schema ends inside a group") }
            let element = schema[next]
            try walk(path: [], definition: 0, repetition: 0, field: k, depth: 0)
            fields.append((element, Array(first..<leaves.count)))
        }
        guard next == schema.count else { throw FileFormatError(.malformed, "the schema has \(schema.count - next) elements outside its tree") }
        return (leaves, fields)
    }

    /// The decoded values of leaf `leaf` in row group `group` (both from 0): of every row, or
    /// with `keep` (a flag per row of the group) of the rows kept only, in order. The values of
    /// the other rows are passed over without being copied.
    func chunk(_ leaf: ParquetLeaf, group: Int, keep: [Bool]? = nil) throws(FileFormatError) -> ParquetChunkValues {
        let meta = metadata.rowGroups[group].columns[leaf.index]
        let rows = Int(metadata.rowGroups[group].rowCount)
        do throws(FileFormatError) {
            if let keep, keep.count != rows { throw FileFormatError(.malformed, "\(keep.count) row flags for \(rows) rows") }
            var decoder = try ParquetChunkDecoder(file: self, leaf: leaf, meta: meta, rows: rows, keep: keep)
            return try decoder.decode()
        } catch {
            var located = error
            located.rowGroup = located.rowGroup ?? group + 1
            located.fieldName = located.fieldName ?? leaf.path.joined(separator: ".")
            throw located
        }
    }
}

/// Decodes a column chunk page by page.
struct ParquetChunkDecoder {
    let file: ParquetFile
    let leaf: ParquetLeaf
    let meta: ParquetColumnMetaData
    let rows: Int
    /// The rows wanted (`nil`: all).
    let keep: [Bool]?
    private var dictionary: ParquetValues?
    /// The rows of the pages read so far.
    private var rowBase = 0
    /// The rows given back so far, and whether each has a value (`nil` while all have).
    private var outputRows = 0
    private var outputPresent: [Bool]?
    private var integers: [Int64] = []
    private var doubles: [Double] = []
    private var byteValues = ParquetByteValues()

    init(file: ParquetFile, leaf: ParquetLeaf, meta: ParquetColumnMetaData, rows: Int, keep: [Bool]? = nil) throws(FileFormatError) {
        self.file = file
        self.leaf = leaf
        self.meta = meta
        self.rows = rows
        self.keep = keep
        guard leaf.maxRepetition == 0 else { throw FileFormatError(.unsupported, "a repeated column (lists are not read)") }
        guard leaf.maxDefinition <= 255 else { throw FileFormatError(.unsupported, "a column nested more than 255 levels") }
    }

    private var physical: ParquetPhysicalType { leaf.element.type ?? meta.type }

    mutating func decode() throws(FileFormatError) -> ParquetChunkValues {
        let bytes = file.bytes
        var position = Int(meta.dictionaryPageOffset.map { Swift.min($0, meta.dataPageOffset) } ?? meta.dataPageOffset)
        // Some writers record a dictionary offset of 0 for none; and a chunk of no rows is not
        // read at all (pyarrow writes an empty table as one row group of zero rows whose chunks
        // have a data page offset of 0).
        if meta.dictionaryPageOffset == 0 { position = Int(meta.dataPageOffset) }
        guard rows == 0 || (position >= 4 && position < bytes.count - 8) else {
            throw FileFormatError(.malformed, "a column chunk at byte \(position) of a \(bytes.count)-byte file")
        }
        let end = position + Int(clamping: Swift.min(Swift.max(meta.compressedSize, 0), Int64(bytes.count - 8 - position)))
        var valuesSeen = 0
        while valuesSeen < rows {
            guard position < end else {
                throw FileFormatError(.malformed, "the column chunk ends after \(valuesSeen) of its \(rows) values", byteOffset: position)
            }
            var reader = ThriftCompactReader(bytes, start: position, end: end)
            let header = try ParquetPageHeader.read(&reader)
            let dataStart = reader.position
            guard Int(header.compressedSize) <= end - dataStart else {
                throw FileFormatError(.malformed, "a page of \(header.compressedSize) bytes runs past its column chunk", byteOffset: dataStart)
            }
            // (Required columns have no levels to check this against.)
            guard header.type == 2 || Int(header.valueCount) <= rows - valuesSeen else {
                throw FileFormatError(.malformed, "a page of \(header.valueCount) values past the chunk's \(rows) rows", byteOffset: dataStart)
            }
            let data = UnsafeRawBufferPointer(rebasing: bytes[dataStart..<(dataStart + Int(header.compressedSize))])
            do throws(FileFormatError) {
                switch header.type {
                case 2:
                    let page = try ParquetCompression.decompress(data, codec: meta.codec, expected: Int(header.uncompressedSize))
                    dictionary = try page.withBytes { (raw) throws(FileFormatError) in
                        var cursor = ParquetValueCursor(bytes: raw, position: 0, end: raw.count)
                        return try plainValues(&cursor, count: Int(header.valueCount))
                    }
                case 0:
                    let page = try ParquetCompression.decompress(data, codec: meta.codec, expected: Int(header.uncompressedSize))
                    try page.withBytes { (raw) throws(FileFormatError) in
                        let (valuesStart, levels) = try self.levels(raw, header: header, version2: false)
                        let (count, take) = selection(levels, rows: Int(header.valueCount))
                        try decodeValues(raw, start: valuesStart, header: header, count: count, take: take)
                    }
                    rowBase += Int(header.valueCount)
                    valuesSeen += Int(header.valueCount)
                case 3:
                    let levelBytes = Int(header.definitionLevelsLength) + Int(header.repetitionLevelsLength)
                    guard levelBytes <= data.count else { throw FileFormatError(.malformed, "levels of \(levelBytes) bytes in a page of \(data.count)") }
                    let (_, levels) = try self.levels(data, header: header, version2: true)
                    let (count, take) = selection(levels, rows: Int(header.valueCount))
                    let rest = UnsafeRawBufferPointer(rebasing: data[levelBytes...])
                    let page =
                        header.isCompressed
                        ? try ParquetCompression.decompress(rest, codec: meta.codec, expected: Int(header.uncompressedSize) - levelBytes)
                        : Array(rest)
                    try page.withBytes { (raw) throws(FileFormatError) in try decodeValues(raw, start: 0, header: header, count: count, take: take) }
                    rowBase += Int(header.valueCount)
                    valuesSeen += Int(header.valueCount)
                default:
                    break
                }
            } catch {
                var located = error
                located.byteOffset = dataStart
                located.message = "page at byte \(position): " + located.message
                throw located
            }
            position = dataStart + Int(header.compressedSize)
        }
        guard valuesSeen == rows else { throw FileFormatError(.malformed, "the column chunk holds \(valuesSeen) values for \(rows) rows") }
        let values: ParquetValues
        switch physical {
        case .float, .double: values = .doubles(doubles)
        case .byteArray, .fixedLenByteArray: values = .bytes(byteValues)
        default: values = .integers(integers)
        }
        return ParquetChunkValues(present: outputPresent, values: values, rowCount: outputRows)
    }

    /// For a page of `rows` rows with these definition levels (`nil`: every row has a value):
    /// records which of the rows given back have a value, and returns how many values the page
    /// holds and which of them to take (`nil`: all).
    private mutating func selection(_ levels: [UInt32]?, rows pageRows: Int) -> (count: Int, take: [Int]?) {
        let full = UInt32(leaf.maxDefinition)
        if keep == nil, levels == nil {
            if outputPresent != nil { outputPresent?.append(contentsOf: repeatElement(true, count: pageRows)) }
            outputRows += pageRows
            return (pageRows, nil)
        }
        var take: [Int] = []
        var values = 0
        for i in 0..<pageRows {
            let isPresent = levels.map { $0[i] == full } ?? true
            if keep?[rowBase + i] ?? true {
                if !isPresent, outputPresent == nil { outputPresent = Array(repeating: true, count: outputRows) }
                outputPresent?.append(isPresent)
                outputRows += 1
                if isPresent { take.append(values) }
            }
            if isPresent { values += 1 }
        }
        return (values, take.count == values ? nil : take)
    }

    /// Reads a page's definition levels: where the values start (v1 pages) and the levels,
    /// `nil` when every row has a value (a required column, or levels all at the maximum).
    private func levels(_ raw: UnsafeRawBufferPointer, header: ParquetPageHeader, version2: Bool) throws(FileFormatError) -> (Int, [UInt32]?) {
        let count = Int(header.valueCount)
        guard count <= rows - rowBase else {
            throw FileFormatError(.malformed, "a page of \(count) values past the chunk's \(rows) rows")
        }
        guard leaf.maxDefinition > 0 else { return (0, nil) }
        let width = Self.bitWidth(leaf.maxDefinition)
        var start = 0
        var end = raw.count
        if version2 {
            start = Int(header.repetitionLevelsLength)
            end = start + Int(header.definitionLevelsLength)
        } else {
            guard header.definitionLevelEncoding == ParquetEncoding.rle.rawValue else {
                throw FileFormatError(.unsupported, "definition levels in \(ParquetEncoding.name(header.definitionLevelEncoding)) (RLE is read)")
            }
            guard raw.count >= 4 else { throw FileFormatError(.malformed, "a page too short for its definition levels") }
            let length = Int(UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)))
            guard length <= raw.count - 4 else { throw FileFormatError(.malformed, "definition levels of \(length) bytes in a page of \(raw.count)") }
            start = 4
            end = 4 + length
        }
        var decoder = try RLEHybridDecoder(raw, start: start, end: end, bitWidth: width)
        let levels = try decoder.decode(count: count)
        let full = UInt32(leaf.maxDefinition)
        var lowest = full
        for level in levels {
            guard level <= full else { throw FileFormatError(.malformed, "definition level \(level) over the column's \(full)") }
            lowest = Swift.min(lowest, level)
        }
        return (end, lowest == full ? nil : levels)
    }

    static func bitWidth(_ maximum: Int) -> Int {
        maximum == 0 ? 0 : Int.bitWidth - maximum.leadingZeroBitCount
    }

    /// Decodes the page's values taken (`take`: indices among its `n` values; `nil`: all).
    private mutating func decodeValues(_ raw: UnsafeRawBufferPointer, start: Int, header: ParquetPageHeader, count n: Int, take: [Int]?)
        throws(FileFormatError)
    {
        var cursor = ParquetValueCursor(bytes: raw, position: start, end: raw.count)
        switch ParquetEncoding(rawValue: header.encoding) {
        case .plain:
            append(try plainValues(&cursor, count: n, take: take))
        case .plainDictionary, .rleDictionary:
            guard let dictionary else { throw FileFormatError(.malformed, "dictionary-encoded values without a dictionary page") }
            guard cursor.position < cursor.end || n == 0 else { throw FileFormatError(.malformed, "dictionary indices without their bit width") }
            guard n > 0 else { return }
            let width = Int(raw[cursor.position])
            var decoder = try RLEHybridDecoder(raw, start: cursor.position + 1, end: raw.count, bitWidth: width)
            let indices = try decoder.decode(count: n)
            let size = dictionary.count
            for index in indices where Int(index) >= size {
                throw FileFormatError(.malformed, "dictionary index \(index) of a dictionary of \(size) values")
            }
            let taken = take?.count ?? n
            switch dictionary {
            case .integers(let d):
                integers.reserveCapacity(integers.count + taken)
                if let take { for k in take { integers.append(d[Int(indices[k])]) } } else { for index in indices { integers.append(d[Int(index)]) } }
            case .doubles(let d):
                doubles.reserveCapacity(doubles.count + taken)
                if let take { for k in take { doubles.append(d[Int(indices[k])]) } } else { for index in indices { doubles.append(d[Int(index)]) } }
            case .bytes(let d):
                d.storage.withUnsafeBytes { storage in
                    func add(_ index: UInt32) {
                        byteValues.append(UnsafeRawBufferPointer(rebasing: storage[d.offsets[Int(index)]..<d.offsets[Int(index) + 1]]))
                    }
                    if let take { for k in take { add(indices[k]) } } else { for index in indices { add(index) } }
                }
            }
        case .rle where physical == .boolean:
            // RLE booleans start with their length (v1 and v2 pages alike).
            let at = cursor.position + 4
            guard at <= raw.count else { throw FileFormatError(.malformed, "boolean values without their length") }
            var decoder = try RLEHybridDecoder(raw, start: at, end: raw.count, bitWidth: 1)
            let bits = try decoder.decode(count: n)
            append(Self.select(.integers(bits.map { Int64($0) }), take))
        case .deltaBinaryPacked where physical == .int32 || physical == .int64:
            let decoded = try cursor.deltaBinaryPacked(count: n)
            guard decoded.count == n else { throw FileFormatError(.malformed, "\(decoded.count) DELTA_BINARY_PACKED values for \(n)") }
            append(Self.select(.integers(physical == .int32 ? decoded.map { Int64(Int32(truncatingIfNeeded: $0)) } : decoded), take))
        case .deltaLengthByteArray where physical == .byteArray:
            let lengths = try cursor.deltaBinaryPacked(count: n)
            guard lengths.count == n else { throw FileFormatError(.malformed, "\(lengths.count) lengths for \(n) values") }
            var values = ParquetByteValues()
            var at = cursor.position
            for length in lengths {
                guard length >= 0, length <= Int64(raw.count - at) else { throw FileFormatError(.malformed, "a value of \(length) bytes past the page's end") }
                values.append(UnsafeRawBufferPointer(rebasing: raw[at..<(at + Int(length))]))
                at += Int(length)
            }
            append(Self.select(.bytes(values), take))
        case .deltaByteArray where physical == .byteArray || physical == .fixedLenByteArray:
            let prefixes = try cursor.deltaBinaryPacked(count: n)
            let suffixes = try cursor.deltaBinaryPacked(count: n)
            guard prefixes.count == n, suffixes.count == n else { throw FileFormatError(.malformed, "DELTA_BYTE_ARRAY lengths for fewer values than \(n)") }
            var values = ParquetByteValues()
            var at = cursor.position
            var previous: [UInt8] = []
            for k in 0..<n {
                let prefix = prefixes[k]
                let suffix = suffixes[k]
                guard prefix >= 0, prefix <= Int64(previous.count), suffix >= 0, suffix <= Int64(raw.count - at) else {
                    throw FileFormatError(.malformed, "a DELTA_BYTE_ARRAY value (prefix \(prefix), suffix \(suffix)) that does not fit")
                }
                var value = Array(previous[0..<Int(prefix)])
                value.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[at..<(at + Int(suffix))]))
                at += Int(suffix)
                value.withUnsafeBytes { values.append($0) }
                previous = value
            }
            append(Self.select(.bytes(values), take))
        case .byteStreamSplit where [.float, .double, .int32, .int64, .fixedLenByteArray].contains(physical):
            let size = try fixedSize()
            guard n <= (raw.count - cursor.position) / Swift.max(size, 1) else { throw FileFormatError(.malformed, "BYTE_STREAM_SPLIT values past the page's end") }
            var gathered = [UInt8](repeating: 0, count: n * size)
            for i in 0..<n {
                for k in 0..<size { gathered[i * size + k] = raw[cursor.position + k * n + i] }
            }
            let values = try gathered.withBytes { (bytes) throws(FileFormatError) in
                var plain = ParquetValueCursor(bytes: bytes, position: 0, end: bytes.count)
                return try plainValues(&plain, count: n, take: take)
            }
            append(values)
        default:
            throw FileFormatError(.unsupported, "\(ParquetEncoding.name(header.encoding)) values of type \(physical.name)")
        }
    }

    /// The values at `take` (all of them when `nil`).
    private static func select(_ values: ParquetValues, _ take: [Int]?) -> ParquetValues {
        guard let take else { return values }
        switch values {
        case .integers(let v): return .integers(take.map { v[$0] })
        case .doubles(let v): return .doubles(take.map { v[$0] })
        case .bytes(let v):
            var selected = ParquetByteValues()
            v.storage.withUnsafeBytes { storage in
                for k in take { selected.append(UnsafeRawBufferPointer(rebasing: storage[v.offsets[k]..<v.offsets[k + 1]])) }
            }
            return .bytes(selected)
        }
    }

    private mutating func append(_ values: ParquetValues) {
        switch values {
        case .integers(let v): integers.append(contentsOf: v)
        case .doubles(let v): doubles.append(contentsOf: v)
        case .bytes(let v):
            if byteValues.count == 0 {
                byteValues = v
            } else {
                v.storage.withUnsafeBytes { storage in
                    for k in 0..<v.count { byteValues.append(UnsafeRawBufferPointer(rebasing: storage[v.offsets[k]..<v.offsets[k + 1]])) }
                }
            }
        }
    }

    private func fixedSize() throws(FileFormatError) -> Int {
        switch physical {
        case .boolean: return 0
        case .int32, .float: return 4
        case .int64, .double: return 8
        case .int96: return 12
        case .fixedLenByteArray:
            guard let length = leaf.element.typeLength, length >= 0 else { throw FileFormatError(.malformed, "a FIXED_LEN_BYTE_ARRAY without its length") }
            return Int(length)
        case .byteArray: return -1
        }
    }

    /// `count` little-endian 8-byte values from `raw[start...]`, copied as they lie (the
    /// machines Swift runs on are little-endian).
    private static func copied<T: BitwiseCopyable>(_ raw: UnsafeRawBufferPointer, from start: Int, count: Int) -> [T] {
        [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let base = buffer.baseAddress, let from = raw.baseAddress {
                UnsafeMutableRawPointer(base).copyMemory(from: from + start, byteCount: count * MemoryLayout<T>.stride)
            }
            initialized = count
        }
    }

    /// `count` PLAIN-encoded values, or those at `take` among them; the cursor moves past all.
    private func plainValues(_ cursor: inout ParquetValueCursor, count: Int, take: [Int]? = nil) throws(FileFormatError) -> ParquetValues {
        if let take, physical != .byteArray {
            // Fixed-width values: the taken ones read where they are.
            let size = try fixedSize()
            let start = cursor.position
            let needed = physical == .boolean ? (count + 7) / 8 : count * size
            guard needed <= cursor.end - start else {
                throw FileFormatError(.malformed, "\(count) \(physical.name) values need \(needed) bytes; the page has \(cursor.end - start)")
            }
            cursor.position += needed
            let raw = cursor.bytes
            switch physical {
            case .boolean: return .integers(take.map { Int64((raw[start + $0 >> 3] >> UInt8($0 & 7)) & 1) })
            case .int32: return .integers(take.map { Int64(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: start + 4 * $0, as: Int32.self))) })
            case .int64: return .integers(take.map { Int64(littleEndian: raw.loadUnaligned(fromByteOffset: start + 8 * $0, as: Int64.self)) })
            case .float:
                return .doubles(take.map { Double(Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: start + 4 * $0, as: UInt32.self)))) })
            case .double: return .doubles(take.map { Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: start + 8 * $0, as: UInt64.self))) })
            default:
                var sub = ParquetValueCursor(bytes: raw, position: start, end: start + needed)
                return Self.select(try plainValues(&sub, count: count), take)
            }
        }
        let raw = cursor.bytes
        let available = cursor.end - cursor.position
        let start = cursor.position
        func need(_ bytes: Int) throws(FileFormatError) {
            guard bytes <= available else { throw FileFormatError(.malformed, "\(count) \(physical.name) values need \(bytes) bytes; the page has \(available)") }
        }
        switch physical {
        case .boolean:
            try need((count + 7) / 8)
            var values = [Int64](repeating: 0, count: count)
            for i in 0..<count { values[i] = Int64((raw[start + i >> 3] >> UInt8(i & 7)) & 1) }
            cursor.position += (count + 7) / 8
            return .integers(values)
        case .int32:
            try need(count * 4)
            var values = [Int64](repeating: 0, count: count)
            for i in 0..<count { values[i] = Int64(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: start + 4 * i, as: Int32.self))) }
            cursor.position += count * 4
            return .integers(values)
        case .int64:
            try need(count * 8)
            cursor.position += count * 8
            return .integers(Self.copied(raw, from: start, count: count))
        case .int96:
            try need(count * 12)
            var values = [Int64](repeating: 0, count: count)
            for i in 0..<count {
                let nanoseconds = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: start + 12 * i, as: Int64.self))
                let julianDay = Int64(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: start + 12 * i + 8, as: Int32.self)))
                let (milliseconds, remainder) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000)
                values[i] = (julianDay - 2_440_588) * 86_400_000 + milliseconds - (remainder < 0 ? 1 : 0)
            }
            cursor.position += count * 12
            return .integers(values)
        case .float:
            try need(count * 4)
            var values = [Double](repeating: 0, count: count)
            for i in 0..<count { values[i] = Double(Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: start + 4 * i, as: UInt32.self)))) }
            cursor.position += count * 4
            return .doubles(values)
        case .double:
            try need(count * 8)
            cursor.position += count * 8
            return .doubles(Self.copied(raw, from: start, count: count))
        case .byteArray:
            var values = ParquetByteValues()
            values.offsets.reserveCapacity(Swift.min(count, (cursor.end - start) / 4) + 1)  // 4 bytes a value at least
            var at = start
            let end = cursor.end
            var next = 0
            for k in 0..<count {
                guard end - at >= 4 else { throw FileFormatError(.malformed, "the page ends inside a value's length", byteOffset: at) }
                let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
                guard length <= end - at - 4 else { throw FileFormatError(.malformed, "a value of \(length) bytes runs past the page's end", byteOffset: at) }
                if let take {
                    if next < take.count, take[next] == k {
                        values.append(UnsafeRawBufferPointer(rebasing: raw[(at + 4)..<(at + 4 + length)]))
                        next += 1
                    }
                } else {
                    values.append(UnsafeRawBufferPointer(rebasing: raw[(at + 4)..<(at + 4 + length)]))
                }
                at += 4 + length
            }
            cursor.position = at
            return .bytes(values)
        case .fixedLenByteArray:
            let size = try fixedSize()
            try need(count * size)
            var values = ParquetByteValues()
            values.storage = Array(raw[start..<(start + count * size)])
            values.offsets = (0...count).map { $0 * size }
            cursor.position += count * size
            return .bytes(values)
        }
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` with the error type of the format readers kept (the standard library's
    /// rethrows an untyped error).
    func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws(FileFormatError) -> T) throws(FileFormatError) -> T {
        let result: Result<T, FileFormatError> = withUnsafeBytes { raw in
            Result { () throws(FileFormatError) in try body(raw) }
        }
        return try result.get()
    }
}
