/// Reading JSON one token at a time (a pull parser), for loaders that consume a document as they
/// read it instead of building the whole tree.
///
/// The pull reader shares the tree reader's rules, error messages and positions exactly (it is
/// the same reader): strict RFC 8259, UTF-8 validated, nesting bounded by
/// ``jsonMaximumDepth``, numbers correctly rounded. What it leaves to its caller is what
/// a tree would have checked for the caller: that member names of an object are unique (the
/// caller knows which names it reads; ``parseValue()`` checks them inside the values it builds).
///
/// ```swift
/// var reader = JSONReader(pulling: buffer)
/// try reader.enterContainer()               // '{'
/// var first = true
/// while let key = try reader.nextMember(first: &first, in: buffer) {
///     if key.equals("type", in: buffer) { _ = try reader.parseString() } else { _ = try reader.parseValue() }
/// }
/// try reader.finishDocument()
/// ```
extension JSONTextReader {
    /// A reader at byte `offset` of `buffer` (a leading byte order mark is skipped when
    /// `offset` is 0). Character positions in errors count from `offset`, as if the text began
    /// there; a caller that reads part of a document corrects them (see
    /// ``characterCount(_:upTo:)``).
    @inlinable public init(pulling buffer: UnsafeBufferPointer<UInt8>, at offset: Int = 0) {
        self.init(buffer)
        if offset == 0, buffer.count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF {
            index = 3
            extraBytes = 2
        } else {
            index = Swift.max(0, Swift.min(offset, buffer.count))
            extraBytes = index
        }
    }

    /// A saved reading position (see ``mark`` and ``rewind(to:)``).
    public struct Mark: Sendable {
        @usableFromInline var index: Int
        @usableFromInline var extraBytes: Int
        @usableFromInline var depth: Int
        /// The byte offset of the mark.
        public var offset: Int { index }

        @inlinable init(index: Int, extraBytes: Int, depth: Int) {
            self.index = index
            self.extraBytes = extraBytes
            self.depth = depth
        }
    }

    /// The current reading position, to come back to with ``rewind(to:)``.
    @inlinable public var mark: Mark { Mark(index: index, extraBytes: extraBytes, depth: depth) }

    /// Goes back (or forward) to a position saved with ``mark``.
    @inlinable public mutating func rewind(to mark: Mark) {
        index = mark.index
        extraBytes = mark.extraBytes
        depth = mark.depth
    }

    /// The byte offset of the next byte to read.
    @inlinable public var offset: Int { index }

    /// The 1-based character position of the next byte to read.
    @inlinable public var characterPosition: Int { position(index) }

    /// An error of kind a ``JSONReadFailure`` (its JSON-syntax error) at the next byte.
    @inlinable public func failure(_ message: String) -> Failure { error(message, at: index) }

    /// The next byte after white space, without consuming it; `nil` at the end.
    @inlinable public mutating func peek() -> UInt8? {
        skipWhitespace()
        return index < bytes.count ? bytes[index] : nil
    }

    /// The UTF-8 continuation bytes (and byte order mark bytes) passed so far, counted from the
    /// reader's start offset (see ``init(pulling:at:)``): with the start offset, what turns a
    /// character position of this reader into one of the whole text.
    @inlinable public var extraByteCount: Int { extraBytes }

    /// Moves to byte `offset`, where `extraBytes` continuation bytes precede it, one container
    /// shallower (after another reader consumed the rest of a container this reader entered).
    @inlinable public mutating func jump(to offset: Int, extraBytes: Int, leavingContainer: Bool) {
        index = offset
        self.extraBytes = extraBytes
        if leavingContainer { depth -= 1 }
    }

    /// Sets the nesting depth (for a reader that starts inside containers another one entered).
    @inlinable public mutating func assumeDepth(_ depth: Int) { self.depth = depth }

    /// The nesting depth.
    @inlinable public var nestingDepth: Int { depth }

    /// Consumes the next byte (after ``peek()`` saw it).
    @inlinable public mutating func skipByte() {
        if index < bytes.count { index += 1 }
    }

    /// Skips white space and requires the end of the text.
    /// - Throws: for anything but white space left.
    @inlinable public mutating func finishDocument() throws(Failure) {
        skipWhitespace()
        if index < bytes.count {
            throw error("unexpected \(Self.describe(byte: bytes[index])) after the JSON value", at: index)
        }
    }

    /// Consumes the `{` or `[` at the next byte (after white space), counting the nesting depth.
    /// - Throws: when the next byte is not `open`, or the nesting is too deep.
    @inlinable public mutating func enterContainer(_ open: UInt8 = UInt8(ascii: "{")) throws(Failure) {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of input", at: index) }
        guard bytes[index] == open else {
            throw unexpected(at: index, expected: open == UInt8(ascii: "{") ? "'{'" : "'['")
        }
        try enter()
        index += 1
    }

    /// Moves to the next element of the array entered with ``enterContainer(_:)``: `true` when
    /// one follows (the reader is at its first byte), `false` after the closing `]`.
    /// `first` must be `true` for the first call and is set to `false`.
    @inlinable public mutating func nextElement(first: inout Bool) throws(Failure) -> Bool {
        try advance(first: &first, close: UInt8(ascii: "]"))
    }

    /// Moves to the next member of the object entered with ``enterContainer(_:)``: its key
    /// (the reader is then at the first byte of the value), or `nil` after the closing `}`.
    /// `first` must be `true` for the first call and is set to `false`.
    @inlinable public mutating func nextMember(first: inout Bool) throws(Failure) -> JSONKeyToken? {
        guard try advance(first: &first, close: UInt8(ascii: "}")) else { return nil }
        guard index < bytes.count else { throw error("unexpected end of input", at: index) }
        guard bytes[index] == UInt8(ascii: "\"") else { throw unexpected(at: index, expected: "a string key") }
        let token = try readKey()
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of input", at: index) }
        guard bytes[index] == UInt8(ascii: ":") else { throw unexpected(at: index, expected: "':'") }
        index += 1
        skipWhitespace()
        return token
    }

    /// ``nextMember(first:)`` for objects whose members usually come in a known order, with
    /// `matched` saying whether the key is `expected` (plain printable ASCII without `"` or
    /// `\\`, which the caller guarantees). In compact text (`,"key":`) the expected key is
    /// recognized by one comparison, without scanning it; anything else is read as
    /// ``nextMember(first:)`` reads it and then compared.
    @inlinable @inline(__always)
    public mutating func nextMember(
        first: inout Bool, expecting expected: UnsafeBufferPointer<UInt8>
    ) throws(Failure) -> (key: JSONKeyToken, matched: Bool)? {
        let n = expected.count
        // Compact text (no white space): `,"key":` (or `"key":` first) compared in one go.
        if let base = bytes.baseAddress, index &+ n &+ 4 <= bytes.count {
            let quote = first ? index : index &+ 1
            if first || base[index] == UInt8(ascii: ","), base[quote] == UInt8(ascii: "\""),
                base[quote &+ n &+ 1] == UInt8(ascii: "\""), base[quote &+ n &+ 2] == UInt8(ascii: ":"),
                Self.same(UnsafeBufferPointer(start: base + quote + 1, count: n), expected)
            {
                first = false
                let token = JSONKeyToken(start: quote &+ 1, end: quote &+ 1 &+ n, escaped: false, position: position(quote))
                index = quote &+ n &+ 3
                skipWhitespace()
                return (token, true)
            }
        }
        // Anything else (white space, another key, escapes): read the key, then compare it.
        guard let key = try nextMember(first: &first) else { return nil }
        let matched = !key.escaped && Self.same(UnsafeBufferPointer(rebasing: bytes[key.start..<key.end]), expected)
        return (key, matched)
    }

    /// Whether `a` and `b` hold the same bytes (compared eight at a time).
    @inlinable @inline(__always)
    public static func same(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = a.count
        guard count == b.count else { return false }
        guard count > 0, let a = a.baseAddress, let b = b.baseAddress else { return true }
        var i = 0
        while i &+ 8 <= count {
            let x = UnsafeRawPointer(a + i).loadUnaligned(as: UInt64.self)
            let y = UnsafeRawPointer(b + i).loadUnaligned(as: UInt64.self)
            if x != y { return false }
            i &+= 8
        }
        while i < count {
            if a[i] != b[i] { return false }
            i &+= 1
        }
        return true
    }

    /// Past a separator or the closing bracket: whether an element follows.
    @inlinable @inline(__always)
    public mutating func advance(first: inout Bool, close: UInt8) throws(Failure) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of input", at: index) }
        let byte = bytes[index]
        if byte == close {
            index += 1
            depth -= 1
            first = false
            return false
        }
        if first {
            first = false
            return true
        }
        guard byte == UInt8(ascii: ",") else {
            throw unexpected(at: index, expected: "',' or '\(Character(Unicode.Scalar(close)))'")
        }
        index += 1
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of input", at: index) }
        // RFC 8259 has no trailing commas: a closing bracket after ',' is not a value.
        if bytes[index] == close { throw unexpected(at: index, expected: close == UInt8(ascii: "}") ? "a string key" : "a value") }
        return true
    }

    /// The offset of the first byte at or after `start` that a string scan must look at: a
    /// quote, a backslash, a control character or a non-ASCII byte (or the end); eight bytes at
    /// a time.
    @inlinable @inline(__always)
    public func plainRun(from start: Int) -> Int {
        var i = start
        let count = bytes.count
        guard let base = bytes.baseAddress else { return i }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while i &+ 8 <= count {
            let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            // Each test flags its first matching byte exactly (borrows only disturb the bytes
            // above it), so the lowest flag is the first byte to look at.
            let special =
                (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word) | word)
                & highs
            if special != 0 { return i &+ special.trailingZeroBitCount &>> 3 }
            i &+= 8
        }
        return i
    }

    /// From the byte after a string's opening quote: moves past the closing quote and answers
    /// `true` when the string has no escapes; else stops at its first backslash (or at the end of
    /// the text, for the caller's slower path to report) and answers `false`. Control
    /// characters and invalid UTF-8 are errors.
    @inlinable @inline(__always)
    public mutating func skipUnescapedString() throws(Failure) -> Bool {
        index = plainRun(from: index)
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return true
            }
            if byte == UInt8(ascii: "\\") { return false }
            if byte < 0x20 { throw controlCharacter(at: index) }
            if byte < 0x80 { index += 1 } else { try skipMultibyte() }
        }
        return false
    }

    /// Reads the string at the next byte (a key): where its text lies, and whether it has
    /// escapes.
    @inlinable public mutating func readKey() throws(Failure) -> JSONKeyToken {
        let position = characterPosition
        let open = index
        index += 1
        let start = index
        if try skipUnescapedString() {
            return JSONKeyToken(start: start, end: index - 1, escaped: false, position: position)
        }
        index = open
        extraBytes = open - (position - 1)
        _ = try parseString()  // validates it and moves past it
        return JSONKeyToken(start: start, end: index - 1, escaped: true, position: position)
    }

    /// Reads the string at the next byte and hands its UTF-8 bytes (escapes decoded) to `body`;
    /// the bytes are valid only inside `body`.
    /// - Throws: for text that is not a valid string (or not a string).
    @inlinable public mutating func readString<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) throws(Failure) -> Result {
        if let plain = try readPlainString() { return body(UnsafeBufferPointer(rebasing: bytes[plain])) }
        var text = try parseString()
        return text.withUTF8 { body($0) }
    }

    /// Reads the string at the next byte when it has no escapes: where its text lies (between
    /// the quotes); `nil`, the reader where it was, when it has escapes (then
    /// ``readString(_:)`` decodes it).
    /// - Throws: for text that is not a valid string (or not a string).
    @inlinable public mutating func readPlainString() throws(Failure) -> Range<Int>? {
        guard index < bytes.count else { throw error("unexpected end of input", at: index) }
        guard bytes[index] == UInt8(ascii: "\"") else { throw unexpected(at: index, expected: "a string") }
        let open = index
        let savedExtra = extraBytes
        index += 1
        let start = index
        if try skipUnescapedString() { return start..<(index - 1) }
        index = open
        extraBytes = savedExtra
        return nil
    }

    /// Reads the number at the next byte.
    @inlinable public mutating func readNumber() throws(Failure) -> JSONNumber { try parseNumber() }

    /// Reads `true`, `false` or `null` at the next byte: the boolean, or `nil` for `null`.
    /// - Throws: for anything else.
    @inlinable public mutating func readLiteral() throws(Failure) -> Bool? {
        guard index < bytes.count else { throw error("unexpected end of input", at: index) }
        switch bytes[index] {
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return true
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return false
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return nil
        default:
            throw unexpected(at: index, expected: "a value")
        }
    }

    /// Reads the value at the next byte as a tree (for the rare values a loader keeps whole).
    @inlinable public mutating func readValue() throws(Failure) -> JSONValue {
        skipWhitespace()
        return try parseValue()
    }

    /// Moves past the value at the next byte, checking its syntax (strings, numbers, nesting)
    /// but building nothing and not comparing member names.
    @inlinable public mutating func skipValue() throws(Failure) {
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of input", at: index) }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            try enterContainer()
            var first = true
            while try nextMember(first: &first) != nil { try skipValue() }
        case UInt8(ascii: "["):
            try enterContainer(UInt8(ascii: "["))
            var first = true
            while try nextElement(first: &first) { try skipValue() }
        case UInt8(ascii: "\""):
            _ = try readString { _ in () }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            _ = try parseNumber()
        default:
            _ = try readLiteral()
        }
    }

    /// The raw bytes `start..<end` of the text.
    @inlinable public func bytes(_ start: Int, _ end: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[start..<end])
    }

    /// How many characters (Unicode scalars) the first `offset` bytes of UTF-8 `buffer` hold.
    @inlinable public static func characterCount(_ buffer: UnsafeBufferPointer<UInt8>, upTo offset: Int) -> Int {
        var count = 0
        for i in 0..<Swift.min(offset, buffer.count) where buffer[i] & 0xC0 != 0x80 { count &+= 1 }
        return count
    }
}

/// A member name read by the pull reader: where its text lies (between the quotes) and whether
/// it has escapes (then its bytes are decoded on demand). A plain value, cheap to copy.
public struct JSONKeyToken {
    /// Where the name's text starts and ends in the input (without the quotes).
    public var start: Int
    public var end: Int
    /// Whether the text has escapes (rare in names): its bytes are then decoded when asked for.
    public var escaped: Bool
    /// The 1-based character position of the opening quote.
    public var position: Int

    public init(start: Int, end: Int, escaped: Bool, position: Int) {
        self.start = start
        self.end = end
        self.escaped = escaped
        self.position = position
    }

    /// Whether the name is `name`, byte for byte.
    @inlinable @inline(__always)
    public func equals(_ name: StaticString, in buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        if escaped { return withBytes(in: buffer) { $0.equals(name) } }
        return UnsafeBufferPointer(rebasing: buffer[start..<end]).equals(name)
    }

    /// The name's UTF-8 bytes, handed to `body`.
    @inlinable @inline(__always)
    public func withBytes<Result>(in buffer: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        guard escaped else { return body(UnsafeBufferPointer(rebasing: buffer[start..<end])) }
        var decoded = string(in: buffer)
        return decoded.withUTF8 { body($0) }
    }

    /// The name as a string.
    public func string(in buffer: UnsafeBufferPointer<UInt8>) -> String {
        guard escaped else { return String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<end]), as: UTF8.self) }
        // Read again (it was validated when first read).
        var reader = JSONTextReader<JSONSyntaxError>(pulling: buffer, at: start - 1)
        return (try? reader.parseString()) ?? ""
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether these bytes are `text`'s UTF-8, byte for byte.
    @inlinable @inline(__always)
    public func equals(_ text: StaticString) -> Bool {
        guard count == text.utf8CodeUnitCount else { return false }
        let base = text.utf8Start
        for i in 0..<count where self[i] != base[i] { return false }
        return true
    }
}
