import SieveBuffers

/// The value type of a column, as the where-clause engine sees it.
public enum ColumnType: String, Hashable, Sendable, CustomStringConvertible {
    /// 64-bit signed integers (OID, SmallInteger, Integer, BigInteger fields).
    case integer
    /// Doubles (Single and Double fields).
    case double
    /// Text (String, GUID and GlobalID fields).
    case string
    /// Instants: milliseconds since 1970-01-01T00:00:00Z (Date fields).
    case date

    public var description: String { rawValue }
}

/// A column of 64-bit values: integers, or dates as epoch milliseconds.
public struct Int64Column: Hashable, Sendable {
    /// The values; a NULL row holds 0.
    public var values: ColumnBuffer<Int64>
    /// Which rows are not NULL; `nil` when none is NULL.
    public var validity: ValidityBitmap?

    /// Creates a column.
    public init(values: ColumnBuffer<Int64>, validity: ValidityBitmap? = nil) {
        precondition(validity == nil || validity?.count == values.count, "validity length differs")
        self.values = values
        self.validity = validity
    }

    /// Creates a column from an array of values.
    public init(values: [Int64], validity: ValidityBitmap? = nil) {
        self.init(values: ColumnBuffer(values), validity: validity)
    }
}

/// A column of doubles.
public struct DoubleColumn: Hashable, Sendable {
    /// The values; a NULL row holds 0.
    public var values: ColumnBuffer<Double>
    /// Which rows are not NULL; `nil` when none is NULL.
    public var validity: ValidityBitmap?

    /// Creates a column.
    public init(values: ColumnBuffer<Double>, validity: ValidityBitmap? = nil) {
        precondition(validity == nil || validity?.count == values.count, "validity length differs")
        self.values = values
        self.validity = validity
    }

    /// Creates a column from an array of values.
    public init(values: [Double], validity: ValidityBitmap? = nil) {
        self.init(values: ColumnBuffer(values), validity: validity)
    }
}

/// A column of strings, either plain (every row's bytes stored) or dictionary-encoded (each row a
/// code into a table of distinct strings), chosen when the column is built.
///
/// Dictionary encoding is what makes `CATEGORY = 'Parks'`, `UPPER(CATEGORY) IN (…)` and
/// `CATEGORY LIKE '%Tree%'` cheap: the predicate is evaluated once per distinct string and each
/// row only looks its code up.
public struct StringColumn: Hashable, Sendable {
    /// How the strings are stored.
    public enum Encoding: Hashable, Sendable {
        /// Row `i`'s string is `strings[i]` (empty for NULL rows).
        case plain(StringStorage)
        /// Row `i`'s string is `dictionary[codes[i]]` (code 0 for NULL rows).
        case dictionary(codes: ColumnBuffer<UInt32>, dictionary: StringStorage)
    }

    /// The storage.
    public var encoding: Encoding
    /// Which rows are not NULL; `nil` when none is NULL.
    public var validity: ValidityBitmap?
    /// Number of rows.
    public let count: Int

    /// Creates a column.
    public init(encoding: Encoding, validity: ValidityBitmap? = nil) {
        self.encoding = encoding
        self.validity = validity
        switch encoding {
        case .plain(let strings): count = strings.count
        case .dictionary(let codes, _): count = codes.count
        }
        precondition(validity == nil || validity?.count == count, "validity length differs")
    }

    /// Builds a column from optional strings, dictionary-encoding it when there are few distinct
    /// values: at most `dictionaryLimit` distinct strings and at most a quarter of the rows.
    ///
    /// Strings are kept byte for byte: the dictionary tells strings apart by their UTF-8 bytes
    /// (``ExactString``), so canonically equivalent spellings such as `"é"` (U+00E9) and
    /// `"e\u{301}"` stay two values, as they are two values in the data.
    public init(_ strings: [String?], dictionaryLimit: Int = 65_536) {
        var distinct: [ExactString: UInt32] = [:]
        var dictionary = StringStorage()
        var codes = ColumnBuffer<UInt32>()
        codes.reserveCapacity(strings.count)
        var validity = ValidityBitmap(count: 0, allValid: true)
        var hasNull = false
        // Codes are UInt32: never more distinct strings than that.
        let limit = min(dictionaryLimit, max(16, strings.count / 4), Int(UInt32.max))
        var fitsDictionary = true
        for string in strings {
            validity.append(valid: string != nil)
            guard let string else {
                hasNull = true
                codes.append(0)
                continue
            }
            guard fitsDictionary else { continue }
            let key = ExactString(string)
            if let code = distinct[key] {
                codes.append(code)
            } else if distinct.count < limit {
                let code = UInt32(distinct.count)
                distinct[key] = code
                dictionary.append(string)
                codes.append(code)
            } else {
                fitsDictionary = false
            }
        }
        let bitmap = hasNull ? validity : nil
        if fitsDictionary {
            self.init(encoding: .dictionary(codes: codes, dictionary: dictionary), validity: bitmap)
        } else {
            var plain = StringStorage()
            for string in strings {
                if let string { plain.append(string) } else { plain.appendEmpty() }
            }
            self.init(encoding: .plain(plain), validity: bitmap)
        }
    }

    /// The string of row `i`, `nil` when NULL.
    public subscript(i: Int) -> String? {
        if let validity, !validity.isValid(i) { return nil }
        switch encoding {
        case .plain(let strings): return strings[i]
        case .dictionary(let codes, let dictionary): return dictionary[Int(codes[i])]
        }
    }
}

/// One typed column of a table.
public enum Column: Hashable, Sendable {
    /// Integers.
    case integer(Int64Column)
    /// Doubles.
    case double(DoubleColumn)
    /// Strings.
    case string(StringColumn)
    /// Instants in epoch milliseconds.
    case date(Int64Column)

    /// The column's value type.
    public var type: ColumnType {
        switch self {
        case .integer: .integer
        case .double: .double
        case .string: .string
        case .date: .date
        }
    }

    /// Number of rows.
    public var count: Int {
        switch self {
        case .integer(let column), .date(let column): column.values.count
        case .double(let column): column.values.count
        case .string(let column): column.count
        }
    }

    /// The validity bitmap (`nil` when no row is NULL).
    public var validity: ValidityBitmap? {
        switch self {
        case .integer(let column), .date(let column): column.validity
        case .double(let column): column.validity
        case .string(let column): column.validity
        }
    }

    /// Whether row `i` is NULL.
    public func isNull(_ i: Int) -> Bool {
        guard let validity else { return false }
        return !validity.isValid(i)
    }

    /// Row `i` as a ``ScalarValue``.
    public subscript(i: Int) -> ScalarValue {
        if isNull(i) { return .null }
        switch self {
        case .integer(let column): return .integer(column.values[i])
        case .double(let column): return .double(column.values[i])
        case .string(let column): return column[i].map(ScalarValue.string) ?? .null
        case .date(let column): return .date(column.values[i])
        }
    }
}

/// One value of any column type, or NULL: what a row-level reader gets, and what literals and
/// constant subexpressions fold to.
///
/// Equality and hashing are those of the data: strings are equal when their UTF-8 bytes are
/// (not under Swift's canonical equivalence, which would make `"é"` and `"e\u{301}"` one
/// value); the other cases compare as their payloads do.
public enum ScalarValue: Hashable, Sendable, CustomStringConvertible {
    /// SQL NULL.
    case null
    /// An integer.
    case integer(Int64)
    /// A double.
    case double(Double)
    /// A string.
    case string(String)
    /// An instant in epoch milliseconds.
    case date(Int64)
    /// A truth value (the result of a predicate).
    case boolean(Bool)

    /// Whether this is NULL.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    public static func == (a: ScalarValue, b: ScalarValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.integer(let x), .integer(let y)): x == y
        case (.double(let x), .double(let y)): x == y
        case (.string(let x), .string(let y)): ExactString.equal(x, y)
        case (.date(let x), .date(let y)): x == y
        case (.boolean(let x), .boolean(let y)): x == y
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0 as UInt8)
        case .integer(let x):
            hasher.combine(1 as UInt8)
            hasher.combine(x)
        case .double(let x):
            hasher.combine(2 as UInt8)
            hasher.combine(x)
        case .string(let x):
            hasher.combine(3 as UInt8)
            hasher.combine(ExactString(x))
        case .date(let x):
            hasher.combine(4 as UInt8)
            hasher.combine(x)
        case .boolean(let x):
            hasher.combine(5 as UInt8)
            hasher.combine(x)
        }
    }

    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): "\(value)"
        case .double(let value): "\(value)"
        case .string(let value): "'" + value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
        case .date(let value): "date(\(value))"
        case .boolean(let value): value ? "TRUE" : "FALSE"
        }
    }
}

/// A string that compares and hashes by its UTF-8 bytes.
///
/// Swift's `String` equality is canonical equivalence: `"é"` (U+00E9) equals `"e\u{301}"`
/// (e + COMBINING ACUTE ACCENT), so a `Set<String>` or `[String: …]` merges them. Data must stay
/// byte-exact — two spellings are two values, as they are in SQLite, in the files and on the
/// wire — so every set or dictionary keyed by data strings uses this wrapper instead.
public struct ExactString: Hashable, Sendable, CustomStringConvertible {
    /// The string.
    public var string: String

    /// Wraps a string.
    public init(_ string: String) { self.string = string }

    /// Whether two strings have the same UTF-8 bytes.
    public static func equal(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in b.withUTF8 { y in x.elementsEqual(y) } }
    }

    public static func == (a: ExactString, b: ExactString) -> Bool { equal(a.string, b.string) }

    public func hash(into hasher: inout Hasher) {
        var string = self.string
        string.withUTF8 { bytes in
            hasher.combine(bytes.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        }
    }

    public var description: String { string }
}

extension Column {
    /// The bytes the column's arrays hold (their elements, not spare capacity): values, codes,
    /// string bytes and offsets, dictionaries and validity bitmaps.
    public var byteCount: Int {
        func bitmap(_ validity: ValidityBitmap?) -> Int { 8 * (validity?.wordCount ?? 0) }
        func storage(_ strings: StringStorage) -> Int { strings.bytes.count + 8 * strings.offsets.count }
        switch self {
        case .integer(let column), .date(let column): return 8 * column.values.count + bitmap(column.validity)
        case .double(let column): return 8 * column.values.count + bitmap(column.validity)
        case .string(let column):
            switch column.encoding {
            case .plain(let strings): return storage(strings) + bitmap(column.validity)
            case .dictionary(let codes, let dictionary):
                return 4 * codes.count + storage(dictionary) + bitmap(column.validity)
            }
        }
    }
}
