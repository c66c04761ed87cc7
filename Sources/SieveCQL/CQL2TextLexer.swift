// The tokens of cql2-text.

/// One token of cql2-text, with its place in the input (in `Character`s).
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
    /// Offset of the first character.
    var start: Int
    /// Offset one past the last character.
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
struct CQL2Lexer {
    let characters: [Character]

    init(_ characters: [Character]) { self.characters = characters }

    /// All tokens, ending with one of kind `.end`.
    func tokens() throws(CQL2Error) -> [CQL2Token] {
        var result: [CQL2Token] = []
        var index = 0
        while true {
            while index < characters.count, Self.isWhitespace(characters[index]) { index += 1 }
            guard index < characters.count else {
                result.append(CQL2Token(kind: .end, text: "", start: index, end: index))
                return result
            }
            let start = index
            let character = characters[index]
            if character == "'" {
                let (value, end) = try string(from: index)
                result.append(CQL2Token(kind: .string, text: value, start: start, end: end))
                index = end
            } else if character == "\"" {
                let (name, end) = try quotedIdentifier(from: index)
                result.append(CQL2Token(kind: .quotedIdentifier, text: name, start: start, end: end))
                index = end
            } else if Self.isDigit(character)
                || (character == "." && index + 1 < characters.count && Self.isDigit(characters[index + 1]))
            {
                let end = number(from: index)
                result.append(CQL2Token(kind: .number, text: String(characters[start..<end]), start: start, end: end))
                index = end
            } else if Self.isIdentifierStart(character) {
                index += 1
                while index < characters.count, Self.isIdentifierPart(characters[index]) { index += 1 }
                result.append(CQL2Token(kind: .identifier, text: String(characters[start..<index]), start: start, end: index))
            } else {
                let next: Character? = index + 1 < characters.count ? characters[index + 1] : nil
                let symbol: String
                switch character {
                case "<" where next == ">": symbol = "<>"
                case "<" where next == "=": symbol = "<="
                case ">" where next == "=": symbol = ">="
                case "(", ")", ",", "=", "<", ">", "+", "-", "*", "/", "%", "^": symbol = String(character)
                default:
                    throw CQL2TextParser.error("unexpected character '\(character)'", at: start, in: characters)
                }
                index += symbol.count
                result.append(CQL2Token(kind: .symbol, text: symbol, start: start, end: index))
            }
        }
    }

    /// Reads a character literal starting at the quote at `start`: `''` and `\'` stand for a
    /// quote; any other backslash is kept as it is (LIKE patterns use it as their escape).
    private func string(from start: Int) throws(CQL2Error) -> (String, Int) {
        var value = ""
        var index = start + 1
        while index < characters.count {
            let character = characters[index]
            if character == "'" {
                if index + 1 < characters.count, characters[index + 1] == "'" {
                    value.append("'")
                    index += 2
                    continue
                }
                return (value, index + 1)
            }
            if character == "\\", index + 1 < characters.count, characters[index + 1] == "'" {
                value.append("'")
                index += 2
                continue
            }
            value.append(character)
            index += 1
        }
        throw CQL2TextParser.error("unterminated character literal (no closing ')", at: start, in: characters)
    }

    /// Reads a `"quoted"` identifier starting at `start`; `""` stands for one `"`.
    private func quotedIdentifier(from start: Int) throws(CQL2Error) -> (String, Int) {
        var name = ""
        var index = start + 1
        while index < characters.count {
            let character = characters[index]
            if character == "\"" {
                if index + 1 < characters.count, characters[index + 1] == "\"" {
                    name.append("\"")
                    index += 2
                    continue
                }
                guard !name.isEmpty else {
                    throw CQL2TextParser.error("empty quoted property name", at: start, in: characters)
                }
                return (name, index + 1)
            }
            name.append(character)
            index += 1
        }
        throw CQL2TextParser.error("unterminated quoted property name (no closing \")", at: start, in: characters)
    }

    /// The end of the number starting at `start`: digits, an optional fraction, an optional
    /// exponent (only taken when digits follow the `E` and its sign).
    private func number(from start: Int) -> Int {
        var index = start
        while index < characters.count, Self.isDigit(characters[index]) { index += 1 }
        if index < characters.count, characters[index] == "." {
            index += 1
            while index < characters.count, Self.isDigit(characters[index]) { index += 1 }
        }
        if index < characters.count, characters[index] == "e" || characters[index] == "E" {
            var exponent = index + 1
            if exponent < characters.count, characters[exponent] == "+" || characters[exponent] == "-" { exponent += 1 }
            if exponent < characters.count, Self.isDigit(characters[exponent]) {
                index = exponent
                while index < characters.count, Self.isDigit(characters[index]) { index += 1 }
            }
        }
        return index
    }

    static func isDigit(_ character: Character) -> Bool {
        character.isASCII && character >= "0" && character <= "9"
    }

    /// The whitespace of the grammar.
    static func isWhitespace(_ character: Character) -> Bool {
        character.unicodeScalars.allSatisfy { scalar in
            switch scalar.value {
            case 0x09...0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: true
            default: false
            }
        }
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
