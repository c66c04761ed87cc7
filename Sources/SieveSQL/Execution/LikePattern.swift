/// A compiled `LIKE` pattern: `%` matches any run of characters (including none), `_` exactly
/// one character (Unicode scalar), and the escape character, when given, makes the next
/// character literal. Matching is anchored at both ends and works on UTF-8 bytes without
/// regular expressions.
///
/// Common shapes compile to fast paths: no wildcard (equality), `abc%` (prefix), `%abc`
/// (suffix), `%abc%` (substring, ``ByteSearch``), `%` (anything). Everything else runs
/// ``GeneralLikePattern``, which never backtracks. Matching a text of n bytes costs
/// O(n + m) for a pattern of m characters without `_`, and O(n·⌈k/64⌉ + m) when `_` occurs
/// in pieces of up to k characters between `%`s.
struct LikePattern: Sendable, Hashable {
    /// One piece of the pattern.
    enum Token: Hashable, Sendable {
        /// Literal bytes.
        case literal([UInt8])
        /// `_`: one Unicode scalar.
        case one
        /// `%`: any run.
        case any
    }

    /// The matching strategy chosen at compile time.
    enum Shape: Hashable, Sendable {
        case exact([UInt8])
        case prefix([UInt8])
        case suffix([UInt8])
        case contains([UInt8])
        case anything
        case general(GeneralLikePattern)
    }

    let shape: Shape
    /// The pattern as given (already under the collation's key) and its escape character, for
    /// rendering the pattern in another engine's SQL.
    let source: String
    let escape: String?

    /// Why a pattern is rejected.
    enum CompileError: Error, Equatable {
        /// The escape text is not exactly one character.
        case badEscape
        /// The pattern ends with the escape character.
        case danglingEscape
    }

    /// Compiles `pattern` with an optional one-character `escape`.
    init(_ pattern: String, escape: String? = nil) throws(CompileError) {
        source = pattern
        self.escape = escape
        var escapeScalar: Unicode.Scalar?
        if let escape {
            guard escape.unicodeScalars.count == 1, let scalar = escape.unicodeScalars.first else { throw .badEscape }
            escapeScalar = scalar
        }
        var tokens: [Token] = []
        var literal: [UInt8] = []
        func flush() {
            if !literal.isEmpty {
                tokens.append(.literal(literal))
                literal.removeAll()
            }
        }
        var escaping = false
        for scalar in pattern.unicodeScalars {
            if escaping {
                literal.append(contentsOf: Array(String(scalar).utf8))
                escaping = false
            } else if scalar == escapeScalar {
                escaping = true
            } else if scalar == "%" {
                flush()
                if tokens.last != .any { tokens.append(.any) }
            } else if scalar == "_" {
                flush()
                tokens.append(.one)
            } else {
                literal.append(contentsOf: Array(String(scalar).utf8))
            }
        }
        if escaping { throw .danglingEscape }
        flush()
        shape = LikePattern.classify(tokens)
    }

    private static func classify(_ tokens: [Token]) -> Shape {
        switch tokens.count {
        case 0: return .exact([])
        case 1:
            if case .literal(let bytes) = tokens[0] { return .exact(bytes) }
            if tokens[0] == .any { return .anything }
        case 2:
            if case .literal(let bytes) = tokens[0], tokens[1] == .any { return .prefix(bytes) }
            if tokens[0] == .any, case .literal(let bytes) = tokens[1] { return .suffix(bytes) }
        case 3:
            if tokens[0] == .any, case .literal(let bytes) = tokens[1], tokens[2] == .any { return .contains(bytes) }
        default: break
        }
        return .general(GeneralLikePattern(tokens))
    }

    /// Whether the UTF-8 `text` matches.
    @inline(__always)
    func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        switch shape {
        case .exact(let bytes): return text.count == bytes.count && LikePattern.equal(text, 0, bytes)
        case .prefix(let bytes): return text.count >= bytes.count && LikePattern.equal(text, 0, bytes)
        case .suffix(let bytes):
            return text.count >= bytes.count && LikePattern.equal(text, text.count - bytes.count, bytes)
        case .contains(let bytes): return ByteSearch.firstIndex(of: bytes, in: text, from: 0, to: text.count) != nil
        case .anything: return true
        case .general(let pattern): return pattern.matches(text)
        }
    }

    /// Whether `text` matches.
    func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { matches($0) }
    }

    @inline(__always)
    static func equal(_ text: UnsafeBufferPointer<UInt8>, _ offset: Int, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { pattern in
            var i = 0
            while i < pattern.count {
                if text[offset + i] != pattern[i] { return false }
                i += 1
            }
            return true
        }
    }

    /// The length in bytes of the UTF-8 scalar starting at `offset`.
    @inline(__always)
    static func scalarLength(_ lead: UInt8) -> Int {
        if lead < 0x80 { return 1 }
        if lead < 0xE0 { return 2 }
        if lead < 0xF0 { return 3 }
        return 4
    }
}
