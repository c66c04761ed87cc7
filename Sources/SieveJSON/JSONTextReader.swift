/// The error a ``JSONTextReader`` throws: its client's error type, made from a message and a
/// position by the reader.
public protocol JSONReadFailure: Error {
    /// The error for text that is not JSON: `message` says what is wrong, `position` is the
    /// 1-based character position of the offending character (one past the end when the text is
    /// cut short).
    init(jsonSyntax message: String, position: Int)
}

/// A JSON syntax error and nothing more: for readers whose client only needs to know whether and
/// where the text is not JSON.
public struct JSONSyntaxError: JSONReadFailure, Equatable {
    /// What is wrong.
    public var message: String
    /// The 1-based character position of the offending character.
    public var position: Int

    public init(jsonSyntax message: String, position: Int) {
        self.message = message
        self.position = position
    }
}

/// The deepest nesting of arrays and objects a ``JSONTextReader`` (and `JSONSyntaxCheck`)
/// accepts.
public let jsonMaximumDepth = 512

/// A strict RFC 8259 JSON reader working directly on UTF-8 bytes.
///
/// - No extensions: trailing commas, comments, single quotes, `NaN`/`Infinity`, leading zeros
///   and unescaped control characters in strings are errors. A leading byte order mark
///   (U+FEFF) is skipped, as RFC 8259 §8.1 allows.
/// - Strings: every escape, `\u` surrogate pairs combined; lone surrogates and invalid UTF-8
///   are errors.
/// - Numbers keep their lexical kind (``JSONNumber``); doubles are correctly rounded, and a
///   number too large for a double reads as an infinity (callers that need finite values check).
/// - Containers nest at most ``maximumDepth`` deep; deeper input is an error, never a stack
///   overflow.
/// - Nothing but white space may follow the value.
/// - Member names are unique within an object, compared byte for byte (RFC 8259 §8.3; I-JSON,
///   RFC 7493 §2.3): a repeated name is an error at the second occurrence, not a silent choice
///   of one value over the other.
///
/// Errors are the client's `Failure` (see ``JSONReadFailure``), made with the 1-based character
/// position (counted in Unicode scalars) of the offending character, or one past the end for
/// truncated input. The reader is generic over its error so that a module reading geometry,
/// features or filters from JSON throws its own error type without wrapping every call: each
/// client names its reader once (SieveGeometry's `JSONReader` is `JSONTextReader<GeometryError>`).
public struct JSONTextReader<Failure: JSONReadFailure> {
    /// The deepest nesting of arrays and objects accepted.
    @inlinable public static var maximumDepth: Int { jsonMaximumDepth }

    /// Parses JSON text.
    /// - Throws: a ``JSONReadFailure`` (its JSON-syntax error) for text that is not one JSON value.
    @inlinable public static func parse(_ text: String) throws(Failure) -> JSONValue {
        var text = text
        let result: Result<JSONValue, Failure> = text.withUTF8 { buffer in
            Result { () throws(Failure) -> JSONValue in try parse(buffer) }
        }
        return try result.get()
    }

    /// Parses JSON from UTF-8 bytes (e.g. a file's contents).
    /// - Throws: a ``JSONReadFailure`` (its JSON-syntax error) for bytes that are not one JSON value in
    ///   UTF-8.
    @inlinable public static func parse<Bytes: Collection<UInt8>>(bytes: Bytes) throws(Failure) -> JSONValue {
        let direct: Result<JSONValue, Failure>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(Failure) -> JSONValue in try parse(buffer) }
        }
        if let direct { return try direct.get() }
        let array = Array(bytes)
        let result: Result<JSONValue, Failure> = array.withUnsafeBufferPointer { buffer in
            Result { () throws(Failure) -> JSONValue in try parse(buffer) }
        }
        return try result.get()
    }

    /// Parses JSON from a buffer of UTF-8 bytes.
    /// - Throws: a ``JSONReadFailure`` (its JSON-syntax error) for bytes that are not one JSON value in
    ///   UTF-8.
    @inlinable public static func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws(Failure) -> JSONValue {
        var reader = Self(buffer)
        return try reader.parseDocument()
    }

    // MARK: - State

    @usableFromInline package let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline package var index = 0
    /// UTF-8 continuation bytes (and BOM bytes) passed so far, to turn byte offsets into
    /// character positions. Multi-byte characters occur only inside strings.
    @usableFromInline package var extraBytes = 0
    @usableFromInline package var depth = 0
    /// Scratch space for strings with escapes.
    @usableFromInline package var scratch: [UInt8] = []
    /// The fingerprints of the member names of the objects being read, outermost first (see
    /// `isNewKey`).
    @usableFromInline package var keyFingerprints: [UInt64] = []

    @inlinable public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The 1-based character position of byte `offset` (valid for offsets at or after the
    /// last multi-byte character counted).
    @inlinable public func position(_ offset: Int) -> Int { offset - extraBytes + 1 }

    @inlinable public func error(_ message: String, at offset: Int) -> Failure {
        Failure(jsonSyntax: message, position: position(offset))
    }

    @inlinable public func unexpected(at offset: Int, expected: String? = nil) -> Failure {
        guard offset < bytes.count else { return error("unexpected end of input", at: offset) }
        let found = Self.describe(byte: bytes[offset])
        if let expected { return error("expected \(expected), found \(found)", at: offset) }
        return error("unexpected character \(found)", at: offset)
    }

    /// A byte for an error message: the character when printable ASCII, else its hex code.
    @inlinable public static func describe(byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x" + (hex.count < 2 ? "0" + hex : hex)
    }

    // MARK: - Structure

    @inlinable mutating func parseDocument() throws(Failure) -> JSONValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            index = 3
            extraBytes = 2
        }
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if index < bytes.count {
            throw error("unexpected \(Self.describe(byte: bytes[index])) after the JSON value", at: index)
        }
        return value
    }

    @inlinable @inline(__always)
    public mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    @inlinable public mutating func parseValue() throws(Failure) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input", at: index) }
        let start = position(index)
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString(), at: start)
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true, at: start)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false, at: start)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null(at: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try parseNumber(), at: start)
        default:
            throw unexpected(at: index, expected: "a value")
        }
    }

    @inlinable public mutating func expectLiteral(_ literal: StaticString) throws(Failure) {
        let start = index
        let count = literal.utf8CodeUnitCount
        let text = literal.utf8Start
        for i in 0..<count {
            guard start + i < bytes.count else { throw error("unexpected end of input", at: start + i) }
            guard bytes[start + i] == text[i] else {
                throw error("invalid literal, expected '\(literal)'", at: start)
            }
        }
        index = start + count
    }

    @inlinable public mutating func enter() throws(Failure) {
        depth += 1
        if depth > Self.maximumDepth {
            throw error("arrays and objects nest deeper than \(Self.maximumDepth)", at: index)
        }
    }

    @inlinable mutating func parseArray() throws(Failure) -> JSONValue {
        let start = position(index)
        var elements: [JSONValue] = []
        try parseMembers(closingWith: UInt8(ascii: "]")) { reader throws(Failure) in
            elements.append(try reader.parseValue())
        }
        return .array(elements, at: start)
    }

    @inlinable mutating func parseObject() throws(Failure) -> JSONValue {
        let start = position(index)
        var object = JSONObject()
        let base = keyFingerprints.count
        var largeObject: Set<UInt64>?
        defer { keyFingerprints.removeSubrange(base...) }
        try parseMembers(closingWith: UInt8(ascii: "}")) { reader throws(Failure) in
            guard reader.index < reader.bytes.count else { throw reader.error("unexpected end of input", at: reader.index) }
            guard reader.bytes[reader.index] == UInt8(ascii: "\"") else {
                throw reader.unexpected(at: reader.index, expected: "a string key")
            }
            let keyPosition = reader.position(reader.index)
            let keyStart = reader.index + 1
            let key = try reader.parseString()
            // Without escapes (the decoded key as long as the text), hash the text in place.
            let keyEnd = reader.index - 1
            let fingerprint =
                key.utf8.count == keyEnd - keyStart
                ? Self.fingerprint(UnsafeBufferPointer(rebasing: reader.bytes[keyStart..<keyEnd]))
                : Self.fingerprint(key.utf8)
            guard reader.isNewKey(key, fingerprint: fingerprint, base: base, members: object.members, largeObject: &largeObject)
            else {
                throw Failure(
                    jsonSyntax: "duplicate key \(JSONKey.quoted(key)) in an object (member names must be unique)",
                    position: keyPosition)
            }
            reader.skipWhitespace()
            guard reader.index < reader.bytes.count else { throw reader.error("unexpected end of input", at: reader.index) }
            guard reader.bytes[reader.index] == UInt8(ascii: ":") else { throw reader.unexpected(at: reader.index, expected: "':'") }
            reader.index += 1
            reader.skipWhitespace()
            object.members.append((key, try reader.parseValue()))
        }
        return .object(object, at: start)
    }

    /// Whether `key`, the next member name of the object whose names are `members` and whose
    /// names' fingerprints are `keyFingerprints[base...]`, is new; records its fingerprint.
    ///
    /// Fingerprints (64-bit FNV-1a of the UTF-8 bytes) make the common case, all names distinct,
    /// a scan of integers (a hash set beyond 64 members); only equal fingerprints compare bytes.
    @inlinable mutating func isNewKey(
        _ key: String, fingerprint: UInt64, base: Int, members: [(key: String, value: JSONValue)],
        largeObject: inout Set<UInt64>?
    ) -> Bool {
        defer { keyFingerprints.append(fingerprint) }
        var candidateFound: Bool
        if let set = largeObject {
            candidateFound = set.contains(fingerprint)
        } else {
            candidateFound = keyFingerprints[base...].contains(fingerprint)
            if members.count >= 64 { largeObject = Set(keyFingerprints[base...]) }
        }
        largeObject?.insert(fingerprint)
        guard candidateFound else { return true }
        for (i, member) in members.enumerated() where keyFingerprints[base + i] == fingerprint {
            if JSONKey.equal(member.key, key) { return false }
        }
        return true
    }

    /// The 64-bit FNV-1a hash of bytes (a member name's UTF-8).
    @inline(__always)
    @inlinable static func fingerprint<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// Reads an array's or object's members, from the opening bracket at `index` to the closing
    /// one, `close`: none, or `member` then `, member` as often as they come. `member` reads one
    /// (after the whitespace before it). Counts the nesting depth.
    @inline(__always)
    @inlinable mutating func parseMembers(
        closingWith close: UInt8, _ member: (inout Self) throws(Failure) -> Void
    ) throws(Failure) {
        try enter()
        index += 1  // the opening bracket
        skipWhitespace()
        if index < bytes.count, bytes[index] == close {
            index += 1
            depth -= 1
            return
        }
        while true {
            skipWhitespace()
            try member(&self)
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input", at: index) }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
            case close:
                index += 1
                depth -= 1
                return
            default:
                throw unexpected(at: index, expected: "',' or '\(Character(Unicode.Scalar(close)))'")
            }
        }
    }

    // MARK: - Strings

    /// Parses a string starting at the opening quote.
    @inlinable public mutating func parseString() throws(Failure) -> String {
        let openPosition = position(index)
        index += 1
        let contentStart = index
        // Fast path: no escapes.
        if try skipUnescapedString() {
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[contentStart..<(index - 1)]), as: UTF8.self)
        }
        guard index < bytes.count else {
            throw Failure(jsonSyntax: "unterminated string", position: openPosition)
        }
        // Slow path: copy what was scanned, then decode escapes.
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[contentStart..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: scratch, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape()
            case 0..<0x20:
                throw controlCharacter(at: index)
            case 0x20..<0x80:
                scratch.append(byte)
                index += 1
            default:
                let start = index
                try skipMultibyte()
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
            }
        }
        throw Failure(jsonSyntax: "unterminated string", position: openPosition)
    }

    @inlinable public func controlCharacter(at offset: Int) -> Failure {
        let hex = String(bytes[offset], radix: 16, uppercase: true)
        return error("control character U+" + String(repeating: "0", count: 4 - hex.count) + hex
            + " must be escaped in a string", at: offset)
    }

    /// Validates one multi-byte UTF-8 sequence at `index` (RFC 3629) and moves past it.
    @inlinable public mutating func skipMultibyte() throws(Failure) {
        let lead = bytes[index]
        let length: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF  // range of the second byte
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: throw error("invalid UTF-8", at: index)
        }
        guard index + length <= bytes.count else { throw error("invalid UTF-8", at: index) }
        let second = bytes[index + 1]
        guard second >= low && second <= high else { throw error("invalid UTF-8", at: index) }
        for k in 2..<length where bytes[index + k] & 0xC0 != 0x80 {
            throw error("invalid UTF-8", at: index)
        }
        index += length
        extraBytes += length - 1
    }

    /// Decodes the escape at `index` (a backslash) into `scratch`.
    @inlinable mutating func parseEscape() throws(Failure) {
        let start = index
        guard index + 1 < bytes.count else { throw error("unterminated string", at: index) }
        let code = bytes[index + 1]
        index += 2
        switch code {
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5C)
        case UInt8(ascii: "/"): scratch.append(0x2F)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4(escapeStart: start)
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                // Text that ends here is truncated, not a lone surrogate.
                guard index + 1 < bytes.count else { throw error("unterminated string", at: index) }
                guard bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else {
                    throw error("lone high surrogate in \\u escape; expected a low surrogate \\uDC00-\\uDFFF to follow", at: start)
                }
                let lowStart = index
                index += 2
                let low = try parseHex4(escapeStart: lowStart)
                guard low >= 0xDC00 && low <= 0xDFFF else {
                    throw error("high surrogate in \\u escape is not followed by a low surrogate", at: start)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                throw error("lone low surrogate in \\u escape", at: start)
            }
            appendUTF8(scalar)
        default:
            if code >= 0x80 || code < 0x20 {
                throw error("invalid escape", at: start)
            }
            throw error("invalid escape '\\\(Character(Unicode.Scalar(code)))'", at: start)
        }
    }

    @inlinable mutating func parseHex4(escapeStart: Int) throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw error("unterminated string", at: index) }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape: expected 4 hexadecimal digits", at: escapeStart)
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    @inlinable mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | (scalar >> 6)))
            scratch.append(UInt8(0x80 | (scalar & 0x3F)))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | (scalar >> 12)))
            scratch.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            scratch.append(UInt8(0xF0 | (scalar >> 18)))
            scratch.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            scratch.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }

    // MARK: - Numbers

    /// Reads the number at `index` (see ``scanNumber(_:at:)``) and moves past it.
    @inline(__always)
    @inlinable public mutating func parseNumber() throws(Failure) -> JSONNumber {
        do {
            let (number, end) = try Self.scanNumber(bytes, at: index)
            index = end
            return number
        } catch {
            throw self.error(error.message, at: error.offset)
        }
    }
}
