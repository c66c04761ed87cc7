import SieveBuffers
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Builds a string column from UTF-8 bytes as a table scan hands them over, deciding between
/// dictionary and plain encoding as ``SieveColumns/StringColumn/init(_:dictionaryLimit:)`` does
/// (a dictionary when at most min(65536, max(16, rows / 4)) distinct strings), but without making
/// a `String` per row while the column can still be a dictionary: distinct values are found by
/// hashing their bytes, and only they become strings.
package struct TextColumnBuilder {
    /// An empty builder.
    package init() {}

    /// The most distinct strings a dictionary column holds.
    package static let dictionaryLimit = 65_536

    /// The distinct strings' bytes, end to end, and where each starts (one extra end offset).
    private var distinctBytes: [UInt8] = []
    private var distinctOffsets: [Int] = [0]
    /// Open-addressing table of distinct-string indices (`-1` empty), a power of two long.
    private var slots: [Int32] = Array(repeating: -1, count: 1024)
    /// Each row's code into the distinct strings (0 for NULL rows), while counting them.
    private var codes = ColumnBuffer<UInt32>()
    /// Once there are more distinct strings than any dictionary may hold: every row's string.
    private var plain: StringStorage?
    /// Rows so far.
    package private(set) var count = 0

    private var distinctCount: Int { distinctOffsets.count - 1 }

    /// 64-bit FNV-1a of the bytes, mixed.
    @inline(__always)
    private static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        // Eight bytes at a time (multiply-xorshift), then the tail byte by byte.
        var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(bytes.count)
        var i = 0
        let count = bytes.count
        while i + 8 <= count {
            let word = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            h = (h ^ word) &* 0x9E37_79B9_7F4A_7C15
            h ^= h >> 32
            i += 8
        }
        while i < count {
            h = (h ^ UInt64(bytes[i])) &* 0x0000_0100_0000_01b3
            i += 1
        }
        return h ^ (h >> 29)
    }

    /// Makes room for `rows` rows in all (the codes of a dictionary column), so that appending
    /// up to them copies nothing.
    package mutating func reserveCapacity(_ rows: Int) {
        if plain == nil { codes.reserveCapacity(rows) }
    }

    /// Appends a NULL row.
    package mutating func appendNull() {
        count += 1
        if plain != nil {
            plain?.appendEmpty()
        } else {
            codes.append(0)
        }
    }

    /// Appends a row holding `bytes`, which must be valid UTF-8; `false` when the column
    /// already held the same string (in dictionary form), `true` otherwise.
    @discardableResult
    package mutating func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        count += 1
        if plain != nil {
            plain?.append(utf8: bytes)
            return true
        }
        guard let (index, isNew) = intern(bytes) else {
            switchToPlain()
            plain?.append(utf8: bytes)
            return true
        }
        codes.append(UInt32(index))
        return isNew
    }

    /// Appends every row of `other` (its NULL rows as rows whose validity the caller keeps).
    /// Dictionary columns are joined by adding each of `other`'s distinct strings once and
    /// renumbering its codes; otherwise row by row.
    package mutating func append(contentsOf other: TextColumnBuilder) {
        if plain == nil, other.plain == nil, distinctCount + other.distinctCount <= Self.dictionaryLimit {
            var renumbered: [UInt32] = []
            renumbered.reserveCapacity(other.distinctCount)
            other.distinctBytes.withUnsafeBytes { stored in
                for index in 0..<other.distinctCount {
                    let text = UnsafeRawBufferPointer(rebasing: stored[other.distinctOffsets[index]..<other.distinctOffsets[index + 1]])
                    // Room for every string was checked above.
                    renumbered.append(UInt32(intern(text)?.index ?? 0))
                }
            }
            codes.reserveCapacity(codes.count + other.codes.count)
            for code in other.codes {
                let index = Int(code)
                codes.append(index < renumbered.count ? renumbered[index] : 0)
            }
            count += other.count
            return
        }
        other.forEachRow { _, bytes in append(bytes) }
    }

    /// The index of `bytes` among the distinct strings, added when new, and whether it was;
    /// `nil` when it is new and the dictionary is full.
    @inline(__always)
    private mutating func intern(_ bytes: UnsafeRawBufferPointer) -> (index: Int, isNew: Bool)? {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: Self.hash(bytes)) & mask
        while true {
            let index = Int(slots[slot])
            if index < 0 { break }
            let start = distinctOffsets[index]
            let length = distinctOffsets[index + 1] - start
            if length == bytes.count {
                let same = distinctBytes.withUnsafeBytes { stored in
                    bytes.count == 0 || memcmpBytes(stored.baseAddress.map { $0 + start }, bytes.baseAddress, length)
                }
                if same { return (index, false) }
            }
            slot = (slot + 1) & mask
        }
        guard distinctCount < Self.dictionaryLimit else { return nil }
        let index = distinctCount
        distinctBytes.append(contentsOf: bytes)
        distinctOffsets.append(distinctBytes.count)
        slots[slot] = Int32(index)
        if distinctCount * 2 > slots.count { grow() }
        return (index, true)
    }

    /// Doubles the table.
    private mutating func grow() {
        var larger = [Int32](repeating: -1, count: slots.count * 2)
        let mask = larger.count - 1
        distinctBytes.withUnsafeBytes { stored in
            for index in 0..<distinctCount {
                let start = distinctOffsets[index]
                let piece = UnsafeRawBufferPointer(rebasing: stored[start..<distinctOffsets[index + 1]])
                var slot = Int(truncatingIfNeeded: Self.hash(piece)) & mask
                while larger[slot] >= 0 { slot = (slot + 1) & mask }
                larger[slot] = Int32(index)
            }
        }
        slots = larger
    }

    /// The distinct string `index`.
    private func distinct(_ index: Int) -> String {
        distinctBytes.withUnsafeBytes { stored in
            String(decoding: stored[distinctOffsets[index]..<distinctOffsets[index + 1]], as: UTF8.self)
        }
    }

    /// Turns the codes so far into plain storage (NULL rows become empty strings; the validity
    /// bitmap says which they are).
    private mutating func switchToPlain() {
        var storage = StringStorage()
        distinctBytes.withUnsafeBytes { stored in
            for code in codes {
                let index = Int(code)
                // A NULL row's code is 0: it takes string 0's bytes, which its validity bit hides
                // (or none, should no string be stored).
                guard index < distinctCount else {
                    storage.appendEmpty()
                    continue
                }
                storage.append(utf8: UnsafeRawBufferPointer(rebasing: stored[distinctOffsets[index]..<distinctOffsets[index + 1]]))
            }
        }
        plain = storage
        codes = ColumnBuffer()
        distinctBytes = []
        distinctOffsets = [0]
        slots = []
    }

    /// Hands each row's bytes to `body`, in order (a NULL row's are empty).
    package func forEachRow(_ body: (Int, UnsafeRawBufferPointer) -> Void) {
        if let plain {
            plain.bytes.withUnsafeBytes { stored in
                for row in 0..<count {
                    body(row, UnsafeRawBufferPointer(rebasing: stored[plain.offsets[row]..<plain.offsets[row + 1]]))
                }
            }
            return
        }
        distinctBytes.withUnsafeBytes { stored in
            for (row, code) in codes.enumerated() {
                let index = Int(code)
                guard index < distinctCount else {
                    body(row, UnsafeRawBufferPointer(start: nil, count: 0))
                    continue
                }
                body(row, UnsafeRawBufferPointer(rebasing: stored[distinctOffsets[index]..<distinctOffsets[index + 1]]))
            }
        }
    }

    /// Hands each row's bytes converted by `convert` to `body`, in order (a NULL row's are
    /// empty): while the column is a dictionary, each distinct string is converted once.
    package func forEachRow<Converted>(
        converting convert: (UnsafeRawBufferPointer) -> Converted, _ body: (Int, Converted) -> Void
    ) {
        guard plain == nil else {
            forEachRow { row, bytes in body(row, convert(bytes)) }
            return
        }
        let converted = distinctBytes.withUnsafeBytes { stored in
            (0..<distinctCount).map { index in
                convert(UnsafeRawBufferPointer(rebasing: stored[distinctOffsets[index]..<distinctOffsets[index + 1]]))
            }
        }
        let empty = convert(UnsafeRawBufferPointer(start: nil, count: 0))
        for (row, code) in codes.enumerated() {
            let index = Int(code)
            body(row, index < converted.count ? converted[index] : empty)
        }
    }

    /// Appends a row holding `string`.
    package mutating func append(_ string: String) {
        var string = string
        _ = string.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// The finished column; `validity` marks the NULL rows (`nil` when there are none).
    package mutating func column(validity: ValidityBitmap?) -> StringColumn {
        let limit = min(Self.dictionaryLimit, max(16, count / 4), Int(UInt32.max))
        if plain == nil, distinctCount <= limit {
            let dictionary = StringStorage((0..<distinctCount).map { distinct($0) })
            return StringColumn(encoding: .dictionary(codes: codes, dictionary: dictionary), validity: validity)
        }
        if plain == nil { switchToPlain() }
        return StringColumn(encoding: .plain(plain ?? StringStorage()), validity: validity)
    }
}

/// Whether `count` bytes at `a` and `b` are equal.
@inline(__always)
package func memcmpBytes(_ a: UnsafeRawPointer?, _ b: UnsafeRawPointer?, _ count: Int) -> Bool {
    guard count > 0 else { return true }
    guard let a, let b else { return false }
    return memcmp(a, b, count) == 0
}

/// Whether `bytes` are valid UTF-8 (ASCII checked eight bytes at a time first).
@inline(__always)
package func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var i = 0
    let count = bytes.count
    while i + 8 <= count {
        if bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 {
            return String(validating: bytes, as: UTF8.self) != nil
        }
        i += 8
    }
    while i < count {
        if bytes[i] >= 0x80 { return String(validating: bytes, as: UTF8.self) != nil }
        i += 1
    }
    return true
}
