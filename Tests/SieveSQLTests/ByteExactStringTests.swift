import SieveColumns
import Testing

@testable import SieveSQL

/// Strings are data, compared byte for byte: canonically equivalent spellings ("é" as U+00E9 and
/// as e + U+0301) are different values in storage, in dictionaries, under `=`, `IN`, `NULLIF`,
/// `CASE` and `LIKE`, in plain and dictionary-encoded columns, in the row evaluator and in the
/// kernels. Every expected row set is derived by hand below and, for the binary collation,
/// checked against SQLite, which compares UTF-8 bytes.
@Suite("Byte-exact strings")
struct ByteExactStringTests {
    /// Rows (0-based); "◌́" is U+0301 COMBINING ACUTE ACCENT, which joins the scalar before it
    /// into one `Character`.
    static let values: [String?] = [
        "\u{E9}",  // 0: é precomposed (C3 A9)
        "e\u{301}",  // 1: é decomposed (65 CC 81)
        "\u{E9}",  // 2: é precomposed again
        "%\u{301}",  // 3: % + ◌́ (one Character)
        "%",  // 4
        "_\u{301}",  // 5: _ + ◌́
        "\\\u{301}",  // 6: \ + ◌́
        "a",  // 7
        "\u{C9}",  // 8: É precomposed
        "E\u{301}",  // 9: É decomposed
        nil,  // 10
        "%\u{301}x",  // 11
        "_",  // 12
        "\\",  // 13
        "a\u{301}",  // 14: á decomposed
        "",  // 15
    ]

    static let schema = SimpleSchema([("NAME", .string), ("CATEGORY", .string)])

    /// NAME plain, CATEGORY dictionary-encoded (14 distinct strings in 16 rows), same values.
    static func columns() -> [Column] {
        [.string(StringColumn(values, dictionaryLimit: 0)), .string(StringColumn(values))]
    }

    /// (condition on the field `@`, the TRUE rows under the binary collation).
    static let binaryCases: [(String, [Int])] = [
        ("@ = '\u{E9}'", [0, 2]),
        ("@ = 'e\u{301}'", [1]),
        ("@ <> '\u{E9}'", [1, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15]),
        ("@ IN ('e\u{301}', '\u{C9}')", [1, 8]),
        ("@ NOT IN ('e\u{301}', '\u{C9}', '')", [0, 2, 3, 4, 5, 6, 7, 9, 11, 12, 13, 14]),
        // The equality fast path: a wildcard or backslash followed by a combining mark is one
        // Character, but three different scalars for LIKE. Read as LIKE patterns these would
        // select 6, 6 and 0 rows.
        ("@ = '%\u{301}'", [3]),
        ("@ = '_\u{301}'", [5]),
        ("@ = '\\\u{301}'", [6]),
        ("@ = '%'", [4]),
        ("@ = '_'", [12]),
        ("@ = '\\'", [13]),
        ("@ <> '%\u{301}'", [0, 1, 2, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15]),
        ("@ = '%\u{301}x'", [11]),
        // LIKE: `_` is one Unicode scalar, so precomposed letters match it and decomposed ones
        // (two scalars) do not.
        ("@ LIKE '_'", [0, 2, 4, 7, 8, 12, 13]),
        ("@ LIKE 'e%'", [1]),
        ("@ LIKE '%\u{301}'", [1, 3, 5, 6, 9, 14]),
        ("@ LIKE '\\%\u{301}%' ESCAPE '\\'", [3, 11]),
        ("@ LIKE '\\_\u{301}' ESCAPE '\\'", [5]),
        ("CHAR_LENGTH(@) = 2", [1, 3, 5, 6, 9, 14]),
        ("NULLIF(@, '\u{E9}') IS NULL", [0, 2, 10]),
        ("CASE @ WHEN 'e\u{301}' THEN 1 ELSE 0 END = 1", [1]),
        ("COALESCE(@, 'e\u{301}') = 'e\u{301}'", [1, 10]),
        // Byte order: C3 A9 (é) and C3 89 (É) sort after 65 CC 81 (e◌́).
        ("@ > 'e\u{301}'", [0, 2, 8]),
        ("CONCAT(@, '\u{301}') = '%\u{301}\u{301}'", [3]),
    ]

    /// Under nocase, letters fold scalar by scalar (É → é, E → e) and marks stay: the
    /// precomposed and decomposed spellings stay apart. (SQLite folds ASCII only, so these are
    /// checked by reasoning alone.)
    static let nocaseCases: [(String, [Int])] = [
        ("@ = '\u{C9}'", [0, 2, 8]),
        ("@ = 'E\u{301}'", [1, 9]),
        ("@ IN ('\u{C9}')", [0, 2, 8]),
        ("@ LIKE 'E%'", [1, 9]),
        ("@ = '%\u{301}'", [3]),
    ]

    static func check(_ template: String, _ expected: [Int], collation: Collation) throws {
        let columns = Self.columns()
        for field in ["NAME", "CATEGORY"] {
            let sql = template.replacingOccurrences(of: "@", with: field)
            let clause = try CompiledWhereClause(sql, schema: Self.schema, collation: collation)
            let rowByRow = (0..<values.count).filter { clause.evaluate(row: $0, in: columns) == true }
            #expect(rowByRow == expected, "row evaluator: \(sql)")
            let vectorized = clause.matchingRows(in: columns, rowCount: values.count).map { Int($0) }
            #expect(vectorized == expected, "vectorized: \(sql)")
        }
    }

    @Test(arguments: binaryCases)
    func binary(template: String, expected: [Int]) throws {
        try Self.check(template, expected, collation: .binary)
    }

    @Test(arguments: nocaseCases)
    func nocase(template: String, expected: [Int]) throws {
        try Self.check(template, expected, collation: .nocase)
    }

    /// The same clauses in SQLite (byte-wise TEXT comparison, case-sensitive LIKE): the same rows.
    @Test func sqliteAgrees() throws {
        let database = try SQLiteDatabase()
        try database.execute("PRAGMA case_sensitive_like = ON")
        try database.execute("CREATE TABLE t (ID INTEGER PRIMARY KEY, NAME TEXT)")
        try database.withStatement("INSERT INTO t VALUES (?1, ?2)") { insert in
            for (i, value) in Self.values.enumerated() {
                try insert.bind(1, .integer(Int64(i)))
                try insert.bind(2, value.map(SQLiteValue.text) ?? .null)
                _ = try insert.step()
                try insert.reset()
            }
        }
        for (template, expected) in Self.binaryCases {
            let sql = template.replacingOccurrences(of: "@", with: "NAME")
                .replacingOccurrences(of: "CHAR_LENGTH(NAME)", with: "length(NAME)")
                .replacingOccurrences(of: "CONCAT(NAME, '\u{301}')", with: "(NAME || '\u{301}')")
            let ids = try database.integers("SELECT ID FROM t WHERE \(sql) ORDER BY ID")
            #expect(ids.map { Int($0) } == expected, "SQLite: \(sql)")
        }
        try database.close()
    }

    @Test func storageKeepsBothSpellings() {
        let column = StringColumn(Self.values)
        guard case .dictionary(_, let dictionary) = column.encoding else {
            Issue.record("expected a dictionary")
            return
        }
        #expect(dictionary.count == 14)
        for (i, value) in Self.values.enumerated() {
            #expect(column[i].map { Array($0.utf8) } == value.map { Array($0.utf8) }, "row \(i)")
        }
    }

    @Test func escapedForLikeEscapesScalars() throws {
        for text in ["%\u{301}", "_\u{301}", "\\\u{301}", "a%b_c\\d", "\u{E9}", "e\u{301}%"] {
            let pattern = try LikePattern(FilterCompiler.escapedForLike(text), escape: "\\")
            #expect(pattern.shape == .exact(Array(text.utf8)), "\(text)")
        }
    }
}
