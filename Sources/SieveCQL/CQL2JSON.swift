import SieveGeometry
import SieveJSON

/// The JSON encoding of CQL2 (`cql2-json`, OGC 21-065r2 and its JSON schema): reading it into a
/// ``CQL2Expression`` and writing a tree back as JSON.
///
/// The JSON and text forms of one filter read to equal trees, so a filter can arrive in either
/// encoding and be handled alike.
///
/// ## Reading
///
/// Every construct of the schema is read:
///
/// | JSON | tree |
/// | --- | --- |
/// | `{"op": "and" \| "or", "args": [a, b, …]}` (2 or more) | ``CQL2Expression/and(_:)``, ``CQL2Expression/or(_:)`` |
/// | `{"op": "not", "args": [a]}` | ``CQL2Expression/not(_:)`` |
/// | `{"op": "=" \| "<>" \| "<" \| "<=" \| ">" \| ">=", "args": [a, b]}` | ``CQL2Expression/comparison(_:_:_:)`` |
/// | `{"op": "like", "args": [a, pattern]}` | ``CQL2Expression/like(_:pattern:negated:)``, not negated |
/// | `{"op": "between", "args": [a, lower, upper]}` | ``CQL2Expression/between(_:lower:upper:negated:)``, not negated |
/// | `{"op": "in", "args": [a, [item, …]]}` | ``CQL2Expression/inList(_:_:negated:)``, not negated |
/// | `{"op": "isNull", "args": [a]}` | ``CQL2Expression/isNull(_:negated:)``, not negated |
/// | `{"op": "casei" \| "accenti", "args": [a]}` | ``CQL2Expression/caseInsensitive(_:)``, ``CQL2Expression/accentInsensitive(_:)`` |
/// | `{"op": "s_intersects", "args": [a, b]}`, … | ``CQL2Expression/spatial(_:_:_:)`` |
/// | `{"op": "t_after", "args": [a, b]}`, … (`t_finishedBy`, `t_metBy`, …) | ``CQL2Expression/temporal(_:_:_:)`` |
/// | `{"op": "a_equals", "args": [a, b]}`, … (`a_containedBy`, …) | ``CQL2Expression/arrayComparison(_:_:_:)`` |
/// | `{"op": "+" \| "-" \| "*" \| "/" \| "%" \| "div" \| "^", "args": [a, b]}` | ``CQL2Expression/arithmetic(_:_:_:)`` |
/// | `{"op": "-", "args": [a]}` (an extension: the schema has no unary minus) | ``CQL2Expression/negate(_:)`` |
/// | `{"op": "<any other name>", "args": [a, …]}` | ``CQL2Expression/function(name:arguments:)`` |
/// | `{"property": "name"}` | ``CQL2Expression/property(_:)`` |
/// | `"text"` | ``CQL2Expression/string(_:)`` |
/// | a number without fraction and exponent that fits in `Int64` | ``CQL2Expression/integer(_:)`` |
/// | any other number | ``CQL2Expression/real(_:)`` |
/// | `true`, `false` | ``CQL2Expression/boolean(_:)`` |
/// | `{"date": "yyyy-mm-dd"}`, `{"timestamp": "…Z"}` | ``CQL2Expression/date(_:)``, ``CQL2Expression/timestamp(_:)`` |
/// | `{"interval": [start, end]}` | ``CQL2Expression/interval(_:_:)`` |
/// | a GeoJSON geometry object (`"type"`, all seven types) | ``CQL2Expression/geometry(_:)`` |
/// | `{"bbox": [4 or 6 numbers]}` | ``CQL2Expression/bbox(_:)`` |
/// | `[a, b, …]` | ``CQL2Expression/array(_:)`` |
///
/// - Operator names are case-sensitive, as in the schema. A name that differs from an operator
///   only in case (`"AND"`, `"S_INTERSECTS"`), and any other name beginning with `s_`, `t_` or
///   `a_` (the prefixes of the standard's spatial, temporal and array predicates, e.g.
///   `"s_near"`), is an error rather than a call of an unknown function.
/// - An interval end is `".."` (open), a date or timestamp string, `{"date": …}` or
///   `{"timestamp": …}` (read as the string forms, as the text parser does), or any other
///   expression (a property or a function call, as in the schema).
/// - The value at the root may be any expression (as in the text encoding), not only a boolean
///   one. The input is checked for shape, not for the types of values (a binder does that).
/// - Objects are read strictly: an operation has exactly the members `op` and `args` (`args`
///   is required, `[]` for a function without arguments), and `property`, `date`,
///   `timestamp`, `interval` and `bbox` objects have only that member. A GeoJSON geometry may
///   have other members (such as its own `bbox`), which are ignored.
/// - `in` with an empty list, and `and`/`or` with fewer than 2 operands are errors, as in the
///   schema (and as in the text encoding, which cannot say them).
///
/// ### Negation
///
/// JSON has no negated forms of `like`, `between`, `in` and `isNull`: they are written with
/// `not`, and `{"op": "not", "args": [{"op": "like", …}]}` reads as
/// `.not(.like(…, negated: false))` — the tree of the text `NOT a LIKE b`. The text forms
/// `a NOT LIKE b`, `a NOT BETWEEN …`, `a NOT IN (…)` and `a IS NOT NULL` read as the predicate
/// with `negated: true`; ``write(_:)`` writes that predicate as `not` of the plain predicate,
/// which reads back as the `NOT (…)` form. ``jsonForm(of:)`` gives that form of any tree, so
/// `parse(write(tree)) == jsonForm(of: tree)` for every tree that can be written.
///
/// ## Errors
///
/// Errors are ``CQL2Error`` with ``CQL2Error/encoding`` `.json` and the ``CQL2Error/path`` of the
/// JSON value at fault, as in `cql2-json error at args[1].op: unknown operator "s_near"`. Text
/// that is not JSON at all gives an error with the line and column instead, and no path. Nesting
/// deeper than the limit is an error, never a stack overflow.
///
/// ## Writing
///
/// ``write(_:)`` gives compact JSON with the members of an operation in the order `op`,
/// `args`; integers as integers, reals in the shortest form that reads back to the same
/// `Double` and as a real (`2.0`, `0.1`, `1e-07`), geometries as GeoJSON.
///
/// ```swift
/// let filter = try CQL2JSON.parse(#"{"op":"and","args":[{"op":">","args":[{"property":"pop"},1000]},true]}"#)
/// // .and([.comparison(.greaterThan, .property("pop"), .integer(1000)), .boolean(true)])
/// try CQL2JSON.write(filter) == #"{"op":"and","args":[{"op":">","args":[{"property":"pop"},1000]},true]}"#
/// ```
public enum CQL2JSON {
    /// Reads a cql2-json filter or expression from JSON text.
    ///
    /// - Parameters:
    ///   - text: The JSON text, e.g. `{"op":"=","args":[{"property":"a"},1]}`.
    ///   - maximumDepth: The nesting limit (operations, arrays and other expression objects);
    ///     deeper input fails with an error instead of exhausting the stack. The JSON text itself
    ///     may nest at most 512 deep.
    /// - Returns: The tree.
    /// - Throws: ``CQL2Error`` with the path of the problem, e.g.
    ///   `cql2-json error at args[1].op: unknown operator "s_near"`, or with the line and column
    ///   when the text is not JSON.
    public static func parse(_ text: String, maximumDepth: Int = CQL2Text.defaultMaximumDepth) throws(CQL2Error) -> CQL2Expression {
        let value: JSONValue
        do {
            value = try JSONReader.parse(text)
        } catch {
            throw CQL2JSONParser.syntaxError(error, in: text)
        }
        var parser = CQL2JSONParser(maximumDepth: maximumDepth, source: text)
        return try parser.root(value)
    }

    /// Reads a cql2-json filter or expression from UTF-8 bytes, e.g. a request body.
    ///
    /// - Parameters:
    ///   - bytes: The JSON text as UTF-8.
    ///   - maximumDepth: The nesting limit, as for ``parse(_:maximumDepth:)``.
    /// - Returns: The tree.
    /// - Throws: ``CQL2Error`` as ``parse(_:maximumDepth:)`` does; bytes that are not UTF-8 are
    ///   an error.
    public static func parse(bytes: [UInt8], maximumDepth: Int = CQL2Text.defaultMaximumDepth) throws(CQL2Error) -> CQL2Expression {
        let value: JSONValue
        do {
            value = try JSONReader.parse(bytes: bytes)
        } catch {
            throw CQL2JSONParser.syntaxError(error, in: String(decoding: bytes, as: UTF8.self))
        }
        var parser = CQL2JSONParser(maximumDepth: maximumDepth, source: String(decoding: bytes, as: UTF8.self))
        return try parser.root(value)
    }

    /// Reads a cql2-json filter or expression from an already parsed JSON value (e.g. the
    /// `filter` member of a request document).
    ///
    /// - Parameters:
    ///   - value: The JSON value.
    ///   - path: The path of `value` in its document, prefixed to the paths of errors.
    ///   - maximumDepth: The nesting limit, as for ``parse(_:maximumDepth:)``.
    /// - Throws: ``CQL2Error`` with the path of the problem; its line and column are 0.
    package static func parse(_ value: JSONValue, path: String = "", maximumDepth: Int = CQL2Text.defaultMaximumDepth) throws(CQL2Error) -> CQL2Expression {
        var parser = CQL2JSONParser(maximumDepth: maximumDepth, source: nil)
        return try parser.root(value, path: path)
    }

    /// Writes a tree as compact cql2-json.
    ///
    /// Every tree read from either encoding can be written, and the JSON reads back to
    /// ``jsonForm(of:)`` of the tree (the tree itself when it was read from JSON).
    ///
    /// - Throws: ``CQL2Error`` (encoding `.json`, with the path the offending node would have in
    ///   the output) for the trees only a program can build that JSON cannot say exactly:
    ///   infinite or NaN numbers (JSON has none; in ``CQL2Expression/real(_:)`` or a
    ///   ``CQL2Expression/bbox(_:)``), `and`/`or` with fewer than 2 operands, `in` with an empty
    ///   list, a ``CQL2Expression/bbox(_:)`` without 4 or 6 numbers, a date or timestamp not of
    ///   the standard's form, a function whose name would read back as an operator (see
    ///   ``parse(_:maximumDepth:)``: an operator's name in any case, a name beginning with
    ///   `s_`, `t_` or `a_`, or the empty name), an interval end given as an
    ///   ``CQL2IntervalBound/expression(_:)`` of a string, date or timestamp (use the bounds'
    ///   own cases), and a geometry whose GeoJSON does not read back to the same geometry (an
    ///   envelope, which GeoJSON writes as a polygon).
    public static func write(_ expression: CQL2Expression) throws(CQL2Error) -> String {
        var writer = CQL2JSONWriter()
        try writer.write(expression, path: "")
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The tree that the JSON encoding gives for `expression`: every negated `LIKE`, `BETWEEN`,
    /// `IN` and `IS NULL` predicate (the text forms `a NOT LIKE b`, …, `a IS NOT NULL`) becomes
    /// ``CQL2Expression/not(_:)`` of the predicate without negation, at any depth. The rest of the
    /// tree is unchanged.
    ///
    /// `CQL2JSON.parse(CQL2JSON.write(tree)) == CQL2JSON.jsonForm(of: tree)` for every tree
    /// ``write(_:)`` accepts.
    public static func jsonForm(of expression: CQL2Expression) -> CQL2Expression {
        switch expression {
        case .like(let value, let pattern, let negated):
            let plain = CQL2Expression.like(jsonForm(of: value), pattern: jsonForm(of: pattern), negated: false)
            return negated ? .not(plain) : plain
        case .between(let value, let lower, let upper, let negated):
            let plain = CQL2Expression.between(
                jsonForm(of: value), lower: jsonForm(of: lower), upper: jsonForm(of: upper), negated: false)
            return negated ? .not(plain) : plain
        case .inList(let value, let items, let negated):
            let plain = CQL2Expression.inList(jsonForm(of: value), items.map(jsonForm(of:)), negated: false)
            return negated ? .not(plain) : plain
        case .isNull(let value, let negated):
            let plain = CQL2Expression.isNull(jsonForm(of: value), negated: false)
            return negated ? .not(plain) : plain
        case .and(let operands): return .and(operands.map(jsonForm(of:)))
        case .or(let operands): return .or(operands.map(jsonForm(of:)))
        case .not(let operand): return .not(jsonForm(of: operand))
        case .comparison(let operation, let left, let right):
            return .comparison(operation, jsonForm(of: left), jsonForm(of: right))
        case .caseInsensitive(let value): return .caseInsensitive(jsonForm(of: value))
        case .accentInsensitive(let value): return .accentInsensitive(jsonForm(of: value))
        case .spatial(let function, let left, let right): return .spatial(function, jsonForm(of: left), jsonForm(of: right))
        case .temporal(let function, let left, let right): return .temporal(function, jsonForm(of: left), jsonForm(of: right))
        case .arrayComparison(let function, let left, let right):
            return .arrayComparison(function, jsonForm(of: left), jsonForm(of: right))
        case .function(let name, let arguments): return .function(name: name, arguments: arguments.map(jsonForm(of:)))
        case .arithmetic(let operation, let left, let right):
            return .arithmetic(operation, jsonForm(of: left), jsonForm(of: right))
        case .negate(let operand): return .negate(jsonForm(of: operand))
        case .interval(let start, let end): return .interval(jsonForm(of: start), jsonForm(of: end))
        case .array(let items): return .array(items.map(jsonForm(of:)))
        case .property, .string, .integer, .real, .boolean, .date, .timestamp, .geometry, .bbox:
            return expression
        }
    }

    private static func jsonForm(of bound: CQL2IntervalBound) -> CQL2IntervalBound {
        if case .expression(let expression) = bound { return .expression(jsonForm(of: expression)) }
        return bound
    }
}

// MARK: - Operator names

extension CQL2SpatialFunction {
    /// The operator's name in cql2-json, e.g. `s_intersects`.
    var jsonName: String { rawValue.lowercased() }
}

extension CQL2TemporalFunction {
    /// The operator's name in cql2-json, e.g. `t_finishedBy`.
    var jsonName: String {
        switch self {
        case .after: "t_after"
        case .before: "t_before"
        case .contains: "t_contains"
        case .disjoint: "t_disjoint"
        case .during: "t_during"
        case .equals: "t_equals"
        case .finishedBy: "t_finishedBy"
        case .finishes: "t_finishes"
        case .intersects: "t_intersects"
        case .meets: "t_meets"
        case .metBy: "t_metBy"
        case .overlappedBy: "t_overlappedBy"
        case .overlaps: "t_overlaps"
        case .startedBy: "t_startedBy"
        case .starts: "t_starts"
        }
    }
}

extension CQL2ArrayFunction {
    /// The operator's name in cql2-json, e.g. `a_containedBy`.
    var jsonName: String {
        switch self {
        case .equals: "a_equals"
        case .contains: "a_contains"
        case .containedBy: "a_containedBy"
        case .overlaps: "a_overlaps"
        }
    }
}

/// The operators of cql2-json, by name.
enum CQL2JSONOperator: Hashable, Sendable {
    case and, or, not, like, between, inList, isNull, caseInsensitive, accentInsensitive
    case comparison(CQL2ComparisonOperator)
    case spatial(CQL2SpatialFunction)
    case temporal(CQL2TemporalFunction)
    case array(CQL2ArrayFunction)
    case arithmetic(CQL2ArithmeticOperator)

    static let byName: [String: CQL2JSONOperator] = {
        var table: [String: CQL2JSONOperator] = [
            "and": .and, "or": .or, "not": .not, "like": .like, "between": .between, "in": .inList, "isNull": .isNull,
            "casei": .caseInsensitive, "accenti": .accentInsensitive,
        ]
        for operation in CQL2ComparisonOperator.allCases { table[operation.rawValue] = .comparison(operation) }
        for function in CQL2SpatialFunction.allCases { table[function.jsonName] = .spatial(function) }
        for function in CQL2TemporalFunction.allCases { table[function.jsonName] = .temporal(function) }
        for function in CQL2ArrayFunction.allCases { table[function.jsonName] = .array(function) }
        for operation in CQL2ArithmeticOperator.allCases { table[operation.rawValue] = .arithmetic(operation) }
        return table
    }()

    /// The operators' names in lower case, to the name as spelled in the schema.
    static let byLowercasedName: [String: String] = Dictionary(
        uniqueKeysWithValues: byName.keys.map { ($0.lowercased(), $0) })

    /// Why `name`, which is no operator, cannot name a function either; `nil` when it can.
    static func reservedReason(_ name: String) -> String? {
        if name.isEmpty { return "the operator name is empty" }
        let lower = name.lowercased()
        if let spelled = byLowercasedName[lower] {
            return "unknown operator \"\(name)\"; operator names are case-sensitive: \"\(spelled)\""
        }
        if lower.hasPrefix("s_") || lower.hasPrefix("t_") || lower.hasPrefix("a_") {
            return "unknown operator \"\(name)\""
        }
        return nil
    }
}
