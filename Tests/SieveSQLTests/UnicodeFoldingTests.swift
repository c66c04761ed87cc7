import Foundation
import SieveSQL
import Testing

/// Case and accent folding against hand-derived examples and Python's `str.casefold` and
/// `unicodedata` (the oracle file `Tests/Fixtures/unicode_folding_oracle.json`, written by
/// `Scripts/generate_unicode_folding.py`).
@Suite("Unicode folding")
struct UnicodeFoldingTests {
    @Test func caseFoldingByHand() {
        #expect(UnicodeFolding.caseFolded("Straße") == "strasse")
        #expect(UnicodeFolding.caseFolded("STRASSE") == UnicodeFolding.caseFolded("straße"))
        #expect(UnicodeFolding.caseFolded("ẞ") == "ss")
        #expect(UnicodeFolding.caseFolded("ΟΔΥΣΣΕΥΣ") == UnicodeFolding.caseFolded("Οδυσσευς"))  // final sigma
        #expect(UnicodeFolding.caseFolded("ﬁre") == "fire")
        #expect(UnicodeFolding.caseFolded("İ") == "i\u{307}")
        #expect(UnicodeFolding.caseFolded("Chișinău") == "chișinău")
        #expect(UnicodeFolding.caseFolded("") == "")
        #expect(UnicodeFolding.caseFolded("abc 123") == "abc 123")
    }

    @Test func accentFoldingByHand() {
        #expect(UnicodeFolding.accentFolded("Chișinău") == "Chisinau")
        #expect(UnicodeFolding.accentFolded("Ångström") == "Angstrom")
        #expect(UnicodeFolding.accentFolded("e\u{301}") == "e")  // a combining acute on its own
        // No decomposition, but the DUCET weighs ø as o and ł as l plus a diacritic: folded.
        #expect(UnicodeFolding.accentFolded("Œuvre øre łódź") == "Œuvre ore lodz")
        #expect(UnicodeFolding.accentFolded("ØĐĦŁ øđħł Ǿǿ") == "ODHL odhl Oo")
        // Letters the DUCET gives primaries of their own stay: Œ, ð, þ, ŧ.
        #expect(UnicodeFolding.accentFolded("Œð þŧ") == "Œð þŧ")
        #expect(UnicodeFolding.accentFolded("한국어") == "한국어")  // Hangul decomposes, but not into accents
        #expect(UnicodeFolding.accentFolded(UnicodeFolding.caseFolded("CHIȘINĂU")) == "chisinau")
    }

    @Test func agreesWithPython() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/unicode_folding_oracle.json")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        #expect(root["unicode"] as? String == UnicodeFolding.version)
        let cases = try #require(root["cases"] as? [[String: String]])
        #expect(cases.count == 600)
        for item in cases {
            let text = try #require(item["text"])
            // Compared scalar by scalar: Swift's String equality would treat canonically
            // equivalent spellings as equal and hide a wrong decomposition.
            #expect(Array(UnicodeFolding.caseFolded(text).unicodeScalars) == Array(try #require(item["case"]).unicodeScalars))
            #expect(Array(UnicodeFolding.accentFolded(text).unicodeScalars) == Array(try #require(item["accent"]).unicodeScalars))
        }
    }
}
