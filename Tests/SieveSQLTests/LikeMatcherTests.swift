import SieveColumns
import SieveTestSupport
import Testing

@testable import SieveSQL

/// The LIKE matcher and `POSITION` against straightforward reference definitions written here,
/// on random input over small alphabets (so that matches are frequent and near misses common)
/// with multi-byte scalars and combining marks, and on long adversarial inputs, where the
/// reference would be too slow and the expected answer is reasoned out instead.
@Suite("LIKE matcher and POSITION")
struct LikeMatcherTests {
    typealias Generator = SeededGenerator

    /// One element of a pattern for the reference matcher.
    enum Element: Equatable {
        case scalar(Unicode.Scalar)
        case one
        case any
    }

    /// The pattern as the LIKE rules read it: `%`, `_`, and `escape` before any character
    /// making it literal. `nil` when it ends with the escape.
    static func elements(_ pattern: String, escape: Unicode.Scalar?) -> [Element]? {
        var result: [Element] = []
        var escaping = false
        for scalar in pattern.unicodeScalars {
            if escaping {
                result.append(.scalar(scalar))
                escaping = false
            } else if scalar == escape {
                escaping = true
            } else if scalar == "%" {
                result.append(.any)
            } else if scalar == "_" {
                result.append(.one)
            } else {
                result.append(.scalar(scalar))
            }
        }
        return escaping ? nil : result
    }

    /// The reference: `matched[i][j]` says whether pattern elements `i...` match text scalars
    /// `j...` (the textbook dynamic program for wildcard matching).
    static func referenceMatches(_ pattern: [Element], _ text: [Unicode.Scalar]) -> Bool {
        let m = pattern.count, n = text.count
        var matched = [[Bool]](repeating: [Bool](repeating: false, count: n + 1), count: m + 1)
        matched[m][n] = true
        for i in stride(from: m - 1, through: 0, by: -1) {
            for j in stride(from: n, through: 0, by: -1) {
                switch pattern[i] {
                case .any:
                    matched[i][j] = matched[i + 1][j] || (j < n && matched[i][j + 1])
                case .one:
                    matched[i][j] = j < n && matched[i + 1][j + 1]
                case .scalar(let s):
                    matched[i][j] = j < n && text[j] == s && matched[i + 1][j + 1]
                }
            }
        }
        return matched[0][0]
    }

    /// Scalars for texts: ASCII, a precomposed é, e plus a combining acute, CJK, an emoji.
    static let textAlphabet: [String] = ["a", "b", "a", "b", "é", "e", "\u{301}", "日", "😀", "%", "_"]
    static let patternAlphabet: [String] = ["a", "b", "é", "e", "\u{301}", "日", "😀", "%", "_", "%", "_", "!%", "!_", "!!"]

    static func randomText(_ generator: inout Generator, length: Int, alphabet: [String]) -> String {
        var text = ""
        for _ in 0..<length { text += alphabet[generator.int(0...alphabet.count - 1)] }
        return text
    }

    @Test func randomPatternsAgreeWithTheReference() throws {
        var generator = Generator(state: 4242)
        var matches = 0
        for round in 0..<6000 {
            let pattern = Self.randomText(&generator, length: generator.int(0...8), alphabet: Self.patternAlphabet)
            let escape: String? = generator.chance(70) ? "!" : nil
            let text: String
            if generator.chance(40), let elements = Self.elements(pattern, escape: escape.flatMap(\.unicodeScalars.first)) {
                text = Self.instance(of: elements, &generator)
            } else {
                text = Self.randomText(&generator, length: generator.int(0...10), alphabet: Self.textAlphabet)
            }
            guard let elements = Self.elements(pattern, escape: escape.flatMap(\.unicodeScalars.first)) else {
                #expect(throws: LikePattern.CompileError.danglingEscape) { try LikePattern(pattern, escape: escape) }
                continue
            }
            let expected = Self.referenceMatches(elements, Array(text.unicodeScalars))
            let compiled = try LikePattern(pattern, escape: escape)
            #expect(compiled.matches(text) == expected, "round \(round): \(text.debugDescription) LIKE \(pattern.debugDescription)")
            if expected { matches += 1 }
        }
        #expect(matches > 1000, "the generator should produce many matches")
    }

    /// A text the pattern matches: `%` stands for a few random scalars, `_` for one.
    static func instance(of elements: [Element], _ generator: inout Generator, alphabet: [String] = textAlphabet) -> String {
        var text = ""
        for element in elements {
            switch element {
            case .scalar(let s): text.unicodeScalars.append(s)
            case .one: text += alphabet[generator.int(0...alphabet.count - 1)].prefix(1)
            case .any: text += randomText(&generator, length: generator.int(0...3), alphabet: alphabet)
            }
        }
        return text
    }

    /// Long segments with `_` (several words of automaton state, with characters frequent
    /// enough for a full mask and rare ones listed by position) and long texts.
    @Test func longSegmentsAgreeWithTheReference() throws {
        var generator = Generator(state: 777)
        let letters = ["a", "b", "c", "d", "é", "日", "😀", "x", "y", "z", "\u{301}", "q"]
        for round in 0..<60 {
            var pattern = generator.chance(50) ? "%" : ""
            for _ in 0..<generator.int(1...3) {
                let segmentLength = generator.int(50...200)
                for _ in 0..<segmentLength {
                    let roll = generator.int(0...9)
                    pattern += roll == 0 ? "_" : (roll < 6 ? ["a", "b"][generator.int(0...1)] : letters[generator.int(0...letters.count - 1)])
                }
                pattern += "%"
            }
            if generator.chance(50) { pattern.removeLast() }
            let elements = try #require(Self.elements(pattern, escape: nil))
            var text = Self.randomText(&generator, length: generator.int(0...150), alphabet: ["a", "b", "é"])
            let instance = Self.instance(of: elements, &generator, alphabet: ["a", "b", "é"])
            if generator.chance(70) {
                var scalars = Array(instance.unicodeScalars)
                // Sometimes break the instance in one place.
                if generator.chance(40), !scalars.isEmpty { scalars[generator.int(0...scalars.count - 1)] = "z" }
                text += String(String.UnicodeScalarView(scalars))
            }
            text += Self.randomText(&generator, length: generator.int(0...150), alphabet: ["a", "b", "é"])
            let expected = Self.referenceMatches(elements, Array(text.unicodeScalars))
            #expect(try LikePattern(pattern).matches(text) == expected, "round \(round)")
        }
    }

    /// Middle segments of several words against texts about as long as they are (where the
    /// automaton updates only the words that can still reach a match) and up to twice as long,
    /// with the instance placed at the very start, the very end or nowhere.
    @Test func segmentsAsLongAsTheTextAgreeWithTheReference() throws {
        var generator = Generator(state: 9090)
        var matches = 0
        for round in 0..<300 {
            var segment = ""
            for _ in 0..<generator.int(60...300) {
                let roll = generator.int(0...9)
                segment += roll < 4 ? "_" : ["a", "b", "é", "a"][generator.int(0...3)]
            }
            let pattern = (generator.chance(80) ? "%" : "x%") + segment + "%"
            let elements = try #require(Self.elements(pattern, escape: nil))
            let instance = Self.instance(of: elements, &generator, alphabet: ["a", "b", "é"])
            let slack = generator.chance(50) ? generator.int(0...3) : generator.int(0...segment.unicodeScalars.count)
            var text: String
            switch generator.int(0...2) {
            case 0: text = instance + Self.randomText(&generator, length: slack, alphabet: ["a", "b", "é"])
            case 1: text = Self.randomText(&generator, length: slack, alphabet: ["a", "b", "é"]) + instance
            default: text = Self.randomText(&generator, length: segment.unicodeScalars.count + slack - 1, alphabet: ["a", "b", "é"])
            }
            if generator.chance(30) {
                var scalars = Array(text.unicodeScalars)
                if !scalars.isEmpty { scalars[generator.int(0...scalars.count - 1)] = "z" }
                text = String(String.UnicodeScalarView(scalars))
            }
            let expected = Self.referenceMatches(elements, Array(text.unicodeScalars))
            #expect(try LikePattern(pattern).matches(text) == expected, "round \(round)")
            if expected { matches += 1 }
        }
        #expect(matches > 50, "the generator should produce matches")
    }

    /// The same in ASCII texts, where a match is first looked for from the occurrences of one
    /// literal piece (its rarest of the last, the longest and the first), with pieces of several
    /// characters and texts up to three times the segment's length.
    @Test func anchoredSearchesAgreeWithTheReference() throws {
        var generator = Generator(state: 31337)
        var matches = 0
        let letters = ["a", "b", "c", "a", "a"]
        for round in 0..<400 {
            var segment = ""
            for _ in 0..<generator.int(65...260) {
                segment += generator.chance(35) ? "_" : letters[generator.int(0...letters.count - 1)]
            }
            if generator.chance(30) { segment += ["b", "cc", "abc"][generator.int(0...2)] }
            let pattern = (generator.chance(70) ? "%" : "c%") + segment + (generator.chance(70) ? "%" : "%a")
            let elements = try #require(Self.elements(pattern, escape: nil))
            let instance = Self.instance(of: elements, &generator, alphabet: ["a", "b", "c"])
            let length = segment.count
            var text: String
            switch generator.int(0...3) {
            case 0: text = instance
            case 1: text = Self.randomText(&generator, length: generator.int(0...2 * length), alphabet: ["a", "b"]) + instance
            case 2: text = String(repeating: "a", count: generator.int(length...3 * length))
            default: text = Self.randomText(&generator, length: generator.int(0...3 * length), alphabet: ["a", "a", "b", "c"])
            }
            if generator.chance(30) {
                var scalars = Array(text.unicodeScalars)
                if !scalars.isEmpty { scalars[generator.int(0...scalars.count - 1)] = ["z", "b", "é"][generator.int(0...2)] }
                text = String(String.UnicodeScalarView(scalars))
            }
            let expected = Self.referenceMatches(elements, Array(text.unicodeScalars))
            #expect(try LikePattern(pattern).matches(text) == expected, "round \(round)")
            if expected { matches += 1 }
        }
        #expect(matches > 60, "the generator should produce matches")
    }

    // MARK: Adversarial inputs

    /// The hostile clause of `CONCAT(name, 'a'×64,000) LIKE '%' || 'a_'×32,000 || 'b%'`: a
    /// 64,001-character segment (1,001 words of state) against texts barely longer. Only the
    /// few words that can still finish a match are updated, so each text costs about its length.
    @Test func segmentBarelyShorterThanTheText() throws {
        let pattern = try LikePattern("%" + String(repeating: "a_", count: 32_000) + "b%")
        let a64000 = String(repeating: "a", count: 64_000)
        for name in ["Fiji", "Zimbabwe", "b", "", "日本"] {
            // The b would need 64,000 characters before it; the name is all the text before the a's.
            #expect(pattern.matches(name + a64000) == false, "\(name)")
        }
        #expect(pattern.matches(a64000 + "b") == true)
        #expect(pattern.matches(String(repeating: "a", count: 63_999) + "b") == false)
        #expect(pattern.matches("x" + String(repeating: "aé", count: 32_000) + "b") == true)
        #expect(pattern.matches(String(repeating: "éa", count: 32_000) + "b") == false)  // a's at odd offsets
        // Twice the segment's length, the b nowhere after the first 64,000 characters.
        for name in ["Zimbabwe", ""] {
            #expect(pattern.matches(name + String(repeating: "a", count: 128_000)) == false, "\(name)")
        }
        #expect(pattern.matches(String(repeating: "a", count: 128_000) + "b") == true)
    }

    /// A 43,000-character `%…%` needle that almost matches everywhere in an 87,000-character
    /// text: a quadratic search compares about 1.9 billion bytes.
    @Test func longContainsNeedle() throws {
        let text = String(repeating: "a", count: 87_000)
        let pattern = try LikePattern("%" + String(repeating: "a", count: 43_000) + "b%")
        #expect(pattern.matches(text) == false)  // no "b" in the text
        #expect(pattern.matches(text + "b") == true)  // the last 43,000 a's and the b
        #expect(pattern.matches(String(repeating: "a", count: 42_999) + "b") == false)  // one a short
        let nearMiss = String(repeating: "ab", count: 43_500)
        #expect(try LikePattern("%" + String(repeating: "ab", count: 21_500) + "b%").matches(nearMiss) == false)
    }

    /// A 30,000-character pattern with `_` and several `%` on a 60,000-character text: the
    /// backtracking matcher retried the last segment from every position.
    @Test func longGeneralPattern() throws {
        let a = { (count: Int) in String(repeating: "a", count: count) }
        let pattern = try LikePattern("%" + a(100) + "_%" + a(100) + "%_" + a(29_790) + "b%")
        if case .general = pattern.shape {} else { Issue.record("expected the general matcher") }
        // No "b" in the text: no match.
        #expect(pattern.matches(a(60_000)) == false)
        // "b" after 60,000 a's: a(100) + one + (…) + a(100) + (…) + one + a(29,790) + b fits.
        #expect(pattern.matches(a(60_000) + "b") == true)
        // The segments need 100 + 1 + 100 + 1 + 29,790 + 1 = 29,993 characters.
        #expect(pattern.matches(a(29_992) + "b") == true)
        #expect(pattern.matches(a(29_991) + "b") == false)
        // The b must follow the last 29,790 a's directly.
        #expect(pattern.matches(a(30_000) + "xb" + a(10)) == false)
        // Multi-byte scalars count once each for `_`.
        #expect(pattern.matches(a(100) + "é" + a(100) + "日" + a(29_790) + "b") == true)
    }

    /// Segments with `_` in the middle (the Shift-And automaton over many words).
    @Test func longMiddleSegmentWithWildcards() throws {
        let segment = String(repeating: "a_", count: 1_500)  // 3,000 characters, 47 words
        let pattern = try LikePattern("x%" + segment + "b%y")
        let text = "x" + String(repeating: "a", count: 60_000) + "y"
        #expect(pattern.matches(text) == false)  // no b
        let hit = "x" + String(repeating: "a", count: 30_000) + String(repeating: "aé", count: 1_500) + "b" + String(repeating: "a", count: 100) + "y"
        #expect(pattern.matches(hit) == true)
        // Every b sits at an odd offset, so the 1,500 a's the segment needs before it would be
        // at odd offsets too, where the text has b's.
        let alternating = "x" + String(repeating: "ab", count: 3_000) + "y"
        #expect(pattern.matches(alternating) == false)
    }

    // MARK: POSITION

    static func referencePosition(_ needle: String, _ haystack: String) -> Int64 {
        let n = Array(needle.unicodeScalars), h = Array(haystack.unicodeScalars)
        if n.isEmpty { return 1 }
        if n.count > h.count { return 0 }
        for start in 0...(h.count - n.count) where Array(h[start..<(start + n.count)]) == n {
            return Int64(start + 1)
        }
        return 0
    }

    @Test func positionAgreesWithTheReference() {
        var generator = Generator(state: 99)
        for round in 0..<4000 {
            let haystack = Self.randomText(&generator, length: generator.int(0...12), alphabet: Self.textAlphabet)
            var needle = Self.randomText(&generator, length: generator.int(0...3), alphabet: Self.textAlphabet)
            if generator.chance(50), !haystack.isEmpty {
                let scalars = Array(haystack.unicodeScalars)
                let start = generator.int(0...scalars.count - 1)
                let end = generator.int(start...scalars.count)
                needle = String(String.UnicodeScalarView(scalars[start..<end]))
            }
            #expect(
                ScalarSemantics.position(of: needle, in: haystack) == Self.referencePosition(needle, haystack),
                "round \(round): POSITION(\(needle.debugDescription) IN \(haystack.debugDescription))")
        }
    }

    @Test func positionCountsScalars() {
        #expect(ScalarSemantics.position(of: "", in: "") == 1)
        #expect(ScalarSemantics.position(of: "", in: "abc") == 1)
        #expect(ScalarSemantics.position(of: "abcd", in: "abc") == 0)
        #expect(ScalarSemantics.position(of: "é", in: "e\u{301}") == 0)  // canonically equal, not the same scalars
        #expect(ScalarSemantics.position(of: "\u{301}", in: "e\u{301}x") == 2)
        #expect(ScalarSemantics.position(of: "x", in: "日本😀x") == 4)
    }

    /// 1 MiB needles and haystacks that almost match everywhere.
    @Test func positionOnMegabytes() {
        let mebi = 1 << 20
        let haystack = String(repeating: "a", count: mebi)
        #expect(ScalarSemantics.position(of: String(repeating: "a", count: mebi / 2) + "b", in: haystack) == 0)
        #expect(ScalarSemantics.position(of: String(repeating: "a", count: mebi - 1) + "b", in: haystack) == 0)
        let withB = String(repeating: "a", count: mebi - 1) + "b"
        #expect(ScalarSemantics.position(of: withB, in: withB) == 1)
        // 10 two-byte scalars, then the needle starts at the 11th character.
        let accented = String(repeating: "é", count: 10) + String(repeating: "a", count: mebi) + "b"
        #expect(ScalarSemantics.position(of: String(repeating: "a", count: mebi / 2) + "b", in: accented) == Int64(10 + mebi / 2 + 1))
        // Through the language: `POSITION` of two literals is folded while binding.
        let sql = "POSITION('" + String(repeating: "a", count: mebi / 2) + "b' IN '" + String(repeating: "a", count: mebi) + "b') = \(mebi / 2 + 1)"
        let clause = try? CompiledWhereClause(sql, schema: SimpleSchema([]))
        #expect(clause?.evaluate(row: 0, in: []) == true)
    }

    // MARK: Byte search

    /// Every start and end of the search window, on repetitive texts where the first-byte scan
    /// hands over to Knuth–Morris–Pratt, against a naive search.
    @Test func byteSearchAgreesWithNaiveSearch() {
        var generator = Generator(state: 5)
        for _ in 0..<300 {
            let text = (0..<generator.int(0...400)).map { _ in UInt8(ascii: generator.chance(90) ? "a" : "b") }
            let needle = (0..<generator.int(0...12)).map { _ in UInt8(ascii: generator.chance(85) ? "a" : "b") }
            let from = generator.int(0...text.count), end = generator.int(from...text.count)
            var expected: Int?
            if needle.isEmpty {
                expected = from
            } else if end - from >= needle.count {
                expected = (from...(end - needle.count)).first { Array(text[$0..<($0 + needle.count)]) == needle }
            }
            let actual = text.withUnsafeBufferPointer { ByteSearch.firstIndex(of: needle, in: $0, from: from, to: end) }
            #expect(actual == expected, "\(needle) in \(text.count) bytes from \(from) to \(end)")
        }
    }
}
