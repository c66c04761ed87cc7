import SieveGeometry
import SieveSQL

// The recursive-descent parser of cql2-text. Levels, loosest first: OR, AND, NOT, predicates
// (comparisons, LIKE, BETWEEN, IN, IS NULL), + and -, * / % div, ^, unary minus, primaries.

struct CQL2TextParser {
    /// The input's UTF-8 bytes: token positions are offsets into them.
    private let bytes: [UInt8]
    private let tokens: [CQL2Token]
    private var index = 0
    private var depth = 0
    private let maximumDepth: Int
    /// The token index where the function argument or array element being read begins: a `(`
    /// there whose `)` ends the argument opens an array.
    private var argumentStart = -1

    init(_ text: String, maximumDepth: Int) throws(CQL2Error) {
        bytes = Array(text.utf8)
        tokens = try CQL2Lexer(bytes).tokens()
        self.maximumDepth = maximumDepth
    }

    /// The words that are keywords everywhere: as property names they must be quoted.
    static let reservedWords: Set<String> = {
        var words: Set<String> = [
            "AND", "OR", "NOT", "LIKE", "BETWEEN", "IN", "IS", "NULL", "TRUE", "FALSE", "DIV", "CASEI", "ACCENTI",
            "DATE", "TIMESTAMP", "INTERVAL", "BBOX",
        ]
        words.formUnion(geometryKeywords)
        words.formUnion(CQL2SpatialFunction.allCases.map(\.rawValue))
        words.formUnion(CQL2TemporalFunction.allCases.map(\.rawValue))
        words.formUnion(CQL2ArrayFunction.allCases.map(\.rawValue))
        return words
    }()

    static let geometryKeywords: Set<String> = [
        "POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION",
    ]

    // MARK: Errors and positions

    /// An error at byte `offset` of `bytes`, located in `Character`s.
    static func error(_ message: String, at offset: Int, in bytes: [UInt8]) -> CQL2Error {
        error(message, atCharacter: characterOffset(of: offset, in: bytes), in: bytes)
    }

    /// An error at `Character` offset `offset`.
    static func error(_ message: String, atCharacter offset: Int, in bytes: [UInt8]) -> CQL2Error {
        let (line, column) = location(ofCharacter: offset, in: bytes)
        return CQL2Error(.text, message, line: line, column: column, offset: offset)
    }

    /// The number of `Character`s before byte `offset`.
    static func characterOffset(of offset: Int, in bytes: [UInt8]) -> Int {
        String(decoding: bytes[..<min(max(0, offset), bytes.count)], as: UTF8.self).count
    }

    static func location(ofCharacter offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for character in String(decoding: bytes, as: UTF8.self).prefix(offset) {
            if character == "\n" || character == "\r\n" || character == "\r" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return (line, column)
    }

    private func fail(_ message: String, at token: CQL2Token) -> CQL2Error {
        Self.error(message, at: token.start, in: bytes)
    }

    private func failHere(_ message: String) -> CQL2Error { fail(message, at: current) }

    private func place(of token: CQL2Token) -> String {
        let (line, column) = Self.location(ofCharacter: Self.characterOffset(of: token.start, in: bytes), in: bytes)
        return "\(line):\(column)"
    }

    private static func describe(_ token: CQL2Token) -> String {
        switch token.kind {
        case .end: "the end of the filter"
        case .string: "the character literal \(WhereClauseError.quoted(token.text, quote: "'"))"
        case .number: "the number \(WhereClauseError.quoted(token.text, quote: ""))"
        case .quotedIdentifier: "the property \(WhereClauseError.quoted(token.text))"
        case .identifier, .symbol: WhereClauseError.quoted(token.text, quote: "'")
        }
    }

    // MARK: Tokens

    private var current: CQL2Token { tokens[index] }

    private var next: CQL2Token { tokens[min(index + 1, tokens.count - 1)] }

    @discardableResult
    private mutating func advance() -> CQL2Token {
        let token = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return token
    }

    private mutating func expect(_ symbol: String, _ message: @autoclosure () -> String) throws(CQL2Error) {
        guard current.isSymbol(symbol) else {
            throw failHere("\(message()), found \(Self.describe(current))")
        }
        advance()
    }

    private mutating func enter() throws(CQL2Error) {
        depth += 1
        if depth > maximumDepth {
            throw failHere("the filter nests deeper than \(maximumDepth) levels")
        }
    }

    // MARK: Boolean levels

    mutating func parseFilter() throws(CQL2Error) -> CQL2Expression {
        if current.kind == .end { throw failHere("the filter is empty") }
        let expression = try parseOr()
        guard current.kind == .end else {
            throw failHere("unexpected \(Self.describe(current)) after a complete expression")
        }
        return expression
    }

    private mutating func parseOr() throws(CQL2Error) -> CQL2Expression {
        try enter()
        defer { depth -= 1 }
        var operands = [try parseAnd()]
        while current.isKeyword("OR") {
            advance()
            operands.append(try parseAnd())
        }
        return operands.count == 1 ? operands[0] : .or(operands)
    }

    private mutating func parseAnd() throws(CQL2Error) -> CQL2Expression {
        var operands = [try parseNot()]
        while current.isKeyword("AND") {
            advance()
            operands.append(try parseNot())
        }
        return operands.count == 1 ? operands[0] : .and(operands)
    }

    private mutating func parseNot() throws(CQL2Error) -> CQL2Expression {
        guard current.isKeyword("NOT") else { return try parsePredicate() }
        advance()
        try enter()
        defer { depth -= 1 }
        return .not(try parseNot())
    }

    // MARK: Predicates

    private static let comparisonOperators: [String: CQL2ComparisonOperator] = Dictionary(
        uniqueKeysWithValues: CQL2ComparisonOperator.allCases.map { ($0.rawValue, $0) })

    private func startsPredicate(_ token: CQL2Token, followedBy following: CQL2Token) -> Bool {
        if token.kind == .symbol, Self.comparisonOperators[token.text] != nil { return true }
        if token.isKeyword("LIKE") || token.isKeyword("BETWEEN") || token.isKeyword("IN") || token.isKeyword("IS") {
            return true
        }
        return token.isKeyword("NOT")
            && (following.isKeyword("LIKE") || following.isKeyword("BETWEEN") || following.isKeyword("IN"))
    }

    private mutating func parsePredicate() throws(CQL2Error) -> CQL2Expression {
        let left = try parseAdditive()
        let operatorToken = current
        let result: CQL2Expression
        if operatorToken.kind == .symbol, let comparison = Self.comparisonOperators[operatorToken.text] {
            advance()
            result = .comparison(comparison, left, try parseAdditive())
        } else if current.isKeyword("IS") {
            advance()
            let negated = current.isKeyword("NOT")
            if negated { advance() }
            guard current.isKeyword("NULL") else {
                throw failHere("expected NULL after IS\(negated ? " NOT" : ""), found \(Self.describe(current))")
            }
            advance()
            result = .isNull(left, negated: negated)
        } else if startsPredicate(operatorToken, followedBy: next) {
            let negated = current.isKeyword("NOT")
            if negated { advance() }
            if current.isKeyword("LIKE") {
                advance()
                let start = current
                let pattern = try parseAdditive()
                guard pattern.isLikePattern else {
                    throw fail("the pattern of LIKE must be a string (or CASEI/ACCENTI of one), found \(Self.describe(start))", at: start)
                }
                result = .like(left, pattern: pattern, negated: negated)
            } else if current.isKeyword("BETWEEN") {
                advance()
                let lower = try parseAdditive()
                guard current.isKeyword("AND") else {
                    throw failHere("expected AND between the bounds of BETWEEN, found \(Self.describe(current))")
                }
                advance()
                result = .between(left, lower: lower, upper: try parseAdditive(), negated: negated)
            } else {
                advance()  // IN
                try expect("(", "expected '(' after IN")
                if current.isSymbol(")") { throw failHere("the list after IN is empty") }
                var items = [try parseArgument()]
                while current.isSymbol(",") {
                    advance()
                    items.append(try parseArgument())
                }
                try expect(")", "expected ',' or ')' in the list after IN")
                result = .inList(left, items, negated: negated)
            }
        } else {
            return left
        }
        if startsPredicate(current, followedBy: next) {
            throw failHere("a predicate cannot be compared again; use parentheses to group it")
        }
        return result
    }

    // MARK: Arithmetic

    private mutating func parseAdditive() throws(CQL2Error) -> CQL2Expression {
        var left = try parseMultiplicative()
        var entered = 0
        defer { depth -= entered }
        while current.isSymbol("+") || current.isSymbol("-") {
            let operation: CQL2ArithmeticOperator = advance().text == "+" ? .add : .subtract
            try enter()
            entered += 1
            left = .arithmetic(operation, left, try parseMultiplicative())
        }
        return left
    }

    private mutating func parseMultiplicative() throws(CQL2Error) -> CQL2Expression {
        var left = try parsePower()
        var entered = 0
        defer { depth -= entered }
        while true {
            let operation: CQL2ArithmeticOperator
            if current.isSymbol("*") {
                operation = .multiply
            } else if current.isSymbol("/") {
                operation = .divide
            } else if current.isSymbol("%") {
                operation = .remainder
            } else if current.isKeyword("DIV") {
                operation = .integerDivide
            } else {
                return left
            }
            advance()
            try enter()
            entered += 1
            left = .arithmetic(operation, left, try parsePower())
        }
    }

    private mutating func parsePower() throws(CQL2Error) -> CQL2Expression {
        let base = try parseUnary()
        guard current.isSymbol("^") else { return base }
        advance()
        try enter()
        defer { depth -= 1 }
        return .arithmetic(.power, base, try parsePower())
    }

    private mutating func parseUnary() throws(CQL2Error) -> CQL2Expression {
        if current.isSymbol("-") {
            advance()
            try enter()
            defer { depth -= 1 }
            if current.kind == .number {
                return try number(advance(), negative: true)
            }
            return .negate(try parseUnary())
        }
        if current.isSymbol("+") {
            advance()
            guard current.kind == .number else {
                throw failHere("expected a number after '+', found \(Self.describe(current))")
            }
            return try number(advance(), negative: false)
        }
        return try parsePrimary()
    }

    private func number(_ token: CQL2Token, negative: Bool) throws(CQL2Error) -> CQL2Expression {
        if token.text.allSatisfy(CQL2Lexer.isDigit), let magnitude = UInt64(token.text) {
            if !negative, magnitude <= UInt64(Int64.max) { return .integer(Int64(magnitude)) }
            if negative, magnitude <= UInt64(Int64.max) { return .integer(-Int64(magnitude)) }
            if negative, magnitude == UInt64(Int64.max) + 1 { return .integer(.min) }
        }
        guard let value = Double(token.text), value.isFinite else {
            throw fail("the number \(WhereClauseError.quoted(token.text, quote: "")) is out of range", at: token)
        }
        return .real(negative ? -value : value)
    }

    // MARK: Arguments and arrays

    /// One function argument, array element or IN-list item: an expression, or an array when it
    /// is a parenthesized list — `(a, b)`, `()`, or `(a)` followed by `,` or `)`.
    private mutating func parseArgument() throws(CQL2Error) -> CQL2Expression {
        let saved = argumentStart
        argumentStart = index
        defer { argumentStart = saved }
        return try parseOr()
    }

    /// A `(` in operand position: a parenthesized expression, or an array.
    private mutating func parseParenthesized() throws(CQL2Error) -> CQL2Expression {
        let isArgument = index == argumentStart
        let open = advance()
        if current.isSymbol(")") {
            advance()
            return .array([])
        }
        var items = [isArgument ? try parseArgument() : try parseOr()]
        while current.isSymbol(",") {
            advance()
            items.append(try parseArgument())
        }
        let openPlace = place(of: open)
        try expect(")", "expected ')' to close the '(' at \(openPlace)")
        if items.count == 1, !(isArgument && (current.isSymbol(",") || current.isSymbol(")"))) {
            // Plain parentheses after all. Its item was read as an argument (this group might
            // have been an array), so a `(a)` that closed right before this group's `)` became a
            // one-element array; outside an array it is just `a` (`((a)) * b` is `a * b`).
            var item = items[0]
            while case .array(let inner) = item, inner.count == 1 { item = inner[0] }
            return item
        }
        return .array(items)
    }

    /// `(a, b, …)` after a function name, the `(` not yet read.
    private mutating func parseArguments(of name: String) throws(CQL2Error) -> [CQL2Expression] {
        try expect("(", "expected '(' after \(name)")
        if current.isSymbol(")") {
            advance()
            return []
        }
        var arguments = [try parseArgument()]
        while current.isSymbol(",") {
            advance()
            arguments.append(try parseArgument())
        }
        try expect(")", "expected ')' after the arguments of \(name)")
        return arguments
    }

    /// The arguments of a function of fixed arity.
    private mutating func parseArguments(of name: String, count: Int) throws(CQL2Error) -> [CQL2Expression] {
        try expect("(", "expected '(' after \(name)")
        var arguments: [CQL2Expression] = []
        for position in 0..<count {
            if position > 0, current.isSymbol(")") {
                throw failHere("\(name) takes \(count) argument\(count == 1 ? "" : "s"), not \(position)")
            }
            if position > 0 {
                try expect(",", "expected ',' after argument \(position) of \(name) (it takes \(count))")
            }
            if current.isSymbol(")") {
                throw failHere("\(name) takes \(count) argument\(count == 1 ? "" : "s"), not \(position)")
            }
            arguments.append(try parseArgument())
        }
        try expect(")", "expected ')' after the arguments of \(name) (it takes \(count))")
        return arguments
    }

    // MARK: Primaries

    private mutating func parsePrimary() throws(CQL2Error) -> CQL2Expression {
        let token = current
        switch token.kind {
        case .end:
            throw failHere("unexpected end of the filter; expected an operand")
        case .string:
            advance()
            return .string(token.text)
        case .number:
            advance()
            return try number(token, negative: false)
        case .quotedIdentifier:
            advance()
            return .property(token.text)
        case .symbol:
            if token.isSymbol("(") { return try parseParenthesized() }
            throw failHere("unexpected \(Self.describe(token)); expected an operand")
        case .identifier:
            return try parseWord()
        }
    }

    private mutating func parseWord() throws(CQL2Error) -> CQL2Expression {
        let token = current
        let upper = token.upper
        guard Self.reservedWords.contains(upper) else {
            advance()
            if current.isSymbol("(") {
                return .function(name: token.text, arguments: try parseArguments(of: token.text))
            }
            return .property(token.text)
        }
        switch upper {
        case "TRUE", "FALSE":
            advance()
            return .boolean(upper == "TRUE")
        case _ where Self.geometryKeywords.contains(upper):
            return try parseGeometry()
        default:
            break
        }
        guard next.isSymbol("(") else {
            throw failHere("'\(token.text)' is a keyword; write \"\(token.text)\" to name a property")
        }
        advance()
        if let function = CQL2SpatialFunction(rawValue: upper) {
            let arguments = try parseArguments(of: function.rawValue, count: 2)
            return .spatial(function, arguments[0], arguments[1])
        }
        if let function = CQL2TemporalFunction(rawValue: upper) {
            let arguments = try parseArguments(of: function.rawValue, count: 2)
            return .temporal(function, arguments[0], arguments[1])
        }
        if let function = CQL2ArrayFunction(rawValue: upper) {
            let arguments = try parseArguments(of: function.rawValue, count: 2)
            return .arrayComparison(function, arguments[0], arguments[1])
        }
        switch upper {
        case "CASEI":
            return .caseInsensitive(try parseArguments(of: upper, count: 1)[0])
        case "ACCENTI":
            return .accentInsensitive(try parseArguments(of: upper, count: 1)[0])
        case "DATE", "TIMESTAMP":
            try expect("(", "expected '(' after \(upper)")
            let value = current
            guard value.kind == .string else {
                throw failHere("expected a quoted \(upper == "DATE" ? "date" : "timestamp") after \(upper)(, found \(Self.describe(value))")
            }
            advance()
            try expect(")", "expected ')' after the argument of \(upper)")
            if upper == "DATE" {
                guard CQL2Instant.isDate(value.text) else {
                    throw fail("\(WhereClauseError.quoted(value.text, quote: "'")) is not a date of the form 'yyyy-mm-dd'", at: value)
                }
                return .date(value.text)
            }
            guard CQL2Instant.isTimestamp(value.text) else {
                throw fail("\(WhereClauseError.quoted(value.text, quote: "'")) is not a timestamp of the form 'yyyy-mm-ddThh:mm:ss[.fff]Z'", at: value)
            }
            return .timestamp(value.text)
        case "INTERVAL":
            try expect("(", "expected '(' after INTERVAL")
            let start = try parseIntervalBound()
            try expect(",", "expected ',' between the ends of INTERVAL")
            let end = try parseIntervalBound()
            try expect(")", "expected ')' after the arguments of INTERVAL (it takes 2)")
            return .interval(start, end)
        case "BBOX":
            return try parseBoundingBox(keyword: token)
        default:
            throw failHere("'\(token.text)' is a keyword; write \"\(token.text)\" to name a property")
        }
    }

    private mutating func parseIntervalBound() throws(CQL2Error) -> CQL2IntervalBound {
        let token = current
        if token.kind == .string {
            advance()
            if token.text == ".." { return .unbounded }
            if CQL2Instant.isDate(token.text) { return .date(token.text) }
            if CQL2Instant.isTimestamp(token.text) { return .timestamp(token.text) }
            throw fail("\(WhereClauseError.quoted(token.text, quote: "'")) is not a date, a timestamp or '..'", at: token)
        }
        switch try parseArgument() {
        case .date(let date): return .date(date)
        case .timestamp(let timestamp): return .timestamp(timestamp)
        case let expression:
            // CQL2's instantParameter: besides the literals, a property or a function call.
            guard expression.isIntervalEnd else {
                throw fail(
                    "an end of INTERVAL is a date, a timestamp, '..', a property or a function call, not \(Self.describe(token))",
                    at: token)
            }
            return .expression(expression)
        }
    }

    private mutating func parseBoundingBox(keyword: CQL2Token) throws(CQL2Error) -> CQL2Expression {
        try expect("(", "expected '(' after BBOX")
        var values: [Double] = []
        repeat {
            if !values.isEmpty { advance() }
            var negative = false
            if current.isSymbol("-") || current.isSymbol("+") { negative = advance().text == "-" }
            guard current.kind == .number else {
                throw failHere("expected a number in BBOX, found \(Self.describe(current))")
            }
            switch try number(advance(), negative: negative) {
            case .integer(let value): values.append(Double(value))
            case .real(let value): values.append(value)
            default: break
            }
        } while current.isSymbol(",")
        try expect(")", "expected ',' or ')' in BBOX")
        guard values.count == 4 || values.count == 6 else {
            throw fail("BBOX takes 4 or 6 numbers, not \(values.count)", at: keyword)
        }
        return .bbox(values)
    }

    /// A WKT geometry literal: the tokens from the type keyword to the `)` that balances the
    /// first `(` (or to `EMPTY`), read by SieveGeometry's WKT reader.
    private mutating func parseGeometry() throws(CQL2Error) -> CQL2Expression {
        let keyword = current
        var position = index + 1
        let tag = tokens[position]
        if tag.isKeyword("Z") || tag.isKeyword("M") || tag.isKeyword("ZM") { position += 1 }
        let end: Int
        if tokens[position].isKeyword("EMPTY") {
            end = tokens[position].end
        } else if tokens[position].isSymbol("(") {
            var open = 0
            while true {
                let token = tokens[position]
                if token.kind == .end {
                    throw fail("unterminated \(keyword.text.uppercased()) literal: expected ')'", at: token)
                }
                if token.isSymbol("(") { open += 1 }
                if token.isSymbol(")") { open -= 1 }
                if open == 0 { break }
                position += 1
            }
            end = tokens[position].end
        } else if position == index + 1 {
            throw failHere("'\(keyword.text)' is a keyword; write \"\(keyword.text)\" to name a property")
        } else {
            throw fail("expected '(' or EMPTY in the \(keyword.text.uppercased()) literal", at: tokens[position])
        }
        let wkt = String(decoding: bytes[keyword.start..<end], as: UTF8.self)
        do {
            let geometry = try Geometry(wkt: wkt)
            index = position
            advance()
            return .geometry(geometry)
        } catch {
            let offset = Self.characterOffset(of: keyword.start, in: bytes) + max(0, (error.position ?? 1) - 1)
            throw Self.error(
                "invalid \(keyword.text.uppercased()) literal: \(error.message)", atCharacter: offset, in: bytes)
        }
    }
}

/// Checks of the shapes of CQL2 dates and timestamps.
enum CQL2Instant {
    /// Whether `text` is `yyyy-mm-dd` naming an existing day.
    static func isDate(_ text: String) -> Bool {
        let characters = Array(text)
        guard characters.count == 10, characters[4] == "-", characters[7] == "-",
            let year = digits(characters, 0..<4), let month = digits(characters, 5..<7),
            let day = digits(characters, 8..<10), (1...12).contains(month), day >= 1
        else { return false }
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return day <= days
    }

    /// Whether `text` is `yyyy-mm-ddThh:mm:ss[.f…]Z` with an existing day and a valid time of day
    /// (second 60 allowed, for leap seconds).
    static func isTimestamp(_ text: String) -> Bool {
        let characters = Array(text)
        guard characters.count >= 20, characters.last == "Z", characters[10] == "T",
            isDate(String(characters[0..<10])), characters[13] == ":", characters[16] == ":",
            let hour = digits(characters, 11..<13), let minute = digits(characters, 14..<16),
            let second = digits(characters, 17..<19), hour < 24, minute < 60, second <= 60
        else { return false }
        let fraction = characters[19..<(characters.count - 1)]
        if fraction.isEmpty { return true }
        return fraction.count >= 2 && fraction.first == "." && fraction.dropFirst().allSatisfy(CQL2Lexer.isDigit)
    }

    private static func digits(_ characters: [Character], _ range: Range<Int>) -> Int? {
        var value = 0
        for character in characters[range] {
            guard CQL2Lexer.isDigit(character), let digit = character.wholeNumberValue else { return nil }
            value = value * 10 + digit
        }
        return value
    }
}
