import SieveColumns
import SieveFeatures

/// One column of a FlatGeobuf file, its values gathered feature by feature.
///
/// | FlatGeobuf | field |
/// |---|---|
/// | Byte, UByte, Short, Bool | SmallInteger (Bool 0/1) |
/// | UShort, Int | Integer |
/// | UInt, Long, ULong | BigInteger (a ULong over 2⁶³ − 1 is an error) |
/// | Float | Single |
/// | Double | Double |
/// | String, Json | String |
/// | DateTime | Date (ISO 8601; a bad text is an error) |
/// | Binary | not read |
struct FlatGeobufColumnBuilder {
    let index: Int
    let name: String
    let type: UInt8
    private var integers: [Int64] = []
    private var doubles: [Double] = []
    private var texts = TextColumnBuilder()
    private var nullRows: [Int] = []
    /// Whether the current row got a value.
    private(set) var filled = false

    init(index: Int, name: String, type: UInt8) {
        self.index = index
        self.name = name
        self.type = type
    }

    private enum Storage {
        case integers, doubles, texts, none
    }

    private var storage: Storage {
        switch type {
        case 0...8, 13: .integers
        case 9, 10: .doubles
        case 11, 12: .texts
        default: .none
        }
    }

    mutating func setInteger(_ value: Int64) {
        integers.append(value)
        filled = true
    }

    mutating func setDouble(_ value: Double) {
        doubles.append(value)
        filled = true
    }

    mutating func setText(_ value: UnsafeRawBufferPointer) {
        _ = texts.append(value)
        filled = true
    }

    mutating func setNone() {
        filled = true
    }

    /// Ends row `row`: a column without a value in it is NULL there.
    mutating func finishRow(_ row: Int) {
        defer { filled = false }
        if filled { return }
        nullRows.append(row)
        switch storage {
        case .integers: integers.append(0)
        case .doubles: doubles.append(0)
        case .texts: texts.appendNull()
        case .none: break
        }
    }

    /// The field and column of `rows` rows.
    mutating func finish(rows: Int) throws(FileFormatError) -> (Field, Column) {
        let validity = ValidityBitmap.marking(nullRows, count: rows)
        switch type {
        case 0, 1, 2, 3: return (Field(name: name, type: .smallInteger), .integer(Int64Column(values: integers, validity: validity)))
        case 4, 5: return (Field(name: name, type: .integer), .integer(Int64Column(values: integers, validity: validity)))
        case 6, 7, 8: return (Field(name: name, type: .bigInteger), .integer(Int64Column(values: integers, validity: validity)))
        case 9: return (Field(name: name, type: .single), .double(DoubleColumn(values: doubles, validity: validity)))
        case 10: return (Field(name: name, type: .double), .double(DoubleColumn(values: doubles, validity: validity)))
        case 13: return (Field(name: name, type: .date), .date(Int64Column(values: integers, validity: validity)))
        default: return (Field(name: name, type: .string), .string(texts.column(validity: validity)))
        }
    }
}

/// The properties buffer of a feature: pairs of a column index (UInt16) and a value, little
/// endian, strings and binaries as a UInt32 length and their bytes.
enum FlatGeobufProperties {
    static func read(_ bytes: UnsafeRawBufferPointer, start: Int, count: Int, into columns: inout [FlatGeobufColumnBuilder], row: Int)
        throws(FileFormatError)
    {
        var at = start
        let end = start + count
        func need(_ size: Int) throws(FileFormatError) {
            guard at + size <= end else { throw FileFormatError(.malformed, "a property value runs past the properties", byteOffset: at) }
        }
        while at < end {
            try need(2)
            let k = Int(FlatBufferTable.uint16(bytes, at))
            at += 2
            guard k < columns.count else {
                throw FileFormatError(.malformed, "property of column \(k); the header has \(columns.count) columns", byteOffset: at - 2)
            }
            guard !columns[k].filled else {
                throw FileFormatError(.malformed, "a second value of column \(k) in one feature", fieldName: columns[k].name, byteOffset: at - 2)
            }
            let valueStart = at
            func load<T: FixedWidthInteger>(_: T.Type) throws(FileFormatError) -> T {
                try need(MemoryLayout<T>.size)
                defer { at += MemoryLayout<T>.size }
                return T(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: T.self))
            }
            switch columns[k].type {
            case 0: columns[k].setInteger(Int64(try load(Int8.self)))
            case 1: columns[k].setInteger(Int64(try load(UInt8.self)))
            case 2: columns[k].setInteger(try load(UInt8.self) != 0 ? 1 : 0)
            case 3: columns[k].setInteger(Int64(try load(Int16.self)))
            case 4: columns[k].setInteger(Int64(try load(UInt16.self)))
            case 5: columns[k].setInteger(Int64(try load(Int32.self)))
            case 6: columns[k].setInteger(Int64(try load(UInt32.self)))
            case 7: columns[k].setInteger(try load(Int64.self))
            case 8:
                let value = try load(UInt64.self)
                guard let exact = Int64(exactly: value) else {
                    throw FileFormatError(.invalidValue, "\(value) is over the largest 64-bit integer", fieldName: columns[k].name, byteOffset: valueStart)
                }
                columns[k].setInteger(exact)
            case 9: columns[k].setDouble(Double(Float(bitPattern: try load(UInt32.self))))
            case 10: columns[k].setDouble(Double(bitPattern: try load(UInt64.self)))
            case 11, 12, 13, 14:
                let length = Int(try load(UInt32.self))
                try need(length)
                let value = UnsafeRawBufferPointer(rebasing: bytes[at..<(at + length)])
                at += length
                switch columns[k].type {
                case 11, 12:
                    guard isValidUTF8(value) else {
                        throw FileFormatError(.invalidValue, "the text is not UTF-8", fieldName: columns[k].name, byteOffset: valueStart)
                    }
                    columns[k].setText(value)
                case 13:
                    guard let milliseconds = CivilTime.parse(value, syntax: .iso8601) else {
                        let shown = String(decoding: value.prefix(40), as: UTF8.self)
                        throw FileFormatError(.invalidValue, "\"\(shown)\" is not an ISO 8601 date-time", fieldName: columns[k].name, byteOffset: valueStart)
                    }
                    columns[k].setInteger(milliseconds)
                default:
                    columns[k].setNone()
                }
            default:
                throw FileFormatError(.unsupported, "column type \(columns[k].type)", fieldName: columns[k].name, byteOffset: valueStart)
            }
        }
    }
}
