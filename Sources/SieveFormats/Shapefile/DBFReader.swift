import Foundation
import SieveColumns
import SieveFeatures
import SieveJSON

/// A field of a dBase table as its header declares it.
struct DBFField: Equatable {
    /// The name (up to 11 bytes, decoded with the file's encoding).
    var name: String
    /// The type letter: `C`, `N`, `F`, `L`, `D`, or another GeoSieve does not read.
    var type: UInt8
    /// The width in bytes and the digits after the decimal point.
    var length: Int
    var decimals: Int
    /// Where the field starts within a record (after the deletion flag).
    var offset: Int

    /// `N 9.0`, `C 80`, as messages name a field's declaration.
    var declaration: String {
        let letter = String(UnicodeScalar(type))
        switch type {
        case UInt8(ascii: "N"), UInt8(ascii: "F"): return "\(letter) \(length).\(decimals)"
        default: return "\(letter) \(length)"
        }
    }
}

/// A dBase III+ table (the `.dbf` of a shapefile): its header and fields, and its records read
/// into typed columns with GDAL's rules.
///
/// | type | field | NULL |
/// |---|---|---|
/// | `C` | String (length kept), leading and trailing blanks trimmed | an empty or blank value |
/// | `N` without decimals, width below 10 | Integer | blank or `*` filled |
/// | `N` without decimals, width 10…18 | BigInteger | blank or `*` filled |
/// | `N` without decimals, wider | BigInteger when every value fits 64 bits, else Double | blank or `*` filled |
/// | `N` with decimals, `F` | Double | blank or `*` filled |
/// | `L` | SmallInteger, 1 for `T`/`t`/`Y`/`y`, 0 for `F`/`f`/`N`/`n` | `?` or blank |
/// | `D` | DateOnly, from `YYYYMMDD` | `00000000` or blank |
///
/// Other types (memo `M`, FoxPro binary types) are left out and listed.
struct DBFTable {
    let recordCount: Int
    let headerLength: Int
    let recordLength: Int
    let languageDriver: UInt8
    let fields: [DBFField]

    /// Reads the header of `bytes`; field names are decoded with `encoding`.
    /// - Throws: ``FileFormatError/Kind/malformed`` for a header that does not fit the file.
    init(_ bytes: UnsafeRawBufferPointer, encoding: DBFEncoding) throws(FileFormatError) {
        guard bytes.count >= 32 else {
            throw FileFormatError(.malformed, "a dBase header is 32 bytes or more; the file has \(bytes.count)", byteOffset: 0)
        }
        recordCount = Int(UInt32(bytes[4]) | UInt32(bytes[5]) << 8 | UInt32(bytes[6]) << 16 | UInt32(bytes[7]) << 24)
        headerLength = Int(UInt16(bytes[8]) | UInt16(bytes[9]) << 8)
        recordLength = Int(UInt16(bytes[10]) | UInt16(bytes[11]) << 8)
        languageDriver = bytes[29]
        guard headerLength >= 33, headerLength <= bytes.count else {
            throw FileFormatError(.malformed, "the header length \(headerLength) does not fit a file of \(bytes.count) bytes", byteOffset: 8)
        }
        var fields: [DBFField] = []
        var at = 32
        var offset = 1
        var names = Set<String>()
        while at + 32 <= headerLength, bytes[at] != 0x0D {
            var nameEnd = at
            while nameEnd < at + 11, bytes[nameEnd] != 0 { nameEnd += 1 }
            var decoded: [UInt8] = []
            let raw = UnsafeRawBufferPointer(rebasing: bytes[at..<nameEnd])
            if !encoding.appendUTF8(raw, to: &decoded) { decoded = Array(raw).map { $0 < 0x80 ? $0 : UInt8(ascii: "?") } }
            let name = String(decoding: decoded, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            let type = bytes[at + 11]
            var length = Int(bytes[at + 16])
            var decimals = Int(bytes[at + 17])
            // Character fields over 255 bytes keep the high byte of their length in the decimal
            // count (Clipper, FoxPro), as GDAL reads them.
            if type == UInt8(ascii: "C") {
                length += decimals << 8
                decimals = 0
            }
            guard length > 0 else {
                throw FileFormatError(.malformed, "field \(JSONKey.quoted(name)) has width 0", byteOffset: at + 16)
            }
            guard !name.isEmpty else { throw FileFormatError(.malformed, "a field without a name", byteOffset: at) }
            guard names.insert(name.uppercased()).inserted else {
                throw FileFormatError(.malformed, "two fields are named \(JSONKey.quoted(name))", byteOffset: at)
            }
            fields.append(DBFField(name: name, type: type, length: length, decimals: decimals, offset: offset))
            offset += length
            at += 32
        }
        guard recordLength >= 1 || recordCount == 0 else {
            throw FileFormatError(.malformed, "records of 0 bytes: each needs at least its deletion flag", byteOffset: 10)
        }
        guard offset <= recordLength else {
            throw FileFormatError(
                .malformed, "the fields take \(offset) bytes per record, the header says records are \(recordLength)", byteOffset: 10)
        }
        let needed = headerLength + recordCount * recordLength
        guard needed <= bytes.count else {
            throw FileFormatError(
                .malformed,
                "the header says \(recordCount) records of \(recordLength) bytes after \(headerLength) bytes of header, "
                    + "\(needed) bytes; the file has \(bytes.count)",
                byteOffset: 4)
        }
        self.fields = fields
    }

    /// Whether record `index` (from 0) is marked deleted.
    func isDeleted(_ bytes: UnsafeRawBufferPointer, record index: Int) -> Bool {
        bytes[headerLength + index * recordLength] == UInt8(ascii: "*")
    }
}

/// Reads one field's values, record by record, into a column.
struct DBFColumnReader {
    enum Kind {
        case text
        /// `N` without decimals; `wide`: wider than 18 digits, so values may not fit 64 bits.
        case integer(wide: Bool)
        case real
        case logical
        case date
    }

    let field: DBFField
    let kind: Kind
    let encoding: DBFEncoding
    private var integers: [Int64] = []
    private var doubles: [Double] = []
    /// A wide integer field turned double (a value did not fit 64 bits).
    private var widened = false
    private var texts = TextColumnBuilder()
    private var nullRows: [Int] = []
    private var scratch: [UInt8] = []
    private var count = 0

    /// A reader for `field`, or `nil` for a type GeoSieve does not read.
    init?(_ field: DBFField, encoding: DBFEncoding) {
        self.field = field
        self.encoding = encoding
        switch field.type {
        case UInt8(ascii: "C"): kind = .text
        case UInt8(ascii: "N") where field.decimals == 0: kind = .integer(wide: field.length > 18)
        case UInt8(ascii: "N"), UInt8(ascii: "F"): kind = .real
        case UInt8(ascii: "L"): kind = .logical
        case UInt8(ascii: "D"): kind = .date
        default: return nil
        }
    }

    /// The schema field the column gets.
    var schemaField: Field {
        switch kind {
        case .text: return Field(name: field.name, type: .string, length: field.length)
        case .integer(let wide):
            if widened { return Field(name: field.name, type: .double) }
            return Field(name: field.name, type: wide || field.length >= 10 ? .bigInteger : .integer)
        case .real: return Field(name: field.name, type: .double)
        case .logical: return Field(name: field.name, type: .smallInteger)
        case .date: return Field(name: field.name, type: .dateOnly)
        }
    }

    /// Reads the field of the record starting at `record` (its deletion flag) in `bytes`.
    /// - Throws: ``FileFormatError/Kind/invalidValue`` with the byte offset of the value.
    mutating func read(_ bytes: UnsafeRawBufferPointer, record: Int) throws(FileFormatError) {
        var start = record + field.offset
        var end = start + field.length
        let valueOffset = start
        // Trim blanks (and what follows a NUL, which ends a C string).
        var k = start
        while k < end, bytes[k] != 0 { k += 1 }
        end = k
        while start < end, bytes[start] == 0x20 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 { end -= 1 }
        let row = count
        count += 1
        if start == end {
            appendNull(row)
            return
        }
        let value = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        switch kind {
        case .text:
            scratch.removeAll(keepingCapacity: true)
            guard encoding.appendUTF8(value, to: &scratch) else {
                throw invalid(value, at: valueOffset, "is not text in the file's encoding (\(encoding.name))")
            }
            scratch.withUnsafeBytes { _ = texts.append($0) }
        case .integer:
            if value.allSatisfy({ $0 == UInt8(ascii: "*") }) {
                appendNull(row)
                return
            }
            if !widened, let integer = Self.integer(value) {
                integers.append(integer)
                return
            }
            guard case .integer(wide: true) = kind, let double = DecimalText.double(value) else {
                throw invalid(value, at: valueOffset, "is not an integer (\(field.declaration))")
            }
            if !widened {
                // A value wider than 64 bits: the whole column becomes doubles.
                widened = true
                doubles = integers.map(Double.init)
                integers = []
            }
            doubles.append(double)
        case .real:
            if value.allSatisfy({ $0 == UInt8(ascii: "*") }) {
                appendNull(row)
                return
            }
            guard let double = DecimalText.double(value) else {
                throw invalid(value, at: valueOffset, "is not a number (\(field.declaration))")
            }
            doubles.append(double)
        case .logical:
            guard value.count == 1 else { throw invalid(value, at: valueOffset, "is not a logical value (T, F, Y, N or ?)") }
            switch value[0] {
            case UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: "Y"), UInt8(ascii: "y"): integers.append(1)
            case UInt8(ascii: "F"), UInt8(ascii: "f"), UInt8(ascii: "N"), UInt8(ascii: "n"): integers.append(0)
            case UInt8(ascii: "?"): appendNull(row)
            default: throw invalid(value, at: valueOffset, "is not a logical value (T, F, Y, N or ?)")
            }
        case .date:
            if value.allSatisfy({ $0 == UInt8(ascii: "0") }) {
                appendNull(row)
                return
            }
            guard value.count == 8, let date = Self.date(value) else {
                throw invalid(value, at: valueOffset, "is not a date YYYYMMDD")
            }
            integers.append(date)
        }
    }

    private mutating func appendNull(_ row: Int) {
        nullRows.append(row)
        switch kind {
        case .text: texts.appendNull()
        case .real: doubles.append(0)
        case .integer: if widened { doubles.append(0) } else { integers.append(0) }
        case .logical, .date: integers.append(0)
        }
    }

    private func invalid(_ value: UnsafeRawBufferPointer, at offset: Int, _ what: String) -> FileFormatError {
        let shown = String(decoding: value.map { $0 < 0x20 || $0 >= 0x7F ? UInt8(ascii: "?") : $0 }, as: UTF8.self)
        return FileFormatError(.invalidValue, "\(JSONKey.quoted(shown)) \(what)", fieldName: field.name, byteOffset: offset)
    }

    /// The finished column.
    mutating func column() -> Column {
        let validity = ValidityBitmap.marking(nullRows, count: count)
        switch kind {
        case .text: return .string(texts.column(validity: validity))
        case .real: return .double(DoubleColumn(values: doubles, validity: validity))
        case .integer:
            if widened { return .double(DoubleColumn(values: doubles, validity: validity)) }
            return .integer(Int64Column(values: integers, validity: validity))
        case .logical: return .integer(Int64Column(values: integers, validity: validity))
        case .date: return .date(Int64Column(values: integers, validity: validity))
        }
    }

    /// An optionally signed run of digits that fits 64 bits.
    static func integer(_ value: UnsafeRawBufferPointer) -> Int64? {
        var i = 0
        var negative = false
        if value[0] == UInt8(ascii: "-") || value[0] == UInt8(ascii: "+") {
            negative = value[0] == UInt8(ascii: "-")
            i = 1
        }
        guard i < value.count else { return nil }
        var magnitude: UInt64 = 0
        while i < value.count {
            let digit = value[i] &- UInt8(ascii: "0")
            guard digit <= 9 else { return nil }
            let (times, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(digit))
            guard !overflow, !overflow2 else { return nil }
            magnitude = sum
            i += 1
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    /// `YYYYMMDD` as milliseconds at the start of that day (UTC); `nil` for no such date.
    static func date(_ value: UnsafeRawBufferPointer) -> Int64? {
        var fields: (Int64, Int64, Int64) = (0, 0, 0)
        for (i, byte) in value.enumerated() {
            let digit = byte &- UInt8(ascii: "0")
            guard digit <= 9 else { return nil }
            switch i {
            case 0..<4: fields.0 = fields.0 * 10 + Int64(digit)
            case 4..<6: fields.1 = fields.1 * 10 + Int64(digit)
            default: fields.2 = fields.2 * 10 + Int64(digit)
            }
        }
        guard CivilTime.isValid(year: fields.0, month: fields.1, day: fields.2) else { return nil }
        return CivilTime.days(year: fields.0, month: fields.1, day: fields.2) * CivilTime.millisecondsPerDay
    }
}
