import SieveFeatures
import SieveColumns
import SieveGeometry
import SieveJSON

/// The values of one property across the features read so far, stored in the narrowest form
/// that can still become any field type the values allow (see ``PropertyStatistics``): integers
/// while there are only integers, doubles once a fraction or exponent appears, 0/1 for
/// booleans, text once strings or mixed kinds appear. Values arrive row by row; the type widens
/// as they come, so that no value is ever held as a JSON tree.
struct InferredColumn {
    /// What the values looked like (decides the field type).
    private(set) var statistics = PropertyStatistics()

    private enum Storage {
        /// No value yet (every row so far NULL).
        case none
        /// Integer literals (or 0/1 for booleans), in ``integers``.
        case integers
        /// Numbers, once one had a fraction or exponent, in ``doubles``.
        case doubles
        /// Text: strings, or values of mixed kinds written as text, in ``texts``.
        case texts
    }

    /// Which of the arrays below holds the values (kept apart from the arrays so that
    /// appending mutates them in place).
    private var storage = Storage.none
    private var integers: [Int64] = []
    private var doubles: [Double] = []
    private var texts = TextColumnBuilder()
    /// Whether the integer storage holds booleans as 0/1 (not integer literals).
    private var storesBooleans = false
    /// Rows (of the integer storage) holding the literal `-0`, which is 0 as an integer but
    /// −0.0 as a double and `-0` as text.
    private var negativeZeroRows: [Int] = []
    /// Integer literals beyond ±2⁵³ in double storage, whose text is the integer's, not the
    /// double's.
    private var largeIntegers: [(row: Int, value: Int64)] = []
    /// The NULL rows, once there is one.
    private var validity: ValidityBitmap?
    /// Rows so far.
    private(set) var count = 0

    init() {}

    // MARK: - Appending

    /// Makes room for `rows` rows in all in the current storage (the arrays a wider type
    /// would use are made when it comes).
    mutating func reserveCapacity(_ rows: Int) {
        switch storage {
        case .none: break
        case .integers: integers.reserveCapacity(rows)
        case .doubles: doubles.reserveCapacity(rows)
        case .texts: texts.reserveCapacity(rows)
        }
    }

    /// Pads with NULL rows up to `row` (exclusive).
    @inline(__always)
    private mutating func pad(to row: Int) {
        while count < row { appendNull() }
    }

    /// Appends a NULL row.
    mutating func appendNull() {
        if validity == nil { validity = ValidityBitmap(count: count, allValid: true) }
        validity?.append(valid: false)
        switch storage {
        case .none: break
        case .integers: integers.append(0)
        case .doubles: doubles.append(0)
        case .texts: texts.appendNull()
        }
        count += 1
    }

    private mutating func markValid() {
        validity?.append(valid: true)
        count += 1
    }

    /// Sets row `row` (at or after ``count``) to a JSON number.
    /// - Throws: for a number beyond the range of doubles.
    mutating func set(number: JSONNumber, row: Int) throws(ConversionFailure) {
        pad(to: row)
        if number.isIntegerLiteral, let int64 = number.int64 {
            statistics.observeInteger(int64)
            appendInteger(int64, negativeZero: int64 == 0 && number.double.sign == .minus)
            return
        }
        guard number.double.isFinite else {
            throw ConversionFailure(message: "\(ValueConversion.describe(.number(number))) cannot be stored (numbers must be finite doubles)")
        }
        statistics.observeDouble()
        switch storage {
        case .none:
            doubles = Array(repeating: 0, count: count)
            storage = .doubles
            appendDouble(number.double)
        case .integers:
            widenToDoubles()
            appendDouble(number.double)
        case .doubles:
            appendDouble(number.double)
        case .texts:
            appendText(number.description)
        }
    }

    /// Sets row `row` to a boolean.
    mutating func set(bool: Bool, row: Int) {
        pad(to: row)
        statistics.observeBool()
        switch storage {
        case .none:
            integers = Array(repeating: 0, count: count)
            storage = .integers
            storesBooleans = true
            appendInteger(bool ? 1 : 0, negativeZero: false)
        case .integers where storesBooleans:
            appendInteger(bool ? 1 : 0, negativeZero: false)
        default:
            widenToTexts()
            appendText(bool ? "true" : "false")
        }
    }

    /// Sets row `row` to a string (valid UTF-8 bytes).
    mutating func set(string: UnsafeRawBufferPointer, row: Int) {
        pad(to: row)
        let checkDate = statistics.strings == statistics.values && statistics.allDates
        widenToTexts()
        // A string seen before in this column was found a date then (else allDates would be
        // false now): only new strings are parsed.
        let isNew = texts.append(string)
        statistics.observeString(isDate: checkDate && (!isNew || ValueConversion.isISODate(string)))
        markValid()
    }

    /// Sets row `row` to an array or object (stored as compact JSON text).
    /// - Throws: for a number beyond the range of doubles inside it.
    mutating func set(composite value: JSONValue, row: Int) throws(ConversionFailure) {
        let text = try ValueConversion.text(value)
        pad(to: row)
        statistics.observeOther()
        widenToTexts()
        appendText(text)
    }

    /// Pads the column with NULL rows to `rows` rows.
    mutating func finish(rows: Int) { pad(to: rows) }

    private mutating func appendInteger(_ value: Int64, negativeZero: Bool) {
        switch storage {
        case .none:
            integers = Array(repeating: 0, count: count)
            storage = .integers
            appendInteger(value, negativeZero: negativeZero)
            return
        case .integers:
            // A boolean column meeting an integer is a column of mixed kinds.
            if storesBooleans, statistics.booleans != statistics.values {
                widenToTexts()
                appendText(negativeZero ? "-0" : String(value))
                return
            }
            integers.append(value)
            if negativeZero { negativeZeroRows.append(count) }
            markValid()
        case .doubles:
            if value.magnitude >= 1 << 53 { largeIntegers.append((count, value)) }
            appendDouble(negativeZero ? -0.0 : Double(value))
        case .texts:
            appendText(negativeZero ? "-0" : String(value))
        }
    }

    private mutating func appendDouble(_ value: Double) {
        doubles.append(value)
        markValid()
    }

    private mutating func appendText(_ text: String) {
        texts.append(text)
        markValid()
    }

    private func isValid(_ row: Int) -> Bool { validity?.isValid(row) ?? true }

    /// Integer storage to double storage (integer literals beyond 2⁵³ remembered for text).
    private mutating func widenToDoubles() {
        guard storage == .integers else { return }
        doubles = integers.map { Double($0) }
        for row in negativeZeroRows { doubles[row] = -0.0 }
        negativeZeroRows = []
        for (row, value) in integers.enumerated() where value.magnitude >= 1 << 53 && isValid(row) {
            largeIntegers.append((row, value))
        }
        integers = []
        storage = .doubles
    }

    /// Any storage to text storage, each value written as the JSON text of its kind.
    private mutating func widenToTexts() {
        let built: TextColumnBuilder
        switch storage {
        case .texts: return
        case .none:
            var builder = TextColumnBuilder()
            for _ in 0..<count { builder.appendNull() }
            built = builder
        case .integers:
            let values = integers
            let booleans = storesBooleans
            var builder = TextColumnBuilder()
            var negativeZero = negativeZeroRows.makeIterator()
            var nextNegativeZero = negativeZero.next()
            for (row, value) in values.enumerated() {
                if !isValid(row) {
                    builder.appendNull()
                } else if booleans {
                    builder.append(value == 1 ? "true" : "false")
                } else if row == nextNegativeZero {
                    builder.append("-0")
                    nextNegativeZero = negativeZero.next()
                } else {
                    builder.append(String(value))
                }
            }
            built = builder
        case .doubles:
            let values = doubles
            var builder = TextColumnBuilder()
            var large = largeIntegers.makeIterator()
            var nextLarge = large.next()
            for (row, value) in values.enumerated() {
                if !isValid(row) {
                    builder.appendNull()
                } else if let exception = nextLarge, exception.row == row {
                    builder.append(String(exception.value))
                    nextLarge = large.next()
                } else {
                    builder.append(formatNumber(value))
                }
            }
            built = builder
        }
        negativeZeroRows = []
        largeIntegers = []
        storesBooleans = false
        integers = []
        doubles = []
        texts = built
        storage = .texts
    }

    // MARK: - Finishing

    /// Appends this column's rows, converted to `type` (which the merged statistics chose, so
    /// every value converts), to `builder`.
    mutating func write(as type: FieldType, into builder: inout TypedColumnBuilder) {
        if type.columnType == .string { widenToTexts() }
        switch storage {
        case .none:
            builder.appendNulls(count)
        case .integers:
            var negativeZero = Set(negativeZeroRows)
            for (row, value) in integers.enumerated() {
                if !isValid(row) {
                    builder.appendNull()
                } else if type.columnType == .double {
                    builder.append(double: negativeZero.remove(row) != nil ? -0.0 : Double(value))
                } else {
                    builder.append(integer: value)
                }
            }
        case .doubles:
            for (row, value) in doubles.enumerated() {
                if isValid(row) { builder.append(double: value) } else { builder.appendNull() }
            }
        case .texts where type.columnType == .date:
            // Each distinct text parsed once; a day-only field keeps only midnights.
            let validity = self.validity
            let dateOnly = type == .dateOnly
            texts.forEachRow(converting: {
                CivilTime.parse($0, syntax: .iso8601).flatMap { !dateOnly || CivilTime.isMidnight($0) ? $0 : nil }
            }) { row, milliseconds in
                if let milliseconds, validity?.isValid(row) ?? true {
                    builder.append(integer: milliseconds)
                } else {
                    builder.appendNull()
                }
            }
        case .texts:
            builder.append(texts: texts, validity: validity)
        }
    }

    /// The column as `type` directly, when the storage already is that type's (the one-chunk
    /// load of an integer or double column: no copy); else `nil`.
    mutating func column(as type: FieldType) -> Column? {
        let bitmap = validity.flatMap { $0.nullCount == 0 ? nil : $0 }
        switch (storage, type.columnType) {
        case (.integers, .integer):
            defer { integers = [] }
            return .integer(Int64Column(values: integers, validity: bitmap))
        case (.doubles, .double):
            defer { doubles = [] }
            return .double(DoubleColumn(values: doubles, validity: bitmap))
        case (.texts, .string):
            defer { texts = TextColumnBuilder() }
            return .string(texts.column(validity: bitmap))
        default:
            return nil
        }
    }

    /// The forms of the column's texts, each once (a ``FileRepresentation/DateStyle``, `nil` for
    /// any other form), in order of appearance; at most two.
    func dateStyles() -> [FileRepresentation.DateStyle?] {
        guard storage == .texts else { return [] }
        var styles: [FileRepresentation.DateStyle?] = []
        let validity = self.validity
        // forEachRow has no early exit; after two forms each row costs one comparison.
        texts.forEachRow { row, bytes in
            guard styles.count < 2, validity?.isValid(row) ?? true else { return }
            let style = FileRepresentation.DateStyle(bytes)
            if !styles.contains(style) { styles.append(style) }
        }
        return styles
    }

    /// The integer value of row `row` when it holds an integer literal (for object IDs).
    func integer(row: Int) -> Int64? {
        guard isValid(row), storage == .integers, row < integers.count else { return nil }
        return integers[row]
    }
}

extension ValueConversion {
    /// Whether UTF-8 bytes are an ISO-8601 date or date-time to ``CivilTime/parse(_:syntax:)``
    /// (a cheap byte test first, so that ordinary strings cost no parse).
    static func isISODate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return false }
        for i in 0..<10 where i != 4 && i != 7 && bytes[i] &- UInt8(ascii: "0") > 9 { return false }
        return CivilTime.parse(bytes, syntax: .iso8601) != nil
    }
}
