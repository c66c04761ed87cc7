/// A span of where-clause text, as UTF-8 byte offsets into the SQL string.
///
/// `lower` is the offset of the first byte of the span and `upper` the offset one past its last
/// byte, so an empty span (`lower == upper`) marks a position, such as the end of the input.
/// Offsets count bytes of `sql.utf8`; use ``location(in:)`` for a human-readable line and column
/// and ``text(in:)`` for the spanned text.
public struct SourceRange: Hashable, Sendable, CustomStringConvertible {
    /// UTF-8 offset of the first byte of the span.
    public var lower: Int
    /// UTF-8 offset one past the last byte of the span.
    public var upper: Int

    /// A span from `lower` up to, not including, `upper`. `upper` is raised to `lower` if smaller.
    public init(lower: Int, upper: Int) {
        self.lower = lower
        self.upper = Swift.max(lower, upper)
    }

    /// The empty span at `offset`.
    public init(at offset: Int) {
        self.init(lower: offset, upper: offset)
    }

    /// The number of UTF-8 bytes the span covers.
    public var count: Int { upper - lower }

    /// The smallest span covering both `self` and `other`.
    public func union(_ other: SourceRange) -> SourceRange {
        SourceRange(lower: Swift.min(lower, other.lower), upper: Swift.max(upper, other.upper))
    }

    /// `lower..<upper`, for use in tests and debugging.
    public var description: String { "\(lower)..<\(upper)" }

    /// The 1-based line and column of the start of the span in `sql`.
    ///
    /// Lines are separated by `"\n"`, `"\r\n"` or `"\r"`. Columns count `Character`s (extended
    /// grapheme clusters) from the start of the line, so `é`, `𝄞` and `👍🏽` each advance the column
    /// by one. An offset inside a character counts as that character; an offset beyond the end of
    /// `sql` is clamped to the end, which is one column past the last character.
    public func location(in sql: String) -> (line: Int, column: Int) {
        let utf8 = sql.utf8
        let target = utf8.index(utf8.startIndex, offsetBy: Swift.max(0, lower), limitedBy: utf8.endIndex) ?? utf8.endIndex
        var line = 1
        var column = 1
        var index = sql.startIndex
        while index < target {
            let next = sql.index(after: index)
            // An offset inside a character points at that character.
            if next > target { break }
            let character = sql[index]
            if character == "\n" || character == "\r\n" || character == "\r" {
                line += 1
                column = 1
            } else {
                column += 1
            }
            index = next
        }
        return (line, column)
    }

    /// The text the span covers in `sql`, or an empty string when the span lies outside it.
    /// Offsets that fall inside a character are kept as bytes and decoded with replacement.
    ///
    /// - Complexity: O(`count`) for native Swift strings: only the span is copied.
    public func text(in sql: String) -> String {
        let utf8 = sql.utf8
        let low = Swift.min(Swift.max(0, lower), utf8.count)
        let high = Swift.min(Swift.max(low, upper), utf8.count)
        let start = utf8.index(utf8.startIndex, offsetBy: low)
        let end = utf8.index(start, offsetBy: high - low)
        return String(decoding: utf8[start..<end], as: UTF8.self)
    }
}
