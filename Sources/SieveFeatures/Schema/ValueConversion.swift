import SieveColumns
import SieveGeometry
import SieveJSON

/// Why a JSON value does not convert to a field type (wrapped into a ``FeatureTableError`` by
/// the caller, who knows the feature and the field).
package struct ConversionFailure: Error {
    package var message: String

    package init(message: String) { self.message = message }
}

/// Conversions of JSON attribute values to the stored representation of each field type.
package enum ValueConversion {
    /// A short description of a value for error messages: `the string "abc"`, `the number 1.5`.
    package static func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let string, _):
            return "the string \(JSONKey.quoted(string))"
        case .number(let number, _):
            return number.double.isFinite ? "the number \(number)" : "a number beyond the range of doubles (±1.8e308)"
        case .bool(let bool, _): return "the boolean \(bool)"
        default: return value.kindDescription
        }
    }

    /// A non-null value as an integer of `type` (an integer, a whole number, a boolean as 0/1, or
    /// a string holding an integer), range-checked for SmallInteger and Integer.
    package static func integer(_ value: JSONValue, type: FieldType) throws(ConversionFailure) -> Int64 {
        let result: Int64?
        switch value {
        case .number(let number, _):
            result = number.int64 ?? exactInt64(number.double)
        case .bool(let bool, _): result = bool ? 1 : 0
        case .string(let string, _): result = Int64(string)
        default: result = nil
        }
        guard let result else {
            throw ConversionFailure(message: "cannot convert \(describe(value)) to \(type.name)")
        }
        if let range = type.integerRange, !range.contains(result) {
            throw ConversionFailure(
                message: "\(result) is out of range for \(type.name) (\(range.lowerBound) to \(range.upperBound))")
        }
        return result
    }

    /// A non-null value as a double (a finite number, a boolean as 0/1, or a string holding a
    /// number).
    package static func double(_ value: JSONValue, type: FieldType) throws(ConversionFailure) -> Double {
        let result: Double?
        switch value {
        case .number(let number, _): result = number.double.isFinite ? number.double : nil
        case .bool(let bool, _): result = bool ? 1 : 0
        case .string(let string, _): result = Double(string).flatMap { $0.isFinite ? $0 : nil }
        default: result = nil
        }
        guard let result else {
            throw ConversionFailure(message: "cannot convert \(describe(value)) to \(type.name)")
        }
        return result
    }

    /// A non-null value as text: strings as they are, numbers as their JSON text (integer
    /// literals that fit 64 bits exactly, other numbers in the shortest form that reads back to
    /// the same double), booleans as `true`/`false`, arrays and objects as compact JSON.
    /// - Throws: for a number beyond the range of doubles (`1e400`), which has no text that
    ///   reads back to it (the JSON writer would turn it into `null`).
    package static func text(_ value: JSONValue) throws(ConversionFailure) -> String {
        switch value {
        case .string(let string, _): return string
        case .number(let number, _):
            guard number.double.isFinite else { throw outOfRange(value) }
            return number.description
        case .bool(let bool, _): return bool ? "true" : "false"
        default:
            if let number = firstNonFiniteNumber(in: value) { throw outOfRange(number) }
            return JSONWriter.string(value)
        }
    }

    /// The failure for a number beyond the range of doubles.
    private static func outOfRange(_ value: JSONValue) -> ConversionFailure {
        ConversionFailure(message: "\(describe(value)) cannot be stored (numbers must be finite doubles)")
    }

    /// The first number beyond the range of doubles inside an array or object, if any.
    private static func firstNonFiniteNumber(in value: JSONValue) -> JSONValue? {
        // Iterative, so that nesting (bounded by the reader) never recurses here.
        var stack = [value]
        while let next = stack.popLast() {
            switch next {
            case .number(let number, _) where !number.double.isFinite: return next
            case .array(let elements, _): stack.append(contentsOf: elements.reversed())
            case .object(let object, _): stack.append(contentsOf: object.members.reversed().map(\.value))
            default: break
            }
        }
        return nil
    }

    /// `value` as an `Int64` when it is a whole number in `-2⁶³ ..< 2⁶³` (so the conversion is
    /// exact and cannot trap), else `nil`.
    package static func exactInt64(_ value: Double) -> Int64? {
        guard value.isFinite, value == value.rounded(), value >= -9_223_372_036_854_775_808.0,
            value < 9_223_372_036_854_775_808.0
        else { return nil }
        return Int64(value)
    }

    /// A non-null value as epoch milliseconds: a whole number (already epoch ms, as Esri JSON
    /// writes dates) or an ISO-8601 date or date-time string.
    package static func date(_ value: JSONValue) throws(ConversionFailure) -> Int64 {
        switch value {
        case .number(let number, _):
            if let milliseconds = number.int64 ?? exactInt64(number.double) { return milliseconds }
        case .string(let string, _):
            if let milliseconds = CivilTime.parse(string, syntax: .iso8601) { return milliseconds }
        default:
            break
        }
        throw ConversionFailure(message: "cannot convert \(describe(value)) to Date")
    }

    /// Any value as a ``ScalarValue`` of `type` (`null` → `.null`).
    package static func scalar(_ value: JSONValue, type: FieldType) throws(ConversionFailure) -> ScalarValue {
        if value.isNull { return .null }
        switch type.columnType {
        case .integer: return .integer(try integer(value, type: type))
        case .double: return .double(try double(value, type: type))
        case .string: return .string(try text(value))
        case .date:
            let milliseconds = try date(value)
            if type == .dateOnly, !CivilTime.isMidnight(milliseconds) {
                throw ConversionFailure(message: "cannot convert \(describe(value)) to DateOnly: it has a time of day")
            }
            return .date(milliseconds)
        }
    }

    /// A ``ScalarValue`` as JSON: dates as epoch milliseconds, booleans as JSON booleans.
    package static func json(_ value: ScalarValue) -> JSONValue {
        switch value {
        case .null: .null()
        case .integer(let int), .date(let int): .number(JSONNumber(int))
        case .double(let double): .number(JSONNumber(double))
        case .string(let string): .string(string)
        case .boolean(let bool): .bool(bool)
        }
    }
}
