import Foundation
import SieveTestSupport
import Testing
@testable import SieveGeometry
@testable import SieveJSON

// MARK: - Helpers

/// The double the JSON number scanner reads from `text` (a whole JSON number).
private func scanned(_ text: String) throws -> JSONNumber {
    var text = text
    let result: Result<(number: JSONNumber, end: Int), JSONNumberError> = text.withUTF8 { buffer in
        Result { () throws(JSONNumberError) -> (number: JSONNumber, end: Int) in try JSONReader.scanNumber(buffer, at: 0) }
    }
    let (number, end) = try result.get()
    #expect(end == text.utf8.count, "\(text.prefix(80)): stopped at \(end)")
    return number
}

/// Records an issue when the scanner and the standard library disagree on `text`.
private func expectSameAsStandardLibrary(_ text: String) throws {
    let expected = try #require(Double(text), "\(text.prefix(80))")
    let actual = try scanned(text).double
    #expect(
        actual.bitPattern == expected.bitPattern,
        "\(text.prefix(120)): read \(actual) (\(String(actual.bitPattern, radix: 16))), expected \(expected) (\(String(expected.bitPattern, radix: 16)))"
    )
}

/// How many random inputs each randomized test reads: `GEOSIEVE_NUMBER_TEST_COUNT`, or a number
/// that keeps a debug run to a few seconds.
private func randomCount(default defaultCount: Int) -> Int {
    if let setting = ProcessInfo.processInfo.environment["GEOSIEVE_NUMBER_TEST_COUNT"], let count = Int(setting), count > 0 {
        return count
    }
    return defaultCount
}

/// The seed of the randomized tests: `GEOSIEVE_NUMBER_TEST_SEED`, or a fixed one.
private func randomSeed(_ salt: UInt64) -> UInt64 {
    if let setting = ProcessInfo.processInfo.environment["GEOSIEVE_NUMBER_TEST_SEED"], let seed = UInt64(setting) {
        return seed &+ salt
    }
    return 0x5EED_0000 &+ salt
}

/// A nonnegative integer in base 10^9 (little-endian limbs): exact decimal expansions of
/// dyadic numbers, independently of the implementation's binary big integers.
private struct DecimalInteger {
    var limbs: [UInt64]  // each below 10^9

    init(_ value: UInt64) {
        limbs = []
        var rest = value
        repeat {
            limbs.append(rest % 1_000_000_000)
            rest /= 1_000_000_000
        } while rest > 0
    }

    /// Multiplies by a factor below 2^31.
    mutating func multiply(by factor: UInt64) {
        var carry: UInt64 = 0
        for i in limbs.indices {
            let product = limbs[i] * factor + carry
            limbs[i] = product % 1_000_000_000
            carry = product / 1_000_000_000
        }
        while carry > 0 {
            limbs.append(carry % 1_000_000_000)
            carry /= 1_000_000_000
        }
    }

    mutating func multiply(byPowerOf base: UInt64, _ exponent: Int) {
        var remaining = exponent
        // base^13 stays below 2^31 for base 2 and 5.
        let chunk: UInt64 = base == 2 ? 1 << 13 : 1_220_703_125
        while remaining >= 13 {
            multiply(by: chunk)
            remaining -= 13
        }
        for _ in 0..<remaining { multiply(by: base) }
    }

    var digits: String {
        var text = String(limbs.last ?? 0)
        for limb in limbs.dropLast().reversed() {
            let part = String(limb)
            text += String(repeating: "0", count: 9 - part.count) + part
        }
        return text
    }
}

/// The exact value of `odd × 2^power` as significant digits and the power of ten of the last
/// digit (no trailing zeros in the digits).
private func exactDecimal(_ odd: UInt64, timesTwoTo power: Int) -> (digits: String, lastPower: Int) {
    var value = DecimalInteger(odd)
    var lastPower = 0
    if power >= 0 {
        value.multiply(byPowerOf: 2, power)
    } else {
        // odd × 2^-n = odd × 5^n × 10^-n.
        value.multiply(byPowerOf: 5, -power)
        lastPower = power
    }
    var digits = value.digits
    while digits.count > 1, digits.last == "0" {
        digits.removeLast()
        lastPower += 1
    }
    return (digits, lastPower)
}

/// Scientific JSON text for the significant digits `digits` whose last digit has the power of ten
/// `lastPower`: `d.ddd…e±x`.
private func scientific(_ digits: String, lastPower: Int) -> String {
    let exponent = lastPower + digits.count - 1
    let head = digits.prefix(1), tail = digits.dropFirst()
    return tail.isEmpty ? "\(head)e\(exponent)" : "\(head).\(tail)e\(exponent)"
}

/// The halfway point between the nonnegative finite double `low` and the next one up, as
/// decimal texts: exactly, just below and just above.
private func halfway(above low: Double) -> (exact: String, below: String, above: String) {
    let bits = low.bitPattern
    let field = Int(bits >> 52), fraction = bits & ((1 << 52) - 1)
    let mantissa = field == 0 ? fraction : fraction | (1 << 52)
    let power = field == 0 ? -1074 : field - 1075
    // (2m + 1) × 2^(e − 1): the mantissa times two plus one, half a unit in the last place.
    var (digits, lastPower) = exactDecimal(2 * mantissa + 1, timesTwoTo: power - 1)
    let exact = scientific(digits, lastPower: lastPower)
    // At least 25 significant digits, so that 10^-12 of the last one is far below half a unit.
    if digits.count < 25 {
        lastPower -= 25 - digits.count
        digits += String(repeating: "0", count: 25 - digits.count)
    }
    // One less in the last digit (borrowing), followed by nines: just below.
    var lowered = Array(digits)
    var i = lowered.count - 1
    while lowered[i] == "0" {
        lowered[i] = "9"
        i -= 1
    }
    lowered[i] = Character(String((lowered[i].wholeNumberValue ?? 1) - 1))
    if lowered.first == "0" { lowered.removeFirst() }
    let below = scientific(String(lowered) + "999999999999", lastPower: lastPower - 12)
    let above = scientific(digits + "000000000001", lastPower: lastPower - 12)
    return (exact, below, above)
}

// MARK: - Tests

@Suite struct DecimalToDoubleTests {
    // MARK: Edge cases, reasoned

    @Test(arguments: [
        // The largest double, and texts that still round to it.
        ("1.7976931348623157e308", Double.greatestFiniteMagnitude),
        ("1.7976931348623158e308", Double.greatestFiniteMagnitude),
        ("17976931348623157" + String(repeating: "0", count: 292), Double.greatestFiniteMagnitude),
        // Beyond the overflow threshold (max + half a unit ≈ 1.797693134862315807937e308).
        ("1.797693134862315808e308", Double.infinity),
        ("1.7976931348623159e308", Double.infinity),
        ("1e309", Double.infinity),
        ("1e400", Double.infinity),
        ("-1e400", -Double.infinity),
        ("1e99999999999999999999999999", Double.infinity),
        // The smallest subnormal, and half of it: 2^-1075 = 2.4703282292062327208…e-324.
        ("4.9406564584124654e-324", Double.leastNonzeroMagnitude),
        ("5e-324", Double.leastNonzeroMagnitude),
        ("3e-324", Double.leastNonzeroMagnitude),
        ("2.4703282292062328e-324", Double.leastNonzeroMagnitude),
        ("2.4703282292062327209e-324", Double.leastNonzeroMagnitude),
        // Below the half: zero (and at the half itself, ties to even: zero; see the tie tests).
        ("2.4703282292062327e-324", 0.0),
        ("2.47032822920623272e-324", 0.0),
        ("1e-324", 0.0),
        ("1e-400", 0.0),
        ("-1e-400", -0.0),
        ("1e-99999999999999999999999999", 0.0),
        // The normal/subnormal boundary: least normal 2.2250738585072013831e-308, largest
        // subnormal 2.2250738585072008890e-308, their midpoint 2.225073858507201136e-308.
        ("2.2250738585072014e-308", Double.leastNormalMagnitude),
        ("2.2250738585072012e-308", Double.leastNormalMagnitude),
        ("2.2250738585072011e-308", Double.leastNormalMagnitude.nextDown),
        ("2.225073858507200889e-308", Double.leastNormalMagnitude.nextDown),
        ("2.2250738585072009e-308", Double.leastNormalMagnitude.nextDown),
        // 2^53 + 1 lies halfway between 2^53 (even mantissa) and 2^53 + 2: ties to even.
        ("9007199254740993", 9_007_199_254_740_992),
        ("9007199254740993.0", 9_007_199_254_740_992),
        ("9.007199254740993e15", 9_007_199_254_740_992),
        ("9007199254740993.000000000000000000000001", 9_007_199_254_740_994),
        ("9007199254740992.999999999999999999999999", 9_007_199_254_740_992),
        // 2^53 + 3 lies halfway between 2^53 + 2 (odd mantissa) and 2^53 + 4.
        ("9007199254740995", 9_007_199_254_740_996),
        ("9007199254740995e0", 9_007_199_254_740_996),
        // Zeros of every form.
        ("0", 0.0),
        ("-0", -0.0),
        ("-0.0", -0.0),
        ("0e999999", 0.0),
        ("-0e-999999", -0.0),
        ("0.000000000000000000000000000000000000000000", 0.0),
        // Integers beyond Int64 and beyond 19 digits.
        ("18446744073709551616", 18_446_744_073_709_551_616),
        ("100000000000000000000", 1e20),
        ("123456789012345678901234567890", 1.2345678901234568e29),
        // Clinger's fast path and its edges.
        ("1e22", 1e22),
        ("1e23", 1e23),
        ("0.1", 0.1),
        ("123456789e-22", 1.23456789e-14),
        ("9007199254740992e22", 9.007199254740992e37),
        ("1e37", 1e37),
    ] as [(String, Double)])
    func edgeCases(text: String, expected: Double) throws {
        let actual = try scanned(text).double
        #expect(actual.bitPattern == expected.bitPattern, "\(text.prefix(80)) → \(actual)")
        // Also the standard library's answer, for the finite-grammar texts it reads.
        #expect(Double(text)?.bitPattern == expected.bitPattern, "standard library on \(text.prefix(80))")
    }

    @Test func longRunsOfZeros() throws {
        let zeros = String(repeating: "0", count: 100_000)
        let cases: [(String, Double)] = [
            ("0.\(zeros)1e100001", 1.0),
            ("0.\(zeros)1e100000", 0.1),
            ("0.\(zeros)1", 0.0),
            ("1\(zeros)e-100000", 1.0),
            ("1\(zeros)e-99999", 10.0),
            ("1\(zeros)", .infinity),
            ("1.\(zeros)1", 1.0),
            ("1.\(zeros)", 1.0),
            ("-7.\(zeros)e-2", -0.07),
            ("0.\(zeros)", 0.0),
        ]
        for (text, expected) in cases {
            let actual = try scanned(text).double
            #expect(actual.bitPattern == expected.bitPattern, "\(text.prefix(40))…: \(actual)")
        }
        // Leading fraction zeros before significant digits beyond the fast path.
        let leading = String(repeating: "0", count: 400)
        try expectSameAsStandardLibrary("0.\(leading)12345678901234567890123e400")
        try expectSameAsStandardLibrary("0.\(leading)4940656458412465441765687928682213723651e76")
    }

    // MARK: Halfway points, derived exactly

    /// The doubles whose halfway points to the next double up the tie tests read.
    private static func tieBases(count: Int) -> [Double] {
        var bases: [Double] = [
            0, .leastNonzeroMagnitude, Double.leastNormalMagnitude.nextDown, .leastNormalMagnitude,
            Double.greatestFiniteMagnitude.nextDown, 1, Double(1).nextDown, 0.1, 9_007_199_254_740_992,
            9_007_199_254_740_994, 1e23, 1e-300, Double(bitPattern: 3),
        ]
        // Just below powers of two: the halfway point to the binade above.
        for exponent in stride(from: -1074, through: 1023, by: 37) {
            bases.append(Double(sign: .plus, exponent: exponent, significand: 1).nextDown)
        }
        var random = SeededGenerator(seed: randomSeed(1))
        // Doubles in [2^50, 2^53) and [2^53, 2^70): halfway points of at most 19 significant
        // digits with 1–3 decimals, and integer ones (the 19-digit product is exact or undecided).
        for _ in 0..<200 {
            bases.append(Double(sign: .plus, exponent: 50 + random.int(3), significand: 1 + random.unit()))
            bases.append(Double(sign: .plus, exponent: 53 + random.int(17), significand: 1 + random.unit()))
        }
        while bases.count < count {
            let value = Double(bitPattern: random.next() >> 1)
            if value.isFinite && value < .greatestFiniteMagnitude { bases.append(value) }
        }
        return bases
    }

    @Test func halfwayPointsRoundToEven() throws {
        for low in Self.tieBases(count: randomCount(default: 600) / 100 + 300) {
            let high = low.nextUp
            let even = low.bitPattern & 1 == 0 ? low : high
            let (exact, below, above) = halfway(above: low)
            let cases = [(exact, even), (below, low), (above, high)]
            for (text, expected) in cases {
                let actual = try scanned(text).double
                #expect(actual.bitPattern == expected.bitPattern, "\(text.prefix(100)) → \(actual), expected \(expected)")
                let negative = try scanned("-" + text).double
                #expect(negative.bitPattern == (-expected).bitPattern, "-\(text.prefix(100))")
            }
        }
    }

    @Test func theOverflowThreshold() throws {
        // Halfway between the largest double and 2^1024: ties to even goes up (the largest
        // double's mantissa is odd), so exactly the threshold overflows.
        let (exact, below, above) = halfway(above: .greatestFiniteMagnitude)
        #expect(exact.hasPrefix("1.7976931348623158079372897140530341507993413271003782693617377898044496829276475094664901797758720709633028641669288791"))
        #expect(try scanned(exact).double == .infinity)
        #expect(try scanned(below).double == .greatestFiniteMagnitude)
        #expect(try scanned(above).double == .infinity)
        #expect(try scanned("-" + exact).double == -.infinity)
    }

    @Test func halfOfTheSmallestSubnormalIsZero() throws {
        // 2^-1075, all 751 significant digits: a tie between 0 (even) and 2^-1074.
        let (exact, below, above) = halfway(above: 0)
        #expect(exact.hasPrefix("2.4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125e-324"))
        #expect(try scanned(exact).double.bitPattern == 0)
        #expect(try scanned(below).double.bitPattern == 0)
        #expect(try scanned(above).double == .leastNonzeroMagnitude)
        // The tie broken by a digit far beyond the 800 kept: still the smallest subnormal.
        let digits = exact.prefix(while: { $0 != "e" })
        let farAbove = digits + String(repeating: "0", count: 2000) + "1e-324"
        #expect(try scanned(String(farAbove)).double == .leastNonzeroMagnitude)
        let farZeros = digits + String(repeating: "0", count: 2000) + "e-324"
        #expect(try scanned(String(farZeros)).double.bitPattern == 0)
    }

    // MARK: Random inputs against the standard library

    @Test func shortestAndLongerPrintsOfRandomDoubles() throws {
        var random = SeededGenerator(seed: randomSeed(2))
        let count = randomCount(default: 60_000)
        for i in 0..<count {
            var value = Double(bitPattern: random.next())
            if !value.isFinite { value = Double(bitPattern: random.next() >> 2) }
            let shortest = "\(value)"
            switch i % 3 {
            case 0:
                try expectSameAsStandardLibrary(shortest)
            case 1:
                // 1 to 25 significant digits, correctly rounded by printf.
                let digits = 1 + random.int(25)
                try expectSameAsStandardLibrary(String(format: "%.\(digits - 1)e", value))
            default:
                // The shortest print with random extra digits before the exponent.
                var extra = ""
                for _ in 0..<(1 + random.int(30)) { extra.append(Character(Unicode.Scalar(UInt8(48 + random.int(10))))) }
                let mantissa = String(shortest.prefix(while: { $0 != "e" }))
                let exponent = String(shortest.dropFirst(mantissa.count))
                try expectSameAsStandardLibrary(mantissa + extra + exponent)
            }
        }
    }

    @Test func randomDigitStrings() throws {
        var random = SeededGenerator(seed: randomSeed(3))
        let count = randomCount(default: 60_000)
        for _ in 0..<count {
            let length = 1 + random.int(40)
            var digits = ""
            for _ in 0..<length { digits.append(Character(Unicode.Scalar(UInt8(48 + random.int(10))))) }
            // The decimal point: none, or after 0 ... length digits ("0." + digits when 0).
            var text: String
            let point = random.int(length + 2)
            if point == 0 {
                text = "0." + digits
            } else if point > length {
                text = digits
            } else {
                text = digits.prefix(point) + "." + digits.dropFirst(point)
            }
            // JSON forbids leading zeros: drop them from the integer part.
            while text.count > 1, text.first == "0", let second = text.dropFirst().first, second != "." {
                text.removeFirst()
            }
            if text.hasSuffix(".") { text.removeLast() }
            if random.chance(80) {
                let exponent = random.int(-350...330)
                let marker = random.chance(50) ? "e" : "E"
                text += marker + (exponent >= 0 && random.chance(50) ? "+" : "") + String(exponent)
            }
            if random.chance(30) { text = "-" + text }
            try expectSameAsStandardLibrary(text)
        }
    }

    @Test func nearHalfwayPrints() throws {
        // The exact halfway points cut to 17–30 significant digits: inputs the 19-digit
        // product cannot always decide.
        var random = SeededGenerator(seed: randomSeed(4))
        let count = randomCount(default: 60_000) / 30 + 500
        for _ in 0..<count {
            let low = Double(bitPattern: random.next() >> 1)
            guard low.isFinite, low < .greatestFiniteMagnitude else { continue }
            let (exact, _, _) = halfway(above: low)
            let mantissa = String(exact.prefix(while: { $0 != "e" }))
            let exponent = String(exact.dropFirst(mantissa.count))
            let keep = Swift.min(mantissa.count, 18 + random.int(14))
            let kept = String(mantissa.prefix(keep))
            try expectSameAsStandardLibrary(kept + exponent)
            // Rounded up in the last kept digit, when that is not a nine.
            if let last = kept.last, let digit = last.wholeNumberValue, digit < 9, keep > 2 {
                try expectSameAsStandardLibrary(String(kept.dropLast()) + String(digit + 1) + exponent)
            }
        }
    }

    // MARK: The table and the exact path's integers

    @Test func powersOfFiveTableIsExact() {
        // For every q: 2^127 ≤ T < 2^128 and T × 2^g ≤ 5^q < (T + 1) × 2^g, with the g the
        // conversion computes, (q × 152170) >> 16 − 127, checked with exact integers.
        let table = DecimalToDouble.powersOfFive
        #expect(table.count == 2 * (DecimalToDouble.largestPowerOfFive - DecimalToDouble.smallestPowerOfFive + 1))
        for q in DecimalToDouble.smallestPowerOfFive...DecimalToDouble.largestPowerOfFive {
            let index = 2 * (q - DecimalToDouble.smallestPowerOfFive)
            let high = table[index], low = table[index + 1]
            #expect(high >> 63 == 1, "5^\(q): top bit")
            let g = ((q * 152_170) >> 16) - 127
            var truncated = BigUInt(limbs: [low, high])
            var next = truncated
            next.add(1)
            var power = BigUInt(1)
            if q >= 0 {
                power.multiplyByPowerOfFive(q)
            }
            // Bring both sides to integers: T × 2^g against 5^q.
            if q < 0 {
                // T × 2^g ≤ 5^q ⟺ T × 5^-q ≤ 2^-g (g < 0 here).
                truncated.multiplyByPowerOfFive(-q)
                next.multiplyByPowerOfFive(-q)
                power.shiftLeft(-g)
            } else if g >= 0 {
                truncated.shiftLeft(g)
                next.shiftLeft(g)
            } else {
                power.shiftLeft(-g)
            }
            #expect(BigUInt.compare(truncated, power) <= 0, "5^\(q): T too large")
            #expect(BigUInt.compare(power, next) < 0, "5^\(q): T too small")
            if q >= 0 && q <= 55 {
                #expect(BigUInt.compare(truncated, power) == 0, "5^\(q) must be exact")
            }
        }
    }

    @Test func bigIntegers() {
        #expect(BigUInt(decimalDigits: Array("18446744073709551616".utf8.map { $0 - 48 })).limbs == [0, 1])
        #expect(BigUInt(decimalDigits: Array("340282366920938463463374607431768211455".utf8.map { $0 - 48 })).limbs == [.max, .max])
        var value = BigUInt(1)
        value.multiplyByPowerOfFive(28)
        // 5^28 = 37252902984619140625.
        #expect(value == BigUInt(decimalDigits: Array("37252902984619140625".utf8.map { $0 - 48 })))
        value.shiftLeft(70)
        var expected = BigUInt(decimalDigits: Array("37252902984619140625".utf8.map { $0 - 48 }))
        for _ in 0..<70 { expected.multiply(by: 2) }
        #expect(value == expected)
        #expect(BigUInt.compare(value, expected) == 0)
        expected.add(1)
        #expect(BigUInt.compare(value, expected) == -1)
        #expect(BigUInt.compare(expected, value) == 1)
        #expect(BigUInt(0).limbs.isEmpty)
    }

    // MARK: The scanner

    @Test func eightDigitsAtOnce() {
        var random = SeededGenerator(seed: randomSeed(6))
        func word(_ bytes: [UInt8]) -> UInt64 {
            bytes.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        }
        for _ in 0..<20_000 {
            let digits = (0..<8).map { _ in UInt8(random.int(10)) }
            let expected = digits.reduce(UInt64(0)) { $0 * 10 + UInt64($1) }
            var bytes = digits.map { $0 + 48 }
            #expect(DecimalSignificand.eightDigits(word(bytes)) == expected)
            // Any one byte that is not a digit (the digits' neighbours, high bytes, NUL).
            let position = random.int(8)
            let others: [UInt8] = [0x2F, 0x3A, 0x00, 0x20, 0x2E, 0x65, 0x45, 0x2D, 0xFA, 0xFF, 0xB0, 0x39 + 0x80]
            bytes[position] = others[random.int(others.count)]
            #expect(DecimalSignificand.eightDigits(word(bytes)) == nil, "\(bytes)")
        }
    }

    @Test(arguments: [
        ("12", 12.0, true, Int64(12)),
        ("-0", -0.0, true, Int64(0)),
        ("-9223372036854775808", -9_223_372_036_854_775_808, true, Int64.min),
        ("9223372036854775807", 0x1p63, true, Int64.max),
        ("9223372036854775808", 9_223_372_036_854_775_808, true, nil),
        ("-9223372036854775809", -0x1p63, true, nil),
        ("9999999999999999999", 1e19, true, nil),
        ("12345678901234567890", 12_345_678_901_234_567_168, true, nil),
        ("100000000000000000000", 1e20, true, nil),
        ("1.0", 1.0, false, nil),
        ("1e2", 100.0, false, nil),
        ("1E+2", 100.0, false, nil),
        ("-1.5e-3", -0.0015, false, nil),
    ] as [(String, Double, Bool, Int64?)])
    func lexicalKinds(text: String, double: Double, isInteger: Bool, int64: Int64?) throws {
        let number = try scanned(text)
        #expect(number.double.bitPattern == double.bitPattern)
        #expect(number.isIntegerLiteral == isInteger)
        #expect(number.int64 == int64)
    }

    @Test(arguments: [
        ("", 0, "unexpected end of input"),
        ("-", 1, "unexpected end of input"),
        ("-a", 1, "expected a digit, found 'a'"),
        ("x", 0, "expected a digit, found 'x'"),
        ("- 1", 1, "expected a digit, found byte 0x20"),
        ("01", 0, "invalid number: leading zeros are not allowed"),
        ("-00", 0, "invalid number: leading zeros are not allowed"),
        ("1.", 2, "unexpected end of input"),
        ("1.x", 2, "invalid number: expected a digit after '.'"),
        ("1.e5", 2, "invalid number: expected a digit after '.'"),
        ("1e", 2, "unexpected end of input"),
        ("1e+", 3, "unexpected end of input"),
        ("1e+x", 3, "invalid number: expected a digit in the exponent"),
        ("1E-]", 3, "invalid number: expected a digit in the exponent"),
    ] as [(String, Int, String)])
    func scannerErrors(text: String, offset: Int, message: String) {
        #expect(throws: JSONNumberError(message, at: offset)) { try scanned(text) }
    }

    @Test func scansInsideABuffer() throws {
        var text = "[ 3.25,-17e1]"
        try text.withUTF8 { buffer in
            let first = try JSONReader.scanNumber(buffer, at: 2)
            #expect(first.number.double == 3.25 && first.end == 6)
            let second = try JSONReader.scanNumber(buffer, at: 7)
            #expect(second.number.double == -170 && second.end == 12)
            #expect(throws: JSONNumberError("expected a digit, found ']'", at: 12)) {
                try JSONReader.scanNumber(buffer, at: 12)
            }
            #expect(throws: JSONNumberError("unexpected end of input", at: 13)) {
                try JSONReader.scanNumber(buffer, at: 13)
            }
        }
        // Through the reader: positions count characters, not bytes.
        #expect(throws: GeometryError(.invalidJSON, "invalid number: expected a digit after '.'", position: 10)) {
            try JSONReader.parse("[\"\u{E9}\u{E9}\", 1.x]")
        }
        if case .array(let values, _) = try JSONReader.parse("[\"\u{E9}\", 1.5e1]") {
            #expect(values.last?.doubleValue == 15)
        } else {
            Issue.record("not an array")
        }
    }

    // MARK: WKT numbers

    @Test func wktNumbersUseTheSameConversion() throws {
        // The WKT grammar: a sign, `.5`, `5.`, leading zeros; long and tie inputs too.
        var literals = [
            "+.5", "5.", ".5e3", "-.0", "+0012.50e-1", "-00.000", "1.e-3", "+9007199254740993", "00009007199254740995",
            "2.4703282292062328e-324", "2.2250738585072012e-308", "1.7976931348623157e308",
            "0.000000000000000000000000000000000000000000000000000000000000000000000001234567890123456789012345",
            "123456789012345678901234567890123456789012345678901234567890",
        ]
        literals.append(halfway(above: 1).above)
        literals.append(halfway(above: Double.leastNormalMagnitude.nextDown).exact)
        var random = SeededGenerator(seed: randomSeed(5))
        for _ in 0..<2000 {
            let value = Double(bitPattern: random.next())
            guard value.isFinite else { continue }
            literals.append(String(format: "%.\(random.int(30))e", value))
        }
        for literal in literals {
            let expected = try #require(Double(literal), "\(literal)")
            let geometry = try Geometry(wkt: "POINT (\(literal) 0)")
            guard case .point(let point) = geometry else {
                Issue.record("not a point: \(literal)")
                continue
            }
            #expect(point.x.bitPattern == expected.bitPattern, "\(literal.prefix(80)) → \(point.x)")
        }
        // Grammar kept: no digits is not a number, beyond the range is an error.
        #expect(throws: GeometryError.self) { try Geometry(wkt: "POINT (. 0)") }
        #expect(throws: GeometryError.self) { try Geometry(wkt: "POINT (+ 0)") }
        #expect(throws: GeometryError.self) { try Geometry(wkt: "POINT (1e 0)") }
        #expect(throws: GeometryError.self) { try Geometry(wkt: "POINT (1.7976931348623159e308 0)") }
        #expect(throws: GeometryError.self) { try Geometry(wkt: "POINT (1x 0)") }
    }
}
