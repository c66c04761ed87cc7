/// The significand of a decimal number: the first 19 significant digits as an integer, where
/// its last digit stands, and whether a nonzero digit was dropped. Number scanners accumulate the
/// digits with ``accumulateDigits(_:from:into:)`` and build it with
/// ``init(accumulated:integerDigits:fractionDigits:text:)``, then hand it to
/// ``DecimalToDouble/convert(_:exponent:negative:text:)``.
///
/// The value is `digits × 10^scale` (exactly, unless `truncated`: then it lies strictly between
/// that and `(digits + 1) × 10^scale`).
public struct DecimalSignificand: Sendable {
    /// The first (at most 19) significant digits as an integer.
    public var digits: UInt64 = 0
    /// How many digits `digits` holds (at most 19): while appending, significant digits only.
    public var count = 0
    /// The power of ten of the last digit in `digits`.
    public var scale = 0
    /// Whether a nonzero digit was dropped after the first 19 significant ones.
    public var truncated = false

    /// The most digits kept exactly: 19 digits always fit in `UInt64`.
    public static let maximumDigits = 19

    /// An empty significand (the value 0), to append digits to.
    @inlinable @inline(__always)
    public init() {}

    /// The significand of the digits that ``accumulateDigits(_:from:into:)`` read into
    /// `accumulated`: `integerDigits` digits before the decimal point, `fractionDigits` after it.
    /// Up to 19 digits in all, `accumulated` is exact; beyond, the digits are read again from
    /// `text` (the digits with at most one `.`), skipping leading zeros.
    @inlinable @inline(__always)
    public init(
        accumulated: UInt64, integerDigits: Int, fractionDigits: Int, text: UnsafeBufferPointer<UInt8>
    ) {
        if integerDigits &+ fractionDigits <= Self.maximumDigits {
            self.init()
            digits = accumulated
            count = integerDigits &+ fractionDigits
            scale = -fractionDigits
        } else {
            self.init(longText: text)
        }
    }

    /// The significand of `text` (digits with at most one `.`), digit by digit.
    @usableFromInline init(longText text: UnsafeBufferPointer<UInt8>) {
        self.init()
        var afterPoint = false
        var i = 0
        while i < text.count && count < Self.maximumDigits {
            let byte = text[i]
            let digit = byte &- UInt8(ascii: "0")
            if digit <= 9 {
                if afterPoint {
                    appendFractionDigit(UInt64(digit))
                } else {
                    appendIntegerDigit(UInt64(digit))
                }
            } else if byte == UInt8(ascii: ".") {
                afterPoint = true
            }
            i &+= 1
        }
        // The digits after the first 19 significant ones: integer digits move the scale, and
        // any nonzero digit means the significand was truncated.
        while i < text.count {
            let byte = text[i]
            if byte == UInt8(ascii: ".") {
                afterPoint = true
            } else {
                if !afterPoint { scale &+= 1 }
                if byte != UInt8(ascii: "0") { truncated = true }
            }
            i &+= 1
        }
    }

    /// Appends a digit (0–9) of the integer part.
    @inlinable @inline(__always)
    public mutating func appendIntegerDigit(_ digit: UInt64) {
        if count < Self.maximumDigits {
            digits = digits &* 10 &+ digit
            if digits != 0 { count &+= 1 }
        } else {
            scale &+= 1
            if digit != 0 { truncated = true }
        }
    }

    /// Appends a digit (0–9) of the fraction (after the decimal point).
    @inlinable @inline(__always)
    public mutating func appendFractionDigit(_ digit: UInt64) {
        if count < Self.maximumDigits {
            digits = digits &* 10 &+ digit
            if digits != 0 { count &+= 1 }
            scale &-= 1
        } else if digit != 0 {
            truncated = true
        }
    }

    /// Reads the decimal digits starting at `start`, accumulating them into `value`
    /// (`value × 10 + digit`, wrapping: exact for up to 19 digits in all), eight at a time where
    /// it can.
    /// - Returns: the offset of the first byte that is not a digit (or the end).
    @inlinable @inline(__always)
    public static func accumulateDigits(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, into value: inout UInt64
    ) -> Int {
        var i = start
        let count = bytes.count
        if let base = bytes.baseAddress {
            while count &- i >= 8 {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
                guard let eight = eightDigits(word) else { break }
                value = value &* 100_000_000 &+ eight
                i &+= 8
            }
        }
        while i < count {
            let digit = bytes[i] &- UInt8(ascii: "0")
            guard digit <= 9 else { break }
            value = value &* 10 &+ UInt64(digit)
            i &+= 1
        }
        return i
    }

    /// The value of eight ASCII digits loaded little-endian (the first digit in the low byte),
    /// or `nil` when a byte is not a digit.
    @inlinable @inline(__always)
    static func eightDigits(_ word: UInt64) -> UInt64? {
        // Every byte 0x30–0x39: its high nibble is 3, and still 3 after adding 6.
        let high: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
        guard word & high == 0x3030_3030_3030_3030,
            (word &+ 0x0606_0606_0606_0606) & high == 0x3030_3030_3030_3030
        else { return nil }
        var v = word &- 0x3030_3030_3030_3030
        // Each even byte k becomes the two-digit number 10 × d(k) + d(k + 1) (no carries: ≤ 99).
        v = v &* 10 &+ (v >> 8)
        // Bytes 0 and 4 times 10^6 and 10^2, bytes 2 and 6 times 10^4 and 1, summed in the high
        // half (the low half's products stay below 2^32 and do not carry into it).
        let pairs: UInt64 = 0x0000_00FF_0000_00FF
        let first = (v & pairs) &* (100 &+ (1_000_000 << 32))
        let second = ((v >> 16) & pairs) &* (1 &+ (10_000 << 32))
        return (first &+ second) >> 32
    }
}

/// Correctly rounded conversion of decimal numbers to `Double`: the result is the double nearest
/// to the exact decimal value, ties to even, equal to what `Double(String)` gives for the same
/// text. Overflow gives ±infinity, underflow ±0 or the correctly rounded subnormal; a negative
/// zero stays −0.0.
///
/// Three steps, each taken only when the one before cannot decide:
/// 1. Clinger's fast path: a significand below 2^53 times or divided by an exact power of ten
///    (at most 10^22) is one correctly rounded floating-point operation.
/// 2. Eisel–Lemire: the first 19 significant digits times a 128-bit truncated power of five
///    (`powersOfFive`), a 192-bit product whose top 54 bits give the double and its rounding
///    bit unless the product's lower bits are within the table's error of a rounding boundary.
///    When digits were dropped, the first 19 digits and the same plus one must round alike.
/// 3. The exact path: every significant digit (up to 800, then a sticky flag) as a big integer,
///    compared exactly with the halfway points next to a candidate double. Allocates; reached
///    only by exact ties, inputs with more than 19 significant digits near a halfway point, and
///    the rare products Eisel–Lemire cannot decide.
public enum DecimalToDouble {
    /// The exact powers of ten that a `Double` holds.
    static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// The bit pattern of +infinity.
    static let infinityBits: UInt64 = 0x7FF0_0000_0000_0000

    /// The largest value an explicit exponent is accumulated to; larger exponents saturate here.
    /// Far beyond any digit count a buffer can hold, so a saturated exponent always means an
    /// overflow or an underflow, whatever the digits.
    public static let exponentLimit = 1 << 58

    /// Accumulates one exponent digit, saturating at ``exponentLimit`` (never overflows).
    @inlinable @inline(__always)
    public static func appendExponentDigit(_ digit: Int, to exponent: inout Int) {
        if exponent < exponentLimit { exponent = exponent &* 10 &+ digit }
    }

    /// The double nearest to the decimal number whose significand is `significand` and whose
    /// explicit exponent (the `e` part; 0 without one) is `exponent`.
    ///
    /// - Parameters:
    ///   - significand: the digits as read.
    ///   - exponent: the explicit exponent, saturated at ±``exponentLimit``.
    ///   - negative: whether the number has a minus sign.
    ///   - text: the significand's text, its digits with at most one `.` (no sign, no exponent):
    ///     read again only by the exact path.
    @inline(__always)
    public static func convert(
        _ significand: DecimalSignificand, exponent: Int, negative: Bool, text: UnsafeBufferPointer<UInt8>
    ) -> Double {
        let magnitude = positive(significand, exponent: exponent, text: text)
        return negative ? -magnitude : magnitude
    }

    /// The magnitude for ``convert(_:exponent:negative:text:)``.
    @inline(__always)
    static func positive(_ significand: DecimalSignificand, exponent: Int, text: UnsafeBufferPointer<UInt8>) -> Double {
        let w = significand.digits
        if w == 0 { return 0 }
        let q = significand.scale &+ exponent
        if !significand.truncated && w <= 1 << 53 {
            if q >= -22 && q <= 22 {
                let value = Double(w)
                return q >= 0 ? value * exactPowersOfTen[q] : value / exactPowersOfTen[-q]
            }
            // w × 10^(q − 22) may still be an exact integer below 2^53.
            if q > 22 && q <= 22 + 15 {
                let (product, overflow) = w.multipliedReportingOverflow(by: UInt64(exactPowersOfTen[q - 22]))
                if !overflow && product <= 1 << 53 { return Double(product) * 1e22 }
            }
        }
        return Double(bitPattern: positiveBits(significand, exponent: exponent, text: text))
    }

    /// The bit pattern of the magnitude, past Clinger's fast path.
    static func positiveBits(_ significand: DecimalSignificand, exponent: Int, text: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let w = significand.digits
        let q = significand.scale &+ exponent
        // w < 10^19: below 10^19 × 10^-343 = 10^-324, less than half the smallest subnormal.
        if q < smallestPowerOfFive { return 0 }
        // w ≥ 1: at least 10^309.
        if q > largestPowerOfFive { return infinityBits }
        let first = eiselLemire(w, q)
        if first.decided {
            if !significand.truncated { return first.bits }
            // The value lies strictly between w × 10^q and (w + 1) × 10^q (w + 1 ≤ 10^19 fits).
            let second = eiselLemire(w &+ 1, q)
            if second.decided && second.bits == first.bits { return first.bits }
        }
        return exactBits(text: text, exponent: exponent, candidate: first.bits)
    }

    // MARK: - Eisel–Lemire

    /// The double nearest to `w × 10^q` for `w > 0` and `q` within the table, as a bit pattern,
    /// and whether the 192-bit product decides it. When it does not, `bits` is still within one
    /// unit in the last place (a candidate for the exact path).
    ///
    /// `w × 10^q = w′ × c × 2^(g + q − l)` where `w′ = w << l` has its top bit set and
    /// `c = 5^q / 2^g` lies in [2^127, 2^128); the table holds `T = floor(c)`. The product
    /// `P = w′ × c` lies in [2^190, 2^192); `B = w′ × T` is computed exactly in 192 bits. When
    /// `T = c` (0 ≤ q ≤ 55) then `B = P` and every bit is known. Otherwise `c` is not an integer
    /// and `B < P < B + 2^64`: the bits of `P` from the rounding bit up are those of `B` unless
    /// the bits of `B` between bit 64 and the rounding bit are all ones (a carry could reach it),
    /// and the bits below the rounding bit are never all zero (so no exact tie is possible — an
    /// exact tie shows up as that all-ones pattern instead).
    @inline(__always)
    static func eiselLemire(_ w: UInt64, _ q: Int) -> (bits: UInt64, decided: Bool) {
        let index = 2 &* (q &- smallestPowerOfFive)
        let high = powersOfFive[index], low = powersOfFive[index &+ 1]
        let shift = w.leadingZeroBitCount
        let normalized = w << UInt64(shift)
        let upper = normalized.multipliedFullWidth(by: high)
        let lower = normalized.multipliedFullWidth(by: low)
        let (b1, carry) = upper.low.addingReportingOverflow(lower.high)
        // No overflow: B < 2^192.
        let b2 = upper.high &+ (carry ? 1 : 0)
        let b0 = lower.low
        let top = Int(b2 >> 63)
        // g = floor(log2(5^q)) − 127; (q × 152170) >> 16 is floor(q × log2 5) for every q of the
        // table (checked by the tests against the exact bit lengths).
        let g = ((q &* 152_170) >> 16) &- 127
        // The power of two of the value's leading bit.
        let e = 190 &+ top &+ g &+ q &- shift
        if e > 1023 { return (infinityBits, true) }
        // The position in B of the lowest bit kept: 53 bits for a normal number, fewer (at
        // the fixed position of 2^-1074) for a subnormal one.
        let kept = e >= -1022 ? 138 &+ top : 138 &+ top &+ (-1022 &- e)
        // Below half the smallest subnormal (the rounding bit is above B's top bit).
        if kept > 192 { return (0, true) }
        // B's bits 128 ..< (rounding bit) in b2, below the rounding bit at kept − 1 ≥ 137.
        let belowCount = kept &- 129
        let belowMask = (UInt64(1) << UInt64(belowCount)) &- 1
        let below = b2 & belowMask
        let exactProduct = q >= 0 && q <= 55
        let decided = exactProduct || below != belowMask || b1 != .max
        let roundBit = (b2 >> UInt64(belowCount)) & 1
        var mantissa = belowCount &+ 1 >= 64 ? 0 : b2 >> UInt64(belowCount &+ 1)
        let sticky = !exactProduct || below != 0 || b1 != 0 || b0 != 0
        if roundBit == 1 && (sticky || mantissa & 1 == 1) { mantissa &+= 1 }
        // A normal number: the biased exponent above the 53-bit mantissa (whose hidden bit adds
        // one to the exponent field); a carry out of the mantissa moves to the next binade, up to
        // exactly the bits of infinity. A subnormal one: the mantissa itself (2^52 after a carry
        // is the smallest normal number).
        let bits = e >= -1022 ? (UInt64(e &+ 1022) << 52) &+ mantissa : mantissa
        return (bits, decided)
    }

    // MARK: - The exact path

    /// Significant digits kept by the exact path; any nonzero digit after them only breaks a
    /// tie (a halfway point between doubles has at most 767 significant digits).
    static let exactDigitLimit = 800

    /// The bit pattern of the double nearest to the decimal `text` (digits with at most one `.`)
    /// times 10^`exponent`, starting from a `candidate` near it (within a few units in the last
    /// place), by exact big-integer comparison with the halfway points around it.
    static func exactBits(text: UnsafeBufferPointer<UInt8>, exponent: Int, candidate: UInt64) -> UInt64 {
        // The digits as D × 10^k, D of at most `exactDigitLimit` digits, `sticky` when a nonzero
        // digit was dropped.
        var digits: [UInt8] = []
        var k = 0
        var afterPoint = false
        var sticky = false
        for byte in text {
            if byte == UInt8(ascii: ".") {
                afterPoint = true
                continue
            }
            let digit = byte &- UInt8(ascii: "0")
            guard digit <= 9 else { continue }
            if digits.isEmpty && digit == 0 {
                if afterPoint { k &-= 1 }
            } else if digits.count < exactDigitLimit {
                digits.append(digit)
                if afterPoint { k &-= 1 }
            } else {
                if !afterPoint { k &+= 1 }
                if digit != 0 { sticky = true }
            }
        }
        // Trailing zeros only lengthen the big integers.
        while let last = digits.last, last == 0 {
            digits.removeLast()
            k &+= 1
        }
        guard !digits.isEmpty else { return 0 }
        k &+= exponent
        // The leading digit's power of ten: outside the range of doubles, decided at once
        // (the candidate, from the first 19 digits, already says so unless k is huge).
        let leading = k &+ digits.count &- 1
        if leading > 309 { return infinityBits }
        if leading < -325 { return 0 }

        let decimal = BigDecimalComparison(digits: digits, powerOfTen: k, sticky: sticky)
        var bits = Swift.min(candidate, infinityBits &- 1)
        var movedUp = false
        while true {
            let field = bits >> 52
            let fraction = bits & ((1 << 52) - 1)
            let mantissa = field == 0 ? fraction : fraction | (1 << 52)
            let power = field == 0 ? -1074 : Int(field) &- 1075
            let odd = mantissa & 1 == 1
            // The halfway point to the next double up: (2m + 1) × 2^(e − 1).
            let up = decimal.compare(toMultiple: 2 &* mantissa &+ 1, ofPowerOfTwo: power &- 1)
            if up > 0 || (up == 0 && odd) {
                bits &+= 1  // infinity after the largest finite double
                if bits == infinityBits { return bits }
                movedUp = true
                continue
            }
            if movedUp || bits == 0 { return bits }
            // The halfway point to the next double down: the binade below has half the spacing
            // when the mantissa is a power of two (except into the subnormals).
            let down =
                fraction == 0 && field > 1
                ? decimal.compare(toMultiple: 4 &* mantissa &- 1, ofPowerOfTwo: power &- 2)
                : decimal.compare(toMultiple: 2 &* mantissa &- 1, ofPowerOfTwo: power &- 1)
            if down < 0 || (down == 0 && odd) {
                bits &-= 1
                continue
            }
            return bits
        }
    }
}

/// An exact decimal `D × 10^k` (plus an infinitesimal when `sticky`) compared with numbers of the
/// form `M × 2^h`.
struct BigDecimalComparison {
    /// D × 5^k when k ≥ 0, else D.
    private let scaled: BigUInt
    private let powerOfTen: Int
    private let sticky: Bool

    init(digits: [UInt8], powerOfTen: Int, sticky: Bool) {
        var value = BigUInt(decimalDigits: digits)
        if powerOfTen > 0 { value.multiplyByPowerOfFive(powerOfTen) }
        self.scaled = value
        self.powerOfTen = powerOfTen
        self.sticky = sticky
    }

    /// −1, 0 or 1 as the decimal is below, equal to or above `multiple × 2^power`.
    func compare(toMultiple multiple: UInt64, ofPowerOfTwo power: Int) -> Int {
        // D × 5^k × 2^k against M × 2^h for k ≥ 0; D × 2^k against M × 5^−k × 2^h for k < 0.
        var left = scaled
        var right = BigUInt(multiple)
        if powerOfTen < 0 { right.multiplyByPowerOfFive(-powerOfTen) }
        let difference = powerOfTen &- power
        if difference > 0 {
            left.shiftLeft(difference)
        } else if difference < 0 {
            right.shiftLeft(-difference)
        }
        let order = BigUInt.compare(left, right)
        return order == 0 && sticky ? 1 : order
    }
}

/// A nonnegative integer of any size, little-endian 64-bit limbs without leading zero limbs:
/// just what the exact decimal comparison needs (and the tests of the power-of-five table).
public struct BigUInt: Sendable, Equatable {
    /// The limbs, least significant first; empty for zero.
    package private(set) var limbs: [UInt64]

    /// The integer `value`.
    public init(_ value: UInt64) {
        limbs = value == 0 ? [] : [value]
    }

    /// The integer whose limbs are `limbs` (least significant first).
    public init(limbs: [UInt64]) {
        self.limbs = limbs
        normalize()
    }

    /// The integer whose decimal digits (values 0–9, most significant first) are `digits`.
    public init(decimalDigits digits: [UInt8]) {
        limbs = []
        var start = 0
        while start < digits.count {
            let end = Swift.min(start + 19, digits.count)
            var chunk: UInt64 = 0
            var scale: UInt64 = 1
            for digit in digits[start..<end] {
                chunk = chunk &* 10 &+ UInt64(digit)
                scale &*= 10
            }
            multiply(by: scale)
            add(chunk)
            start = end
        }
    }

    private mutating func normalize() {
        while limbs.last == 0 { limbs.removeLast() }
    }

    /// Multiplies by a 64-bit factor.
    public mutating func multiply(by factor: UInt64) {
        if factor == 0 {
            limbs.removeAll()
            return
        }
        var carry: UInt64 = 0
        for i in limbs.indices {
            let product = limbs[i].multipliedFullWidth(by: factor)
            let (sum, overflow) = product.low.addingReportingOverflow(carry)
            limbs[i] = sum
            carry = product.high &+ (overflow ? 1 : 0)
        }
        if carry != 0 { limbs.append(carry) }
    }

    /// Adds a 64-bit term.
    public mutating func add(_ term: UInt64) {
        var carry = term
        var i = 0
        while carry != 0 {
            if i == limbs.count {
                limbs.append(carry)
                return
            }
            let (sum, overflow) = limbs[i].addingReportingOverflow(carry)
            limbs[i] = sum
            carry = overflow ? 1 : 0
            i += 1
        }
    }

    /// Multiplies by 5^`exponent` (`exponent` ≥ 0).
    public mutating func multiplyByPowerOfFive(_ exponent: Int) {
        // 5^27 is the largest power of five below 2^64.
        var remaining = exponent
        while remaining >= 27 {
            multiply(by: 7_450_580_596_923_828_125)
            remaining -= 27
        }
        var factor: UInt64 = 1
        for _ in 0..<Swift.max(remaining, 0) { factor &*= 5 }
        multiply(by: factor)
    }

    /// Multiplies by 2^`count` (`count` ≥ 0).
    public mutating func shiftLeft(_ count: Int) {
        guard count > 0, !limbs.isEmpty else { return }
        let whole = count / 64, bits = count % 64
        if bits != 0 {
            var carry: UInt64 = 0
            for i in limbs.indices {
                let limb = limbs[i]
                limbs[i] = limb << UInt64(bits) | carry
                carry = limb >> UInt64(64 - bits)
            }
            if carry != 0 { limbs.append(carry) }
        }
        if whole > 0 { limbs.insert(contentsOf: repeatElement(0, count: whole), at: 0) }
    }

    /// −1, 0 or 1 as `a` is less than, equal to or greater than `b`.
    public static func compare(_ a: BigUInt, _ b: BigUInt) -> Int {
        if a.limbs.count != b.limbs.count { return a.limbs.count < b.limbs.count ? -1 : 1 }
        var i = a.limbs.count - 1
        while i >= 0 {
            if a.limbs[i] != b.limbs[i] { return a.limbs[i] < b.limbs[i] ? -1 : 1 }
            i -= 1
        }
        return 0
    }
}
