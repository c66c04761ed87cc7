import Foundation

/// SplitMix64: a small, fast, seedable generator, so that every randomized test is reproducible.
/// Shared by the test targets (not a product).
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    /// The generator's state; the seed.
    public var state: UInt64

    /// A generator starting from `state`.
    public init(state: UInt64) { self.state = state }

    /// A generator starting from `seed`.
    public init(seed: UInt64) { self.state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A double in `0 ..< 1`.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// A double in `low ..< high`.
    public mutating func uniform(_ low: Double, _ high: Double) -> Double { low + (high - low) * unit() }

    /// An integer in `0 ..< upper`.
    public mutating func int(_ upper: Int) -> Int { Int(next() % UInt64(upper)) }

    /// An integer in `range`.
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// `true` with the given probability in percent.
    public mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }

    /// A standard normal deviate (Box–Muller).
    public mutating func gaussian() -> Double {
        let u = max(unit(), 1e-300), v = unit()
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}
