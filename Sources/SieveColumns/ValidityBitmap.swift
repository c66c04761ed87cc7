import SieveBuffers

/// Which rows of a column hold a value: bit `i` set means row `i` is not NULL.
///
/// Bits are packed 64 to a word, little-endian within the word, as Arrow lays them out, so a
/// kernel can test 64 rows at once. A column with no NULL at all carries no bitmap (`nil`) and
/// kernels skip the test entirely.
///
/// The complete words live in an append-only ``/SieveBuffers/ColumnBuffer`` and the last, partial
/// word (`count % 64` rows) in the value itself, so appending rows to a copy never writes a word
/// that another copy (a published snapshot of the table) reads: a completed word is appended once
/// and never written again. Read the words through ``withWords(_:)``.
public struct ValidityBitmap: Hashable, Sendable {
    /// The complete words: rows `0 ..< 64 × fullWords.count`.
    public private(set) var fullWords: ColumnBuffer<UInt64>
    /// The bits of the rows after the complete words (the low `count % 64` bits).
    public private(set) var tailWord: UInt64
    /// Number of rows covered.
    public private(set) var count: Int

    /// A bitmap of `count` rows, all valid or all NULL.
    public init(count: Int, allValid: Bool) {
        self.count = count
        fullWords = ColumnBuffer(repeating: allValid ? ~0 : 0, count: count / 64)
        tailWord = allValid && count % 64 != 0 ? (1 << UInt64(count % 64)) - 1 : 0
    }

    /// Every word, the partial last one included: `(count + 63) / 64` words.
    public var words: [UInt64] {
        var words = fullWords.array
        if count % 64 != 0 { words.append(tailWord) }
        return words
    }

    /// The number of words (the partial last one included).
    public var wordCount: Int { (count + 63) / 64 }

    /// Whether row `i` holds a value.
    @inlinable public func isValid(_ i: Int) -> Bool {
        let k = i >> 6
        let word = k < fullWords.count ? fullWords[k] : tailWord
        return word & (1 << UInt64(i & 63)) != 0
    }

    /// Marks row `i` valid or NULL.
    public mutating func set(_ i: Int, valid: Bool) {
        let k = i >> 6
        let bit: UInt64 = 1 << UInt64(i & 63)
        if k < fullWords.count {
            fullWords[k] = valid ? fullWords[k] | bit : fullWords[k] & ~bit
        } else {
            tailWord = valid ? tailWord | bit : tailWord & ~bit
        }
    }

    /// Appends one row.
    public mutating func append(valid: Bool) {
        if valid { tailWord |= 1 << UInt64(count & 63) }
        count += 1
        if count & 63 == 0 {
            fullWords.append(tailWord)
            tailWord = 0
        }
    }

    /// Number of NULL rows.
    public var nullCount: Int {
        let full = fullWords.withUnsafeBufferPointer { words in words.reduce(0) { $0 + $1.nonzeroBitCount } }
        return count - full - tailWord.nonzeroBitCount
    }

    /// Calls `body` with the words, for kernels that test 64 rows at a time.
    @inlinable public func withWords<R>(_ body: (ValidityWords) throws -> R) rethrows -> R {
        try fullWords.withUnsafeBufferPointer { full in try body(ValidityWords(full: full, tail: tailWord)) }
    }
}

/// A validity bitmap's words as a kernel reads them: word `k` is `full[k]` for the complete
/// words and `tail` after them.
public struct ValidityWords {
    /// The complete words.
    public let full: UnsafeBufferPointer<UInt64>
    /// The partial last word.
    public let tail: UInt64

    /// Wraps the words.
    @inlinable public init(full: UnsafeBufferPointer<UInt64>, tail: UInt64) {
        self.full = full
        self.tail = tail
    }

    /// Word `k`.
    @inlinable public subscript(k: Int) -> UInt64 {
        @inline(__always) get { k < full.count ? full[k] : tail }
    }
}
