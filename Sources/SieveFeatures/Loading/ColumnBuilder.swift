import SieveColumns
import SieveGeometry

/// Fills one column row by row from JSON values, converting them to the field's type.
///
/// Rows not set stay NULL. Only the array of the field's column type is allocated.
struct ColumnBuilder {
    /// The field the column is for.
    let field: Field
    private var integers: [Int64] = []
    private var doubles: [Double] = []
    private var strings: [String?] = []
    private var validity: ValidityBitmap

    /// A builder of `count` NULL rows.
    init(field: Field, count: Int) {
        self.field = field
        validity = ValidityBitmap(count: count, allValid: false)
        switch field.columnType {
        case .integer, .date: integers = [Int64](repeating: 0, count: count)
        case .double: doubles = [Double](repeating: 0, count: count)
        case .string: strings = [String?](repeating: nil, count: count)
        }
    }

    /// Sets row `row` from a JSON value (`null` leaves it NULL).
    mutating func set(_ value: JSONValue, row: Int) throws(ConversionFailure) {
        if value.isNull { return }
        switch field.columnType {
        case .integer: integers[row] = try ValueConversion.integer(value, type: field.type)
        case .double: doubles[row] = try ValueConversion.double(value, type: field.type)
        case .string: strings[row] = ValueConversion.text(value)
        case .date: integers[row] = try ValueConversion.date(value)
        }
        validity.set(row, valid: true)
    }

    /// Sets row `row` of an integer column.
    mutating func setInteger(_ value: Int64, row: Int) {
        integers[row] = value
        validity.set(row, valid: true)
    }

    /// The first NULL row, or `nil` when every row holds a value.
    var firstNullRow: Int? {
        for (w, word) in validity.words.enumerated() where word != ~0 {
            let row = w * 64 + (~word).trailingZeroBitCount
            return row < validity.count ? row : nil
        }
        return nil
    }

    /// The finished column (no validity bitmap when no row is NULL).
    func finish() -> Column {
        let bitmap = firstNullRow == nil ? nil : validity
        switch field.columnType {
        case .integer: return .integer(Int64Column(values: integers, validity: bitmap))
        case .date: return .date(Int64Column(values: integers, validity: bitmap))
        case .double: return .double(DoubleColumn(values: doubles, validity: bitmap))
        case .string: return .string(StringColumn(strings))
        }
    }
}

/// Maps the members of successive JSON objects to slots (field indexes), remembering the slot
/// of each member position so that objects with the same key order (the usual case) cost one
/// string comparison per member instead of a hash look-up.
struct KeySlotCache {
    private var keys: [String] = []
    private var slots: [Int] = []

    /// The slot of member `key` at `position` in its object; `resolve` is asked on a miss.
    mutating func slot(for key: String, at position: Int, resolve: (String) -> Int) -> Int {
        if position < keys.count {
            if keys[position] == key { return slots[position] }
            let slot = resolve(key)
            keys[position] = key
            slots[position] = slot
            return slot
        }
        let slot = resolve(key)
        if position == keys.count {
            keys.append(key)
            slots.append(slot)
        }
        return slot
    }
}
