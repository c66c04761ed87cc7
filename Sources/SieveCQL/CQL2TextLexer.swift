// The tokens of cql2-text.

/// One token of cql2-text, with its place in the input (UTF-8 byte offsets).
struct CQL2Token: Sendable {
    enum Kind: Equatable, Sendable {
        /// A bare identifier or keyword; `text` as written.
        case identifier
        /// A `"double-quoted"` identifier; `text` without the quotes, unescaped.
        case quotedIdentifier
        /// A `'character literal'`; `text` unescaped.
        case string
        /// An unsigned number; `text` as written.
        case number
        /// Punctuation or an operator: `( ) , = <> < <= > >= + - * / % ^`; `text` is it.
        case symbol
        /// The end of the input.
        case end
    }

    var kind: Kind
    var text: String
    /// Byte offset of the first character.
    var start: Int
    /// Byte offset one past the last character.
    var end: Int
    /// For a bare identifier, its text in upper case (keywords are matched in any case, many
    /// times per token: upper-cased once here); empty for other kinds.
    var upper: String

    init(kind: Kind, text: String, start: Int, end: Int) {
        self.kind = kind
        self.text = text
        self.start = start
        self.end = end
        upper = kind == .identifier ? text.uppercased() : ""
    }

    func isSymbol(_ symbol: String) -> Bool { kind == .symbol && text == symbol }

    /// Whether this is the bare keyword `keyword` (given in upper case), in any letter case.
    func isKeyword(_ keyword: String) -> Bool { kind == .identifier && upper == keyword }
}

/// Splits cql2-text into tokens.
///
/// It reads the UTF-8 bytes, a Unicode scalar at a time (the grammar is written over code
/// points); token positions are byte offsets, turned into line and column (in `Character`s) only
/// for an error.
struct CQL2Lexer {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The scalar at byte `i` (the input is valid UTF-8: it came from a `String`) and its length.
    @inline(__always)
    func scalar(at i: Int) -> (Unicode.Scalar, Int) {
        let b0 = UInt32(bytes[i])
        if b0 < 0x80 { return (Unicode.Scalar(UInt8(b0)), 1) }
        var value: UInt32
        var length: Int
        if b0 < 0xE0 {
            value = b0 & 0x1F
            length = 2
        } else if b0 < 0xF0 {
            value = b0 & 0x0F
            length = 3
        } else {
            value = b0 & 0x07
            length = 4
        }
        for k in 1..<length where i + k < bytes.count { value = value << 6 | UInt32(bytes[i + k] & 0x3F) }
        return (Unicode.Scalar(value) ?? "\u{FFFD}", length)
    }

    /// The text of bytes `range`.
    func text(_ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }

    /// All tokens, ending with one of kind `.end`.
    func tokens() throws(CQL2Error) -> [CQL2Token] {
        var result: [CQL2Token] = []
        var index = 0
        let count = bytes.count
        while true {
            while index < count {
                let (scalar, length) = scalar(at: index)
                guard Self.isWhitespaceScalar(scalar) else { break }
                index += length
            }
            guard index < count else {
                result.append(CQL2Token(kind: .end, text: "", start: index, end: index))
                return result
            }
            let start = index
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") {
                let (value, end) = try string(from: index)
                result.append(CQL2Token(kind: .string, text: value, start: start, end: end))
                index = end
            } else if byte == UInt8(ascii: "\"") {
                let (name, end) = try quotedIdentifier(from: index)
                result.append(CQL2Token(kind: .quotedIdentifier, text: name, start: start, end: end))
                index = end
            } else if Self.isDigitByte(byte) || (byte == UInt8(ascii: ".") && index + 1 < count && Self.isDigitByte(bytes[index + 1])) {
                let end = number(from: index)
                result.append(CQL2Token(kind: .number, text: text(start..<end), start: start, end: end))
                index = end
            } else if case let (scalar, length) = scalar(at: index), Self.isStartScalar(scalar) {
                index += length
                while index < count {
                    let (part, partLength) = self.scalar(at: index)
                    guard Self.isPartScalar(part) else { break }
                    index += partLength
                }
                result.append(CQL2Token(kind: .identifier, text: text(start..<index), start: start, end: index))
            } else {
                let next: UInt8? = index + 1 < count ? bytes[index + 1] : nil
                let symbol: String
                switch byte {
                case UInt8(ascii: "<") where next == UInt8(ascii: ">"): symbol = "<>"
                case UInt8(ascii: "<") where next == UInt8(ascii: "="): symbol = "<="
                case UInt8(ascii: ">") where next == UInt8(ascii: "="): symbol = ">="
                case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: ","), UInt8(ascii: "="), UInt8(ascii: "<"), UInt8(ascii: ">"),
                    UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "*"), UInt8(ascii: "/"), UInt8(ascii: "%"), UInt8(ascii: "^"):
                    symbol = String(UnicodeScalar(byte))
                default:
                    let (scalar, _) = scalar(at: index)
                    throw CQL2TextParser.error("unexpected character '\(scalar)'", at: start, in: bytes)
                }
                index += symbol.utf8.count
                result.append(CQL2Token(kind: .symbol, text: symbol, start: start, end: index))
            }
        }
    }

    /// Reads a character literal starting at the quote at `start`: `''` and `\'` stand for a
    /// quote; any other backslash is kept as it is (LIKE patterns use it as their escape).
    private func string(from start: Int) throws(CQL2Error) -> (String, Int) {
        let quote = UInt8(ascii: "'"), backslash = UInt8(ascii: "\\")
        var value: [UInt8] = []
        var index = start + 1
        var runStart = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == quote {
                value.append(contentsOf: bytes[runStart..<index])
                if index + 1 < bytes.count, bytes[index + 1] == quote {
                    value.append(quote)
                    index += 2
                    runStart = index
                    continue
                }
                return (String(decoding: value, as: UTF8.self), index + 1)
            }
            if byte == backslash, index + 1 < bytes.count, bytes[index + 1] == quote {
                value.append(contentsOf: bytes[runStart..<index])
                value.append(quote)
                index += 2
                runStart = index
                continue
            }
            index += 1
        }
        throw CQL2TextParser.error("unterminated character literal (no closing ')", at: start, in: bytes)
    }

    /// Reads a `"quoted"` identifier starting at `start`; `""` stands for one `"`.
    private func quotedIdentifier(from start: Int) throws(CQL2Error) -> (String, Int) {
        let quote = UInt8(ascii: "\"")
        var name: [UInt8] = []
        var index = start + 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == quote {
                if index + 1 < bytes.count, bytes[index + 1] == quote {
                    name.append(quote)
                    index += 2
                    continue
                }
                guard !name.isEmpty else {
                    throw CQL2TextParser.error("empty quoted property name", at: start, in: bytes)
                }
                return (String(decoding: name, as: UTF8.self), index + 1)
            }
            name.append(byte)
            index += 1
        }
        throw CQL2TextParser.error("unterminated quoted property name (no closing \")", at: start, in: bytes)
    }

    /// The end of the number starting at `start`: digits, an optional fraction, an optional
    /// exponent (only taken when digits follow the `E` and its sign).
    private func number(from start: Int) -> Int {
        var index = start
        let count = bytes.count
        while index < count, Self.isDigitByte(bytes[index]) { index += 1 }
        if index < count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < count, Self.isDigitByte(bytes[index]) { index += 1 }
        }
        if index < count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            var exponent = index + 1
            if exponent < count, bytes[exponent] == UInt8(ascii: "+") || bytes[exponent] == UInt8(ascii: "-") { exponent += 1 }
            if exponent < count, Self.isDigitByte(bytes[exponent]) {
                index = exponent
                while index < count, Self.isDigitByte(bytes[index]) { index += 1 }
            }
        }
        return index
    }

    @inline(__always)
    static func isDigitByte(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// The whitespace of the grammar.
    static func isWhitespaceScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
        default: false
        }
    }

    static func isDigit(_ character: Character) -> Bool {
        character.isASCII && character >= "0" && character <= "9"
    }

    static func isIdentifierStart(_ character: Character) -> Bool {
        guard let first = character.unicodeScalars.first, isStartScalar(first) else { return false }
        return character.unicodeScalars.dropFirst().allSatisfy(isPartScalar)
    }

    static func isIdentifierPart(_ character: Character) -> Bool {
        character.unicodeScalars.allSatisfy(isPartScalar)
    }

    static func isStartScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3A, 0x5F, 0x41...0x5A, 0x61...0x7A, 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x2FF, 0x370...0x37D,
            0x37F...0x1FFE, 0x200C...0x200D, 0x2070...0x218F, 0x2C00...0x2FEF, 0x3001...0xD7FF,
            0xF900...0xFDCF, 0xFDF0...0xFFFD, 0x10000...0xEFFFF:
            true
        default: false
        }
    }

    static func isPartScalar(_ scalar: Unicode.Scalar) -> Bool {
        if isStartScalar(scalar) { return true }
        switch scalar.value {
        case 0x2E, 0x30...0x39, 0x300...0x36F, 0x203F...0x2040: return true
        default: return false
        }
    }
}
