import SieveTestSupport
import Testing

@testable import SieveGEOS

/// The exact orientation predicate against integer arithmetic and against constructions whose
/// answer is known, over the whole range of `Double`: every evaluation path (the floating-point
/// filter, the expansion arithmetic, the integer arithmetic) gives the true sign.
@Suite("Exact orientation")
struct ExactOrientationTests {
    /// The sign of the determinant of small integers, computed in `Int`.
    static func integerSign(_ p: [Int]) -> Int {
        let d = (p[2] - p[0]) * (p[5] - p[1]) - (p[3] - p[1]) * (p[4] - p[0])
        return d.signum()
    }

    /// Small integers scaled by one power of two (which does not change the sign), from the
    /// subnormal range to near the largest `Double`: nearly every triple is close to collinear
    /// relative to its size, and many are exactly collinear.
    @Test func scaledIntegersGiveTheIntegerSign() {
        var random = SeededGenerator(state: 42)
        var collinear = 0
        for round in 0..<20_000 {
            let span = [3, 50, 1 << 20][round % 3]
            let p = (0..<6).map { _ in Int.random(in: -span...span, using: &random) }
            let exponent = Int.random(in: -1074...(1003 - 2 * 21), using: &random)
            let scale = Double(sign: .plus, exponent: exponent, significand: 1)
            let v = p.map { Double($0) * scale }
            // Skip scalings that lost bits (subnormal results of large integers).
            guard zip(p, v).allSatisfy({ Double($0.0) == $0.1 / scale }) else { continue }
            let expected = Self.integerSign(p)
            if expected == 0 { collinear += 1 }
            #expect(ExactOrientation.sign(v[0], v[1], v[2], v[3], v[4], v[5]) == expected, "\(p) · 2^\(exponent)")
            #expect(ExactOrientation.exactSign(v[0], v[1], v[2], v[3], v[4], v[5]) == expected, "\(p) · 2^\(exponent)")
            if let sign = ExactOrientation.expansionSign(v[0], v[1], v[2], v[3], v[4], v[5]) {
                #expect(sign == expected, "\(p) · 2^\(exponent)")
            }
        }
        #expect(collinear > 500)
    }

    /// Three points exactly on one line, the third moved by one unit in the last place up or
    /// down: 0, then the side it was moved to, wherever the line is, however long its segments
    /// and however far apart the magnitudes of the coordinates.
    @Test func perturbedCollinearTriples() {
        let cases: [(Double, Double, Double, Double)] = [
            // a, direction (dx, dy) and the multiple t; b = a + d, c = a + t·d, all exact.
            (0, 0, 1, 1), (12345, 678, 3, -5), (0x1p1000, -0x1p1000, 0x1p990, 0x1p990),
            (0x1p-1030, 0, 0x1p-1074, 0x1p-1072), (0, 0x1p-1074, 0x1p-1060, 0x1p-1070),
            (-0x1p1020, 0x1p1020, 0x1p990, 0x1p980), (0x1p-1022, 0x1p-1022, 0x1p-1040, 0x1p-1040),
            (0x1p600, 0x1p601, 0x1p560, -0x1p570), (-3, 0x1p-20, 0x1p-40, 0x1p-45),
        ]
        var tested = 0
        for (ax, ay, dx, dy) in cases {
            for t in [2.0, 4, 0.5, -1, 1024] {
                // Only triples where every sum and product is exact are collinear by
                // construction.
                guard let bx = exactSum(ax, dx), let by = exactSum(ay, dy), let tdx = exactProduct(t, dx),
                    let tdy = exactProduct(t, dy), let cx = exactSum(ax, tdx), let cy = exactSum(ay, tdy)
                else { continue }
                tested += 1
                #expect(ExactOrientation.sign(ax, ay, bx, by, cx, cy) == 0, "\(ax) \(ay) \(dx) \(dy) \(t)")
                // Moving c up puts it on the left of the line a → b when a → b points right.
                let upSign = dx > 0 ? 1 : (dx < 0 ? -1 : 0)
                if dx != 0 {
                    #expect(ExactOrientation.sign(ax, ay, bx, by, cx, cy.nextUp) == upSign, "\(ax) \(ay) \(dx) \(dy) \(t) up")
                    #expect(ExactOrientation.sign(ax, ay, bx, by, cx, cy.nextDown) == -upSign, "\(ax) \(ay) \(dx) \(dy) \(t) down")
                }
            }
        }
        #expect(tested >= 20)
    }

    /// `a + b` when it is exact (its rounding error, found by the two-sum, is zero).
    func exactSum(_ a: Double, _ b: Double) -> Double? {
        let s = a + b
        let bVirtual = s - a
        let aVirtual = s - bVirtual
        guard s.isFinite, (a - aVirtual) + (b - bVirtual) == 0 else { return nil }
        return s
    }

    /// `a · b` when it is exact.
    func exactProduct(_ a: Double, _ b: Double) -> Double? {
        let p = a * b
        guard p.isFinite, (-p).addingProduct(a, b) == 0, p == 0 || abs(p) >= 0x1p-1022 else { return nil }
        return p
    }

    /// A point a subnormal distance off a long line: the floating-point products underflow or
    /// lose the difference, the exact evaluation does not.
    @Test func subnormalOffsetsFromLongLines() {
        #expect(ExactOrientation.sign(-5, 0, 5, 0, 0, 0x1p-1074) == 1)
        #expect(ExactOrientation.sign(-5, 0, 5, 0, 0, -0x1p-1074) == -1)
        #expect(ExactOrientation.sign(-5, 0, 5, 0, 0x1p-1070, 0) == 0)
        #expect(ExactOrientation.sign(0, 0x1p-1028, 0, 0, -5, 0) == -1)
        #expect(ExactOrientation.sign(0, 0, 1e308, 1e308, 0x1p-1074, 0x1p-1074) == 0)
        #expect(ExactOrientation.sign(0, 0, 1e308, 1e308, 0x1p-1074, 0x1p-1073) == 1)
        #expect(ExactOrientation.sign(-1.7e308, -1.7e308, 1.7e308, 1.7e308, 0, 0x1p-1074) == 1)
        #expect(ExactOrientation.sign(-1.7e308, 0, 1.7e308, 0, 1.7e308, -0x1p-1074) == -1)
    }

    /// Random doubles of any exponent: the evaluations agree (the floating-point filters, scaled
    /// or not, and the expansions may abstain, the integer arithmetic never does).
    @Test func evaluationsAgreeOnRandomDoubles() {
        var random = SeededGenerator(state: 9)
        func value() -> Double {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: return 0
            case 1: return Double(Int.random(in: -4...4, using: &random))
            default:
                let exponent = Int.random(in: -1074...1023, using: &random)
                return Double(sign: Bool.random(using: &random) ? .plus : .minus, exponent: exponent, significand: Double.random(in: 1..<2, using: &random))
            }
        }
        var scaled = 0
        for _ in 0..<20_000 {
            let v = (0..<6).map { _ in value() }
            guard v.allSatisfy(\.isFinite) else { continue }
            let exact = ExactOrientation.exactSign(v[0], v[1], v[2], v[3], v[4], v[5])
            #expect(ExactOrientation.sign(v[0], v[1], v[2], v[3], v[4], v[5]) == exact, "\(v)")
            if let sign = ExactOrientation.expansionSign(v[0], v[1], v[2], v[3], v[4], v[5]) {
                #expect(sign == exact, "\(v)")
            }
            if let sign = ExactOrientation.scaledSign(v[0], v[1], v[2], v[3], v[4], v[5]) {
                scaled += 1
                #expect(sign == exact, "\(v)")
            }
            // Swapping two points reverses the orientation.
            #expect(ExactOrientation.sign(v[2], v[3], v[0], v[1], v[4], v[5]) == -exact, "\(v)")
        }
        #expect(scaled > 5_000)
    }
}
