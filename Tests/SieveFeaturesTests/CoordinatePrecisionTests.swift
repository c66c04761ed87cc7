#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import SieveTestSupport
import Testing

@testable import SieveFeatures
@testable import SieveEditing
@testable import SieveFormats

/// `FeatureWriterOptions.coordinatePrecision`: fixed-point text correctly rounded from the exact
/// binary value, checked against C's `printf("%.*f")` (glibc's, an independent implementation
/// that is exact for every double and rounds ties to even).
@Suite("Coordinate precision")
struct CoordinatePrecisionTests {
    /// Ours.
    static func fixed(_ x: Double, _ n: Int) -> String {
        var bytes: [UInt8] = []
        FixedPointText.append(x, fractionDigits: n, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The C library's `%.*f`, with trailing zeros and a trailing point dropped and `-0` as
    /// `0` (the documented post-processing).
    static func printf(_ x: Double, _ n: Int) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        _ = withVaList([Int32(n), x]) { arguments in
            buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, "%.*f", arguments) }
        }
        var text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        if text == "-0" { text = "0" }
        return text
    }

    /// Values worked out by hand and with Python's `'%.*f' % (n, x)`:
    /// `'%.2f' % 0.125 == '0.12'` (the tie goes to the even 2), `'%.2f' % 0.375 == '0.38'`,
    /// `'%.0f' % 2.5 == '2'`, `'%.0f' % 3.5 == '4'`, `'%.0f' % -0.5 == '-0'`,
    /// `'%.2f' % 1.005 == '1.00'` (1.005 is 1.00499999999999989…), `'%.17f' % 0.1 ==
    /// '0.10000000000000001'`, `'%.3f' % -0.0004 == '-0.000'`, `'%.1f' % 0.35 == '0.3'`
    /// (0.35 is 0.34999999999999997…), `'%.17f' % (1/3) == '0.33333333333333331'`.
    @Test func handWorkedValues() {
        let cases: [(Double, Int, String)] = [
            (0.125, 2, "0.12"), (0.375, 2, "0.38"), (2.5, 0, "2"), (3.5, 0, "4"), (-0.5, 0, "0"),
            (1.005, 2, "1"), (0.1, 17, "0.10000000000000001"), (-0.0004, 3, "0"), (0.25, 1, "0.2"),
            (0.35, 1, "0.3"), (1.0 / 3.0, 17, "0.33333333333333331"), (-73.98765432109876, 6, "-73.987654"),
            (123456.789012345, 5, "123456.78901"), (5e-324, 17, "0"), (1e-300, 17, "0"), (0.0, 3, "0"),
            (-0.0, 0, "0"), (12.5, 3, "12.5"), (-12.0, 5, "-12"), (9.995, 2, "9.99"), (9.9951, 2, "10"),
            (18_446_744_073_709_555_712, 17, "18446744073709555712"),
            (
                1e300, 0,
                "1000000000000000052504760255204420248704468581108159154915854115511802457988908195786371375080447864"
                    + "043704443832883878176942523235360430575644792184786706982848387200926575803737830233794788090059368"
                    + "953234970799945081119038967640880074652742780142494579258788820056842838115669472196386865459400540160"
            ),
        ]
        for (x, n, expected) in cases {
            #expect(Self.fixed(x, n) == expected, "\(x) to \(n) digits")
            #expect(Self.printf(x, n) == expected, "the oracle on \(x) to \(n) digits")
        }
    }

    /// Exact ties: x = odd / 2ⁿ⁺¹ is half-way between two multiples of 10⁻ⁿ, and nothing else
    /// is (a tie needs 5ⁿ to divide the numerator). Half of them round down to the even digit.
    /// Their neighbours one ulp away are not ties and must round away from them.
    @Test func tiesRoundToEven() {
        var generator = SeededGenerator(seed: 0x7135)
        for n in 0...17 {
            for _ in 0..<400 {
                let bits = Int.random(in: 1...(52 - n), using: &generator)
                let odd = Double(UInt64.random(in: 0..<(1 << UInt64(bits)), using: &generator) | 1)
                var x = odd / Double(sign: .plus, exponent: n + 1, significand: 1)
                if Bool.random(using: &generator) { x = -x }
                for value in [x, x.nextUp, x.nextDown] {
                    #expect(Self.fixed(value, n) == Self.printf(value, n), "\(value) to \(n) digits")
                }
            }
        }
    }

    /// Random doubles: every finite bit pattern (huge, tiny, subnormal), and coordinate-like
    /// values (degrees, metres) at every precision.
    @Test func randomValuesMatchPrintf() {
        var generator = SeededGenerator(seed: 0xF1C5)
        var checked = 0
        while checked < 6_000 {
            let x = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator))
            guard x.isFinite else { continue }
            let n = Int.random(in: 0...17, using: &generator)
            #expect(Self.fixed(x, n) == Self.printf(x, n), "\(x) (bits \(x.bitPattern)) to \(n) digits")
            checked += 1
        }
        for scale in [1.0, 180.0, 1e3, 2e7, 1e12, 1e-3, 1e-9] {
            for _ in 0..<3_000 {
                let x = Double.random(in: -scale...scale, using: &generator)
                let n = Int.random(in: 0...17, using: &generator)
                #expect(Self.fixed(x, n) == Self.printf(x, n), "\(x) to \(n) digits")
            }
        }
    }

    @Test func extremes() {
        let values: [Double] = [
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNormalMagnitude, .leastNonzeroMagnitude,
            1e300, -1e300, 1e-300, 1e22, 1e23, 4503599627370496, 4503599627370495.5, 9007199254740993,
            18446744073709551616, 18446744073709549568, 0.5, 1.5, 0.05, 0.005, 5e-18, 5.000000000000001e-18, 9.5e-18,
        ]
        for x in values {
            for n in 0...17 {
                #expect(Self.fixed(x, n) == Self.printf(x, n), "\(x) to \(n) digits")
            }
        }
    }

    /// The option's range: negative is 0, above 17 is 17.
    @Test func precisionIsClamped() {
        #expect(FeatureWriterOptions(coordinatePrecision: -3).coordinateFormat == .fixed(fractionDigits: 0))
        #expect(FeatureWriterOptions(coordinatePrecision: 99).coordinateFormat == .fixed(fractionDigits: 17))
        #expect(FeatureWriterOptions().coordinateFormat == .shortest)
    }
}
