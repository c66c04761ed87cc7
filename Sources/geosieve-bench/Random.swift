import Foundation

/// A small, fast, seeded pseudo-random generator (SplitMix64): the benchmark's only source of
/// randomness, so that a seed fixes every generated value on every platform.
///
/// SplitMix64 walks a 64-bit counter by a fixed odd increment and scrambles it with two
/// multiply–xorshift rounds. Its output passes BigCrush and is plenty for benchmark data; it is
/// not meant for anything security-related.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    /// The second normal deviate of the last Box–Muller pair, not yet handed out.
    private var spareNormal: Double?

    /// A generator whose whole sequence is determined by `seed`.
    init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A new generator seeded from this one's next output: an independent stream per column,
    /// so that the values of one column do not depend on how many draws another one made.
    mutating func split() -> SplitMix64 {
        SplitMix64(seed: next())
    }

    /// A uniform double in `[0, 1)`, with 53 random bits.
    mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// A uniform integer in `0 ..< bound` (`bound` > 0), by a 128-bit multiply; the bias is at
    /// most `bound / 2^64`, negligible for the small bounds used here.
    mutating func nextInt(below bound: Int) -> Int {
        precondition(bound > 0, "empty range")
        return Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// A standard normal deviate (mean 0, standard deviation 1), by the Box–Muller transform;
    /// each pair of uniforms yields two deviates.
    mutating func nextNormal() -> Double {
        if let spare = spareNormal {
            spareNormal = nil
            return spare
        }
        // u1 in (0, 1] so that log(u1) is finite.
        let u1 = 1.0 - nextUnit()
        let u2 = nextUnit()
        let radius = (-2.0 * log(u1)).squareRoot()
        let angle = 2.0 * Double.pi * u2
        spareNormal = radius * sin(angle)
        return radius * cos(angle)
    }

    /// A normal deviate with the given mean and standard deviation.
    mutating func nextNormal(mean: Double, standardDeviation: Double) -> Double {
        mean + standardDeviation * nextNormal()
    }
}

/// Picks indices with fixed probabilities, by a linear search over cumulative weights (fast for
/// the handful of categories the workloads use).
struct WeightedChoice {
    private let cumulative: [Double]

    /// A chooser for `weights` (non-negative, not all zero; normalized here).
    init(weights: [Double]) {
        let total = weights.reduce(0, +)
        precondition(total > 0, "weights sum to zero")
        var running = 0.0
        cumulative = weights.map { weight in
            running += weight / total
            return running
        }
    }

    /// An index `i` with probability `weights[i] / sum(weights)`.
    func pick(_ random: inout SplitMix64) -> Int {
        let u = random.nextUnit()
        for (index, bound) in cumulative.enumerated() where u < bound {
            return index
        }
        return cumulative.count - 1
    }
}
