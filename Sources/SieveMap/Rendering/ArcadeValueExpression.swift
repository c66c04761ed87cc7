/// An ArcGIS Arcade `valueExpression` of the arithmetic subset this engine evaluates, translated
/// to the where-clause language.
///
/// GeoSieve does not run Arcade. It accepts the expressions renderers most often carry,
/// arithmetic over a feature's fields, and nothing else:
///
/// - field references `$feature.NAME`, `$feature["NAME"]` and `$feature['NAME']` (`NAME` after
///   the dot is a letter or `_` followed by letters, digits and `_`; in brackets any text
///   without a backslash, a line break or the quote that closes it);
/// - decimal numbers: `12`, `1.5`, `.5`, `5.`, `2e-3` (no hexadecimal, no leading zero before
///   another digit);
/// - `+ - * /` with the usual precedence and left associativity, unary minus, parentheses;
/// - white space, a leading `return` and one trailing `;`.
///
/// Arcade names are not case-sensitive (`$Feature.x`, `RETURN`); field names are resolved
/// ignoring case as well when the renderer is bound. Anything else — function calls
/// (`Round(…)`), comparisons (`==`), strings, variables (`var`), statements, comments, other
/// globals (`$view`) — is a ``RendererError/Kind/unsupportedRenderer`` error naming what is not
/// supported and the character (1-based, in Unicode scalars) where it starts.
///
/// The translation (``whereClause``) quotes each field name with double quotes (doubling the
/// double quotes it holds) and casts each field to `FLOAT`, and writes each number as a
/// floating-point literal, so that `/` divides in floating point as in Arcade
/// (`$feature.A / $feature.B` → `CAST("A" AS FLOAT) / CAST("B" AS FLOAT)`). An expression that
/// is a single field reference (`$feature.TYPE`) is translated to the bare field (`"TYPE"`): its
/// value is the field's own value, string, integer or date, exactly as for a renderer's
/// `field`/`field1`.
///
/// The values follow the where-clause semantics, which differ from Arcade's in three cases: a
/// NULL operand makes the result NULL (Arcade converts `null` to a number instead), a
/// division by zero gives NULL (Arcade gives `Infinity` or `NaN`), and so does any result that
/// is not a finite number. A NULL value is drawn with the renderer's default symbol, as a zero
/// normalization divisor already is.
public struct ArcadeValueExpression: Hashable, Sendable, CustomStringConvertible {
    /// The Arcade text, as given.
    public let arcade: String
    /// The expression in the where-clause language, e.g. `CAST("POP_EST" AS FLOAT) / CAST("GDP_MD_EST" AS FLOAT)`.
    public let whereClause: String
    /// The names of the fields the expression reads, in order of first appearance, each once
    /// (names that differ only in case count as one).
    public let fieldNames: [String]
    /// The field when the expression is a single field reference (`$feature.TYPE`, possibly in
    /// parentheses), `nil` when it computes something.
    public let fieldReference: String?

    /// The deepest nesting of operations accepted (a chain `a + b + c` nests as deep as it has
    /// operators).
    public static let maximumDepth = 64

    /// Translates an Arcade expression.
    /// - Throws: ``RendererError`` of kind ``RendererError/Kind/unsupportedRenderer`` with path
    ///   `valueExpression`, naming what is not supported (or malformed) and where.
    public init(_ arcade: String) throws(RendererError) {
        var parser = ArcadeParser(arcade)
        let node = try parser.parseProgram()
        self.arcade = arcade
        var names: [String] = []
        var seen: Set<String> = []
        node.collectFields { name in
            if seen.insert(name.lowercased()).inserted { names.append(name) }
        }
        self.fieldNames = names
        if case .field(let name) = node {
            fieldReference = name
            whereClause = ArcadeNode.quoted(name)
        } else {
            fieldReference = nil
            whereClause = node.sql
        }
    }

    public var description: String { arcade }
}

/// An operation of a translated expression.
private indirect enum ArcadeNode {
    case field(String)
    /// A number, written as a where-clause floating-point literal.
    case number(String)
    case negate(ArcadeNode)
    case binary(Unicode.Scalar, ArcadeNode, ArcadeNode)

    /// How tightly the node binds when written out: leaves 3, negation 2, `* /` 1, `+ -` 0.
    var precedence: Int {
        switch self {
        case .field, .number: 3
        case .negate: 2
        case .binary(let op, _, _): op == "*" || op == "/" ? 1 : 0
        }
    }

    var depth: Int {
        switch self {
        case .field, .number: 0
        case .negate(let operand): operand.depth + 1
        case .binary(_, let left, let right): max(left.depth, right.depth) + 1
        }
    }

    func collectFields(_ body: (String) -> Void) {
        switch self {
        case .field(let name): body(name)
        case .number: break
        case .negate(let operand): operand.collectFields(body)
        case .binary(_, let left, let right):
            left.collectFields(body)
            right.collectFields(body)
        }
    }

    /// The where-clause text, with the parentheses that keep the tree's grouping (a right
    /// operand of equal precedence keeps them too: floating-point `+` and `*` are not
    /// associative).
    var sql: String {
        switch self {
        case .field(let name): return "CAST(\(Self.quoted(name)) AS FLOAT)"
        case .number(let text): return text
        case .negate(let operand):
            // "-(-x)" rather than "--x", which would start a comment.
            return "-" + (operand.precedence < 3 ? "(\(operand.sql))" : operand.sql)
        case .binary(let op, let left, let right):
            let own = precedence
            let leftText = left.precedence < own ? "(\(left.sql))" : left.sql
            let rightText = right.precedence <= own ? "(\(right.sql))" : right.sql
            return "\(leftText) \(op) \(rightText)"
        }
    }

    /// A field name as a double-quoted where-clause identifier.
    static func quoted(_ name: String) -> String {
        var text = "\""
        for character in name {
            if character == "\"" { text += "\"\"" } else { text.append(character) }
        }
        return text + "\""
    }
}

/// A token of the Arcade subset.
private enum ArcadeToken: Equatable {
    case field(String)
    case number(String)
    case plus, minus, star, slash, leftParenthesis, rightParenthesis
    case returnKeyword
    case semicolon
    case end

    var shown: String {
        switch self {
        case .field(let name): "the field reference $feature[\(name.debugDescription)]"
        case .number(let text): "the number \(text)"
        case .plus: "\"+\""
        case .minus: "\"-\""
        case .star: "\"*\""
        case .slash: "\"/\""
        case .leftParenthesis: "\"(\""
        case .rightParenthesis: "\")\""
        case .returnKeyword: "\"return\""
        case .semicolon: "\";\""
        case .end: "the end of the expression"
        }
    }
}

/// Splits Arcade text into tokens of the subset, failing on anything outside it.
private struct ArcadeTokenizer {
    let scalars: [Unicode.Scalar]
    var position = 0

    init(_ text: String) { scalars = Array(text.unicodeScalars) }

    static let supported = "only $feature.NAME, $feature[\"NAME\"], numbers, + - * /, unary minus and parentheses are supported"

    /// An error about the text from `start` (0-based) on.
    func error(_ problem: String, at start: Int) -> RendererError {
        RendererError(
            .unsupportedRenderer, "Arcade valueExpression: \(problem) at character \(start + 1); \(Self.supported)",
            path: "valueExpression")
    }

    func scalar(_ offset: Int = 0) -> Unicode.Scalar? {
        position + offset < scalars.count ? scalars[position + offset] : nil
    }

    static func isDigit(_ s: Unicode.Scalar?) -> Bool { s.map { ("0"..."9").contains($0) } ?? false }

    static func isIdentifierStart(_ s: Unicode.Scalar?) -> Bool {
        guard let s else { return false }
        return s == "_" || s.properties.isAlphabetic
    }

    static func isIdentifierPart(_ s: Unicode.Scalar?) -> Bool {
        guard let s else { return false }
        return isIdentifierStart(s) || isDigit(s)
    }

    mutating func skipWhitespace() {
        while let s = scalar(), s.properties.isWhitespace { position += 1 }
    }

    /// The next token and where it starts (0-based).
    mutating func next() throws(RendererError) -> (token: ArcadeToken, start: Int) {
        skipWhitespace()
        let start = position
        guard let s = scalar() else { return (.end, start) }
        switch s {
        case "(": position += 1; return (.leftParenthesis, start)
        case ")": position += 1; return (.rightParenthesis, start)
        case ";": position += 1; return (.semicolon, start)
        case "+", "-", "*", "/":
            let following = scalar(1)
            if s == "/", following == "/" || following == "*" { throw error("comments are not supported", at: start) }
            if following == "=" || (following == s && s != "/") {
                throw error("the operator \"\(s)\(following.map(String.init) ?? "")\" is not supported", at: start)
            }
            position += 1
            switch s {
            case "+": return (.plus, start)
            case "-": return (.minus, start)
            case "*": return (.star, start)
            default: return (.slash, start)
            }
        case "\"", "'", "`":
            throw error("string literals are not supported (a field named in quotes is written $feature[\"NAME\"])", at: start)
        case "$":
            return try fieldReference()
        case "0"..."9":
            return (try number(), start)
        case "." where Self.isDigit(scalar(1)):
            return (try number(), start)
        default:
            if Self.isIdentifierStart(s) { return try word() }
            var end = position
            while end < scalars.count, "=<>!&|%^~?:".unicodeScalars.contains(scalars[end]) { end += 1 }
            if end > position {
                let op = String(String.UnicodeScalarView(scalars[position..<end]))
                throw error("the operator \"\(op)\" is not supported", at: start)
            }
            throw error("the character \(Self.describe(s)) is not supported", at: start)
        }
    }

    static func describe(_ s: Unicode.Scalar) -> String {
        if s.value < 0x20 || s.value == 0x7F || s.properties.isWhitespace {
            return "U+" + String(s.value, radix: 16, uppercase: true)
        }
        return "\"\(Character(s))\""
    }

    /// An identifier's text from the current position.
    mutating func identifier() -> String {
        let begin = position
        while Self.isIdentifierPart(scalar()) { position += 1 }
        return String(String.UnicodeScalarView(scalars[begin..<position]))
    }

    /// `return`, or an error naming the word that is not supported.
    mutating func word() throws(RendererError) -> (token: ArcadeToken, start: Int) {
        let start = position
        let name = identifier()
        let lowered = name.lowercased()
        if lowered == "return" { return (.returnKeyword, start) }
        var after = position
        while after < scalars.count, scalars[after].properties.isWhitespace { after += 1 }
        if after < scalars.count, scalars[after] == "(" {
            throw error("function calls (\(name)(…)) are not supported", at: start)
        }
        switch lowered {
        case "var", "let", "const": throw error("variable declarations (\(name)) are not supported", at: start)
        case "if", "else", "for", "while", "function", "when", "iif", "decode":
            throw error("statements and control flow (\(name)) are not supported", at: start)
        case "true", "false", "null", "infinity", "nan":
            throw error("the constant \(name) is not supported", at: start)
        default:
            throw error("the name \(name) is not supported (fields are read as $feature.NAME)", at: start)
        }
    }

    /// `$feature.NAME`, `$feature["NAME"]` or `$feature['NAME']`.
    mutating func fieldReference() throws(RendererError) -> (token: ArcadeToken, start: Int) {
        let start = position
        position += 1
        let global = identifier()
        guard global.lowercased() == "feature" else {
            throw error("the global $\(global) is not supported (only $feature is)", at: start)
        }
        skipWhitespace()
        switch scalar() {
        case ".":
            position += 1
            skipWhitespace()
            let nameStart = position
            guard Self.isIdentifierStart(scalar()) else {
                throw error("expected a field name after \"$feature.\"", at: nameStart)
            }
            let name = identifier()
            var after = position
            while after < scalars.count, scalars[after].properties.isWhitespace { after += 1 }
            if after < scalars.count, scalars[after] == "(" {
                throw error("method calls ($feature.\(name)(…)) are not supported", at: nameStart)
            }
            return (.field(name), start)
        case "[":
            position += 1
            skipWhitespace()
            let quoteStart = position
            guard let quote = scalar(), quote == "\"" || quote == "'" else {
                throw error("expected a quoted field name after \"$feature[\"", at: quoteStart)
            }
            position += 1
            let nameStart = position
            while let s = scalar(), s != quote {
                if s == "\\" { throw error("escape sequences in field names are not supported", at: position) }
                if s == "\n" || s == "\r" { throw error("the field name is not closed before the line ends", at: quoteStart) }
                position += 1
            }
            guard scalar() == quote else { throw error("the field name is not closed", at: quoteStart) }
            let name = String(String.UnicodeScalarView(scalars[nameStart..<position]))
            position += 1
            guard !name.isEmpty else { throw error("the field name is empty", at: quoteStart) }
            skipWhitespace()
            guard scalar() == "]" else { throw error("expected \"]\" after the field name", at: position) }
            position += 1
            return (.field(name), start)
        default:
            throw error("$feature must be followed by .NAME or [\"NAME\"]", at: start)
        }
    }

    /// A decimal number, written as a where-clause floating-point literal
    /// (`12` → `12.0`, `.5` → `0.5`, `1e3` → `1.0e3`).
    mutating func number() throws(RendererError) -> ArcadeToken {
        let start = position
        func digits() -> String {
            let begin = position
            while Self.isDigit(scalar()) { position += 1 }
            return String(String.UnicodeScalarView(scalars[begin..<position]))
        }
        let integerPart = digits()
        if integerPart.count > 1, integerPart.hasPrefix("0") {
            throw error("the number \(integerPart) has a leading zero (octal in JavaScript)", at: start)
        }
        var fraction = ""
        if scalar() == "." {
            position += 1
            fraction = digits()
        }
        var exponent = ""
        if let e = scalar(), e == "e" || e == "E" {
            position += 1
            if let sign = scalar(), sign == "+" || sign == "-" {
                exponent = String(sign)
                position += 1
            }
            let exponentDigits = digits()
            guard !exponentDigits.isEmpty else { throw error("the number's exponent has no digits", at: start) }
            exponent += exponentDigits
        }
        if Self.isIdentifierPart(scalar()) || scalar() == "." {
            if integerPart == "0", fraction.isEmpty, exponent.isEmpty, let x = scalar(), x == "x" || x == "X" || x == "b" || x == "o" {
                throw error("only decimal numbers are supported", at: start)
            }
            throw error("a number must not be followed by \(Self.describe(scalars[position]))", at: position)
        }
        let text = (integerPart.isEmpty ? "0" : integerPart) + "." + (fraction.isEmpty ? "0" : fraction) + (exponent.isEmpty ? "" : "e" + exponent)
        guard let value = Double(text), value.isFinite else { throw error("the number is out of range", at: start) }
        return .number(text)
    }
}

/// The grammar of the subset:
///
///     program  := [return] sum [";"] end
///     sum      := product (("+" | "-") product)*
///     product  := unary (("*" | "/") unary)*
///     unary    := "-" unary | primary
///     primary  := field | number | "(" sum ")"
private struct ArcadeParser {
    var tokenizer: ArcadeTokenizer
    var current: (token: ArcadeToken, start: Int) = (.end, 0)
    var nesting = 0
    /// How deep parentheses and unary minus may nest while parsing (each "(" and each "-"
    /// counts), so that no input can exhaust the stack; the tree's depth is limited apart.
    static let maximumNesting = 4 * ArcadeValueExpression.maximumDepth

    init(_ text: String) { tokenizer = ArcadeTokenizer(text) }

    mutating func advance() throws(RendererError) { current = try tokenizer.next() }

    func error(_ problem: String) -> RendererError { tokenizer.error(problem, at: current.start) }

    mutating func parseProgram() throws(RendererError) -> ArcadeNode {
        try advance()
        if current.token == .returnKeyword { try advance() }
        if current.token == .end || current.token == .semicolon {
            throw error("the expression is empty: expected a value such as $feature.POP / $feature.AREA")
        }
        let node = try parseSum()
        if current.token == .semicolon {
            let semicolon = current.start
            try advance()
            guard current.token == .end else {
                throw tokenizer.error("\";\" may only end the expression (statements are not supported)", at: semicolon)
            }
        }
        switch current.token {
        case .end: break
        case .returnKeyword: throw error("\"return\" may only start the expression")
        case .semicolon: throw error("\";\" may only end the expression (statements are not supported)")
        default:
            throw error("expected an operator (+ - * /) or the end of the expression, found \(current.token.shown)")
        }
        guard node.depth <= ArcadeValueExpression.maximumDepth else {
            throw tokenizer.error(
                "the expression is nested too deeply (more than \(ArcadeValueExpression.maximumDepth) operations)", at: 0)
        }
        return node
    }

    mutating func parseSum() throws(RendererError) -> ArcadeNode {
        var node = try parseProduct()
        while current.token == .plus || current.token == .minus {
            let op: Unicode.Scalar = current.token == .plus ? "+" : "-"
            try advance()
            node = .binary(op, node, try parseProduct())
            guard node.depth <= ArcadeValueExpression.maximumDepth else { throw tooDeep() }
        }
        return node
    }

    mutating func parseProduct() throws(RendererError) -> ArcadeNode {
        var node = try parseUnary()
        while current.token == .star || current.token == .slash {
            let op: Unicode.Scalar = current.token == .star ? "*" : "/"
            try advance()
            node = .binary(op, node, try parseUnary())
            guard node.depth <= ArcadeValueExpression.maximumDepth else { throw tooDeep() }
        }
        return node
    }

    func tooDeep() -> RendererError {
        error("the expression is nested too deeply (more than \(ArcadeValueExpression.maximumDepth) operations)")
    }

    mutating func parseUnary() throws(RendererError) -> ArcadeNode {
        nesting += 1
        defer { nesting -= 1 }
        guard nesting <= Self.maximumNesting else { throw tooDeep() }
        switch current.token {
        case .minus:
            try advance()
            return .negate(try parseUnary())
        case .plus:
            throw error("unary \"+\" is not supported")
        case .field(let name):
            try advance()
            return .field(name)
        case .number(let text):
            try advance()
            return .number(text)
        case .leftParenthesis:
            let open = current.start
            try advance()
            let inner = try parseSum()
            guard current.token == .rightParenthesis else {
                throw error("expected \")\" to close the \"(\" at character \(open + 1), found \(current.token.shown)")
            }
            try advance()
            return inner
        case .returnKeyword:
            throw error("\"return\" may only start the expression")
        default:
            throw error("expected a field, a number, \"-\" or \"(\", found \(current.token.shown)")
        }
    }
}
