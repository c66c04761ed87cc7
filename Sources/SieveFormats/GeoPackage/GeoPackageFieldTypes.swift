import SieveFeatures

/// A GeoPackage column type (clause 1.1.1.1.3, table 1) and the schema field type it reads as.
///
/// | GeoPackage | field type | values |
/// |---|---|---|
/// | `INTEGER`, `INT` | BigInteger | 64-bit |
/// | `MEDIUMINT` | Integer | −2³¹ … 2³¹−1 |
/// | `SMALLINT` | SmallInteger | −32768 … 32767 |
/// | `TINYINT` | SmallInteger | −128 … 127 |
/// | `BOOLEAN` | SmallInteger | 0 (false) or 1 (true) |
/// | `FLOAT` | Single | the stored double, unrounded |
/// | `DOUBLE`, `REAL` | Double | |
/// | `TEXT`, `TEXT(n)` | String (length n) | UTF-8 |
/// | `DATE` | DateOnly | `yyyy-mm-dd`, a day (its midnight UTC) |
/// | `DATETIME` | Date | ISO 8601 `yyyy-mm-ddThh:mm:ss.fffZ` (a missing zone is UTC) |
///
/// `BLOB` and the types GeoPackage does not define are not read (see
/// ``GeoPackageReadOptions/unsupportedFields``).
enum GeoPackageColumnType: Hashable, Sendable {
    case integer(name: String, range: ClosedRange<Int64>, fieldType: FieldType)
    case boolean
    case float
    case double(name: String)
    case text(length: Int?)
    case date
    case datetime

    /// Reads a declared type (`TEXT(20)`, `smallint`, …); `nil` for a type GeoSieve does not read.
    init?(declared: String) {
        let upper = declared.uppercased().trimmingSpaces
        var base = upper
        var length: Int?
        if let open = upper.firstIndex(of: "("), upper.hasSuffix(")") {
            base = String(upper[..<open]).trimmingSpaces
            let inside = upper[upper.index(after: open)..<upper.index(before: upper.endIndex)]
            guard let n = Int(String(inside).trimmingSpaces), n >= 0 else { return nil }
            length = n
        }
        switch base {
        case "INTEGER", "INT":
            self = .integer(name: base, range: Int64.min...Int64.max, fieldType: .bigInteger)
        case "MEDIUMINT":
            self = .integer(name: base, range: Int64(Int32.min)...Int64(Int32.max), fieldType: .integer)
        case "SMALLINT":
            self = .integer(name: base, range: Int64(Int16.min)...Int64(Int16.max), fieldType: .smallInteger)
        case "TINYINT":
            self = .integer(name: base, range: Int64(Int8.min)...Int64(Int8.max), fieldType: .smallInteger)
        case "BOOLEAN": self = .boolean
        case "FLOAT": self = .float
        case "DOUBLE", "REAL": self = .double(name: base)
        case "TEXT": self = .text(length: length)
        case "DATE": self = .date
        case "DATETIME": self = .datetime
        default: return nil
        }
        if length != nil, base != "TEXT" { return nil }
    }

    /// The schema field type values are read as.
    var fieldType: FieldType {
        switch self {
        case .integer(_, _, let type): type
        case .boolean: .smallInteger
        case .float: .single
        case .double: .double
        case .text: .string
        case .date: .dateOnly
        case .datetime: .date
        }
    }

    /// The declared type as messages name it.
    var name: String {
        switch self {
        case .integer(let name, _, _): name
        case .boolean: "BOOLEAN"
        case .float: "FLOAT"
        case .double(let name): name
        case .text(let length): length.map { "TEXT(\($0))" } ?? "TEXT"
        case .date: "DATE"
        case .datetime: "DATETIME"
        }
    }

    /// The column type GeoSieve writes a field of `field`'s type as.
    static func declaration(for field: Field) -> String {
        switch field.type {
        case .oid, .bigInteger: "INTEGER"
        case .integer: "MEDIUMINT"
        case .smallInteger: "SMALLINT"
        case .single: "FLOAT"
        case .double: "REAL"
        case .string, .guid, .globalID: field.length.map { $0 > 0 ? "TEXT(\($0))" : "TEXT" } ?? "TEXT"
        case .date: "DATETIME"
        case .dateOnly: "DATE"
        }
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
