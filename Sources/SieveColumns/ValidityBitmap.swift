/// Which rows of a column hold a value: bit `i` set means row `i` is not NULL.
///
/// Bits are packed 64 to a word, little-endian within the word, as Arrow lays them out, so a
/// kernel can test 64 rows at once. A column with no NULL at all carries no bitmap (`nil`) and
/// kernels skip the test entirely.
public struct ValidityBitmap: Hashable, Sendable {
    /// The packed bits.
    public private(set) var words: [UInt64]
    /// Number of rows covered.
    public private(set) var count: Int

    /// A bitmap of `count` rows, all valid or all NULL.
    public init(count: Int, allValid: Bool) {
        self.count = count
        let wordCount = (count + 63) / 64
        words = Array(repeating: allValid ? ~0 : 0, count: wordCount)
        if allValid, count % 64 != 0, wordCount > 0 {
            words[wordCount - 1] = (1 << UInt64(count % 64)) - 1
        }
    }

    /// Whether row `i` holds a value.
    @inlinable public func isValid(_ i: Int) -> Bool {
        words[i >> 6] & (1 << UInt64(i & 63)) != 0
    }

    /// Marks row `i` valid or NULL.
    public mutating func set(_ i: Int, valid: Bool) {
        if valid {
            words[i >> 6] |= 1 << UInt64(i & 63)
        } else {
            words[i >> 6] &= ~(1 << UInt64(i & 63))
        }
    }

    /// Appends one row.
    public mutating func append(valid: Bool) {
        if count & 63 == 0 { words.append(0) }
        count += 1
        if valid { set(count - 1, valid: true) }
    }

    /// Number of NULL rows.
    public var nullCount: Int {
        count - words.reduce(0) { $0 + $1.nonzeroBitCount }
    }
}
