/// Writes a ``JSONValue`` as compact JSON text: no white space, members in order.
///
/// Numbers: integer literals in integer form, doubles through `formatNumber` (shortest text
/// that reads back to the same double; whole doubles without a fraction). JSON has no
/// non-finite numbers, so NaN and infinities are written as `null`.
/// Strings: `"` and `\` escaped, control characters as `\b \f \n \r \t` or `\u00XX`,
/// everything else as UTF-8.
package enum JSONWriter {
    /// The compact JSON text of `value`.
    package static func string(_ value: JSONValue) -> String {
        var bytes: [UInt8] = []
        write(value, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the compact JSON text of `value` to `bytes`, as UTF-8.
    package static func write(_ value: JSONValue, into bytes: inout [UInt8]) {
        switch value {
        case .null:
            bytes.append(contentsOf: "null".utf8)
        case .bool(let bool, _):
            bytes.append(contentsOf: (bool ? "true" : "false").utf8)
        case .number(let number, _):
            writeNumber(number, into: &bytes)
        case .string(let string, _):
            writeString(string, into: &bytes)
        case .array(let elements, _):
            bytes.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element, into: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object, _):
            bytes.append(UInt8(ascii: "{"))
            for (i, member) in object.members.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                writeString(member.key, into: &bytes)
                bytes.append(UInt8(ascii: ":"))
                write(member.value, into: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Appends a number.
    package static func writeNumber(_ number: JSONNumber, into bytes: inout [UInt8]) {
        if number.isIntegerLiteral, number.int64 != nil {
            bytes.append(contentsOf: number.description.utf8)
        } else {
            writeDouble(number.double, into: &bytes)
        }
    }

    /// Appends a double (`null` when it is not finite).
    package static func writeDouble(_ value: Double, into bytes: inout [UInt8]) {
        if value.isFinite {
            bytes.append(contentsOf: formatNumber(value).utf8)
        } else {
            bytes.append(contentsOf: "null".utf8)
        }
    }

    /// Appends a double so that it reads back as a double: whole values keep a fraction
    /// (`889953.0`, not `889953`), because readers that infer field types from the JSON text —
    /// GeoSieve's own among them — take `889953` for an integer. NaN and infinities as `null`.
    package static func writeAttributeDouble(_ value: Double, into bytes: inout [UInt8]) {
        guard value.isFinite else {
            bytes.append(contentsOf: "null".utf8)
            return
        }
        let text = formatNumber(value)
        bytes.append(contentsOf: text.utf8)
        if !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            bytes.append(contentsOf: ".0".utf8)
        }
    }

    /// Appends a quoted, escaped string (see ``writeString(utf8:into:)``).
    package static func writeString(_ string: String, into bytes: inout [UInt8]) {
        var string = string
        string.withUTF8 { writeString(utf8: $0, into: &bytes) }
    }

    /// Appends the UTF-8 text `utf8` as a quoted JSON string: `\"`, `\\`, `\b`, `\f`, `\n`, `\r`,
    /// `\t`, other control characters as `\u00XX`, everything else as it is; runs without a
    /// character to escape are copied whole. The one string escaper of every JSON writer.
    package static func writeString(utf8: UnsafeBufferPointer<UInt8>, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var runStart = 0
        for i in 0..<utf8.count {
            let byte = utf8[i]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            if runStart < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i])) }
            runStart = i + 1
            bytes.append(0x5C)
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            default:
                let hex: StaticString = "0123456789abcdef"
                bytes.append(UInt8(ascii: "u"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(hex.utf8Start[Int(byte >> 4)])
                bytes.append(hex.utf8Start[Int(byte & 0xF)])
            }
        }
        if runStart < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
        bytes.append(UInt8(ascii: "\""))
    }
}
