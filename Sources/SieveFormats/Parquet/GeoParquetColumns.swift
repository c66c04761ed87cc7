import SieveColumns
import SieveFeatures
import SieveSQL

/// How a Parquet column's stored values become a field's.
///
/// | Parquet | field |
/// |---|---|
/// | BOOLEAN, INT(8), INT(16), UINT(8) | SmallInteger (booleans 0/1) |
/// | INT32, UINT(16) | Integer |
/// | INT64, UINT(32), UINT(64) (over 2⁶³ − 1 an error) | BigInteger |
/// | FLOAT | Single |
/// | DOUBLE, DECIMAL on INT32 or INT64 | Double |
/// | STRING, ENUM, JSON (BYTE_ARRAY) | String |
/// | UUID (FIXED_LEN_BYTE_ARRAY 16) | GUID (`{…}`) |
/// | DATE | DateOnly |
/// | TIMESTAMP (any unit), INT96 | Date (milliseconds, finer units floored) |
/// | BYTE_ARRAY without annotation, TIME, INTERVAL, FLOAT16, other decimals | not read |
struct GeoParquetColumnBuilder {
    enum Conversion {
        case none
        case days
        case units(perSecond: Int64)
        case unsigned32
        case unsigned64
        case decimal(scale: Int32)
    }

    enum Kind {
        case integer(FieldType, Conversion)
        case double(FieldType, Conversion)
        case text
        case uuid
    }

    let kind: Kind
    private var integers: [Int64] = []
    private var doubles: [Double] = []
    private var texts = TextColumnBuilder()
    private var nullRows: [Int] = []
    private var rows = 0

    /// A builder for a column of `element`'s type; `nil` for a type GeoSieve does not read.
    init?(_ element: ParquetSchemaElement) {
        guard let kind = Self.kind(element) else { return nil }
        self.kind = kind
    }

    static func kind(_ element: ParquetSchemaElement) -> Kind? {
        guard let physical = element.type else { return nil }
        let logical = element.logicalType
        let converted = element.convertedType
        switch physical {
        case .boolean: return .integer(.smallInteger, .none)
        case .int32, .int64:
            let wide = physical == .int64
            switch logical {
            case .date: return wide ? nil : .integer(.dateOnly, .days)
            case .timestamp(let units): return wide ? .integer(.date, .units(perSecond: units)) : nil
            case .time: return nil
            case .decimal(let scale, _): return .double(.double, .decimal(scale: scale))
            case .integer(let width, let signed):
                switch (width, signed) {
                case (8, _), (16, true): return .integer(.smallInteger, .none)
                case (16, false): return .integer(.integer, .none)
                case (32, true): return .integer(.integer, .none)
                case (32, false): return .integer(.bigInteger, .unsigned32)
                case (64, true): return .integer(.bigInteger, .none)
                case (64, false): return .integer(.bigInteger, .unsigned64)
                default: return nil
                }
            case .some: return nil
            case nil: break
            }
            switch converted {
            case 6: return wide ? nil : .integer(.dateOnly, .days)
            case 9: return wide ? .integer(.date, .units(perSecond: 1_000)) : nil
            case 10: return wide ? .integer(.date, .units(perSecond: 1_000_000)) : nil
            case 7, 8, 21: return nil
            case 5: return .double(.double, .decimal(scale: element.scale ?? 0))
            case 11, 15, 16: return .integer(.smallInteger, .none)
            case 12, 17: return .integer(.integer, .none)
            case 13: return .integer(.bigInteger, .unsigned32)
            case 14: return .integer(.bigInteger, .unsigned64)
            default: return .integer(wide ? .bigInteger : .integer, .none)
            }
        case .int96: return .integer(.date, .none)
        case .float: return .double(.single, .none)
        case .double: return .double(.double, .none)
        case .byteArray:
            switch logical {
            case .string, .enumeration, .json: return .text
            case nil: return [0, 4, 19].contains(converted) ? .text : nil
            default: return nil
            }
        case .fixedLenByteArray:
            return logical == .uuid && element.typeLength == 16 ? .uuid : nil
        }
    }

    /// A type GeoSieve does not read, in words.
    static func typeName(_ element: ParquetSchemaElement) -> String {
        switch element.logicalType {
        case .time: return "TIME"
        case .decimal: return "DECIMAL"
        case .geometry: return "GEOMETRY"
        case .geography: return "GEOGRAPHY"
        default: return element.type?.name ?? "group"
        }
    }

    /// The value a stored integer stands for.
    private static func converted(_ value: Int64, _ conversion: Conversion) throws(FileFormatError) -> Int64 {
        switch conversion {
        case .none, .decimal: return value
        case .days:
            return value * 86_400_000
        case .units(let perSecond):
            let divisor = perSecond / 1_000
            guard divisor > 1 else { return value }
            let (q, r) = value.quotientAndRemainder(dividingBy: divisor)
            return r < 0 ? q - 1 : q
        case .unsigned32:
            return Int64(UInt32(truncatingIfNeeded: value))
        case .unsigned64:
            guard value >= 0 else { throw FileFormatError(.invalidValue, "\(UInt64(bitPattern: value)) is over the largest 64-bit integer") }
            return value
        }
    }

    /// Appends a chunk's rows (`rows`: only these, from 0 within the chunk).
    mutating func append(_ chunk: ParquetChunkValues, rows selection: [Int]?) throws(FileFormatError) {
        // The value index of each row (-1 for NULL).
        var valueIndex: [Int]?
        if let present = chunk.present {
            var index = [Int](repeating: -1, count: chunk.rowCount)
            var v = 0
            for row in 0..<chunk.rowCount where present[row] {
                index[row] = v
                v += 1
            }
            valueIndex = index
        }
        let rowsToRead = selection ?? Array(0..<chunk.rowCount)
        func value(_ row: Int) -> Int? {
            guard let valueIndex else { return row }
            let v = valueIndex[row]
            return v < 0 ? nil : v
        }
        switch (kind, chunk.values) {
        case (.integer(let type, let conversion), .integers(let values)):
            integers.reserveCapacity(integers.count + rowsToRead.count)
            // A value outside its annotation's width (INT(8) holding 100000) is an error, not
            // a field holding what its type cannot.
            let range = type.integerRange ?? Int64.min...Int64.max
            for row in rowsToRead {
                if let v = value(row) {
                    let converted = try Self.converted(values[v], conversion)
                    guard range.contains(converted) else {
                        throw FileFormatError(.invalidValue, "\(converted) is outside the range of the column's integer type (\(range))", record: self.rows + 1)
                    }
                    integers.append(converted)
                } else {
                    nullRows.append(self.rows)
                    integers.append(0)
                }
                self.rows += 1
            }
        case (.double(_, let conversion), .integers(let values)):
            guard case .decimal(let scale) = conversion else { throw FileFormatError(.malformed, "integers in a column of doubles") }
            let factor = Self.power(of: 10, Int(scale))
            for row in rowsToRead {
                if let v = value(row) {
                    doubles.append(Double(values[v]) / factor)
                } else {
                    nullRows.append(self.rows)
                    doubles.append(0)
                }
                self.rows += 1
            }
        case (.double, .doubles(let values)):
            doubles.reserveCapacity(doubles.count + rowsToRead.count)
            for row in rowsToRead {
                if let v = value(row) {
                    doubles.append(values[v])
                } else {
                    nullRows.append(self.rows)
                    doubles.append(0)
                }
                self.rows += 1
            }
        case (.text, .bytes(let values)), (.uuid, .bytes(let values)):
            let isUUID = if case .uuid = kind { true } else { false }
            try values.storage.withBytes { (storage) throws(FileFormatError) in
                for row in rowsToRead {
                    defer { self.rows += 1 }
                    guard let v = value(row) else {
                        nullRows.append(self.rows)
                        texts.appendNull()
                        continue
                    }
                    let bytes = UnsafeRawBufferPointer(rebasing: storage[values.offsets[v]..<values.offsets[v + 1]])
                    if isUUID {
                        texts.append(Self.guidText(bytes))
                    } else {
                        guard isValidUTF8(bytes) else { throw FileFormatError(.invalidValue, "a text that is not UTF-8", record: self.rows + 1) }
                        texts.append(bytes)
                    }
                }
            }
        default:
            throw FileFormatError(.malformed, "values of another type than the column's")
        }
    }

    static func power(of base: Double, _ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<Swift.min(Swift.max(exponent, 0), 400) { result *= base }
        return result
    }

    /// A UUID's 16 bytes as a GUID: `{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}`.
    static func guidText(_ bytes: UnsafeRawBufferPointer) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = [UInt8(ascii: "{")]
        for (k, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(k) { text.append(UInt8(ascii: "-")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        text.append(UInt8(ascii: "}"))
        return String(decoding: text, as: UTF8.self)
    }

    /// The field and column of the rows appended.
    mutating func finish(name: String) -> (Field, Column) {
        let validity = nullRows.isEmpty ? nil : ValidityBitmap.marking(nullRows, count: rows)
        switch kind {
        case .integer(let type, _):
            let column = Int64Column(values: integers, validity: validity)
            return (Field(name: name, type: type), type == .date || type == .dateOnly ? .date(column) : .integer(column))
        case .double(let type, _):
            return (Field(name: name, type: type), .double(DoubleColumn(values: doubles, validity: validity)))
        case .text:
            return (Field(name: name, type: .string), .string(texts.column(validity: validity)))
        case .uuid:
            return (Field(name: name, type: .guid), .string(texts.column(validity: validity)))
        }
    }

    /// The value of a PLAIN-encoded statistic as the field holds it (`nil` for columns of text
    /// and for bounds that cannot be read).
    static func statistic(_ bytes: [UInt8], physical: ParquetPhysicalType, kind: Kind) -> ParquetStatisticsFilter.Bound? {
        func load<T: FixedWidthInteger>(_: T.Type) -> T? {
            guard bytes.count == MemoryLayout<T>.size else { return nil }
            return bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(as: T.self)) }
        }
        switch kind {
        case .integer(_, let conversion):
            let raw: Int64?
            switch physical {
            case .int32: raw = load(Int32.self).map(Int64.init)
            case .int64: raw = load(Int64.self)
            case .boolean: raw = bytes.count == 1 ? Int64(bytes[0] & 1) : nil
            default: raw = nil
            }
            guard let raw else { return nil }
            if case .unsigned64 = conversion, raw < 0 { return nil }
            return (try? Self.converted(raw, conversion)).map { .integer($0) }
        case .double(_, let conversion):
            if case .decimal(let scale) = conversion {
                let raw = physical == .int32 ? load(Int32.self).map(Int64.init) : load(Int64.self)
                return raw.map { .double(Double($0) / Self.power(of: 10, Int(scale))) }
            }
            let value: Double? =
                physical == .double
                ? load(UInt64.self).map { Double(bitPattern: $0) } : load(UInt32.self).map { Double(Float(bitPattern: $0)) }
            return value.flatMap { $0.isNaN ? nil : .double($0) }
        case .text, .uuid:
            return nil
        }
    }
}

/// Skips the row groups of a Parquet file whose statistics prove no row can satisfy a where
/// clause: comparisons (`=`, `<`, `<=`, `>`, `>=`), `BETWEEN`, `IN` and `IS NULL` of numeric and
/// date columns with literals, under `AND` and `OR`. Anything else (text columns, functions,
/// arithmetic, `NOT`) decides nothing, so that the group is read and the where clause applied
/// to its rows as usual: the filter only ever skips groups without a match.
public struct ParquetStatisticsFilter: Sendable {
    /// A bound of a column's values, as the field holds them.
    enum Bound {
        case integer(Int64)
        case double(Double)
    }

    let expression: SQLExpression

    /// A filter for `whereClause`.
    /// - Throws: ``/SieveSQL/WhereClauseError`` when the text does not parse.
    public init(whereClause: String) throws(WhereClauseError) {
        expression = try WhereClause.parse(whereClause)
    }

    /// A filter for a parsed where clause.
    public init(_ expression: SQLExpression) {
        self.expression = expression
    }

    /// Whether some row of `group` may satisfy the where clause.
    func mayMatch(file: ParquetFile, group: ParquetRowGroup) -> Bool {
        mayMatch(expression, file: file, group: group)
    }

    private func mayMatch(_ expression: SQLExpression, file: ParquetFile, group: ParquetRowGroup) -> Bool {
        switch expression.kind {
        case .and(let operands): return operands.allSatisfy { mayMatch($0, file: file, group: group) }
        case .or(let operands): return operands.contains { mayMatch($0, file: file, group: group) }
        case .comparison(let op, let left, let right):
            if case .field(let field) = left.kind, let literal = Self.literal(right) {
                return mayCompare(field.name, op, literal, file: file, group: group)
            }
            if case .field(let field) = right.kind, let literal = Self.literal(left) {
                let flipped: ComparisonOperator =
                    switch op {
                    case .less: .greater
                    case .lessOrEqual: .greaterOrEqual
                    case .greater: .less
                    case .greaterOrEqual: .lessOrEqual
                    default: op
                    }
                return mayCompare(field.name, flipped, literal, file: file, group: group)
            }
            return true
        case .between(let operand, let lower, let upper, negated: false):
            guard case .field(let field) = operand.kind, let low = Self.literal(lower), let high = Self.literal(upper) else { return true }
            return mayCompare(field.name, .greaterOrEqual, low, file: file, group: group)
                && mayCompare(field.name, .lessOrEqual, high, file: file, group: group)
        case .inList(let operand, let list, negated: false):
            guard case .field(let field) = operand.kind else { return true }
            let literals = list.map(Self.literal)
            guard literals.allSatisfy({ $0 != nil }) else { return true }
            return literals.contains { literal in literal.map { mayCompare(field.name, .equal, $0, file: file, group: group) } ?? true }
        case .isNull(let operand, negated: false):
            guard case .field(let field) = operand.kind, let (_, meta, _) = column(field.name, file: file, group: group),
                let nulls = meta.statistics?.nullCount
            else { return true }
            return nulls > 0
        default:
            return true
        }
    }

    /// A numeric or date literal (negated numbers included).
    private static func literal(_ expression: SQLExpression) -> Bound? {
        switch expression.kind {
        case .literal(.integer(let v)), .literal(.date(let v)), .literal(.timestamp(let v)): return .integer(v)
        case .literal(.double(let v)): return v.isNaN ? nil : .double(v)
        case .negate(let inner):
            switch literal(inner) {
            case .integer(let v): return v == .min ? nil : .integer(-v)
            case .double(let v): return .double(-v)
            case nil: return nil
            }
        default: return nil
        }
    }

    /// The column named `name` (in any case), its chunk's metadata in `group` and how its values
    /// read; `nil` for a column GeoSieve does not read.
    private func column(_ name: String, file: ParquetFile, group: ParquetRowGroup) -> (ParquetLeaf, ParquetColumnMetaData, GeoParquetColumnBuilder.Kind)? {
        guard let leaf = file.leaves.first(where: { $0.path.count == 1 && $0.path[0].lowercased() == name.lowercased() }),
            leaf.maxRepetition == 0, let kind = GeoParquetColumnBuilder.kind(leaf.element)
        else { return nil }
        return (leaf, group.columns[leaf.index], kind)
    }

    /// Whether some row may hold a value `v` with `v op literal`.
    private func mayCompare(_ name: String, _ op: ComparisonOperator, _ literal: Bound, file: ParquetFile, group: ParquetRowGroup) -> Bool {
        guard let (leaf, meta, kind) = column(name, file: file, group: group), let statistics = meta.statistics else { return true }
        // The deprecated bounds are signed comparisons: right for numbers, not for unsigned types.
        if statistics.legacy, case .integer(_, let conversion) = kind, case .unsigned64 = conversion { return true }
        let physical = leaf.element.type ?? meta.type
        if statistics.nullCount == group.rowCount, group.rowCount > 0 { return false }  // every value NULL: no comparison holds
        let low = statistics.min.flatMap { GeoParquetColumnBuilder.statistic($0, physical: physical, kind: kind) }
        let high = statistics.max.flatMap { GeoParquetColumnBuilder.statistic($0, physical: physical, kind: kind) }
        switch op {
        case .equal:
            if let low, Self.compare(low, literal) > 0 { return false }
            if let high, Self.compare(high, literal) < 0 { return false }
        case .less:
            if let low, Self.compare(low, literal) >= 0 { return false }
        case .lessOrEqual:
            if let low, Self.compare(low, literal) > 0 { return false }
        case .greater:
            if let high, Self.compare(high, literal) <= 0 { return false }
        case .greaterOrEqual:
            if let high, Self.compare(high, literal) < 0 { return false }
        default:
            break
        }
        return true
    }

    /// -1, 0 or 1 as `a` is less than, equal to or greater than `b`, exactly (an integer and a
    /// double are compared without rounding the integer).
    static func compare(_ a: Bound, _ b: Bound) -> Int {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x < y ? -1 : x > y ? 1 : 0
        case (.double(let x), .double(let y)): return x < y ? -1 : x > y ? 1 : 0
        case (.integer(let x), .double(let y)): return -compareDouble(y, x)
        case (.double(let x), .integer(let y)): return compareDouble(x, y)
        }
    }

    /// Compares a double with an integer exactly.
    private static func compareDouble(_ d: Double, _ i: Int64) -> Int {
        if d >= 9_223_372_036_854_775_808.0 { return 1 }
        if d < -9_223_372_036_854_775_808.0 { return -1 }
        let whole = d.rounded(.down)
        let w = Int64(whole)
        if w != i { return w < i ? -1 : 1 }
        return d > whole ? 1 : 0
    }
}
