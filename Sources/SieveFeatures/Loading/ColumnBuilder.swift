import SieveColumns
import SieveGeometry

/// Fills one column from JSON values, converting them to the field's type; rows not set stay
/// NULL.
///
/// Its memory is proportional to the values set, not to the rows: a column starts sparse (the
/// rows set and their values) and turns dense (one slot per row and a validity bitmap) only once
/// a quarter of the rows hold a value, where the dense form is no larger than a few times the
/// sparse one. A file whose 20,000 features each carry a different property thus costs its
/// values while loading, not 20,000 × 20,000 slots. ``finish()`` lays the column out densely,
/// as ``Column`` stores it.
struct ColumnBuilder {
    /// The field the column is for.
    let field: Field
    /// The number of rows of the column.
    let count: Int
    /// Whether the column is dense yet (see the type's description).
    private var isDense = false
    /// Sparse: the rows set, ascending (`values`, `doubles` or `strings` hold their values in
    /// the same order). Dense: empty.
    private var rows: [Int] = []
    /// Integer and date values: sparse, one per entry of `rows`; dense, one per row.
    private var integers: [Int64] = []
    /// Double values, as `integers`.
    private var doubles: [Double] = []
    /// Sparse string values, one per entry of `rows`.
    private var sparseStrings: [String] = []
    /// Dense string values, one per row (`nil` for NULL).
    private var denseStrings: [String?] = []
    /// Dense integer and double columns: which rows hold a value.
    private var validity = ValidityBitmap(count: 0, allValid: false)

    /// A builder of `count` NULL rows, which will be given `expectedValues` non-null values
    /// when that is known (it then starts in the form it will end in).
    init(field: Field, count: Int, expectedValues: Int? = nil) {
        self.field = field
        self.count = count
        guard let expectedValues else { return }
        if expectedValues >= Self.denseThreshold(count: count) {
            isDense = true
            switch field.columnType {
            case .integer, .date:
                integers = [Int64](repeating: 0, count: count)
                validity = ValidityBitmap(count: count, allValid: false)
            case .double:
                doubles = [Double](repeating: 0, count: count)
                validity = ValidityBitmap(count: count, allValid: false)
            case .string:
                denseStrings = [String?](repeating: nil, count: count)
            }
        } else {
            rows.reserveCapacity(expectedValues)
            switch field.columnType {
            case .integer, .date: integers.reserveCapacity(expectedValues)
            case .double: doubles.reserveCapacity(expectedValues)
            case .string: sparseStrings.reserveCapacity(expectedValues)
            }
        }
    }

    /// Sets row `row` from a JSON value (`null` leaves it NULL). Rows must be set in ascending
    /// order; setting the last row set again replaces its value.
    /// - Throws: ``ConversionFailure`` when the value does not convert to the field's type.
    mutating func set(_ value: JSONValue, row: Int) throws(ConversionFailure) {
        if value.isNull { return }
        switch field.columnType {
        case .integer: setInteger(try ValueConversion.integer(value, type: field.type), row: row)
        case .date: setInteger(try ValueConversion.date(value), row: row)
        case .double: setDouble(try ValueConversion.double(value, type: field.type), row: row)
        case .string: setString(try ValueConversion.text(value), row: row)
        }
    }

    /// Records `row` as set in a sparse column; `false` when it was the last row set already
    /// (its value is to be replaced, not appended).
    @inline(__always)
    private mutating func appendRow(_ row: Int) -> Bool {
        if rows.last == row { return false }
        rows.append(row)
        return true
    }

    /// Whether a sparse column has reached the size at which it turns dense: a quarter of the
    /// rows (at least 16), where one slot per row costs at most about three times the sparse
    /// entries.
    private var shouldTurnDense: Bool { rows.count >= Self.denseThreshold(count: count) }

    /// The number of values at which a column of `count` rows is dense.
    private static func denseThreshold(count: Int) -> Int { Swift.max(16, count / 4) }

    /// Sets row `row` of an integer or date column.
    mutating func setInteger(_ value: Int64, row: Int) {
        Self.setNumber(value, row: row, values: &integers, rows: &rows, validity: &validity, isDense: &isDense, count: count)
    }

    /// Sets row `row` of a double column.
    private mutating func setDouble(_ value: Double, row: Int) {
        Self.setNumber(value, row: row, values: &doubles, rows: &rows, validity: &validity, isDense: &isDense, count: count)
    }

    /// Sets row `row` of a number column held in `values` (sparse: one per entry of `rows`;
    /// dense: one per row, with `validity`), turning it dense once it reaches the threshold.
    private static func setNumber<Value: Numeric>(
        _ value: Value, row: Int, values: inout [Value], rows: inout [Int], validity: inout ValidityBitmap,
        isDense: inout Bool, count: Int
    ) {
        if isDense {
            values[row] = value
            validity.set(row, valid: true)
            return
        }
        if rows.last == row {
            values[values.count - 1] = value
        } else {
            rows.append(row)
            values.append(value)
        }
        guard rows.count >= denseThreshold(count: count) else { return }
        values = scatter(values, rows: rows, count: count, fill: 0)
        validity = Self.validity(rows: rows, count: count)
        rows = []
        isDense = true
    }

    /// Sets row `row` of a string column.
    private mutating func setString(_ value: String, row: Int) {
        if isDense {
            denseStrings[row] = value
            return
        }
        if appendRow(row) { sparseStrings.append(value) } else { sparseStrings[sparseStrings.count - 1] = value }
        if shouldTurnDense {
            denseStrings = Self.scatter(sparseStrings.map { Optional($0) }, rows: rows, count: count, fill: nil)
            sparseStrings = []
            rows = []
            isDense = true
        }
    }

    /// `count` slots holding `values[i]` at `rows[i]` and `fill` elsewhere.
    private static func scatter<Value>(_ values: [Value], rows: [Int], count: Int, fill: Value) -> [Value] {
        var dense = [Value](repeating: fill, count: count)
        for (i, row) in rows.enumerated() { dense[row] = values[i] }
        return dense
    }

    /// The validity bitmap of `count` rows with exactly `rows` valid.
    private static func validity(rows: [Int], count: Int) -> ValidityBitmap {
        var validity = ValidityBitmap(count: count, allValid: false)
        for row in rows { validity.set(row, valid: true) }
        return validity
    }

    /// The first NULL row, or `nil` when every row holds a value.
    var firstNullRow: Int? {
        guard isDense else {
            // Rows are ascending: the first gap is the first NULL.
            for (i, row) in rows.enumerated() where row != i { return i }
            return rows.count < count ? rows.count : nil
        }
        if field.columnType == .string { return denseStrings.firstIndex(where: { $0 == nil }) }
        for (w, word) in validity.words.enumerated() where word != ~0 {
            let row = w * 64 + (~word).trailingZeroBitCount
            return row < validity.count ? row : nil
        }
        return nil
    }

    /// The finished column (no validity bitmap when no row is NULL), laid out densely.
    func finish() -> Column {
        let hasNull = firstNullRow != nil
        switch field.columnType {
        case .integer, .date:
            let values = isDense ? integers : Self.scatter(integers, rows: rows, count: count, fill: 0)
            let bitmap = hasNull ? (isDense ? validity : Self.validity(rows: rows, count: count)) : nil
            let column = Int64Column(values: values, validity: bitmap)
            return field.columnType == .date ? .date(column) : .integer(column)
        case .double:
            let values = isDense ? doubles : Self.scatter(doubles, rows: rows, count: count, fill: 0)
            let bitmap = hasNull ? (isDense ? validity : Self.validity(rows: rows, count: count)) : nil
            return .double(DoubleColumn(values: values, validity: bitmap))
        case .string:
            let values = isDense
                ? denseStrings : Self.scatter(sparseStrings.map { Optional($0) }, rows: rows, count: count, fill: nil)
            return .string(StringColumn(values))
        }
    }
}

/// Maps the members of successive JSON objects to slots (field indexes), remembering the slot
/// of each member position so that objects with the same key order (the usual case) cost one
/// comparison per member instead of a hash look-up. Keys are compared byte for byte.
struct KeySlotCache {
    private var keys: [String] = []
    /// Whether `keys[i]` is all ASCII: then Swift's `==` (canonical equivalence) with a string
    /// of the same UTF-8 length is byte equality, since no non-ASCII text is canonically
    /// equivalent to ASCII text of the same length (the few characters equivalent to an ASCII
    /// one, like U+212A KELVIN SIGN, are longer in UTF-8), and `==` is fastest.
    private var asciiKeys: [Bool] = []
    private var slots: [Int] = []

    /// The slot of member `key` at `position` in its object; `resolve` is asked on a miss.
    mutating func slot<Failure: Error>(
        for key: String, at position: Int, resolve: (String) throws(Failure) -> Int
    ) throws(Failure) -> Int {
        if position < keys.count {
            let cached = keys[position]
            let same =
                asciiKeys[position]
                ? cached.utf8.count == key.utf8.count && cached == key : JSONKey.equal(cached, key)
            if same { return slots[position] }
            let slot = try resolve(key)
            keys[position] = key
            asciiKeys[position] = Self.isASCII(key)
            slots[position] = slot
            return slot
        }
        let slot = try resolve(key)
        if position == keys.count {
            keys.append(key)
            asciiKeys.append(Self.isASCII(key))
            slots.append(slot)
        }
        return slot
    }

    private static func isASCII(_ key: String) -> Bool { key.utf8.allSatisfy { $0 < 0x80 } }
}
