/// The `LIKE` matcher for patterns the fast shapes of ``LikePattern`` do not cover, without
/// backtracking.
///
/// The pattern is cut at its `%`s into segments `S0 % S1 % … % Sk`; each segment is a run of
/// literal characters and `_`s, so it matches a fixed number of characters (Unicode scalars).
/// Without `%` (k = 0) the text must be exactly `S0`. Otherwise the text matches exactly when
/// `S0` matches its first characters, `Sk` its last characters (the two not overlapping), and
/// `S1 … Sk-1` occur in this order, without overlapping, in between. Taking for each middle
/// segment its leftmost occurrence after the previous one decides that: an occurrence that
/// starts earlier also ends earlier (the length is fixed), which leaves the rest the most room,
/// so if any choice of occurrences works, the leftmost ones do. So each part of the text is
/// looked at once:
///
/// - the first and last segments are compared in place;
/// - a middle segment without `_` is found with ``ByteSearch`` (linear);
/// - a middle segment with `_` is found with the bit-parallel Shift-And automaton over Unicode
///   scalars (``ShiftAndMatcher``): O(⌈k/64⌉) word operations per character of text for a
///   segment of k characters.
///
/// Matching a text of n bytes therefore costs O(n + m) without `_` and O(n·⌈k/64⌉ + m)
/// with it, for a pattern of m characters whose longest segment with `_` has k.
struct GeneralLikePattern: Hashable, Sendable {
    /// The segments between `%`s, in order: one when the pattern has no `%`, otherwise the
    /// first and last may be empty (a leading or trailing `%`); the others never are.
    let segments: [LikeSegment]

    init(_ tokens: [LikePattern.Token]) {
        var pieces: [[LikePattern.Token]] = [[]]
        for token in tokens {
            if token == .any {
                pieces.append([])
            } else {
                pieces[pieces.count - 1].append(token)
            }
        }
        // Only the middle segments are searched for; the first and last are compared in place.
        segments = pieces.indices.map { LikeSegment(pieces[$0], searched: $0 > 0 && $0 < pieces.count - 1) }
    }

    /// Whether the UTF-8 `text` matches the whole pattern.
    func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = text.count
        guard let head = segments[0].match(at: 0, in: text) else { return false }
        if segments.count == 1 { return head == n }
        guard let tail = segments[segments.count - 1].match(endingAt: n, in: text, notBefore: head) else { return false }
        var position = head
        for segment in segments[1..<(segments.count - 1)] {
            guard let end = segment.firstMatchEnd(in: text, from: position, to: tail) else { return false }
            position = end
        }
        return true
    }
}

/// A run of literal characters and `_`s between two `%`s of a LIKE pattern.
struct LikeSegment: Hashable, Sendable {
    /// Literal bytes and `_`s, in order (no `%`).
    let tokens: [LikePattern.Token]
    /// The bytes, when the segment has no `_`.
    let literal: [UInt8]?
    /// The automaton that finds the segment, when it has a `_` and is searched for.
    let automaton: ShiftAndMatcher?

    /// A segment of `tokens`; `searched` when it lies between two `%`s, so that
    /// ``firstMatchEnd(in:from:to:)`` is used.
    init(_ tokens: [LikePattern.Token], searched: Bool) {
        self.tokens = tokens
        var bytes: [UInt8] = []
        var hasOne = false
        for token in tokens {
            switch token {
            case .literal(let run): bytes += run
            case .one: hasOne = true
            case .any: break
            }
        }
        literal = hasOne ? nil : bytes
        automaton = hasOne && searched ? ShiftAndMatcher(tokens) : nil
    }

    /// The end of the segment matched at `start`, or `nil`.
    func match(at start: Int, in text: UnsafeBufferPointer<UInt8>) -> Int? {
        var position = start
        for token in tokens {
            switch token {
            case .literal(let bytes):
                guard position + bytes.count <= text.count, LikePattern.equal(text, position, bytes) else { return nil }
                position += bytes.count
            case .one:
                guard position < text.count else { return nil }
                position = min(position + LikePattern.scalarLength(text[position]), text.count)
            case .any:
                return nil
            }
        }
        return position
    }

    /// The start of the segment matched so that it ends at `end`, if that start is at or
    /// after `floor`; `nil` otherwise.
    func match(endingAt end: Int, in text: UnsafeBufferPointer<UInt8>, notBefore floor: Int) -> Int? {
        var position = end
        for token in tokens.reversed() {
            switch token {
            case .literal(let bytes):
                guard position - bytes.count >= floor, LikePattern.equal(text, position - bytes.count, bytes) else { return nil }
                position -= bytes.count
            case .one:
                guard position > floor else { return nil }
                position -= 1
                while position > floor && text[position] & 0xC0 == 0x80 { position -= 1 }
            case .any:
                return nil
            }
        }
        return position
    }

    /// The end of the leftmost occurrence of the segment that starts at or after `from` and
    /// ends at or before `end`; `nil` if there is none.
    func firstMatchEnd(in text: UnsafeBufferPointer<UInt8>, from: Int, to end: Int) -> Int? {
        if let literal {
            return ByteSearch.firstIndex(of: literal, in: text, from: from, to: end).map { $0 + literal.count }
        }
        return automaton?.firstMatchEnd(in: text, from: from, to: end)
    }
}

/// The Shift-And automaton (Baeza-Yates–Gonnet) of a segment of literal characters and `_`s,
/// over Unicode scalars: bit j of the state is set when the last j + 1 characters read match
/// the first j + 1 of the segment; each character of text shifts the state and keeps the bits
/// whose segment character it matches (always, for `_`).
///
/// A segment of k characters needs ⌈k/64⌉ words of state. The bits each text character keeps
/// come from a mask per distinct character of the segment; to keep memory O(k) for long
/// segments with many distinct characters, only characters occurring at least ⌈k/64⌉ times
/// (at most 64 of them) get a full mask, the others list their positions. Either way a step
/// costs O(⌈k/64⌉).
struct ShiftAndMatcher: Hashable, Sendable {
    /// Characters in the segment (k).
    let length: Int
    /// Words of state, ⌈k/64⌉.
    let words: Int
    /// Bits of the `_` positions.
    let wildcard: [UInt64]
    /// The class of each ASCII byte: an index into `denseOffset`/`positionRange`, or -1 when the
    /// character does not occur in the segment.
    let asciiClass: [Int32]
    /// The class of each non-ASCII scalar that occurs in the segment.
    let otherClass: [UInt32: Int32]
    /// Per class: the offset of its full mask (wildcard bits included) in `dense`, or -1.
    let denseOffset: [Int]
    /// Per class: its positions in `positions`, when it has no full mask.
    let positionRange: [Range<Int>]
    let dense: [UInt64]
    let positions: [Int]
    /// The segment's runs of literal characters: their character offset in it and their bytes.
    let pieces: [Piece]
    /// The pieces ``anchoredSearch(in:from:to:)`` tries to anchor a match on (indices into
    /// `pieces`): the last, the longest and the first, without repetition.
    let anchors: [Int]
    /// Whether every piece is ASCII (else no match lies in ASCII text).
    let piecesAreASCII: Bool

    /// A run of literal characters of the segment.
    struct Piece: Hashable, Sendable {
        /// Its offset in the segment, in characters.
        let offset: Int
        let bytes: [UInt8]
    }

    init(_ tokens: [LikePattern.Token]) {
        // The segment as scalar values, with nil for `_`.
        var characters: [UInt32?] = []
        for token in tokens {
            switch token {
            case .literal(let bytes):
                for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars { characters.append(scalar.value) }
            case .one:
                characters.append(nil)
            case .any:
                break
            }
        }
        let length = characters.count
        let words = max(1, (length + 63) / 64)
        var wildcard = [UInt64](repeating: 0, count: words)
        var classOf: [UInt32: Int32] = [:]
        var classPositions: [[Int]] = []
        for (j, character) in characters.enumerated() {
            guard let value = character else {
                wildcard[j >> 6] |= 1 << UInt64(j & 63)
                continue
            }
            if let c = classOf[value] {
                classPositions[Int(c)].append(j)
            } else {
                classOf[value] = Int32(classPositions.count)
                classPositions.append([j])
            }
        }
        var asciiClass = [Int32](repeating: -1, count: 128)
        var otherClass: [UInt32: Int32] = [:]
        for (value, c) in classOf {
            if value < 128 { asciiClass[Int(value)] = c } else { otherClass[value] = c }
        }
        var denseOffset: [Int] = []
        var positionRange: [Range<Int>] = []
        var dense: [UInt64] = []
        var positions: [Int] = []
        for list in classPositions {
            if list.count >= words {
                denseOffset.append(dense.count)
                positionRange.append(0..<0)
                var mask = wildcard
                for j in list { mask[j >> 6] |= 1 << UInt64(j & 63) }
                dense += mask
            } else {
                denseOffset.append(-1)
                positionRange.append(positions.count..<(positions.count + list.count))
                positions += list
            }
        }
        self.length = length
        self.words = words
        self.wildcard = wildcard
        self.asciiClass = asciiClass
        self.otherClass = otherClass
        self.denseOffset = denseOffset
        self.positionRange = positionRange
        self.dense = dense
        self.positions = positions
        var pieces: [Piece] = []
        var offset = 0
        for token in tokens {
            switch token {
            case .literal(let bytes):
                pieces.append(Piece(offset: offset, bytes: bytes))
                offset += String(decoding: bytes, as: UTF8.self).unicodeScalars.count
            case .one: offset += 1
            case .any: break
            }
        }
        self.pieces = pieces
        var anchors: [Int] = []
        let longest = pieces.indices.max { pieces[$0].bytes.count < pieces[$1].bytes.count }
        for index in [pieces.indices.last, longest, pieces.indices.first] {
            if let index, !anchors.contains(index) { anchors.append(index) }
        }
        self.anchors = anchors
        piecesAreASCII = pieces.allSatisfy { $0.bytes.allSatisfy { $0 < 0x80 } }
    }

    /// The class of the scalar starting at `text[offset]` (-1: not in the segment) and its
    /// length in bytes, at most `end - offset`.
    @inline(__always)
    private func classify(_ text: UnsafeBufferPointer<UInt8>, _ offset: Int, _ end: Int) -> (Int, Int) {
        let lead = text[offset]
        if lead < 0x80 { return (Int(asciiClass[Int(lead)]), 1) }
        let count = min(LikePattern.scalarLength(lead), end - offset)
        var value = UInt32(lead) & (count == 2 ? 0x1F : count == 3 ? 0x0F : 0x07)
        for k in 1..<max(1, count) { value = value << 6 | UInt32(text[offset + k] & 0x3F) }
        return (Int(otherClass[value] ?? -1), count)
    }

    /// The end of the leftmost occurrence starting at or after `from` and ending at or
    /// before `end`.
    ///
    /// With more than one word of state, only the words that can still lead to a match are
    /// updated: after t characters, bit j can be set only when j < t, and can still reach the
    /// top only when the k − 1 − j characters it needs remain before `end`. Bits below that
    /// bound only ever shift into bits below it, so the words wholly below it are dropped (and
    /// their carry with them). A text not much longer than the segment thus costs about its
    /// length, and any text O(n·⌈min(n − k + 1, k)/64⌉) word operations.
    func firstMatchEnd(in text: UnsafeBufferPointer<UInt8>, from: Int, to end: Int) -> Int? {
        let end = min(end, text.count)
        guard length > 0 else { return from <= end ? from : nil }
        if words == 1 { return firstMatchEndOneWord(in: text, from: from, to: end) }
        // Characters in the range, stepped as the matcher steps: a match needs `length` of them.
        var characters = 0
        var scan = from
        while scan < end {
            scan += text[scan] < 0x80 ? 1 : Swift.max(1, Swift.min(LikePattern.scalarLength(text[scan]), end - scan))
            characters += 1
        }
        guard characters >= length else { return nil }
        if characters == end - from, let decided = anchoredSearch(in: text, from: from, to: end) { return decided }
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 2 * words) { buffer in
            buffer.initialize(repeating: 0)
            var state = UnsafeMutableBufferPointer(rebasing: buffer[0..<words])
            var next = UnsafeMutableBufferPointer(rebasing: buffer[words..<(2 * words)])
            let topWord = words - 1, topBit: UInt64 = 1 << UInt64((length - 1) & 63)
            return wildcard.withUnsafeBufferPointer { wildcard in
                dense.withUnsafeBufferPointer { dense in
                    positions.withUnsafeBufferPointer { positions in
                        var offset = from
                        var read = 0  // characters read before this one
                        var low = 0  // the lowest word that can still lead to a match
                        while offset < end {
                            let (c, count) = classify(text, offset, end)
                            read += 1
                            // Bits j ≤ read − 1 can be set after this character; those that can
                            // still finish need j ≥ length − 1 − (characters − read), so before the
                            // shift, one less.
                            let high = Swift.min(topWord, (read - 1) >> 6)
                            let needed = length - 2 - (characters - read)
                            if needed > 0, needed >> 6 > low {
                                for k in low..<(needed >> 6) { state[k] = 0 }
                                low = needed >> 6
                            }
                            // Shift in a 1 at bit 0 (a match starting here), within the window.
                            var carry: UInt64 = low == 0 ? 1 : 0
                            if low <= high {
                                for k in low...high {
                                    let word = state[k]
                                    state[k] = word << 1 | carry
                                    carry = word >> 63
                                }
                            }
                            // No carry leaves the top word of the window: its bits are below `read`.
                            let top = high
                            if c >= 0, denseOffset[c] >= 0 {
                                let base = denseOffset[c]
                                for k in low...top { state[k] &= dense[base + k] }
                            } else {
                                for k in low...top { next[k] = state[k] & wildcard[k] }
                                if c >= 0 {
                                    for j in positionRange[c] {
                                        let p = positions[j]
                                        let w = p >> 6
                                        if w >= low, w <= top { next[w] |= state[w] & (1 << UInt64(p & 63)) }
                                    }
                                }
                                swap(&state, &next)
                            }
                            offset += count
                            if top == topWord, state[topWord] & topBit != 0 { return offset }
                        }
                        return nil
                    }
                }
            }
        }
    }

    /// In ASCII text (one byte a character), the end of the leftmost occurrence found from the
    /// occurrences of one literal piece, when that costs less than the automaton would: `nil`
    /// when undecided (the automaton must run), `.some(nil)` when there is none.
    ///
    /// An occurrence starting at p holds each piece at p + its offset, so the occurrences of one
    /// piece give every possible start. The piece with the fewest occurrences among the last,
    /// the longest and the first is used (one found nowhere decides at once: no occurrence), and
    /// its starts are checked in order, piece by piece, until the bytes compared cost about a
    /// sixteenth of what the automaton's word operations would: then the automaton runs, so the
    /// search never costs much more than the automaton alone would.
    private func anchoredSearch(in text: UnsafeBufferPointer<UInt8>, from: Int, to end: Int) -> Int?? {
        let last = end - length  // the last possible start
        guard last >= from else { return .some(nil) }
        guard piecesAreASCII else { return .some(nil) }
        guard !pieces.isEmpty else { return .some(from + length) }  // only `_`
        let n = end - from
        // A byte compared here costs about two of the automaton's word operations (measured);
        // a sixteenth of the automaton's cost is risked on the check.
        var budget = n * ((Swift.min(n - length + 1, length) + 63) / 64) / 32
        var best: [Int]?
        for anchor in anchors {
            let piece = pieces[anchor]
            var starts: [Int] = []
            var searchFrom = from + piece.offset
            let searchEnd = last + piece.offset + piece.bytes.count
            while starts.count < (best?.count ?? Int.max),
                let found = ByteSearch.firstIndex(of: piece.bytes, in: text, from: searchFrom, to: searchEnd)
            {
                starts.append(found - piece.offset)
                searchFrom = found + 1
            }
            if starts.isEmpty { return .some(nil) }
            if starts.count < (best?.count ?? Int.max) { best = starts }
            budget -= n  // the search's cost
        }
        guard let best else { return nil }
        for start in best {
            // Piece by piece, byte by byte, until one differs.
            var matched = true
            checking: for piece in pieces {
                let base = start + piece.offset
                for (i, byte) in piece.bytes.enumerated() {
                    budget -= 1
                    if text[base + i] != byte {
                        matched = false
                        break checking
                    }
                }
            }
            if matched { return .some(start + length) }
            if budget < 0 { return nil }
        }
        return .some(nil)
    }

    private func firstMatchEndOneWord(in text: UnsafeBufferPointer<UInt8>, from: Int, to end: Int) -> Int? {
        // With one word every class has a full mask.
        let top: UInt64 = 1 << UInt64(length - 1)
        let wildcard = self.wildcard[0]
        var state: UInt64 = 0
        var offset = from
        while offset < end {
            let (c, count) = classify(text, offset, end)
            state = (state << 1 | 1) & (c >= 0 ? dense[denseOffset[c]] : wildcard)
            offset += count
            if state & top != 0 { return offset }
        }
        return nil
    }
}
