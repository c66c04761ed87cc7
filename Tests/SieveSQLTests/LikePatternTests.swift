import Testing

@testable import SieveSQL

@Suite("LIKE patterns")
struct LikePatternTests {
    /// (pattern, escape, text, expected), each reasoned from the LIKE rules.
    static let cases: [(String, String?, String, Bool)] = [
        ("San%", nil, "San Jose", true),
        ("San%", nil, "san jose", false),             // case-sensitive
        ("San%", nil, "San", true),                   // % matches nothing
        ("%Tree%", nil, "Tree Maintenance", true),
        ("%Tree%", nil, "Big Trees", true),
        ("%Tree%", nil, "tree", false),
        ("%ing", nil, "Parking", true),
        ("%ing", nil, "Parkin", false),
        ("_", nil, "é", true),                        // _ is one character, not one byte
        ("_", nil, "ab", false),
        ("__", nil, "日本", true),
        ("a_c", nil, "abc", true),
        ("a_c", nil, "ac", false),
        ("", nil, "", true),                          // empty pattern matches only ''
        ("", nil, "a", false),
        ("%", nil, "", true),
        ("%%", nil, "anything", true),
        ("a%b%c", nil, "aXbYc", true),
        ("a%b%c", nil, "aXcYb", false),
        ("%a%b", nil, "aab", true),
        ("%aab", nil, "aaab", true),                  // needs backtracking
        ("a%", nil, "ba", false),
        ("100\\%", "\\", "100%", true),               // escaped %
        ("100\\%", "\\", "1000", false),
        ("a!_c", "!", "a_c", true),
        ("a!_c", "!", "abc", false),
        ("a!!c", "!", "a!c", true),
        ("%ü%", nil, "Zürich", true),
        ("Z_rich", nil, "Zürich", true),
        ("São%", nil, "São Paulo", true),
    ]

    @Test(arguments: cases)
    func matches(pattern: String, escape: String?, text: String, expected: Bool) throws {
        let compiled = try LikePattern(pattern, escape: escape)
        #expect(compiled.matches(text) == expected, "\(text) LIKE \(pattern)")
    }

    @Test func fastPathsAreChosen() throws {
        #expect(try LikePattern("San%").shape == .prefix(Array("San".utf8)))
        #expect(try LikePattern("%Tree%").shape == .contains(Array("Tree".utf8)))
        #expect(try LikePattern("%ing").shape == .suffix(Array("ing".utf8)))
        #expect(try LikePattern("abc").shape == .exact(Array("abc".utf8)))
        #expect(try LikePattern("%%").shape == .anything)
    }

    @Test func badEscapes() {
        #expect(throws: LikePattern.CompileError.badEscape) { try LikePattern("a", escape: "ab") }
        #expect(throws: LikePattern.CompileError.danglingEscape) { try LikePattern("a!", escape: "!") }
    }
}
