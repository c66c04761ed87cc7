/// A growing UTF-8 byte buffer with the writers SVG output needs: text, XML-escaped text and
/// pixel coordinates in tenths.
struct SVGBytes: Sendable {
    private(set) var bytes: [UInt8] = []

    var count: Int { bytes.count }
    var isEmpty: Bool { bytes.isEmpty }

    mutating func reserveCapacity(_ capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func append(_ byte: UInt8) { bytes.append(byte) }

    /// Removes the bytes after the first `count`.
    mutating func truncate(to count: Int) { bytes.removeSubrange(count...) }

    mutating func append(_ other: SVGBytes) { bytes.append(contentsOf: other.bytes) }

    mutating func append(_ other: [UInt8]) { bytes.append(contentsOf: other) }

    /// Appends `text` as it is (for markup the writer composes; never for outside text).
    mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// Appends `text` escaped for XML character data and attribute values: `&`, `<`, `>`, `"`
    /// and `'` as entities, and every character XML 1.0 does not allow in a document (control
    /// characters other than tab, line feed and carriage return, U+FFFE, U+FFFF) as U+FFFD.
    mutating func appendEscaped(_ text: String) {
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x26: append("&amp;")
            case 0x3C: append("&lt;")
            case 0x3E: append("&gt;")
            case 0x22: append("&quot;")
            case 0x27: append("&apos;")
            case 0x09, 0x0A, 0x0D: bytes.append(UInt8(scalar.value))
            case 0x00..<0x20, 0xFFFE, 0xFFFF: bytes.append(contentsOf: [0xEF, 0xBF, 0xBD])
            default: bytes.append(contentsOf: String(scalar).utf8)
            }
        }
    }

    /// Appends a number given in tenths as a decimal with at most one decimal: 125 → `12.5`,
    /// 120 → `12`, -5 → `-0.5`.
    mutating func appendTenths(_ tenths: Int) {
        var magnitude = tenths.magnitude
        if tenths < 0 { bytes.append(UInt8(ascii: "-")) }
        let fraction = magnitude % 10
        magnitude /= 10
        appendDigits(magnitude)
        if fraction != 0 {
            bytes.append(UInt8(ascii: "."))
            bytes.append(UInt8(ascii: "0") + UInt8(fraction))
        }
    }

    /// Appends an integer.
    mutating func appendInteger(_ value: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude)
    }

    /// Appends the decimal digits of `value`, most significant first.
    private mutating func appendDigits(_ value: UInt) {
        var divisor: UInt = 1
        while value / divisor >= 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    /// Appends a number with at most one decimal (rounded to the nearest tenth; a value whose
    /// tenths do not fit an `Int` is written as 0, which no caller passes: coordinates are
    /// clamped first).
    mutating func appendDecimal(_ value: Double) {
        appendTenths(Self.tenths(value))
    }

    /// `value` in tenths, rounded to the nearest (0 when not representable).
    static func tenths(_ value: Double) -> Int {
        let scaled = (value * 10).rounded()
        guard scaled.isFinite, scaled.magnitude < 9.0e17 else { return 0 }
        return Int(scaled)
    }
}

extension SVGBytes {
    /// `text` XML-escaped as ``appendEscaped(_:)`` writes it.
    static func escaped(_ text: String) -> String {
        var buffer = SVGBytes()
        buffer.appendEscaped(text)
        return String(decoding: buffer.bytes, as: UTF8.self)
    }
}
