/// The orientation of three points, decided exactly for every finite `Double` input: the sign of
/// `(bx − ax)(cy − ay) − (by − ay)(cx − ax)`, positive when a, b, c turn counter-clockwise.
///
/// The determinant is evaluated in floating point with a bound on its rounding error first (the
/// usual case, a handful of operations), again on the inputs scaled by a power of two when an
/// intermediate overflows or falls into the subnormal range; only when the value is within the
/// bound of zero is it computed exactly: with floating-point expansions for inputs of moderate
/// magnitude, in integer arithmetic otherwise (every finite double is an integer times a power of
/// two, so the determinant is an integer times a common power of two, and its sign is that
/// integer's).
enum ExactOrientation {
    /// −1 (clockwise), 0 (collinear) or 1 (counter-clockwise).
    static func sign(
        _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double
    ) -> Int {
        let dx1 = bx - ax, dy2 = cy - ay, dy1 = by - ay, dx2 = cx - ax
        // A difference of doubles is zero only when they are equal, so these zeros are exact.
        if (dx1 == 0 || dy2 == 0) && (dy1 == 0 || dx2 == 0) { return 0 }
        let left = dx1 * dy2, right = dy1 * dx2
        let determinant = left - right
        let magnitude = abs(left) + abs(right)
        // Each difference is rounded once (or exact), each product once, the subtraction once: a
        // relative error of under 3.4e-16 of |left| + |right| while the products are normal
        // numbers. Subnormal products add absolute errors up to 2^-1075 each, which the bound
        // covers only above 2^-1000; there, and on overflow, decide exactly.
        if determinant.isFinite, magnitude.isFinite, magnitude >= 0x1p-1000,
            abs(determinant) > 0x1p-51 * magnitude
        {
            return determinant > 0 ? 1 : -1
        }
        return scaledSign(ax, ay, bx, by, cx, cy) ?? expansionSign(ax, ay, bx, by, cx, cy)
            ?? exactSign(ax, ay, bx, by, cx, cy)
    }

    /// The floating-point evaluation again, on the six values multiplied by the power of two
    /// that brings the largest near 2^500, so that no difference or product overflows and none
    /// underflows that matters: the sign when the value clears the rounding bound plus the
    /// error of scaling (values scaled down below 2^-1022 lose bits, at most 2^-1075 each);
    /// `nil` when it does not (nearly collinear points), or when nothing needed scaling.
    static func scaledSign(
        _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double
    ) -> Int? {
        let largest = Swift.max(abs(ax), abs(ay), abs(bx), abs(by), abs(cx), abs(cy))
        guard largest > 0, largest > 0x1p500 || largest < 0x1p-400 else { return nil }
        let scale = Double(sign: .plus, exponent: 500 - Int(largest.exponent), significand: 1)
        let sx = [ax, bx, cx].map { $0 * scale }, sy = [ay, by, cy].map { $0 * scale }
        let dx1 = sx[1] - sx[0], dy2 = sy[2] - sy[0], dy1 = sy[1] - sy[0], dx2 = sx[2] - sx[0]
        let left = dx1 * dy2, right = dy1 * dx2
        let determinant = left - right
        let magnitude = abs(left) + abs(right)
        // Scaling up is exact; scaling down moves each value by at most δ = 2^-1075, each
        // difference by 2δ, each product by 2δ times the other factor (plus 4δ²).
        let inputError = scale < 1 ? 0x1p-1074 * (abs(dx1) + abs(dy2) + abs(dy1) + abs(dx2)) + 0x1p-1070 : 0
        let bound = 0x1p-51 * magnitude + inputError
        guard determinant.isFinite, magnitude.isFinite, magnitude >= 0x1p-1000, abs(determinant) > bound else { return nil }
        return determinant > 0 ? 1 : -1
    }

    /// The sign computed exactly with floating-point expansions (sums of doubles that do not
    /// overlap), when every input is 0 or of magnitude in 2^-450 … 2^500: then the inputs are
    /// multiples of 2^-502, every difference splits exactly into a rounded value and its error,
    /// every product of those into a rounded value and its error (`fma`), no partial result
    /// overflows or loses bits below the subnormal range, and the sum of the sixteen partial
    /// products is formed exactly. `nil` outside that range.
    static func expansionSign(
        _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double
    ) -> Int? {
        for value in [ax, ay, bx, by, cx, cy] where value != 0 {
            let magnitude = abs(value)
            guard magnitude >= 0x1p-450, magnitude <= 0x1p500 else { return nil }
        }
        let dx1 = twoDifference(bx, ax), dy2 = twoDifference(cy, ay)
        let dy1 = twoDifference(by, ay), dx2 = twoDifference(cx, ax)
        var expansion: [Double] = []
        expansion.reserveCapacity(16)
        for (u, v, sign) in [(dx1, dy2, 1.0), (dy1, dx2, -1.0)] {
            for a in [u.0, u.1] {
                for b in [v.0, v.1] {
                    let product = a * b
                    grow(&expansion, sign * product)
                    grow(&expansion, sign * (-product).addingProduct(a, b))
                }
            }
        }
        for component in expansion.reversed() where component != 0 { return component > 0 ? 1 : -1 }
        return 0
    }

    /// `a − b` as a rounded value and its exact error (Knuth's two-difference).
    @inline(__always)
    private static func twoDifference(_ a: Double, _ b: Double) -> (Double, Double) {
        let x = a - b
        let bVirtual = a - x
        let aVirtual = x + bVirtual
        return (x, (a - aVirtual) + (bVirtual - b))
    }

    /// Adds `value` to a non-overlapping expansion (smallest component first), exactly.
    @inline(__always)
    private static func grow(_ expansion: inout [Double], _ value: Double) {
        var q = value
        var kept = 0
        for i in 0..<expansion.count {
            let h = expansion[i]
            let sum = q + h
            let hVirtual = sum - q
            let qVirtual = sum - hVirtual
            let error = (q - qVirtual) + (h - hVirtual)
            q = sum
            if error != 0 {
                expansion[kept] = error
                kept += 1
            }
        }
        expansion.removeLast(expansion.count - kept)
        expansion.append(q)
    }

    /// The sign computed in integer arithmetic.
    static func exactSign(
        _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double
    ) -> Int {
        let values = [ax, ay, bx, by, cx, cy]
        // Every finite double is `significand · 2^exponent` with an integer significand below
        // 2^53 and exponent ≥ −1074; scale all six to the smallest exponent among them.
        let parts = values.map(integerParts)
        let base = parts.map(\.exponent).min() ?? 0
        let n = parts.map { BigInteger(significand: $0.significand, shift: $0.exponent - base, negative: $0.negative) }
        let dx1 = n[2] - n[0], dy2 = n[5] - n[1]
        let dy1 = n[3] - n[1], dx2 = n[4] - n[0]
        return (dx1 * dy2 - dy1 * dx2).signum
    }

    /// `value` as `±significand · 2^exponent` with an integer significand (0 for zero).
    private static func integerParts(_ value: Double) -> (significand: UInt64, exponent: Int, negative: Bool) {
        guard value != 0 else { return (0, -1074, false) }
        let bits = value.bitPattern
        let fraction = bits & ((1 << 52) - 1)
        let biased = Int((bits >> 52) & 0x7FF)
        let negative = bits >> 63 == 1
        if biased == 0 { return (fraction, -1074, negative) }  // subnormal
        return (fraction | (1 << 52), biased - 1075, negative)
    }
}

/// A signed integer of any size, with just the operations the exact orientation needs. Its
/// magnitude is stored in 32-bit limbs, least significant first, without leading zero limbs.
struct BigInteger {
    private var limbs: [UInt32]
    private var negative: Bool

    private init(limbs: [UInt32], negative: Bool) {
        var limbs = limbs
        while limbs.last == 0 { limbs.removeLast() }
        self.limbs = limbs
        self.negative = negative && !limbs.isEmpty
    }

    /// `±significand · 2^shift` (`shift` ≥ 0).
    init(significand: UInt64, shift: Int, negative: Bool) {
        var limbs = [UInt32](repeating: 0, count: shift / 32)
        let bitShift = UInt64(shift % 32)
        // The significand has at most 53 bits, so shifted by under 32 it fits in 85 bits.
        let low = significand << bitShift
        let high = bitShift == 0 ? 0 : significand >> (64 - bitShift)
        limbs.append(UInt32(truncatingIfNeeded: low))
        limbs.append(UInt32(truncatingIfNeeded: low >> 32))
        limbs.append(UInt32(truncatingIfNeeded: high))
        self.init(limbs: limbs, negative: negative)
    }

    /// −1, 0 or 1.
    var signum: Int { limbs.isEmpty ? 0 : (negative ? -1 : 1) }

    private static func compareMagnitudes(_ a: [UInt32], _ b: [UInt32]) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        for i in stride(from: a.count - 1, through: 0, by: -1) where a[i] != b[i] {
            return a[i] < b[i] ? -1 : 1
        }
        return 0
    }

    private static func addMagnitudes(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        var result: [UInt32] = []
        result.reserveCapacity(Swift.max(a.count, b.count) + 1)
        var carry: UInt64 = 0
        for i in 0..<Swift.max(a.count, b.count) {
            let sum = UInt64(i < a.count ? a[i] : 0) + UInt64(i < b.count ? b[i] : 0) + carry
            result.append(UInt32(truncatingIfNeeded: sum))
            carry = sum >> 32
        }
        if carry != 0 { result.append(UInt32(carry)) }
        return result
    }

    /// `a − b` for `a` ≥ `b`.
    private static func subtractMagnitudes(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        var result: [UInt32] = []
        result.reserveCapacity(a.count)
        var borrow: Int64 = 0
        for i in 0..<a.count {
            var difference = Int64(a[i]) - Int64(i < b.count ? b[i] : 0) - borrow
            borrow = difference < 0 ? 1 : 0
            if difference < 0 { difference += 1 << 32 }
            result.append(UInt32(difference))
        }
        return result
    }

    static func + (a: BigInteger, b: BigInteger) -> BigInteger {
        if a.negative == b.negative { return BigInteger(limbs: addMagnitudes(a.limbs, b.limbs), negative: a.negative) }
        switch compareMagnitudes(a.limbs, b.limbs) {
        case 0: return BigInteger(limbs: [], negative: false)
        case 1: return BigInteger(limbs: subtractMagnitudes(a.limbs, b.limbs), negative: a.negative)
        default: return BigInteger(limbs: subtractMagnitudes(b.limbs, a.limbs), negative: b.negative)
        }
    }

    static prefix func - (a: BigInteger) -> BigInteger { BigInteger(limbs: a.limbs, negative: !a.negative) }

    static func - (a: BigInteger, b: BigInteger) -> BigInteger { a + (-b) }

    static func * (a: BigInteger, b: BigInteger) -> BigInteger {
        guard !a.limbs.isEmpty, !b.limbs.isEmpty else { return BigInteger(limbs: [], negative: false) }
        var result = [UInt32](repeating: 0, count: a.limbs.count + b.limbs.count)
        for i in 0..<a.limbs.count {
            var carry: UInt64 = 0
            let x = UInt64(a.limbs[i])
            for j in 0..<b.limbs.count {
                let t = x * UInt64(b.limbs[j]) + UInt64(result[i + j]) + carry
                result[i + j] = UInt32(truncatingIfNeeded: t)
                carry = t >> 32
            }
            result[i + b.limbs.count] = UInt32(carry)
        }
        return BigInteger(limbs: result, negative: a.negative != b.negative)
    }
}
