import SieveColumns
import Testing

@testable import SieveSQL

/// Error messages quote the offending text, but never more than about 80 characters of it,
/// and they stay on one line; "did you mean" does no work on huge names.
@Suite("Error messages quote little")
struct ErrorEchoTests {
    static let schema = SimpleSchema([("POP", .integer), ("NAME", .string), ("CREATED", .date)])
    static let mebi = 1 << 20
    /// A megabyte-long name or literal (the release build is checked by hand with 10 MB ones).
    static let huge = String(repeating: "x", count: mebi)
    /// `"xxx…x…" (1048576 characters)`: 77 x's and the ellipsis.
    static let cut = "\"" + String(repeating: "x", count: 77) + "…\" (1048576 characters)"

    static func message(_ sql: String) -> WhereClauseError? {
        do {
            _ = try CompiledWhereClause(sql, schema: schema)
            return nil
        } catch {
            return error
        }
    }

    /// (clause, kind, message): every message derived from the rule (77 characters and "…",
    /// then the length).
    static let cases: [(String, WhereClauseError.Kind, String)] = [
        ("POP = 1 AND " + huge + " = 1", .unknownField, "unknown field \(cut)"),
        ("\"" + huge + "\" = 1", .unknownField, "unknown field \(cut)"),
        ("POP = 1" + huge, .badLiteral, "malformed number \"1" + String(repeating: "x", count: 76) + "…\" (1048577 characters)"),
        ("POP = 1e" + huge, .badLiteral, "malformed number \"1e\": the exponent has no digits"),
        ("POP = " + String(repeating: "9", count: 400), .badLiteral,
         "number " + String(repeating: "9", count: 77) + "… (400 characters) is out of range"),
        (huge + "(1) = 1", .unknownFunction, "unknown function " + String(repeating: "x", count: 77) + "… (1048576 characters)"),
        (huge + "(1", .syntaxError,
         "expected \",\" or \")\" in the arguments of " + String(repeating: "x", count: 77) + "… (1048576 characters), found end of input"),
        ("CREATED > DATE '" + huge + "'", .badLiteral,
         "invalid DATE literal '" + String(repeating: "x", count: 77) + "…' (1048576 characters); expected an existing date as 'yyyy-mm-dd'"),
        ("CREATED > TIMESTAMP '" + huge + "'", .badLiteral,
         "invalid TIMESTAMP literal '" + String(repeating: "x", count: 77) + "…' (1048576 characters); expected 'yyyy-mm-dd hh:mi[:ss[.fff]][±hh:mm]'"),
        ("CREATED > INTERVAL '" + huge + "' DAY", .badLiteral,
         "invalid INTERVAL literal '" + String(repeating: "x", count: 77) + "…' (1048576 characters) for DAY; expected '[-]d'"),
        ("CREATED = '" + huge + "'", .badLiteral,
         "'" + String(repeating: "x", count: 77) + "…' (1048576 characters) is not a date: expected 'yyyy-mm-dd' or 'yyyy-mm-dd hh:mi:ss'"),
        ("CAST(POP AS " + huge + ")", .syntaxError, "unknown type \(cut) in CAST; expected INTEGER, FLOAT, VARCHAR or DATE"),
        ("NAME = '" + huge, .unterminatedString, "unterminated string; a closing ' is missing"),
        ("NAME = \"" + huge, .unterminatedString, "unterminated quoted identifier; a closing \" is missing"),
        ("POP = 1 " + huge, .syntaxError, "unexpected \"" + String(repeating: "x", count: 21) + "…\" after a complete expression"),
        ("POP = 1 '" + huge + "'", .syntaxError, "unexpected \"'" + String(repeating: "x", count: 20) + "…\" after a complete expression"),
        ("NAME = 'a' AND \u{0}", .syntaxError, "unexpected character \"U+0000\""),
        ("NAME = 'a\u{0}b' AND \u{0}", .syntaxError, "unexpected character \"U+0000\""),
        (String(repeating: "(", count: 1_000_000), .nestingTooDeep, "expression nested too deeply (more than 200 levels)"),
        (String(repeating: "NOT ", count: 1_000_000) + "POP = 1", .nestingTooDeep, "expression nested too deeply (more than 200 levels)"),
    ]

    @Test func longTextIsCut() {
        for (sql, kind, expected) in Self.cases {
            guard let error = Self.message(sql) else {
                Issue.record("no error for \(sql.prefix(40))…")
                continue
            }
            #expect(error.kind == kind, "\(error.message.prefix(300))")
            #expect(error.message == expected)
            #expect(error.description.count < 300)
            #expect(!error.description.contains("\n"))
        }
    }

    /// The quoting rule itself: at most 80 characters shown whole; otherwise 77 and "…". Counts
    /// are in Unicode scalars, so a long run of combining marks is cut too.
    @Test func excerptRule() {
        #expect(WhereClauseError.excerpt("POP").text == "POP")
        #expect(WhereClauseError.excerpt("POP").length == nil)
        let eighty = String(repeating: "a", count: 80)
        #expect(WhereClauseError.excerpt(eighty).text == eighty)
        #expect(WhereClauseError.excerpt(eighty).length == nil)
        let eightyOne = eighty + "b"
        #expect(WhereClauseError.excerpt(eightyOne).text == String(repeating: "a", count: 77) + "…")
        #expect(WhereClauseError.excerpt(eightyOne).length == 81)
        #expect(WhereClauseError.quoted(eightyOne) == "\"" + String(repeating: "a", count: 77) + "…\" (81 characters)")
        #expect(WhereClauseError.quoted("it's", quote: "'") == "'it's'")
        let marks = "e" + String(repeating: "\u{301}", count: 100_000)  // one Character
        let cutMarks = WhereClauseError.excerpt(marks)
        #expect(cutMarks.text.unicodeScalars.count == 78)
        #expect(cutMarks.length == 100_001)
        #expect(WhereClauseError.excerpt("a\nb\u{7F}c\u{2028}d\u{85}").text == "a<U+000A>b<U+007F>c<U+2028>d<U+0085>")
        #expect(WhereClauseError.excerpt("日本\u{0}", limit: 24).text == "日本<U+0000>")
    }

    /// Field names with line breaks stay on the message's one line.
    @Test func controlCharactersInNames() {
        let error = Self.message("\"A\nB\" = 1")
        #expect(error?.message == "unknown field \"A<U+000A>B\"")
    }

    /// "did you mean" compares only names of plausible length: a 10 MB name gets no suggestion
    /// and costs no edit distance; suggestions themselves are quoted.
    @Test func suggestionsForHugeNames() {
        #expect(WhereClauseError.suggestion(for: Self.huge, among: ["POP", Self.huge + "y"]) == nil)
        #expect(WhereClauseError.suggestion(for: "popu", among: [Self.huge, "POP"]) == "POP")
        let longName = String(repeating: "n", count: 200)
        #expect(WhereClauseError.suggestion(for: longName + "x", among: [longName]) == longName)
        #expect(WhereClauseError.didYouMean(longName + "x", among: [longName]) == " (did you mean \"" + String(repeating: "n", count: 77) + "…\" (200 characters)?)")
        let combining = "e" + String(repeating: "\u{301}", count: 1_000)  // one character
        #expect(WhereClauseError.suggestion(for: combining, among: [combining]) == combining)
    }

    /// Source text is cut from the clause by offsets without copying the rest of it.
    @Test func sourceRangeText() {
        let sql = "é" + Self.huge
        #expect(SourceRange(lower: 0, upper: 2).text(in: sql) == "é")
        #expect(SourceRange(lower: 1, upper: 3).text(in: sql) == "\u{FFFD}x")  // starts inside é
        #expect(SourceRange(lower: sql.utf8.count - 2, upper: sql.utf8.count + 5).text(in: sql) == "xx")
        #expect(SourceRange(lower: -4, upper: 0).text(in: sql) == "")
    }
}
