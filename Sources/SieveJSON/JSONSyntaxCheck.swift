/// An incremental check of JSON syntax over input that arrives in pieces (a pipe, standard
/// input, a device), so that a reader can stop at the first byte that cannot be part of JSON
/// text instead of reading on to the end (`/dev/zero` never ends).
///
/// It accepts what ``JSONTextReader`` accepts and more, never less: a sequence of JSON values
/// separated by white space or record separators (U+001E, as GeoJSONSeq writes them), after an
/// optional byte order mark; RFC 8259 tokens (strict numbers, the three literals, strings with
/// their escapes and no unescaped control characters); containers nested at most
/// ``jsonMaximumDepth`` deep. It does not look at what a reader checks once the input is
/// whole: UTF-8 validity, surrogates, duplicate member names, the end of the input. So when it
/// finds a bad byte, the reader fails on the same input at that byte or before, with its own
/// message.
package struct JSONSyntaxCheck: Sendable {
    fileprivate enum State: Sendable {
        /// At the top level, between values.
        case top
        /// A value must start here (after `:`, or after `,` in an array).
        case value
        /// After `[`: a value or `]`.
        case arrayStart
        /// After `{`: a member name or `}`.
        case objectStart
        /// After `,` in an object: a member name.
        case memberName
        /// After a member name: `:`.
        case colon
        /// After a value inside a container: `,` or the container's end.
        case afterValue
        /// In a string (`isName`: a member name, followed by `:`).
        case string(isName: Bool)
        /// After a backslash in a string.
        case escape(isName: Bool)
        /// In a `\u` escape, with this many hex digits still to come.
        case unicode(isName: Bool, remaining: Int)
        /// In a number: after `-`, after a leading `0`, in the integer digits, after `.`, in the
        /// fraction, after `e`, after the exponent's sign, in the exponent.
        case minus, zero, integer, dot, fraction, exponentMark, exponentSign, exponent
        /// In `true`, `false` or `null`, with the bytes still expected.
        case literal(StaticString, Int)
        /// After the first (or second) byte of a byte order mark at the very start.
        case byteOrderMark(Int)
    }

    private var state = State.top
    /// `{` or `[` for each open container, innermost last.
    private var open: [UInt8] = []
    /// Bytes checked so far.
    package private(set) var offset = 0

    package init() {}

    /// Checks the next piece of the input.
    /// - Returns: the offset in the whole input of the first byte that cannot continue JSON
    ///   text, or `nil` when every byte so far can.
    package mutating func check(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        let n = bytes.count
        while i < n {
            let byte = bytes[i]
            switch state {
            case .string(let isName):
                // The common case: run to the next quote, backslash or control character.
                var j = i
                while j < n, bytes[j] != 0x22, bytes[j] != 0x5C, bytes[j] >= 0x20 { j += 1 }
                i = j
                guard i < n else { continue }
                let stop = bytes[i]
                if stop < 0x20 { return offset + i }
                state = stop == 0x22 ? (isName ? .colon : closeValue()) : .escape(isName: isName)
                i += 1
                continue
            case .escape(let isName):
                switch byte {
                case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74: state = .string(isName: isName)
                case 0x75: state = .unicode(isName: isName, remaining: 4)
                default: return offset + i
                }
            case .unicode(let isName, let remaining):
                guard Self.isHexDigit(byte) else { return offset + i }
                state = remaining == 1 ? .string(isName: isName) : .unicode(isName: isName, remaining: remaining - 1)
            case .literal(let text, let index):
                guard byte == text.utf8Start[index] else { return offset + i }
                state = index + 1 == text.utf8CodeUnitCount ? closeValue() : .literal(text, index + 1)
            case .minus:
                if byte == 0x30 { state = .zero } else if Self.isDigit(byte) { state = .integer } else { return offset + i }
            case .dot:
                guard Self.isDigit(byte) else { return offset + i }
                state = .fraction
            case .exponentMark:
                if byte == 0x2B || byte == 0x2D { state = .exponentSign } else if Self.isDigit(byte) { state = .exponent } else { return offset + i }
            case .exponentSign:
                guard Self.isDigit(byte) else { return offset + i }
                state = .exponent
            case .zero, .integer, .fraction, .exponent:
                if Self.isDigit(byte) {
                    if case .zero = state { return offset + i }  // a leading zero
                    i += 1
                    continue
                }
                if byte == 0x2E, !state.isFractionOrExponent {
                    state = .dot
                } else if byte == 0x65 || byte == 0x45, !state.isExponent {
                    state = .exponentMark
                } else {
                    // The number ends here; the byte is read after it.
                    state = closeValue()
                    continue
                }
            case .byteOrderMark(let read):
                guard byte == (read == 1 ? 0xBB : 0xBF) else { return offset + i }
                state = read == 1 ? .byteOrderMark(2) : .top
            case .top:
                if Self.isSpace(byte) || byte == 0x1E { break }
                if byte == 0xEF, offset + i == 0 {
                    state = .byteOrderMark(1)
                    break
                }
                guard startValue(byte) else { return offset + i }
            case .value:
                if Self.isSpace(byte) { break }
                guard startValue(byte) else { return offset + i }
            case .arrayStart:
                if Self.isSpace(byte) { break }
                if byte == 0x5D {
                    open.removeLast()
                    state = closeValue()
                    break
                }
                guard startValue(byte) else { return offset + i }
            case .objectStart, .memberName:
                if Self.isSpace(byte) { break }
                if byte == 0x7D, case .objectStart = state {
                    open.removeLast()
                    state = closeValue()
                    break
                }
                guard byte == 0x22 else { return offset + i }
                state = .string(isName: true)
            case .colon:
                if Self.isSpace(byte) { break }
                guard byte == 0x3A else { return offset + i }
                state = .value
            case .afterValue:
                if Self.isSpace(byte) { break }
                guard let container = open.last else { return offset + i }
                if byte == 0x2C {
                    state = container == 0x7B ? .memberName : .value
                } else if byte == (container == 0x7B ? 0x7D : 0x5D) {
                    open.removeLast()
                    state = closeValue()
                } else {
                    return offset + i
                }
            }
            i += 1
        }
        offset += n
        return nil
    }

    /// Starts the value whose first byte is `byte`; `false` when no value starts so.
    private mutating func startValue(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x7B, 0x5B:
            guard open.count < jsonMaximumDepth else { return false }
            open.append(byte)
            state = byte == 0x7B ? .objectStart : .arrayStart
        case 0x22: state = .string(isName: false)
        case 0x2D: state = .minus
        case 0x30: state = .zero
        case 0x31...0x39: state = .integer
        case 0x74: state = .literal("true", 1)
        case 0x66: state = .literal("false", 1)
        case 0x6E: state = .literal("null", 1)
        default: return false
        }
        return true
    }

    /// The state after a value ends: the top level between values, or inside its container.
    private func closeValue() -> State { open.isEmpty ? .top : .afterValue }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
    }
}

extension JSONSyntaxCheck.State {
    fileprivate var isFractionOrExponent: Bool {
        switch self {
        case .fraction, .exponent: true
        default: false
        }
    }

    fileprivate var isExponent: Bool {
        if case .exponent = self { return true }
        return false
    }
}
