import SieveGeometry
import SieveSQL
import SieveJSON

/// Reads a parsed JSON value as a cql2-json expression, keeping the JSON path of every value so
/// that errors can name it.
struct CQL2JSONParser {
    private let maximumDepth: Int
    /// The JSON text, to turn a value's position into a line and column; `nil` when unknown.
    private let source: String?
    private var depth = 0

    init(maximumDepth: Int, source: String?) {
        self.maximumDepth = maximumDepth
        self.source = source
    }

    // MARK: Errors and paths

    /// The error for text that is not JSON, at the line and column of the problem.
    static func syntaxError(_ error: GeometryError, in text: String) -> CQL2Error {
        let (line, column, offset) = location(of: error.position ?? 0, in: text)
        return CQL2Error(.json, "invalid JSON: \(error.message)", line: line, column: column, offset: offset)
    }

    /// The line, column and `Character` offset of the 1-based Unicode scalar position
    /// `position` in `text`; zeros when the position is unknown (0).
    static func location(of position: Int, in text: String) -> (line: Int, column: Int, offset: Int) {
        guard position > 0 else { return (0, 0, 0) }
        var scalars = 0
        var line = 1
        var column = 1
        var offset = 0
        for character in text {
            if scalars >= position - 1 { break }
            scalars += character.unicodeScalars.count
            offset += 1
            if character == "\n" || character == "\r\n" || character == "\r" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return (line, column, offset)
    }

    private func fail(_ message: String, _ value: JSONValue, _ path: JSONPath) -> CQL2Error {
        fail(message, position: value.position, path)
    }

    private func fail(_ message: String, position: Int, _ path: JSONPath) -> CQL2Error {
        let (line, column, offset) = source.map { Self.location(of: position, in: $0) } ?? (0, 0, 0)
        return CQL2Error(.json, message, line: line, column: column, offset: offset, path: path.text)
    }

    static func member(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : path + "." + key
    }

    static func element(_ path: String, _ index: Int) -> String {
        path + "[" + String(index) + "]"
    }

    /// Where a value is, written out only for an error (building the text at every value would
    /// cost more than reading the filter).
    indirect enum JSONPath {
        /// The root, with the path the caller gave it.
        case root(String)
        /// A member of an object.
        case member(JSONPath, String)
        /// An element of an array.
        case element(JSONPath, Int)
        /// `args[i]` of an operation.
        case argument(JSONPath, Int)

        /// The path as text, e.g. `args[1].op`.
        var text: String {
            switch self {
            case .root(let path): path
            case .member(let parent, let key):
                // A member name from the input, cut to 80 characters.
                CQL2JSONParser.member(parent.text, key.count > 80 ? String(key.prefix(79)) + "…" : key)
            case .element(let parent, let index): CQL2JSONParser.element(parent.text, index)
            case .argument(let parent, let index): CQL2JSONParser.element(CQL2JSONParser.member(parent.text, "args"), index)
            }
        }
    }

    // MARK: Expressions

    mutating func root(_ value: JSONValue, path: String = "") throws(CQL2Error) -> CQL2Expression {
        try expression(value, .root(path))
    }

    private mutating func expression(_ value: JSONValue, _ path: JSONPath) throws(CQL2Error) -> CQL2Expression {
        depth += 1
        defer { depth -= 1 }
        if depth > maximumDepth {
            throw fail("the filter nests deeper than \(maximumDepth) levels", value, path)
        }
        switch value {
        case .null:
            throw fail("expected an expression, found null", value, path)
        case .bool(let bool, _):
            return .boolean(bool)
        case .number(let number, _):
            return try self.number(number, value, path)
        case .string(let string, _):
            return .string(string)
        case .array(let elements, _):
            return .array(try list(elements, path))
        case .object(let object, _):
            return try self.object(object, value, path)
        }
    }

    private func number(_ number: JSONNumber, _ value: JSONValue, _ path: JSONPath) throws(CQL2Error) -> CQL2Expression {
        if number.isIntegerLiteral, let integer = number.int64 { return .integer(integer) }
        guard number.double.isFinite else { throw outOfRange(value, path) }
        return .real(number.double)
    }

    /// The error for a number too large for a double, naming it as written.
    private func outOfRange(_ value: JSONValue, _ path: JSONPath) -> CQL2Error {
        fail("the number \(WhereClauseError.quoted(numberText(at: value.position), quote: "")) is out of range", value, path)
    }

    /// The number written at the 1-based scalar `position` of the source, as written; a
    /// description when the source is unknown.
    private func numberText(at position: Int) -> String {
        guard let source, position > 0 else { return "too large for a double" }
        let scalars = source.unicodeScalars
        guard let start = scalars.index(scalars.startIndex, offsetBy: position - 1, limitedBy: scalars.endIndex) else {
            return "too large for a double"
        }
        let text = scalars[start...].prefix { "0123456789+-.eE".unicodeScalars.contains($0) }
        return text.isEmpty ? "too large for a double" : String(String.UnicodeScalarView(text))
    }

    private mutating func list(_ elements: [JSONValue], _ path: JSONPath) throws(CQL2Error) -> [CQL2Expression] {
        var items: [CQL2Expression] = []
        items.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            items.append(try expression(element, .element(path, index)))
        }
        return items
    }

    private static let expectedObject =
        "expected an expression object: an operation (\"op\" and \"args\"), a \"property\", \"date\", \"timestamp\", "
        + "\"interval\" or \"bbox\" object, or a GeoJSON geometry (\"type\")"

    private mutating func object(_ object: JSONObject, _ value: JSONValue, _ path: JSONPath) throws(CQL2Error) -> CQL2Expression {
        if object.contains("op") { return try operation(object, value, path) }
        if object.contains("type") {
            do {
                return .geometry(try Geometry(geoJSON: value, path: path.text))
            } catch {
                throw fail("invalid GeoJSON geometry: \(error.message)", position: error.position ?? value.position, error.path.map { JSONPath.root($0) } ?? path)
            }
        }
        guard let first = object.members.first else {
            throw fail("\(Self.expectedObject), found an empty object", value, path)
        }
        let (key, member) = (first.key, first.value)
        let memberPath = JSONPath.member(path, key)
        guard object.members.count == 1 else {
            let keys = object.keys.map { "\"\($0)\"" }.joined(separator: ", ")
            if ["property", "date", "timestamp", "interval", "bbox"].contains(key) {
                let extra = object.members[1]
                throw fail("unexpected member \(WhereClauseError.quoted(extra.key)) in a \"\(key)\" object", extra.value, .member(path, extra.key))
            }
            throw fail("\(Self.expectedObject), found an object with the members \(keys)", value, path)
        }
        switch key {
        case "property":
            guard case .string(let name, _) = member else {
                throw fail("the property name must be a string, found \(member.kindDescription)", member, memberPath)
            }
            return .property(name)
        case "date":
            return .date(try instant(member, memberPath, date: true))
        case "timestamp":
            return .timestamp(try instant(member, memberPath, date: false))
        case "interval":
            guard case .array(let ends, _) = member else {
                throw fail("an interval must be an array of its 2 ends, found \(member.kindDescription)", member, memberPath)
            }
            guard ends.count == 2 else {
                throw fail("an interval has 2 ends, found \(ends.count)", member, memberPath)
            }
            let start = try bound(ends[0], .element(memberPath, 0))
            let end = try bound(ends[1], .element(memberPath, 1))
            return .interval(start, end)
        case "bbox":
            return .bbox(try bbox(member, memberPath))
        default:
            throw fail("\(Self.expectedObject), found an object with the member \(WhereClauseError.quoted(key))", value, path)
        }
    }

    private func instant(_ value: JSONValue, _ path: JSONPath, date: Bool) throws(CQL2Error) -> String {
        let what = date ? "date" : "timestamp"
        guard case .string(let text, _) = value else {
            throw fail("a \(what) must be a string, found \(value.kindDescription)", value, path)
        }
        if date {
            guard CQL2Instant.isDate(text) else {
                throw fail("\(WhereClauseError.quoted(text)) is not a date of the form yyyy-mm-dd", value, path)
            }
        } else {
            guard CQL2Instant.isTimestamp(text) else {
                throw fail("\(WhereClauseError.quoted(text)) is not a timestamp of the form yyyy-mm-ddThh:mm:ss[.fff]Z", value, path)
            }
        }
        return text
    }

    private mutating func bound(_ value: JSONValue, _ path: JSONPath) throws(CQL2Error) -> CQL2IntervalBound {
        if case .string(let text, _) = value {
            if text == ".." { return .unbounded }
            if CQL2Instant.isDate(text) { return .date(text) }
            if CQL2Instant.isTimestamp(text) { return .timestamp(text) }
            throw fail("\(WhereClauseError.quoted(text)) is not a date, a timestamp or \"..\"", value, path)
        }
        switch try expression(value, path) {
        case .date(let date): return .date(date)
        case .timestamp(let timestamp): return .timestamp(timestamp)
        case let expression:
            // CQL2's instantParameter: besides the literals, a property or a function call.
            guard expression.isIntervalEnd else {
                throw fail(
                    "an end of an interval is a date, a timestamp, \"..\", a property or a function call, found \(value.kindDescription)",
                    value, path)
            }
            return .expression(expression)
        }
    }

    private func bbox(_ value: JSONValue, _ path: JSONPath) throws(CQL2Error) -> [Double] {
        guard case .array(let elements, _) = value else {
            throw fail("a bbox must be an array of 4 or 6 numbers, found \(value.kindDescription)", value, path)
        }
        guard elements.count == 4 || elements.count == 6 else {
            throw fail("a bbox has 4 or 6 numbers, found \(elements.count)", value, path)
        }
        var numbers: [Double] = []
        for (index, element) in elements.enumerated() {
            guard case .number(let number, _) = element else {
                throw fail("a bbox holds numbers, found \(element.kindDescription)", element, .element(path, index))
            }
            guard number.double.isFinite else {
                throw outOfRange(element, .element(path, index))
            }
            numbers.append(number.double)
        }
        return numbers
    }

    // MARK: Operations

    private mutating func operation(_ object: JSONObject, _ value: JSONValue, _ path: JSONPath) throws(CQL2Error) -> CQL2Expression {
        let opPath = JSONPath.member(path, "op")
        let argsPath = JSONPath.member(path, "args")
        for (key, member) in object.members where key != "op" && key != "args" {
            throw fail("unexpected member \(WhereClauseError.quoted(key)) in an operation (it has \"op\" and \"args\")", member, .member(path, key))
        }
        guard let opValue = object["op"], case .string(let name, _) = opValue else {
            let found = object["op"]?.kindDescription ?? "nothing"
            throw fail("the operator must be a string, found \(found)", object["op"] ?? value, opPath)
        }
        guard let argsValue = object["args"] else {
            throw fail("the operation \(WhereClauseError.quoted(name)) has no \"args\" (write [] for none)", value, path)
        }
        guard case .array(let args, _) = argsValue else {
            throw fail("the arguments of \"\(name)\" must be an array, found \(argsValue.kindDescription)", argsValue, argsPath)
        }
        guard let known = CQL2JSONOperator.byName[name] else {
            if let reason = CQL2JSONOperator.reservedReason(name) { throw fail(reason, opValue, opPath) }
            guard Self.isIdentifier(name) else {
                throw fail("unknown operator \(JSONKey.quoted(name)): not a CQL2 operator, nor a function name", opValue, opPath)
            }
            return .function(name: name, arguments: try arguments(args, path))
        }

        func arity(_ counts: ClosedRange<Int>, _ description: String) throws(CQL2Error) {
            guard counts.contains(args.count) else {
                throw fail("\"\(name)\" takes \(description), found \(args.count)", argsValue, argsPath)
            }
        }
        func exactly(_ count: Int) throws(CQL2Error) {
            try arity(count...count, "\(count) argument\(count == 1 ? "" : "s")")
        }

        switch known {
        case .and, .or:
            try arity(2...Int.max, "2 or more arguments")
            let operands = try arguments(args, path)
            return known == .and ? .and(operands) : .or(operands)
        case .not:
            try exactly(1)
            return .not(try argument(args, 0, path))
        case .comparison(let operation):
            try exactly(2)
            return .comparison(operation, try argument(args, 0, path), try argument(args, 1, path))
        case .like:
            try exactly(2)
            let pattern = try argument(args, 1, path)
            guard pattern.isLikePattern else {
                throw fail(
                    "the pattern of \"like\" must be a string (or casei/accenti of one), found \(args[1].kindDescription)", args[1],
                    .argument(path, 1))
            }
            return .like(try argument(args, 0, path), pattern: pattern, negated: false)
        case .between:
            try exactly(3)
            return .between(
                try argument(args, 0, path), lower: try argument(args, 1, path),
                upper: try argument(args, 2, path), negated: false)
        case .inList:
            try exactly(2)
            let subject = try argument(args, 0, path)
            let listPath = JSONPath.argument(path, 1)
            guard case .array(let items, _) = args[1] else {
                throw fail("the second argument of \"in\" must be an array of values, found \(args[1].kindDescription)", args[1], listPath)
            }
            guard !items.isEmpty else { throw fail("the list of \"in\" is empty", args[1], listPath) }
            depth += 1
            defer { depth -= 1 }
            return .inList(subject, try list(items, listPath), negated: false)
        case .isNull:
            try exactly(1)
            return .isNull(try argument(args, 0, path), negated: false)
        case .caseInsensitive:
            try exactly(1)
            return .caseInsensitive(try argument(args, 0, path))
        case .accentInsensitive:
            try exactly(1)
            return .accentInsensitive(try argument(args, 0, path))
        case .spatial(let function):
            try exactly(2)
            return .spatial(function, try argument(args, 0, path), try argument(args, 1, path))
        case .temporal(let function):
            try exactly(2)
            return .temporal(function, try argument(args, 0, path), try argument(args, 1, path))
        case .array(let function):
            try exactly(2)
            return .arrayComparison(function, try argument(args, 0, path), try argument(args, 1, path))
        case .arithmetic(let operation):
            if operation == .subtract, args.count == 1 {
                return .negate(try argument(args, 0, path))
            }
            try arity(2...2, operation == .subtract ? "2 arguments (or 1, to negate)" : "2 arguments")
            return .arithmetic(operation, try argument(args, 0, path), try argument(args, 1, path))
        }
    }

    /// Argument `index` of the operation at `path`.
    private mutating func argument(_ args: [JSONValue], _ index: Int, _ path: JSONPath) throws(CQL2Error) -> CQL2Expression {
        try expression(args[index], .argument(path, index))
    }

    /// Every argument of the operation at `path`.
    private mutating func arguments(_ args: [JSONValue], _ path: JSONPath) throws(CQL2Error) -> [CQL2Expression] {
        var items: [CQL2Expression] = []
        items.reserveCapacity(args.count)
        for index in args.indices { items.append(try argument(args, index, path)) }
        return items
    }
}

extension CQL2JSONParser {
    /// Whether `name` can name a function: a letter, `_` or `:` first, then letters, digits,
    /// `_`, `.` or `:` (the grammar's identifier).
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first,
            first.properties.isAlphabetic || first == "_" || first == ":"
        else { return false }
        return name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || "_.:".unicodeScalars.contains($0) }
    }
}
