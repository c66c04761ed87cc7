import SieveFeatures
import SieveFormats
import SieveColumns

/// Appends one value to a column without copying it: the column's buffers are shared with the
/// published snapshot, and appending behind its last row claims new slots (see
/// ``ColumnBuffer``).
enum ColumnAppend {
    /// Appends `value` (of the column's type, or NULL) to `column`, the column of field `field`.
    /// A dictionary-encoded string column gets the code of an existing string, or a new entry
    /// at the end of its dictionary; `codes` caches string → code per field for the writer.
    static func append(_ value: ScalarValue, to column: inout Column, field: Int, codes: inout [Int: [ExactString: UInt32]]) {
        let isNull = value.isNull
        switch column {
        case .integer(var values), .date(var values):
            let isDate = if case .date = column { true } else { false }
            switch value {
            case .integer(let x), .date(let x): values.values.append(x)
            default: values.values.append(0)
            }
            appendValidity(&values.validity, isNull: isNull, before: values.values.count - 1)
            column = isDate ? .date(values) : .integer(values)
        case .double(var values):
            switch value {
            case .double(let x): values.values.append(x)
            case .integer(let x): values.values.append(Double(x))
            default: values.values.append(0)
            }
            appendValidity(&values.validity, isNull: isNull, before: values.values.count - 1)
            column = .double(values)
        case .string(let strings):
            var validity = strings.validity
            let string: String? = if case .string(let s) = value { s } else { nil }
            let encoding: StringColumn.Encoding
            switch strings.encoding {
            case .plain(var storage):
                if let string { storage.append(string) } else { storage.appendEmpty() }
                encoding = .plain(storage)
            case .dictionary(var rowCodes, var dictionary):
                var code: UInt32 = 0
                if let string {
                    if codes[field] == nil { codes[field] = Self.codes(of: dictionary) }
                    let key = ExactString(string)
                    if let existing = codes[field]?[key] {
                        code = existing
                    } else {
                        code = UInt32(dictionary.count)
                        dictionary.append(string)
                        // In place (no copy of the map).
                        codes[field]?[key] = code
                    }
                }
                rowCodes.append(code)
                encoding = .dictionary(codes: rowCodes, dictionary: dictionary)
            }
            appendValidity(&validity, isNull: isNull, before: strings.count)
            column = .string(StringColumn(encoding: encoding, validity: validity))
        }
    }

    /// Appends a row's validity bit; a column without NULLs so far gets a bitmap (all valid
    /// before) at its first NULL.
    private static func appendValidity(_ validity: inout ValidityBitmap?, isNull: Bool, before rows: Int) {
        if validity != nil {
            validity?.append(valid: !isNull)
        } else if isNull {
            var bitmap = ValidityBitmap(count: rows, allValid: true)
            bitmap.append(valid: false)
            validity = bitmap
        }
    }

    /// String → code of a dictionary (the first code of a string listed twice).
    private static func codes(of dictionary: StringStorage) -> [ExactString: UInt32] {
        var map: [ExactString: UInt32] = [:]
        map.reserveCapacity(dictionary.count)
        for i in 0..<dictionary.count where map[ExactString(dictionary[i])] == nil {
            map[ExactString(dictionary[i])] = UInt32(i)
        }
        return map
    }
}
