import Foundation

/// A JSON number as it was written: its `Double` value, and whether the text was an integer
/// literal (no fraction, no exponent), with its exact `Int64` value when it fits.
///
/// The lexical form matters to callers that infer field types: `889953` is an integer, while
/// `889953.0` and `8.89953e5` are doubles, although all three have the same `double`.
public struct JSONNumber: Hashable, Sendable, CustomStringConvertible {
    /// The value as a double (correctly rounded from the text; `±infinity` when the text
    /// overflows, e.g. `1e999`).
    public var double: Double
    /// Whether the text had neither a fraction nor an exponent (`12`, `-0`,
    /// `123456789012345678901`).
    public var isIntegerLiteral: Bool
    /// The exact value of an integer literal that fits in `Int64`; `nil` otherwise.
    public var int64: Int64?

    /// A number from a double (written in the shortest form that reads back to it).
    public init(_ double: Double) {
        self.double = double
        self.isIntegerLiteral = false
        self.int64 = nil
    }

    /// A number from an integer (written in integer form).
    public init(_ integer: Int64) {
        self.double = Double(integer)
        self.isIntegerLiteral = true
        self.int64 = integer
    }

    /// A number from an integer (written in integer form).
    public init(_ integer: Int) {
        self.init(Int64(integer))
    }

    /// A number with every field given, as the reader produces it.
    public init(double: Double, isIntegerLiteral: Bool, int64: Int64?) {
        self.double = double
        self.isIntegerLiteral = isIntegerLiteral
        self.int64 = int64
    }

    /// The value as an `Int` when it is a whole number that fits (whatever its lexical form).
    public var exactInt: Int? {
        if let int64 { return Int(exactly: int64) }
        guard double.isFinite, double == double.rounded() else { return nil }
        return Int(exactly: double)
    }

    /// The number as JSON text.
    public var description: String {
        if isIntegerLiteral, let int64 {
            if int64 == 0, double.sign == .minus { return "-0" }
            return String(int64)
        }
        return double.isFinite ? formatNumber(double) : "null"
    }
}

/// A parsed JSON value, with the 1-based character position where it starts in the source text
/// (0 for values built in code).
///
/// Objects keep their members in source order; the reader rejects repeated names (see ``JSONObject``).
/// Equality compares values only, never positions.
public enum JSONValue: Sendable, Equatable, CustomStringConvertible {
    /// `null`.
    case null(at: Int = 0)
    /// `true` or `false`.
    case bool(Bool, at: Int = 0)
    /// A number.
    case number(JSONNumber, at: Int = 0)
    /// A string.
    case string(String, at: Int = 0)
    /// An array.
    case array([JSONValue], at: Int = 0)
    /// An object.
    case object(JSONObject, at: Int = 0)

    /// A number value from a double.
    public static func double(_ value: Double) -> JSONValue { .number(JSONNumber(value)) }
    /// A number value from an integer.
    public static func integer(_ value: Int) -> JSONValue { .number(JSONNumber(value)) }

    /// The 1-based character position (Unicode scalars from the start of the text) where this
    /// value starts; 0 when it was not read from text.
    public var position: Int {
        switch self {
        case .null(let at), .bool(_, let at), .number(_, let at), .string(_, let at), .array(_, let at),
            .object(_, let at):
            at
        }
    }

    /// The member `key` of an object (the last one when the key is repeated); `nil` when this is
    /// not an object or has no such member.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object, _) = self { return object[key] }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The number, when this is one.
    public var numberValue: JSONNumber? {
        if case .number(let number, _) = self { return number }
        return nil
    }

    /// The number as a double, when this is a number.
    public var doubleValue: Double? { numberValue?.double }

    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let string, _) = self { return string }
        return nil
    }

    /// The boolean, when this is one.
    public var boolValue: Bool? {
        if case .bool(let bool, _) = self { return bool }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements, _) = self { return elements }
        return nil
    }

    /// The object, when this is one.
    public var objectValue: JSONObject? {
        if case .object(let object, _) = self { return object }
        return nil
    }

    /// What kind of value this is, with an article, for error messages: "null", "a boolean",
    /// "a number", "a string", "an array", "an object".
    public var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Compact JSON text (see `JSONWriter`).
    public var description: String { JSONWriter.string(self) }

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a, _), .bool(let b, _)): a == b
        case (.number(let a, _), .number(let b, _)): a == b
        case (.string(let a, _), .string(let b, _)): a == b
        case (.array(let a, _), .array(let b, _)): a == b
        case (.object(let a, _), .object(let b, _)): a == b
        default: false
        }
    }
}

/// A JSON object: its members in source order.
///
/// ``JSONTextReader`` never produces an object with a repeated member name; one built in code may
/// hold one, and lookup by key then returns the last member with that key. Keys are compared
/// byte for byte (their UTF-8), never by Unicode canonical equivalence: `"é"` written
/// precomposed and decomposed are two different keys, as RFC 8259 §8.3 compares names.
public struct JSONObject: Sendable, Equatable {
    /// The members in order.
    public var members: [(key: String, value: JSONValue)]

    /// Creates an object from members.
    public init(_ members: [(key: String, value: JSONValue)] = []) {
        self.members = members
    }

    /// The value of the last member named `key` (compared byte for byte).
    public subscript(key: String) -> JSONValue? {
        var i = members.count
        while i > 0 {
            i -= 1
            if JSONKey.equal(members[i].key, key) { return members[i].value }
        }
        return nil
    }

    /// Whether a member named `key` exists.
    public func contains(_ key: String) -> Bool { self[key] != nil }

    /// The keys in order.
    public var keys: [String] { members.map(\.key) }

    /// Number of members.
    public var count: Int { members.count }

    /// Appends a member.
    public mutating func append(_ key: String, _ value: JSONValue) {
        members.append((key, value))
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for (a, b) in zip(lhs.members, rhs.members) where !JSONKey.equal(a.key, b.key) || a.value != b.value {
            return false
        }
        return true
    }
}

/// A string compared and hashed by its UTF-8 bytes, not by Unicode canonical equivalence (as
/// Swift's `String` is): the identity of JSON member names and of the properties loaded from
/// them, so that `"é"` precomposed and `"e\u{301}"` stay two names.
public struct JSONKey: Hashable, Sendable {
    /// The string.
    public let string: String

    /// Wraps a string.
    public init(_ string: String) { self.string = string }

    public static func == (lhs: JSONKey, rhs: JSONKey) -> Bool { equal(lhs.string, rhs.string) }

    public func hash(into hasher: inout Hasher) {
        let hashed: Void? = string.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil {
            Array(string.utf8).withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    /// Whether two strings have the same UTF-8 bytes.
    @inline(__always)
    public static func equal(_ a: String, _ b: String) -> Bool {
        let x = a.utf8, y = b.utf8
        guard x.count == y.count else { return false }
        let direct = x.withContiguousStorageIfAvailable { p in
            y.withContiguousStorageIfAvailable { q in
                guard let pa = p.baseAddress, let qa = q.baseAddress else { return p.count == q.count }
                return memcmp(pa, qa, p.count) == 0
            }
        }
        if let direct, let direct { return direct }
        return x.elementsEqual(y)
    }

    /// `string` as a JSON string literal for a message: one line (control characters escaped)
    /// and cut after 80 characters (`…`), however long the input it echoes.
    public static func quoted(_ string: String) -> String {
        JSONWriter.string(.string(abbreviated(string)))
    }

    /// `string` cut after 80 Unicode scalars, with `…` when cut.
    public static func abbreviated(_ string: String) -> String {
        var end = string.unicodeScalars.startIndex
        var count = 0
        while end < string.unicodeScalars.endIndex {
            if count == 80 { return String(string.unicodeScalars[..<end]) + "…" }
            string.unicodeScalars.formIndex(after: &end)
            count += 1
        }
        return string
    }
}
