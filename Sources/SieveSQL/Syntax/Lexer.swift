/// A word the where-clause grammar gives a meaning to. Keywords are recognized case-insensitively
/// (ASCII) in plain identifiers; whether a word acts as a keyword or a field name depends on
/// where it appears (see ``Parser``). A quoted identifier is never a keyword.
enum Keyword: String, CaseIterable, Sendable {
    case and = "AND", or = "OR", not = "NOT", `in` = "IN", between = "BETWEEN", like = "LIKE"
    case escape = "ESCAPE", `is` = "IS", null = "NULL", `true` = "TRUE", `false` = "FALSE"
    case `case` = "CASE", when = "WHEN", then = "THEN", `else` = "ELSE", end = "END"
    case date = "DATE", timestamp = "TIMESTAMP", interval = "INTERVAL", to = "TO"
    case currentDate = "CURRENT_DATE", currentTimestamp = "CURRENT_TIMESTAMP"
    case cast = "CAST", `as` = "AS", extract = "EXTRACT", from = "FROM", `for` = "FOR"
    case position = "POSITION", substring = "SUBSTRING", trim = "TRIM"
    case both = "BOTH", leading = "LEADING", trailing = "TRAILING"
    case year = "YEAR", month = "MONTH", day = "DAY", hour = "HOUR", minute = "MINUTE", second = "SECOND"

    /// Keywords that never name a field unless quoted: they cannot start an operand, or they
    /// always mean a value.
    var isReserved: Bool {
        switch self {
        case .and, .or, .not, .in, .between, .like, .escape, .is, .null, .true, .false,
            .case, .when, .then, .else, .end, .currentDate, .currentTimestamp:
            return true
        default:
            return false
        }
    }

    /// The keywords by the length of their names, each with its name's bytes.
    private static let byLength: [[(name: [UInt8], keyword: Keyword)]] = {
        var table: [[(name: [UInt8], keyword: Keyword)]] = Array(repeating: [], count: 18)
        for keyword in allCases { table[keyword.rawValue.utf8.count].append((Array(keyword.rawValue.utf8), keyword)) }
        return table
    }()

    /// The keyword `word` spells, ignoring ASCII case.
    init?(word: String) {
        self.init(bytes: ArraySlice(word.utf8))
    }

    /// The keyword the UTF-8 `bytes` spell, ignoring ASCII case. Compares bytes in place: the
    /// lexer asks this of every word, so it builds no string.
    init?(bytes: ArraySlice<UInt8>) {
        guard bytes.count < Keyword.byLength.count else { return nil }
        candidates: for (name, keyword) in Keyword.byLength[bytes.count] {
            var index = bytes.startIndex
            for expected in name {
                let byte = bytes[index]
                let upper = byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 0x20 : byte
                if upper != expected { continue candidates }
                index += 1
            }
            self = keyword
            return
        }
        return nil
    }
}

/// Punctuation and operators.
enum Symbol: String, Sendable {
    case equal = "=", notEqual = "<>", bangEqual = "!=", less = "<", lessOrEqual = "<="
    case greater = ">", greaterOrEqual = ">=", plus = "+", minus = "-", star = "*", slash = "/"
    case leftParenthesis = "(", rightParenthesis = ")", comma = ","
}

/// One lexical unit of a where clause.
struct Token: Sendable {
    enum Kind: Equatable, Sendable {
        /// A plain identifier, with the keyword it spells, if any.
        case word(String, Keyword?)
        /// A `"double-quoted"` or `` `backticked` `` identifier, unescaped.
        case quotedIdentifier(String)
        /// Digits only, fitting `UInt64` (the sign is a separate token).
        case integer(UInt64)
        /// A number with `.` or an exponent, or digits too many for `UInt64`.
        case double(Double)
        /// A `'string'` (or `N'string'`), unescaped.
        case string(String)
        /// An operator or punctuation.
        case symbol(Symbol)
        /// The end of the input.
        case end
    }

    var kind: Kind
    var range: SourceRange

    /// The keyword of a plain identifier.
    var keyword: Keyword? {
        if case .word(_, let keyword) = kind { return keyword }
        return nil
    }

    func `is`(_ keyword: Keyword) -> Bool { self.keyword == keyword }
    func `is`(_ symbol: Symbol) -> Bool { kind == .symbol(symbol) }
}

/// Splits where-clause text into tokens, one at a time, over its UTF-8 bytes.
///
/// - Whitespace: ASCII space, tab, line feed, carriage return, vertical tab, form feed, and any
///   non-ASCII whitespace scalar. There are no comments.
/// - Plain identifiers start with an ASCII letter, `_` or any non-ASCII, non-whitespace scalar and
///   continue with those, ASCII digits and `.` (for qualified names such as `Parcels.OWNER`, as
///   in ArcGIS's grammar).
/// - `"double quoted"` (with `""`) and `` `backticked` `` (with ``` `` ```) identifiers.
/// - Numbers: `123`, `1.5`, `.5`, `5.`, `1e3`, `2.5E-3`; a number directly followed by an
///   identifier character is a ``WhereClauseError/Kind/badLiteral``.
/// - Strings: `'text'` with `''` for a quote; `N'text'` is the same.
/// - Operators: `= <> != < <= > >= + - * / ( ) ,`.
struct Lexer {
    let sql: String
    private let bytes: [UInt8]
    private var position = 0

    init(_ sql: String) {
        self.sql = sql
        self.bytes = Array(sql.utf8)
    }

    private func error(_ kind: WhereClauseError.Kind, _ message: String, _ lower: Int, _ upper: Int) -> WhereClauseError {
        WhereClauseError(kind, message, sql: sql, range: SourceRange(lower: lower, upper: upper))
    }

    /// The text of `bytes[lower ..< upper]`. Copies only that span, so lexing stays linear in
    /// the length of the clause.
    private func text(_ lower: Int, _ upper: Int) -> String {
        String(decoding: bytes[lower..<upper], as: UTF8.self)
    }

    /// The next token; ``Token/Kind/end`` (repeatedly) at the end of the input.
    mutating func next() throws(WhereClauseError) -> Token {
        skipWhitespace()
        let start = position
        guard position < bytes.count else { return Token(kind: .end, range: SourceRange(at: start)) }
        let byte = bytes[position]
        func symbol(_ symbol: Symbol, length: Int) -> Token {
            position += length
            return Token(kind: .symbol(symbol), range: SourceRange(lower: start, upper: position))
        }
        let following: UInt8? = position + 1 < bytes.count ? bytes[position + 1] : nil
        switch byte {
        case UInt8(ascii: "'"):
            return try string(openingAt: start)
        case UInt8(ascii: "N") where following == UInt8(ascii: "'"),
            UInt8(ascii: "n") where following == UInt8(ascii: "'"):
            position += 1
            var token = try string(openingAt: position)
            token.range.lower = start
            return token
        case UInt8(ascii: "\""), UInt8(ascii: "`"):
            return try quotedIdentifier(quote: byte)
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try number()
        case UInt8(ascii: ".") where following.map(Self.isDigit) ?? false:
            return try number()
        case UInt8(ascii: "="): return symbol(.equal, length: 1)
        case UInt8(ascii: "<"):
            if following == UInt8(ascii: ">") { return symbol(.notEqual, length: 2) }
            if following == UInt8(ascii: "=") { return symbol(.lessOrEqual, length: 2) }
            return symbol(.less, length: 1)
        case UInt8(ascii: ">"):
            if following == UInt8(ascii: "=") { return symbol(.greaterOrEqual, length: 2) }
            return symbol(.greater, length: 1)
        case UInt8(ascii: "!") where following == UInt8(ascii: "="):
            return symbol(.bangEqual, length: 2)
        case UInt8(ascii: "+"): return symbol(.plus, length: 1)
        case UInt8(ascii: "-"): return symbol(.minus, length: 1)
        case UInt8(ascii: "*"): return symbol(.star, length: 1)
        case UInt8(ascii: "/"): return symbol(.slash, length: 1)
        case UInt8(ascii: "("): return symbol(.leftParenthesis, length: 1)
        case UInt8(ascii: ")"): return symbol(.rightParenthesis, length: 1)
        case UInt8(ascii: ","): return symbol(.comma, length: 1)
        default:
            if identifierStartLength(at: position) > 0 { return word() }
            let length = byte < 0x80 ? 1 : Self.scalarLength(leadingByte: byte)
            let shown = byte < 0x20 || byte == 0x7F ? "U+" + String(byte, radix: 16, uppercase: true).leftPadded(to: 4) : text(start, min(start + length, bytes.count))
            throw error(.syntaxError, "unexpected character \"\(shown)\"", start, start + length)
        }
    }

    // MARK: Character classes

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }

    private static func scalarLength(leadingByte byte: UInt8) -> Int {
        switch byte {
        case 0xF0...: return 4
        case 0xE0...: return 3
        case 0xC0...: return 2
        default: return 1
        }
    }

    /// The Unicode scalar starting at `index` (a non-ASCII lead byte) and its length in bytes.
    private func scalar(at index: Int) -> (Unicode.Scalar?, Int) {
        let length = min(Self.scalarLength(leadingByte: bytes[index]), bytes.count - index)
        var value = UInt32(bytes[index]) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for offset in 1..<max(1, length) {
            value = value << 6 | UInt32(bytes[index + offset] & 0x3F)
        }
        return (Unicode.Scalar(value), length)
    }

    /// The length of the identifier-start character at `index`, or 0 if there is none.
    private func identifierStartLength(at index: Int) -> Int {
        let byte = bytes[index]
        if byte < 0x80 {
            let isLetter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            return isLetter || byte == UInt8(ascii: "_") ? 1 : 0
        }
        let (scalar, length) = scalar(at: index)
        guard let scalar, !scalar.properties.isWhitespace else { return 0 }
        return length
    }

    /// The length of the identifier character at `index`, or 0 if there is none.
    private func identifierPartLength(at index: Int) -> Int {
        let byte = bytes[index]
        if Self.isDigit(byte) || byte == UInt8(ascii: ".") { return 1 }
        return identifierStartLength(at: index)
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D:
                position += 1
            case 0x80...:
                let (scalar, length) = scalar(at: position)
                guard let scalar, scalar.properties.isWhitespace else { return }
                position += length
            default:
                return
            }
        }
    }

    // MARK: Tokens

    private mutating func word() -> Token {
        let start = position
        while position < bytes.count {
            let length = identifierPartLength(at: position)
            guard length > 0 else { break }
            position += length
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        return Token(kind: .word(text, Keyword(bytes: bytes[start..<position])), range: SourceRange(lower: start, upper: position))
    }

    /// `quote … quote` with a doubled quote standing for one; returns the unescaped bytes.
    private mutating func quoted(quote: UInt8, what: String) throws(WhereClauseError) -> String {
        let start = position
        position += 1
        var content: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if byte == quote {
                guard position < bytes.count, bytes[position] == quote else {
                    return String(decoding: content, as: UTF8.self)
                }
                position += 1
            }
            content.append(byte)
        }
        throw error(.unterminatedString, "unterminated \(what); a closing \(Character(Unicode.Scalar(quote))) is missing", start, bytes.count)
    }

    private mutating func string(openingAt start: Int) throws(WhereClauseError) -> Token {
        position = start
        let text = try quoted(quote: UInt8(ascii: "'"), what: "string")
        return Token(kind: .string(text), range: SourceRange(lower: start, upper: position))
    }

    private mutating func quotedIdentifier(quote: UInt8) throws(WhereClauseError) -> Token {
        let start = position
        let name = try quoted(quote: quote, what: "quoted identifier")
        guard !name.isEmpty else { throw error(.syntaxError, "empty quoted identifier", start, position) }
        return Token(kind: .quotedIdentifier(name), range: SourceRange(lower: start, upper: position))
    }

    /// The value of the ASCII digits `bytes[lower ..< upper]`, `nil` when it overflows `UInt64`.
    private func integerValue(_ lower: Int, _ upper: Int) -> UInt64? {
        var value: UInt64 = 0
        for index in lower..<upper {
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(UInt64(bytes[index] &- 48))
            if overflow1 || overflow2 { return nil }
            value = sum
        }
        return value
    }

    private mutating func number() throws(WhereClauseError) -> Token {
        let start = position
        func digits() -> Int {
            let first = position
            while position < bytes.count, Self.isDigit(bytes[position]) { position += 1 }
            return position - first
        }
        _ = digits()
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            isInteger = false
            _ = digits()
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard digits() > 0 else {
                throw error(.badLiteral, "malformed number \(WhereClauseError.quoted(text(start, position))): the exponent has no digits", start, position)
            }
        }
        let range = SourceRange(lower: start, upper: position)
        if position < bytes.count, identifierPartLength(at: position) > 0 {
            var end = position
            while end < bytes.count, identifierPartLength(at: end) > 0 { end += identifierPartLength(at: end) }
            throw error(.badLiteral, "malformed number \(WhereClauseError.quoted(text(start, end)))", start, end)
        }
        if isInteger, let value = integerValue(start, position) {
            return Token(kind: .integer(value), range: range)
        }
        let literal = text(start, position)
        guard let value = Double(literal), value.isFinite else {
            throw error(.badLiteral, "number \(WhereClauseError.quoted(literal, quote: "")) is out of range", start, position)
        }
        return Token(kind: .double(value), range: range)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: Swift.max(0, width - count)) + self
    }
}
