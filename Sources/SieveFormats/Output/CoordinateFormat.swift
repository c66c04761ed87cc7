import SieveFeatures
import SieveGeometry
import SieveJSON

/// How the writers write a coordinate: in the shortest text that reads back to the same double,
/// or rounded to a number of digits after the decimal point.
package enum CoordinateFormat: Sendable, Hashable {
    /// The shortest round-trip text (whole numbers below 2⁵³ without a fraction).
    case shortest
    /// The shortest round-trip text, whole numbers below 2⁵³ with a fraction (`180.0`), as
    /// Python and GDAL write them.
    case shortestWithFraction
    /// At most `fractionDigits` (0…17) digits after the decimal point, correctly rounded (see
    /// ``FixedPointText``).
    case fixed(fractionDigits: Int)

    /// Appends `value` as a JSON number (`null` when it is not finite).
    @inline(__always)
    package func appendJSON(_ value: Double, to bytes: inout [UInt8]) {
        switch self {
        case .shortest:
            if value.isFinite {
                Self.appendShortest(value, to: &bytes)
            } else {
                bytes.append(contentsOf: "null".utf8)
            }
        case .shortestWithFraction:
            if value.isFinite {
                Self.appendShortest(value, to: &bytes)
                if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { bytes.append(contentsOf: ".0".utf8) }
            } else {
                bytes.append(contentsOf: "null".utf8)
            }
        case .fixed(let digits):
            if value.isFinite {
                FixedPointText.append(value, fractionDigits: digits, to: &bytes)
            } else {
                bytes.append(contentsOf: "null".utf8)
            }
        }
    }

    /// Appends what `formatNumber(value)` returns (whole numbers below 2⁵³ as integers, others
    /// in Swift's shortest round-trip form), without the intermediate string of an interpolation:
    /// whole numbers digit by digit, others from `description`.
    @inline(__always)
    package static func appendShortest(_ value: Double, to bytes: inout [UInt8]) {
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
            if value == 0 {
                if value.sign == .minus { bytes.append(UInt8(ascii: "-")) }
                bytes.append(UInt8(ascii: "0"))
                return
            }
            JSONOutput.appendInteger(Int64(value), to: &bytes)
            return
        }
        var text = value.description
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// `value` as text for WKT (non-finite values in their shortest form).
    package func text(_ value: Double) -> String {
        switch self {
        case .shortest, .shortestWithFraction:
            return formatNumber(value)
        case .fixed(let digits):
            guard value.isFinite else { return formatNumber(value) }
            var bytes: [UInt8] = []
            FixedPointText.append(value, fractionDigits: digits, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}

extension CoordinateFormat {
    /// How the geometries near the start of a GeoJSON or Esri JSON text write whole
    /// coordinates: `true` with a fraction (`180.0`), `false` without (`180`), `nil` when the
    /// first 64 KiB show none. Looks at the numbers in arrays (and `x`, `y` members) inside the
    /// values of `coordinates` and `geometry` members; reads no more than `json` holds.
    package static func wholeCoordinatesHaveFraction<Bytes: RandomAccessCollection<UInt8>>(in json: Bytes) -> Bool?
    where Bytes.Index == Int {
        let end = Swift.min(json.endIndex, json.startIndex + (1 << 16))
        var i = json.startIndex
        /// Whether the bytes at `at` are `"name"` followed by white space and a colon; moves past them.
        func key(_ name: String, at position: inout Int) -> Bool {
            var k = position
            for byte in name.utf8 {
                guard k < end, json[k] == byte else { return false }
                k += 1
            }
            while k < end, json[k] == UInt8(ascii: " ") || json[k] == UInt8(ascii: "\n") || json[k] == UInt8(ascii: "\r")
                || json[k] == UInt8(ascii: "\t")
            {
                k += 1
            }
            guard k < end, json[k] == UInt8(ascii: ":") else { return false }
            position = k + 1
            return true
        }
        while i < end {
            guard json[i] == UInt8(ascii: "\""), key("\"coordinates\"", at: &i) || key("\"geometry\"", at: &i) else {
                i += 1
                continue
            }
            // The value: numbers in arrays, or after "x"/"y", until it ends.
            var depth = 0
            var arrays = 0
            var afterXY = false
            var started = false
            while i < end {
                let byte = json[i]
                switch byte {
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                    if byte == UInt8(ascii: "[") { arrays += 1 }
                    started = true
                    i += 1
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    depth -= 1
                    if byte == UInt8(ascii: "]") { arrays -= 1 }
                    i += 1
                case UInt8(ascii: "\""):
                    afterXY = key("\"x\"", at: &i) || key("\"y\"", at: &i)
                    if !afterXY {
                        // Past the string.
                        i += 1
                        while i < end, json[i] != UInt8(ascii: "\"") { i += json[i] == UInt8(ascii: "\\") ? 2 : 1 }
                        i += 1
                    }
                    started = true
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    let start = i
                    var point: Int?
                    var exponent = false
                    while i < end, json[i] == UInt8(ascii: "-") || json[i] == UInt8(ascii: "+") || json[i] == UInt8(ascii: ".")
                        || json[i] == UInt8(ascii: "e") || json[i] == UInt8(ascii: "E") || (json[i] &- UInt8(ascii: "0")) < 10
                    {
                        if json[i] == UInt8(ascii: ".") { point = i }
                        if json[i] == UInt8(ascii: "e") || json[i] == UInt8(ascii: "E") { exponent = true }
                        i += 1
                    }
                    if i < end, arrays > 0 || afterXY, !exponent, i > start {
                        guard let point else { return false }
                        if json[(point + 1)..<i].allSatisfy({ $0 == UInt8(ascii: "0") }) { return true }
                    }
                    afterXY = false
                    started = true
                default:
                    if byte == UInt8(ascii: "n") || byte == UInt8(ascii: "t") || byte == UInt8(ascii: "f") { started = true }
                    i += 1
                }
                if started, depth == 0 { break }
            }
        }
        return nil
    }
}

/// Fixed-point decimal text of a double, correctly rounded: what C's `printf("%.*f", n, x)`
/// prints, with trailing zeros and a trailing point dropped and a zero result written `0`.
///
/// The double is an exact binary fraction m·2ᵉ (m below 2⁵³), so x·10ⁿ = m·5ⁿ·2ⁿ⁺ᵉ. With n at
/// most 17, m·5ⁿ is below 2⁹³ and fits two 64-bit words: a non-negative n + e makes x·10ⁿ that
/// integer shifted left (exact; e < 0 then, so by at most 16 bits), a negative one a right shift
/// whose remainder decides the rounding, ties to even. When e ≥ 0 the double is an integer with
/// no fraction to round, and its exact digits (up to 309 of them) come from a multi-word
/// division by 10⁹.
package enum FixedPointText {
    /// 5⁰ … 5¹⁷.
    private static let powersOfFive: [UInt64] = {
        var powers: [UInt64] = [1]
        for _ in 1...17 { powers.append(powers[powers.count - 1] &* 5) }
        return powers
    }()

    /// Appends `value` (finite) with at most `fractionDigits` (0…17) digits after the point.
    package static func append(_ value: Double, fractionDigits: Int, to bytes: inout [UInt8]) {
        let n = Swift.min(Swift.max(fractionDigits, 0), 17)
        guard value.isFinite, value != 0 else {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        let negative = value < 0
        let biased = Int(value.exponentBitPattern)
        let fraction = value.significandBitPattern
        let m = biased == 0 ? fraction : fraction | (1 << 52)
        let e = biased == 0 ? -1074 : biased - 1075
        if e >= 0 {
            // An integer: its exact digits, no fraction.
            if negative { bytes.append(UInt8(ascii: "-")) }
            appendInteger(significand: m, shift: e, to: &bytes)
            return
        }
        let product = m.multipliedFullWidth(by: powersOfFive[n])
        var scaled = Wide(high: product.high, low: product.low)
        let k = n + e
        if k >= 0 {
            scaled = scaled.shiftedLeft(k)
        } else {
            scaled = scaled.roundedShiftRight(-k)
        }
        if scaled.isZero {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        if negative { bytes.append(UInt8(ascii: "-")) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { buffer in
            let count = scaled.writeDigits(into: buffer)
            let digits = UnsafeBufferPointer(rebasing: buffer[(40 - count)...])
            // Integer part: the digits before the last n, or 0.
            let integerCount = count - n
            if integerCount > 0 {
                bytes.append(contentsOf: digits[..<integerCount])
            } else {
                bytes.append(UInt8(ascii: "0"))
            }
            // Fraction: the last n digits (zero-padded on the left), trailing zeros dropped.
            var last = count
            while last > Swift.max(integerCount, 0), digits[last - 1] == UInt8(ascii: "0") { last -= 1 }
            let fractionStart = Swift.max(integerCount, 0)
            guard last > fractionStart else { return }
            bytes.append(UInt8(ascii: "."))
            if integerCount < 0 {
                bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: -integerCount))
            }
            bytes.append(contentsOf: digits[fractionStart..<last])
        }
    }

    /// Appends the decimal digits of `significand`·2^`shift`.
    private static func appendInteger(significand: UInt64, shift: Int, to bytes: inout [UInt8]) {
        if shift <= 11 {
            // Below 2⁶⁴.
            appendDecimal(significand << UInt64(shift), to: &bytes)
            return
        }
        // Little-endian 32-bit limbs of significand << shift.
        let wordShift = shift / 32
        let bitShift = shift % 32
        var limbs = [UInt32](repeating: 0, count: wordShift + 3)
        let low = significand << UInt64(bitShift)
        let high = bitShift == 0 ? 0 : significand >> UInt64(64 - bitShift)
        limbs[wordShift] = UInt32(truncatingIfNeeded: low)
        limbs[wordShift + 1] = UInt32(truncatingIfNeeded: low >> 32)
        limbs[wordShift + 2] = UInt32(truncatingIfNeeded: high)
        var top = limbs.count
        while top > 0, limbs[top - 1] == 0 { top -= 1 }
        // Groups of 9 digits, least significant first.
        var groups: [UInt32] = []
        groups.reserveCapacity(36)
        while top > 0 {
            var remainder: UInt64 = 0
            for i in stride(from: top - 1, through: 0, by: -1) {
                let current = remainder << 32 | UInt64(limbs[i])
                limbs[i] = UInt32(truncatingIfNeeded: current / 1_000_000_000)
                remainder = current % 1_000_000_000
            }
            groups.append(UInt32(truncatingIfNeeded: remainder))
            while top > 0, limbs[top - 1] == 0 { top -= 1 }
        }
        guard let first = groups.last else {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        appendDecimal(UInt64(first), to: &bytes)
        for group in groups.dropLast().reversed() {
            var digits = group
            var text: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &text) { buffer in
                for i in stride(from: 8, through: 0, by: -1) {
                    buffer[i] = UInt8(ascii: "0") + UInt8(digits % 10)
                    digits /= 10
                }
                bytes.append(contentsOf: buffer[0..<9])
            }
        }
    }

    /// Appends the decimal digits of `value`.
    private static func appendDecimal(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var v = value
            var i = 20
            repeat {
                i -= 1
                buffer[i] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
            } while v > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[i...]))
        }
    }

    /// A 128-bit unsigned integer in two words.
    private struct Wide {
        var high: UInt64
        var low: UInt64

        var isZero: Bool { high == 0 && low == 0 }

        /// `self << k`, for 0 ≤ k < 64 and a result below 2¹²⁸.
        func shiftedLeft(_ k: Int) -> Wide {
            guard k > 0 else { return self }
            return Wide(high: high << UInt64(k) | low >> UInt64(64 - k), low: low << UInt64(k))
        }

        /// `self / 2^s` rounded to the nearest integer, ties to even (s ≥ 1).
        func roundedShiftRight(_ s: Int) -> Wide {
            // self < 2^93, so from 94 on the quotient is 0 and the remainder below half.
            guard s < 94 else { return Wide(high: 0, low: 0) }
            var quotient: Wide
            var remainder: Wide
            if s >= 64 {
                let t = UInt64(s - 64)
                quotient = Wide(high: 0, low: high >> t)
                let mask: UInt64 = t == 0 ? 0 : (1 << t) - 1
                remainder = Wide(high: high & mask, low: low)
            } else {
                let t = UInt64(s)
                quotient = Wide(high: high >> t, low: low >> t | high << (64 - t))
                remainder = Wide(high: 0, low: low & ((1 << t) - 1))
            }
            // half = 2^(s-1)
            let half = s - 1 >= 64 ? Wide(high: 1 << UInt64(s - 1 - 64), low: 0) : Wide(high: 0, low: 1 << UInt64(s - 1))
            let above = remainder.high > half.high || (remainder.high == half.high && remainder.low > half.low)
            let tie = remainder.high == half.high && remainder.low == half.low
            if above || (tie && quotient.low & 1 == 1) {
                let (sum, carry) = quotient.low.addingReportingOverflow(1)
                quotient = Wide(high: quotient.high &+ (carry ? 1 : 0), low: sum)
            }
            return quotient
        }

        /// Writes the decimal digits right-aligned at the end of `buffer` (40 bytes); returns
        /// their count.
        func writeDigits(into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
            var high = self.high
            var low = self.low
            var end = buffer.count
            let chunk: UInt64 = 10_000_000_000_000_000_000  // 10^19
            while high > 0 {
                let q1 = high / chunk
                let r1 = high % chunk
                let (q0, r0) = chunk.dividingFullWidth((r1, low))
                high = q1
                low = q0
                var r = r0
                for _ in 0..<19 {
                    end -= 1
                    buffer[end] = UInt8(ascii: "0") + UInt8(r % 10)
                    r /= 10
                }
            }
            repeat {
                end -= 1
                buffer[end] = UInt8(ascii: "0") + UInt8(low % 10)
                low /= 10
            } while low > 0
            return buffer.count - end
        }
    }
}
