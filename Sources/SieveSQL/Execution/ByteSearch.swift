#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Substring search over UTF-8 bytes in linear time, for `LIKE '%…%'` and `POSITION`.
///
/// The search first runs the way a fast library search does: `memchr` to the next byte equal
/// to the needle's first, then `memcmp` of the rest. Each verification is charged the length of
/// the needle; once the charges exceed twice the text passed over (plus a constant), the input
/// is repetitive enough to make that quadratic, and the search continues from where it is with
/// Knuth–Morris–Pratt, which reads each remaining byte of the text at most twice. So the total
/// work is O(n + m) for a text of n bytes and a needle of m, whatever the input, and ordinary
/// text never builds the KMP table.
///
/// On valid UTF-8 (every Swift string), a byte match starts and ends on scalar boundaries, so
/// the first byte match is the first match in Unicode scalars.
enum ByteSearch {
    /// The first offset `i` with `from <= i` and `i + needle.count <= end` where `needle`
    /// occurs in `text`, or `nil`. An empty needle occurs at `from` (when `from <= end`).
    static func firstIndex(
        of needle: UnsafeBufferPointer<UInt8>, in text: UnsafeBufferPointer<UInt8>, from: Int, to end: Int
    ) -> Int? {
        let end = min(end, text.count)
        let m = needle.count
        guard from >= 0, from <= end else { return nil }
        guard m > 0 else { return from }
        guard end - from >= m, let base = text.baseAddress, let pattern = needle.baseAddress else { return nil }
        let last = end - m  // the last possible start
        let first = Int32(pattern[0])
        var i = from
        var charged = 0
        while i <= last {
            guard let hit = memchr(base + i, first, last - i + 1) else { return nil }
            i = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
            if m == 1 || memcmp(base + i + 1, pattern + 1, m - 1) == 0 { return i }
            charged += m
            if charged > 2 * (i - from) + 256 {
                return knuthMorrisPratt(pattern, m, in: base, from: i, to: end)
            }
            i += 1
        }
        return nil
    }

    /// ``firstIndex(of:in:from:to:)`` for arrays.
    static func firstIndex(of needle: [UInt8], in text: UnsafeBufferPointer<UInt8>, from: Int, to end: Int) -> Int? {
        needle.withUnsafeBufferPointer { firstIndex(of: $0, in: text, from: from, to: end) }
    }

    /// Knuth–Morris–Pratt from `from`: O(m) to build the failure table, then O(end - from).
    static func knuthMorrisPratt(
        _ needle: UnsafePointer<UInt8>, _ m: Int, in text: UnsafePointer<UInt8>, from: Int, to end: Int
    ) -> Int? {
        // border[q]: the length of the longest proper border of needle[0 ... q].
        var border = [Int](repeating: 0, count: m)
        var k = 0
        for q in 1..<max(1, m) {
            while k > 0 && needle[q] != needle[k] { k = border[k - 1] }
            if needle[q] == needle[k] { k += 1 }
            border[q] = k
        }
        var q = 0
        var j = from
        while j < end {
            let byte = text[j]
            while q > 0 && byte != needle[q] { q = border[q - 1] }
            if byte == needle[q] { q += 1 }
            if q == m { return j - m + 1 }
            j += 1
        }
        return nil
    }
}
