import SieveFeatures
import SieveColumns

/// Appends the values of one column of a known type, row after row, and lays them out as a
/// ``Column``: the last step of every loader (the inferred columns are converted into one once
/// their type is known; with explicit fields, values go straight in).
package struct TypedColumnBuilder {
    /// The field type (its column type decides the storage).
    package let type: FieldType
    private var integers: [Int64] = []
    private var doubles: [Double] = []
    private var texts = TextColumnBuilder()
    /// NULL rows, once there is one: the rows before it are all valid.
    private var validity: ValidityBitmap?
    /// Rows so far.
    package private(set) var count = 0

    package init(type: FieldType, capacity: Int = 0) {
        self.type = type
        reserveCapacity(capacity)
    }

    /// Makes room for `rows` rows in all.
    package mutating func reserveCapacity(_ rows: Int) {
        switch type.columnType {
        case .integer, .date: integers.reserveCapacity(rows)
        case .double: doubles.reserveCapacity(rows)
        case .string: texts.reserveCapacity(rows)
        }
    }

    /// Appends a NULL row.
    package mutating func appendNull() {
        if validity == nil { validity = ValidityBitmap(count: count, allValid: true) }
        validity?.append(valid: false)
        switch type.columnType {
        case .integer, .date: integers.append(0)
        case .double: doubles.append(0)
        case .string: texts.appendNull()
        }
        count += 1
    }

    /// Appends `n` NULL rows.
    package mutating func appendNulls(_ n: Int) {
        for _ in 0..<Swift.max(0, n) { appendNull() }
    }

    private mutating func markValid() {
        validity?.append(valid: true)
        count += 1
    }

    /// Appends an integer or date row.
    package mutating func append(integer: Int64) {
        integers.append(integer)
        markValid()
    }

    /// Appends a double row.
    package mutating func append(double: Double) {
        doubles.append(double)
        markValid()
    }

    /// Appends a text row (valid UTF-8).
    package mutating func append(text: UnsafeRawBufferPointer) {
        texts.append(text)
        markValid()
    }

    /// Appends the rows of a text column as they are; `rowValidity` marks its NULL rows (`nil`:
    /// none).
    package mutating func append(texts other: TextColumnBuilder, validity rowValidity: ValidityBitmap?) {
        texts.append(contentsOf: other)
        appendValidity(rows: other.count, from: rowValidity)
    }

    /// Appends the rows of another builder of the same type: values in bulk (dictionary texts
    /// renumbered, see ``TextColumnBuilder/append(contentsOf:)``), then their validity.
    package mutating func append(contentsOf other: TypedColumnBuilder) {
        switch type.columnType {
        case .integer, .date: integers.append(contentsOf: other.integers)
        case .double: doubles.append(contentsOf: other.doubles)
        case .string: texts.append(contentsOf: other.texts)
        }
        appendValidity(rows: other.count, from: other.validity)
    }

    /// Counts `n` rows whose values were appended, valid as `rowValidity` says (`nil`: all).
    private mutating func appendValidity(rows n: Int, from rowValidity: ValidityBitmap?) {
        if let rowValidity, rowValidity.nullCount > 0 {
            if validity == nil { validity = ValidityBitmap(count: count, allValid: true) }
            for row in 0..<n { validity?.append(valid: rowValidity.isValid(row)) }
        } else if validity != nil {
            for _ in 0..<n { validity?.append(valid: true) }
        }
        count += n
    }

    /// Appends a text row.
    package mutating func append(text: String) {
        texts.append(text)
        markValid()
    }

    /// Appends a value converted to the column's type (see ``ValueConversion/scalar(_:type:)``).
    package mutating func append(_ value: ScalarValue) {
        switch value {
        case .null: appendNull()
        case .integer(let v), .date(let v): append(integer: v)
        case .double(let v): append(double: v)
        case .string(let v): append(text: v)
        case .boolean(let v): append(integer: v ? 1 : 0)
        }
    }

    /// The finished column (no validity bitmap when no row is NULL).
    package mutating func finish() -> Column {
        let bitmap = validity.flatMap { $0.nullCount == 0 ? nil : $0 }
        switch type.columnType {
        case .integer: return .integer(Int64Column(values: integers, validity: bitmap))
        case .date: return .date(Int64Column(values: integers, validity: bitmap))
        case .double: return .double(DoubleColumn(values: doubles, validity: bitmap))
        case .string: return .string(texts.column(validity: bitmap))
        }
    }

    /// The first NULL row, or `nil`.
    package var firstNullRow: Int? {
        guard let validity else { return nil }
        for (w, word) in validity.words.enumerated() where word != ~0 {
            let row = w * 64 + (~word).trailingZeroBitCount
            return row < validity.count ? row : nil
        }
        return nil
    }
}
