import SieveColumns

/// The type of a bound expression.
public enum SQLType: String, Hashable, Sendable, CustomStringConvertible {
    /// A truth value: the type of conditions.
    case boolean
    /// 64-bit integers.
    case integer
    /// Doubles.
    case double
    /// Text.
    case string
    /// Instants (epoch milliseconds, UTC).
    case date
    /// Durations in milliseconds (`INTERVAL` literals).
    case interval
    /// The type of a bare `NULL`, which fits anywhere.
    case null

    /// The SQL type of a column type.
    public init(_ columnType: ColumnType) {
        switch columnType {
        case .integer: self = .integer
        case .double: self = .double
        case .string: self = .string
        case .date: self = .date
        }
    }

    /// Whether values of this type are numbers (integer or double).
    public var isNumeric: Bool { self == .integer || self == .double }

    public var description: String { rawValue }

    /// The type's name after its article, for messages: "an integer", "a string".
    package var withArticle: String { (self == .integer || self == .interval ? "an " : "a ") + rawValue }
}

/// How strings compare: byte for byte (`binary`, the default) or ignoring case (`nocase`,
/// Unicode case folding), for `=`, `<>`, ordering, `IN`, `BETWEEN`, `NULLIF`, `CASE` and `LIKE`.
///
/// Neither collation normalizes: strings are compared as their UTF-8 bytes, so canonically
/// equivalent spellings such as `é` (U+00E9) and `e` + U+0301 are different strings, as they
/// are in SQLite and in the data.
public enum Collation: String, Hashable, Sendable, CaseIterable {
    /// Case-sensitive: compares the UTF-8 bytes (the order of Unicode scalar values).
    case binary
    /// Case-insensitive: compares the bytes of the case-folded strings. Folding maps each
    /// Unicode scalar on its own (full upper-, then lower-case mapping: `ß`, `SS` and `ss` fold
    /// alike, `É` to `é`) and leaves combining marks alone, so `É` (U+00C9) matches `é` (U+00E9)
    /// and `E` + U+0301 matches `e` + U+0301, but the two spellings never match each other.
    case nocase

    /// The string as this collation compares it.
    @inline(__always)
    func key(_ string: String) -> String {
        switch self {
        case .binary: string
        case .nocase: Collation.fold(string)
        }
    }

    /// Unicode case folding approximated by upper- then lower-casing (so `ß`, `SS` and `ss`
    /// fold alike).
    static func fold(_ string: String) -> String {
        string.uppercased().lowercased()
    }
}

/// What a where clause can refer to: the fields of a table, found case-insensitively.
///
/// SieveFeatures' schema conforms; tests can use ``SimpleSchema``.
public protocol WhereClauseSchema {
    /// The field whose name equals `name` ignoring case: its column index, canonical name and
    /// type; `nil` when there is none.
    func resolveField(_ name: String) -> (index: Int, name: String, type: ColumnType)?
    /// Every field name, for "did you mean" suggestions.
    var fieldNames: [String] { get }
}

/// A schema given as a list of (name, type) pairs, column `i` being the `i`-th pair.
public struct SimpleSchema: WhereClauseSchema, Sendable {
    /// The fields in column order.
    public let fields: [(name: String, type: ColumnType)]
    private let index: [String: Int]

    /// Creates a schema.
    public init(_ fields: [(name: String, type: ColumnType)]) {
        self.fields = fields
        var index: [String: Int] = [:]
        for (i, field) in fields.enumerated() where index[field.name.lowercased()] == nil {
            index[field.name.lowercased()] = i
        }
        self.index = index
    }

    public func resolveField(_ name: String) -> (index: Int, name: String, type: ColumnType)? {
        guard let i = index[name.lowercased()] else { return nil }
        return (i, fields[i].name, fields[i].type)
    }

    public var fieldNames: [String] { fields.map(\.name) }
}
