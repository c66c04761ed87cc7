/// A malformed JSON number: what is wrong and the byte offset where (the JSON reader turns the
/// offset into a character position).
public struct JSONNumberError: Error, Sendable, Equatable {
    /// The message, e.g. `invalid number: leading zeros are not allowed`.
    public var message: String
    /// The byte offset of the error in the scanned buffer.
    public var offset: Int

    /// An error with its message and byte offset.
    public init(_ message: String, at offset: Int) {
        self.message = message
        self.offset = offset
    }
}

extension JSONTextReader {
    /// Scans the JSON number (RFC 8259 §6) that starts at byte `index` of `bytes`: an optional
    /// minus sign, an integer part without leading zeros, an optional fraction and an optional
    /// exponent. Whatever follows the number is left to the caller.
    ///
    /// The result keeps the number's lexical kind (``JSONNumber/isIntegerLiteral``), the exact
    /// `Int64` of an integer literal that fits, and the correctly rounded double
    /// (``DecimalToDouble``; ±infinity beyond the range of doubles, `-0` as −0.0). It allocates
    /// nothing except for the rare numbers that need the exact conversion path.
    ///
    /// - Returns: the number and the offset of the first byte after it.
    /// - Throws: ``JSONNumberError`` with the same messages and offsets as
    ///   ``JSONTextReader/parse(_:)-(String)`` reports (`unexpected end of input` at the end of the
    ///   buffer, `expected a digit, found …`, `invalid number: leading zeros are not allowed` at
    ///   the number's start, `invalid number: expected a digit after '.'`, `invalid number:
    ///   expected a digit in the exponent`).
    @inline(__always)
    @inlinable public static func scanNumber(
        _ bytes: UnsafeBufferPointer<UInt8>, at index: Int
    ) throws(JSONNumberError) -> (number: JSONNumber, end: Int) {
        let count = bytes.count
        let start = index
        var i = index
        guard i >= 0, i < count else { throw JSONNumberError("unexpected end of input", at: Swift.max(i, 0)) }
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative {
            i &+= 1
            guard i < count else { throw JSONNumberError("unexpected end of input", at: i) }
        }
        let mantissaStart = i
        let first = bytes[i] &- UInt8(ascii: "0")
        guard first <= 9 else {
            throw JSONNumberError("expected a digit, found \(describe(byte: bytes[i]))", at: i)
        }
        var accumulated = UInt64(first)
        i &+= 1
        if first == 0 {
            if i < count, bytes[i] &- UInt8(ascii: "0") <= 9 {
                throw JSONNumberError("invalid number: leading zeros are not allowed", at: start)
            }
        } else {
            i = DecimalSignificand.accumulateDigits(bytes, from: i, into: &accumulated)
        }
        let integerDigits = i &- mantissaStart
        var fractionDigits = 0
        var isInteger = true
        if i < count, bytes[i] == UInt8(ascii: ".") {
            isInteger = false
            i &+= 1
            let digitsStart = i
            i = DecimalSignificand.accumulateDigits(bytes, from: i, into: &accumulated)
            if i == digitsStart {
                throw i < count
                    ? JSONNumberError("invalid number: expected a digit after '.'", at: i)
                    : JSONNumberError("unexpected end of input", at: i)
            }
            fractionDigits = i &- digitsStart
        }
        let mantissaEnd = i
        var exponent = 0
        if i < count, bytes[i] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            i &+= 1
            var exponentNegative = false
            if i < count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
                exponentNegative = bytes[i] == UInt8(ascii: "-")
                i &+= 1
            }
            let digitsStart = i
            while i < count {
                let digit = bytes[i] &- UInt8(ascii: "0")
                guard digit <= 9 else { break }
                DecimalToDouble.appendExponentDigit(Int(digit), to: &exponent)
                i &+= 1
            }
            if i == digitsStart {
                throw i < count
                    ? JSONNumberError("invalid number: expected a digit in the exponent", at: i)
                    : JSONNumberError("unexpected end of input", at: i)
            }
            if exponentNegative { exponent = -exponent }
        }

        let text = UnsafeBufferPointer(rebasing: bytes[mantissaStart..<mantissaEnd])
        // An integer literal of at most 19 digits: its value is exact in `accumulated` (more
        // digits, without leading zeros, are beyond Int64).
        if isInteger && integerDigits <= DecimalSignificand.maximumDigits {
            let magnitude = accumulated
            var int64: Int64?
            if negative {
                if magnitude <= UInt64(Int64.max) {
                    int64 = -Int64(magnitude)
                } else if magnitude == UInt64(Int64.max) + 1 {
                    int64 = .min
                }
            } else if magnitude <= UInt64(Int64.max) {
                int64 = Int64(magnitude)
            }
            if let int64 {
                let double = int64 == 0 && negative ? -0.0 : Double(int64)
                return (JSONNumber(double: double, isIntegerLiteral: true, int64: int64), i)
            }
        }
        let significand = DecimalSignificand(
            accumulated: accumulated, integerDigits: integerDigits, fractionDigits: fractionDigits, text: text)
        let double = DecimalToDouble.convert(significand, exponent: exponent, negative: negative, text: text)
        return (JSONNumber(double: double, isIntegerLiteral: isInteger, int64: nil), i)
    }
}
