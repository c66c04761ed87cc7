import SieveColumns
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@testable import SieveSQL
import SieveTestSupport

/// GeoSieve's where-clause engine against SQLite, an independent SQL engine: thousands of random,
/// well-typed where clauses over one generated table; for every clause the vectorized scan, the
/// row evaluator and SQLite must select the same OBJECTIDs.
///
/// Each random expression is rendered twice from the same choices: once in GeoSieve's dialect,
/// once in SQLite's where the two spell a thing differently (`CHAR_LENGTH` / `length`,
/// `CONCAT` / `||`, `SUBSTRING` / `substr`, `MOD(a, b)` / `a % b`, `POSITION(a IN b)` /
/// `instr(b, a)`, `TRIM(LEADING c FROM s)` / `ltrim(s, c)`).
///
/// Where SQLite's defaults differ from the semantics GeoSieve implements (issue 3, "Semantics"),
/// SQLite is configured or the SQLite text is adjusted, and each such place says so:
///
/// - `LIKE` is case-insensitive in SQLite by default: the binary pass runs with
///   `PRAGMA case_sensitive_like = ON`. The nocase pass leaves it `OFF`, which folds ASCII only;
///   the data and the SQL are ASCII, where that equals GeoSieve's Unicode folding.
/// - SQLite's `NOCASE` and `UPPER`/`LOWER` fold ASCII only, GeoSieve folds Unicode: the table
///   and every literal are ASCII (``nonASCIIFoldingDiffersByDesign()`` shows the difference).
/// - A SQLite comparison takes its collation from a column's declared collation or an explicit
///   `COLLATE`, never from a function result (`UPPER(CATEGORY) = 'x'` compares binary even when
///   CATEGORY is `COLLATE NOCASE`), whereas GeoSieve's collation applies to every string
///   comparison. The nocase pass therefore declares the columns `COLLATE NOCASE` *and* puts
///   `COLLATE NOCASE` on the left operand of every string comparison, `IN`, `BETWEEN`, simple
///   `CASE` and `NULLIF`.
/// - SQLite is dynamically typed: `COALESCE(A, 2.5)` and a `CASE` mixing integer and double
///   results keep the integer when it is chosen, so `COALESCE(A, 2.5) / 2` divides integers in
///   SQLite but doubles in GeoSieve (the expression's type is double). The SQLite text wraps such
///   expressions in `CAST(… AS REAL)`.
/// - `ROUND(integer)` is an integer in GeoSieve and a REAL in SQLite: the SQLite text is
///   `CAST(round(x) AS INTEGER)`, exact for integers. `ROUND(x, d)` with `d < 0` rounds to tens
///   in GeoSieve, while SQLite takes a negative `d` as 0: only `d >= 0` is generated.
/// - `substr` in SQLite counts a negative start from the end and takes a negative length as the
///   characters before the start; SQL's `SUBSTRING` does neither: starts and lengths are
///   non-negative constants (a start of 0 behaves alike in both: position 0 exists but is empty).
/// - `%` in SQLite converts REAL operands to integers, whereas `MOD` on doubles is `fmod`:
///   `MOD` is generated on integers only.
/// - Integer overflow gives NULL in GeoSieve but a REAL in SQLite (and `abs(-2^63)` is an
///   error): every integer `+ - * / %` and negation is wrapped in `gs_int(…)`, a registered
///   function that passes INTEGERs and turns anything else into NULL, and `ABS(x)` is
///   `gs_int(max(x, -x))`; intervals and `date ± interval` (epoch-millisecond integers in
///   SQLite) likewise. `date ± n` days is `gs_int(d ± gs_int(n * 86400000))`: GeoSieve
///   multiplies out first, each step NULL on overflow.
/// - Double overflow gives NULL in GeoSieve but ±Inf in SQLite: every double `+ - * /` is
///   wrapped in `gs_real(…)`, which turns ±Inf into NULL (NaN is NULL in both).
/// - `CAST(x AS INTEGER)` is NULL outside -2^63 ..< 2^63 in GeoSieve; SQLite saturates: the
///   SQLite text tests the range first. Generated on columns and constants only (the operand
///   is repeated). Other `CAST`s: integers to FLOAT and VARCHAR (`CAST … AS REAL/TEXT`), and a
///   moderate date to VARCHAR (below); string casts differ in many corners: not generated.
/// - `ROUND` of an integer with digits ≥ 0 is that integer in GeoSieve; SQLite rounds a REAL
///   copy, losing the digits beyond 2^53: the SQLite text is the operand itself.
/// - A `CASE` or `COALESCE` mixing integer and double results is a double in GeoSieve (the
///   chosen integer is converted); SQLite keeps the integer: `CAST(… AS REAL)`.
/// - Dates: SQLite has none; the date columns T and U are INTEGER epoch milliseconds there, and
///   date literals are computed by SQLite's `unixepoch` (an independent calendar). `EXTRACT`
///   maps to `strftime` and `CAST(date AS VARCHAR)` to `strftime` with GeoSieve's two forms;
///   SQLite's calendar covers years 0000…9999 only, so these are generated on U (years
///   0001…9998, moved by at most a year) and on literals, never on T. `CAST(date AS DATE)`
///   floors with SQLite's own `%` arithmetic. `date - date` (days, a double) is compared only
///   with constants far from any value where the two engines' roundings of a difference beyond
///   Int64 ms could part.
/// - `substr` in SQLite 3.40 misreads starts and lengths near 2^63 (`substr('abc', 2, 2^63-1)`
///   is `'a'`): SUBSTRING arguments stay small constants (unit tests cover the huge ones).
/// - Strings: SQLite folds ASCII only, so the exotic strings (column S, some NAME rows) have no
///   cased non-ASCII letter: both normalization forms come from Hangul and kana, combining
///   marks sit on ASCII letters and on `%`, `_` and `\`. Huge strings stay below SQLite's
///   50,000-byte LIKE pattern limit.
/// - `CONCAT` of a double formats it in Swift (`2.5`, `-2.0`), SQLite with `%!.15g`: the same
///   for the quarter values of column D, so only D itself, never computed doubles, is
///   concatenated. SQLite's `||` with a NULL is NULL, like `CONCAT` here.
/// - The same in both, so left alone: integer `/` truncates toward zero, division by zero is
///   NULL, `%` takes the dividend's sign, INTEGER vs REAL compares numerically, TEXT compares
///   byte-wise (UTF-8) by default, `round` is half away from zero, three-valued logic.
/// - Everything is fully parenthesized, so precedence differences (`||`, unary minus, `NOT`)
///   cannot matter, and `--` (a comment in both) cannot arise.
@Suite("Where clauses against SQLite", .tags(.slow), .timeLimit(.minutes(10)))
struct SQLiteDifferentialTests {
    typealias Generator = KernelConsistencyTests.Generator

    // MARK: The table

    /// Low-cardinality values (CATEGORY, dictionary-encoded): mixed case, shared prefixes and
    /// suffixes, `%`, `_`, a quote, the empty string, leading/trailing spaces. ASCII only: SQLite
    /// folds ASCII only (see the type's documentation).
    static let categories = [
        "Parks", "parks", "PARKS", "Park", "Graffiti", "graffiti ", " Tree", "Tree Maintenance", "tree maint",
        "100%", "50%_off", "a_b", "A_B", "", "O'Brien", "San Jose", "Santa Clara", "Sanitation", "Z", "z", "_", "%",
    ]
    static let namePrefixes = ["San ", "Santa ", "SAN ", "st. ", "Saint ", "x_", "50% ", "", " ", "O'"]
    static let nameWords = ["Jose", "jose", "Park", "park", "Tree", "Maint", "Oak", "Oakland", "a_b", "Rio", "Parks"]
    static let nameSuffixes = ["", " Park", " park", "_", "%", " ", "land", "s"]

    struct Table {
        var ids: [Int64] = []
        var a: [Int64?] = []
        var b: [Int64?] = []
        var c: [Int64] = []
        var d: [Double?] = []
        var category: [String?] = []
        var name: [String?] = []
        var x: [Int64?] = []
        var y: [Double?] = []
        var t: [Int64?] = []
        var u: [Int64?] = []
        var s: [String?] = []

        var rowCount: Int { ids.count }

        /// Columns in schema order: OBJECTID, A, B (small, zero-heavy: divisors), C (no NULLs),
        /// D (quarters), CATEGORY (dictionary), NAME (plain); then the extremes: X (Int64 ends),
        /// Y (doubles at ±2^63, ±1.8e308, subnormal), T (dates at the Int64 ends), U (dates in
        /// years 0001…9998, where SQLite's calendar works), S (empty, huge, combining marks,
        /// both normalization forms, wildcards; dictionary-encoded).
        static let schema = SimpleSchema([
            ("OBJECTID", .integer), ("A", .integer), ("B", .integer), ("C", .integer), ("D", .double),
            ("CATEGORY", .string), ("NAME", .string), ("X", .integer), ("Y", .double), ("T", .date), ("U", .date),
            ("S", .string),
        ])

        /// 0001-01-01 and 9998-12-31 as days since 1970-01-01 (as java.time's epochDay gives them).
        static let moderateDays: ClosedRange<Int64> = -719_162...2_932_531

        init(rows: Int, generator: inout Generator) {
            for i in 0..<rows {
                ids.append(Int64(i + 1))
                a.append(generator.chance(12) ? nil : Int64(generator.int(-10...10)))
                b.append(generator.chance(12) ? nil : Int64(generator.int(-3...3)))
                c.append(Int64(generator.int(0...20)))
                // Quarters, so that equality with constants hits; 0.0 but never -0.0.
                d.append(generator.chance(12) ? nil : Double(generator.int(-40...40)) / 4)
                category.append(generator.chance(10) ? nil : pick(SQLiteDifferentialTests.categories, &generator))
                if generator.chance(6) {
                    name.append(nil)
                } else if generator.chance(6) {
                    // Shared with CATEGORY, so that column = column hits.
                    name.append(pick(SQLiteDifferentialTests.categories, &generator))
                } else if generator.chance(5) {
                    // The exotic strings in a plain column too (its own kernels).
                    name.append(pick(Extremes.strings, &generator))
                } else {
                    let prefix = pick(SQLiteDifferentialTests.namePrefixes, &generator)
                    let word = pick(SQLiteDifferentialTests.nameWords, &generator)
                    let suffix = pick(SQLiteDifferentialTests.nameSuffixes, &generator)
                    name.append("\(prefix)\(word) \(i % 97)\(suffix)")
                }
                x.append(generator.chance(10) ? nil : pick(Extremes.integers, &generator))
                y.append(generator.chance(10) ? nil : pick(Extremes.doubles, &generator))
                t.append(generator.chance(10) ? nil : pick(Extremes.instants, &generator))
                if generator.chance(10) {
                    u.append(nil)
                } else {
                    let days = Int64(generator.int(Int(Self.moderateDays.lowerBound)...Int(Self.moderateDays.upperBound)))
                    let time = generator.chance(30) ? 0 : Int64(generator.int(0...86_399_999))
                    u.append(days * 86_400_000 + time)
                }
                if i % 400 == 17 {
                    // One row for each huge string (five in 2,000 rows: enough to be compared
                    // and matched, few enough to keep the test fast).
                    s.append(Extremes.hugeStrings[i / 400 % Extremes.hugeStrings.count])
                } else if generator.chance(10) {
                    s.append(nil)
                } else {
                    s.append(pick(Extremes.strings, &generator))
                }
            }
        }

        /// The GeoSieve columns; NAME is forced plain, CATEGORY dictionary-encoded.
        func columns() -> [Column] {
            func integers(_ values: [Int64?]) -> Column {
                var validity = ValidityBitmap(count: 0, allValid: true)
                for value in values { validity.append(valid: value != nil) }
                return .integer(Int64Column(values: values.map { $0 ?? 0 }, validity: validity))
            }
            func dates(_ values: [Int64?]) -> Column {
                guard case .integer(let column) = integers(values) else { return integers(values) }
                return .date(column)
            }
            func doubles(_ values: [Double?]) -> Column {
                var validity = ValidityBitmap(count: 0, allValid: true)
                for value in values { validity.append(valid: value != nil) }
                return .double(DoubleColumn(values: values.map { $0 ?? 0 }, validity: validity))
            }
            var dValidity = ValidityBitmap(count: 0, allValid: true)
            for value in d { dValidity.append(valid: value != nil) }
            return [
                .integer(Int64Column(values: ids)),
                integers(a),
                integers(b),
                .integer(Int64Column(values: c)),
                .double(DoubleColumn(values: d.map { $0 ?? 0 }, validity: dValidity)),
                .string(StringColumn(category)),
                .string(StringColumn(name, dictionaryLimit: 0)),
                integers(x), doubles(y), dates(t), dates(u), .string(StringColumn(s)),
            ]
        }

        /// Row `i` (0-based) for failure messages.
        func describe(row i: Int) -> String {
            func text(_ s: String?) -> String {
                guard let s else { return "NULL" }
                let scalars = s.unicodeScalars.map { $0.isASCII ? String($0) : "\\u{\(String($0.value, radix: 16))}" }
                return scalars.count > 40 ? "'\(scalars.prefix(20).joined())…' (\(scalars.count) scalars)" : "'\(scalars.joined())'"
            }
            func number<T>(_ x: T?) -> String { x.map { "\($0)" } ?? "NULL" }
            return "OBJECTID=\(ids[i]) A=\(number(a[i])) B=\(number(b[i])) C=\(c[i]) D=\(number(d[i])) "
                + "CATEGORY=\(text(category[i])) NAME=\(text(name[i])) X=\(number(x[i])) Y=\(number(y[i])) "
                + "T=\(number(t[i])) U=\(number(u[i])) S=\(text(s[i]))"
        }

        /// Loads the rows into table `t` of `database`, in one transaction through one prepared
        /// statement. `nocase` declares the text columns `COLLATE NOCASE`.
        func load(into database: SQLiteDatabase, nocase: Bool) throws {
            let collate = nocase ? " COLLATE NOCASE" : ""
            try database.execute(
                "CREATE TABLE t (OBJECTID INTEGER PRIMARY KEY, A INTEGER, B INTEGER, C INTEGER NOT NULL, D REAL, "
                    + "CATEGORY TEXT\(collate), NAME TEXT\(collate), X INTEGER, Y REAL, T INTEGER, U INTEGER, S TEXT\(collate))")
            try database.execute("BEGIN")
            try database.withStatement("INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)") { insert in
                for i in 0..<rowCount {
                    try insert.bind(1, .integer(ids[i]))
                    try insert.bind(2, a[i].map(SQLiteValue.integer) ?? .null)
                    try insert.bind(3, b[i].map(SQLiteValue.integer) ?? .null)
                    try insert.bind(4, .integer(c[i]))
                    try insert.bind(5, d[i].map(SQLiteValue.double) ?? .null)
                    try insert.bind(6, category[i].map(SQLiteValue.text) ?? .null)
                    try insert.bind(7, name[i].map(SQLiteValue.text) ?? .null)
                    try insert.bind(8, x[i].map(SQLiteValue.integer) ?? .null)
                    try insert.bind(9, y[i].map(SQLiteValue.double) ?? .null)
                    try insert.bind(10, t[i].map(SQLiteValue.integer) ?? .null)
                    try insert.bind(11, u[i].map(SQLiteValue.integer) ?? .null)
                    try insert.bind(12, s[i].map(SQLiteValue.text) ?? .null)
                    guard try !insert.step() else {
                        throw SQLiteError(code: -1, message: "INSERT returned a row", context: insert.sql)
                    }
                    try insert.reset()
                }
            }
            try database.execute("COMMIT")
        }
    }

    static func pick<T>(_ values: [T], _ generator: inout Generator) -> T {
        values[generator.int(0...values.count - 1)]
    }

    // MARK: The run

    /// What a run found.
    struct Outcome {
        /// Clauses on which the three answers are not all the same.
        var mismatches = 0
        /// Clauses selecting some rows but not all (the informative ones), by SQLite's answer.
        var selective = 0
    }

    /// Runs `count` random clauses under `collation` and records the first few disagreements
    /// as issues.
    static func run(collation: Collation, seed: UInt64, count: Int) throws -> Outcome {
        var generator = Generator(state: seed)
        let table = Table(rows: 2000, generator: &generator)
        let columns = table.columns()
        let nocase = collation == .nocase

        let database = try SQLiteDatabase()
        // Binary pass: SQLite's LIKE must be case-sensitive like GeoSieve's (SQLite's default is
        // ASCII-case-insensitive). Nocase pass: keep SQLite's case-insensitive LIKE, which on
        // ASCII data equals GeoSieve's Unicode-folding nocase LIKE.
        try database.execute("PRAGMA case_sensitive_like = \(nocase ? "OFF" : "ON")")
        try database.registerOverflowMappings()
        try table.load(into: database, nocase: nocase)

        var clauses = ClauseGenerator(random: generator, nocase: nocase)
        var outcome = Outcome()
        var reported = 0
        for index in 0..<count {
            let clause = clauses.condition(depth: 4)
            var problems: [String] = []
            var sqliteIDs: [Int64] = []
            do {
                sqliteIDs = try database.integers("SELECT OBJECTID FROM t WHERE \(clause.lite) ORDER BY OBJECTID")
            } catch {
                problems.append("SQLite failed: \(error)")
            }
            do {
                let compiled = try CompiledWhereClause(clause.geo, schema: Table.schema, collation: collation)
                let vectorized = compiled.matchingRows(in: columns, rowCount: table.rowCount).map { table.ids[Int($0)] }
                let rowByRow = (0..<table.rowCount).filter { compiled.evaluate(row: $0, in: columns) == true }.map { table.ids[$0] }
                if problems.isEmpty, vectorized != sqliteIDs {
                    problems.append("vectorized vs SQLite: \(difference(vectorized, sqliteIDs, table))")
                }
                if problems.isEmpty, rowByRow != sqliteIDs {
                    problems.append("row evaluator vs SQLite: \(difference(rowByRow, sqliteIDs, table))")
                }
                if vectorized != rowByRow {
                    problems.append("vectorized vs row evaluator: \(difference(vectorized, rowByRow, table))")
                }
            } catch {
                problems.append("GeoSieve rejected it: \(error)")
            }
            if !sqliteIDs.isEmpty && sqliteIDs.count < table.rowCount { outcome.selective += 1 }
            guard !problems.isEmpty else { continue }
            outcome.mismatches += 1
            if reported < 30 {
                reported += 1
                Issue.record(
                    """
                    [\(collation) #\(index)] GeoSieve: \(clause.geo)
                      SQLite: \(clause.lite)
                      \(problems.joined(separator: "\n  "))
                    """)
            }
        }
        try database.close()
        return outcome
    }

    /// How two OBJECTID lists differ: counts, the first few IDs only in either, with their rows.
    static func difference(_ actual: [Int64], _ expected: [Int64], _ table: Table) -> String {
        let extra = Set(actual).subtracting(expected).sorted().prefix(3)
        let missing = Set(expected).subtracting(actual).sorted().prefix(3)
        var lines = ["\(actual.count) rows vs \(expected.count)"]
        for id in extra { lines.append("    only GeoSieve: \(table.describe(row: Int(id - 1)))") }
        for id in missing { lines.append("    only the other: \(table.describe(row: Int(id - 1)))") }
        return lines.joined(separator: "\n")
    }

    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// `GEOSIEVE_DIFFTEST_COUNT` (clauses per collation, default 1,200) and
    /// `GEOSIEVE_DIFFTEST_SEED` run other or longer sweeps, e.g.
    /// `GEOSIEVE_DIFFTEST_COUNT=50000 swift test -c release --filter randomClausesAgreeWithSQLite`.
    @Test(arguments: [Collation.binary, .nocase])
    func randomClausesAgreeWithSQLite(collation: Collation) throws {
        let count = Self.environment("GEOSIEVE_DIFFTEST_COUNT").flatMap { Int($0) } ?? 1200
        let seed = Self.environment("GEOSIEVE_DIFFTEST_SEED").flatMap { UInt64($0) } ?? 2024
        let outcome = try Self.run(collation: collation, seed: collation == .binary ? seed : seed &* 31 &+ 7, count: count)
        #expect(outcome.mismatches == 0, "\(outcome.mismatches) of \(count) clauses disagree under \(collation) (SQLite \(SQLiteDatabase.version))")
        // The generator must keep producing clauses that split the table, or the test proves little.
        #expect(outcome.selective * 5 > count * 2, "only \(outcome.selective) of \(count) clauses select some but not all rows")
    }
}

/// The SQLite behaviour the differential test relies on or works around, checked, so that a
/// different SQLite build cannot silently change what the comparison means.
@Suite("SQLite as the differential test configures it")
struct SQLiteConfigurationTests {
    /// SQL expressions that must be true (1) in SQLite, with why they matter.
    static let facts: [(String, String)] = [
        ("7 / 2 = 3 AND -7 / 2 = -3", "integer division truncates toward zero, as in GeoSieve"),
        ("(7 / 0) IS NULL AND (7.5 / 0) IS NULL AND (7 % 0) IS NULL", "division by zero is NULL, as in GeoSieve"),
        ("-7 % 3 = -1 AND 7 % -3 = 1", "% takes the dividend's sign, as MOD does"),
        ("round(2.5) = 3.0 AND round(-2.5) = -3.0 AND round(0.25, 1) = 0.3", "round is half away from zero"),
        ("2 = 2.0 AND 2 < 2.25", "INTEGER vs REAL compares numerically"),
        ("'B' < 'a' AND 'a' <> 'A'", "TEXT compares binary by default"),
        ("'a' COLLATE NOCASE = 'A' AND 'B' COLLATE NOCASE > 'a'", "NOCASE folds ASCII"),
        ("(NULL || 'a') IS NULL", "|| with NULL is NULL, like CONCAT"),
        ("typeof(round(3)) = 'real'", "round of an integer is REAL: the generator casts back"),
        ("round(17, -1) = 17.0", "a negative number of digits counts as 0: not generated"),
        ("typeof(coalesce(1, 2.5)) = 'integer'", "COALESCE keeps the chosen value's type: the generator casts to REAL"),
        ("substr('abc', -1) = 'c' AND substr('abc', 2, -1) = 'a'", "negative substr arguments differ from SUBSTRING: not generated"),
        ("substr('abc', 0, 2) = 'a'", "start 0 counts an empty position 0, as SUBSTRING does"),
        ("(5.5 % 2) = 1", "% truncates REAL operands: MOD is generated on integers only"),
        ("typeof(9223372036854775807 + 1) = 'real'", "overflow becomes REAL (GeoSieve: NULL): gs_int maps it to NULL"),
        ("upper('é') = 'é' AND lower('É') = 'É' AND NOT ('é' COLLATE NOCASE = 'É')", "case folding is ASCII-only"),
        ("'abc' LIKE 'a\\bc' ESCAPE '\\'", "an escaped ordinary character matches itself, as in GeoSieve"),
        ("instr('abc', '') = 1 AND trim('xax', '') = 'xax'", "empty needle and empty trim set behave as in GeoSieve"),
        ("typeof(-9223372036854775808 / -1) = 'real' AND typeof(-(-9223372036854775808)) = 'real'", "more overflows to REAL: gs_int maps them to NULL"),
        ("typeof(max(-9223372036854775808, -(-9223372036854775808))) = 'real'", "ABS(x) as max(x, -x) overflows to a REAL for -2^63"),
        ("-9223372036854775808 % -1 = 0", "MOD(-2^63, -1) is 0, as in GeoSieve"),
        ("typeof(1e308 * 10) = 'real' AND 1e308 * 10 > 1.7976931348623157e308", "double overflow is +Inf (GeoSieve: NULL): gs_real maps it"),
        ("((1e308 * 10) - (1e308 * 10)) IS NULL", "NaN is NULL, as in GeoSieve"),
        ("CAST(9.3e18 AS INTEGER) = 9223372036854775807 AND CAST(-1e300 AS INTEGER) = -9223372036854775808", "CAST saturates (GeoSieve: NULL): range tested first"),
        ("9223372036854775807 < 9223372036854775808.0 AND -9223372036854775808 = -9223372036854775808.0", "INTEGER vs REAL compares exactly at the ends"),
        ("unixepoch('0000-01-01') = -62167219200 AND unixepoch('9999-12-31 23:59:59') = 253402300799", "SQLite's calendar reaches years 0000 and 9999"),
        ("strftime('%Y-%m-%dT%H:%M:%fZ', -62135596800001 / 1000.0, 'unixepoch') = '0000-12-31T23:59:59.999Z'", "strftime keeps milliseconds before 1970"),
        ("ceiling(9223372036854775807) = 9223372036854775807 AND typeof(floor(-9223372036854775808)) = 'integer'", "CEILING/FLOOR of an integer stay exact integers"),
        ("length('e' || char(769)) = 2 AND 'e' || char(769) <> char(233)", "text is code points and bytes: no normalization"),
    ]

    @Test(arguments: facts)
    func fact(sql: String, why: String) throws {
        let database = try SQLiteDatabase()
        try database.execute("PRAGMA case_sensitive_like = ON")
        #expect(try database.integers("SELECT \(sql)") == [1], "\(sql): \(why)")
        try database.close()
    }

    /// The mapping functions do only what the differential test's notes say.
    @Test func overflowMappings() throws {
        let database = try SQLiteDatabase()
        try database.registerOverflowMappings()
        let facts = [
            "gs_int(9223372036854775807 + 1) IS NULL", "gs_int(9223372036854775806 + 1) = 9223372036854775807",
            "gs_int(NULL) IS NULL", "gs_int(2.0) IS NULL", "gs_int('7') IS NULL",
            "gs_real(1e308 * 10) IS NULL", "gs_real(-1e308 * 10) IS NULL", "gs_real(1.5) = 1.5", "gs_real(7) = 7",
            "typeof(gs_real(7)) = 'integer'", "gs_real(NULL) IS NULL", "gs_real('a') = 'a'",
        ]
        for fact in facts {
            #expect(try database.integers("SELECT \(fact)") == [1], "\(fact)")
        }
        // abs(-2^63) is an error in SQLite, which is why ABS is mapped through max(x, -x).
        #expect(throws: SQLiteError.self) { _ = try database.integers("SELECT abs(-9223372036854775808) IS NULL") }
        try database.close()
    }

    /// Every extreme double constant's text (Swift's shortest round-trip form, which GeoSieve's
    /// lexer reads back exactly) reads as the same double in SQLite.
    @Test func extremeDoubleLiteralsReadAlike() throws {
        let database = try SQLiteDatabase()
        for value in Extremes.doubles {
            let text = ClauseGenerator.literal(value)
            let same = try database.withStatement("SELECT \(text) = ?1") { statement in
                try statement.bind(1, .double(value))
                _ = try statement.step()
                return try statement.int64(column: 0)
            }
            #expect(same == 1, "\(text) vs \(value)")
        }
        try database.close()
    }

    @Test func likeIsCaseInsensitiveUnlessConfigured() throws {
        let database = try SQLiteDatabase()
        // SQLite's default: LIKE ignores ASCII case — unlike GeoSieve's binary default.
        #expect(try database.integers("SELECT 'abc' LIKE 'ABC'") == [1])
        try database.execute("PRAGMA case_sensitive_like = ON")
        #expect(try database.integers("SELECT 'abc' LIKE 'ABC'") == [0])
        try database.close()
    }

    /// GeoSieve folds case with Unicode (`UPPER`, `LOWER`, the `nocase` collation and nocase
    /// `LIKE`); SQLite without ICU folds ASCII only. This is why the random test keeps to ASCII;
    /// here the intended difference is shown on purpose.
    @Test func nonASCIIFoldingDiffersByDesign() throws {
        let schema = SimpleSchema([("OBJECTID", .integer), ("NAME", .string)])
        let names = ["straße", "école", "ÉCOLE", "Ärger"]
        let columns: [Column] = [.integer(Int64Column(values: [1, 2, 3, 4])), .string(StringColumn(names, dictionaryLimit: 0))]
        let database = try SQLiteDatabase()
        try database.execute("CREATE TABLE t (OBJECTID INTEGER PRIMARY KEY, NAME TEXT COLLATE NOCASE)")
        try database.withStatement("INSERT INTO t VALUES (?1, ?2)") { insert in
            for (i, name) in names.enumerated() {
                try insert.bind(1, .integer(Int64(i + 1)))
                try insert.bind(2, .text(name))
                _ = try insert.step()
                try insert.reset()
            }
        }
        // (GeoSieve clause, collation, GeoSieve's OBJECTIDs, SQLite's clause, SQLite's OBJECTIDs)
        let cases: [(String, Collation, [Int64], String, [Int64])] = [
            ("UPPER(NAME) = 'STRASSE'", .binary, [1], "upper(NAME) = 'STRASSE'", []),
            ("LOWER(NAME) = 'école'", .binary, [2, 3], "lower(NAME) = 'école'", [2]),
            ("NAME = 'ÉCOLE'", .nocase, [2, 3], "NAME = 'ÉCOLE'", [3]),
            ("NAME LIKE 'äR%'", .nocase, [4], "NAME LIKE 'äR%'", []),
            // Not folding: the same in both.
            ("CHAR_LENGTH(NAME) = 5", .binary, [2, 3, 4], "length(NAME) = 5", [2, 3, 4]),
            ("NAME LIKE '_cole'", .binary, [2], "NAME LIKE '_cole'", [2]),
        ]
        for (geo, collation, geoIDs, lite, liteIDs) in cases {
            try database.execute("PRAGMA case_sensitive_like = \(collation == .binary ? "ON" : "OFF")")
            let clause = try CompiledWhereClause(geo, schema: schema, collation: collation)
            #expect(clause.matchingRows(in: columns, rowCount: names.count).map { Int64($0) + 1 } == geoIDs, "GeoSieve: \(geo)")
            #expect(try database.integers("SELECT OBJECTID FROM t WHERE \(lite) ORDER BY OBJECTID") == liteIDs, "SQLite: \(lite)")
        }
        try database.close()
    }
}

/// Hand-picked corners, each evaluated to TRUE / FALSE / NULL by GeoSieve and by SQLite on a
/// one-row table (A = 7, D = 2.5, S = 'abc', N = NULL integer, T = NULL string).
@Suite("Where-clause corners against SQLite")
struct SQLiteCornerTests {
    /// (GeoSieve clause, SQLite clause); the SQLite text differs only in spelling.
    static let corners: [(String, String)] = [
        ("9007199254740993 > 9007199254740992.0", "9007199254740993 > 9007199254740992.0"),
        ("A * 1000000000000 + 1 > 7000000000000.5", "A * 1000000000000 + 1 > 7000000000000.5"),
        ("MOD(-A, 3) = -1", "(-A % 3) = -1"),
        ("MOD(A, -3) = 1", "(A % -3) = 1"),
        ("-A / 2 = -3", "-A / 2 = -3"),
        ("A / 0 IS NULL", "A / 0 IS NULL"),
        ("D / 0 IS NULL", "D / 0 IS NULL"),
        ("MOD(A, 0) IS NULL", "(A % 0) IS NULL"),
        ("ROUND(D) = 3", "round(D) = 3"),
        ("ROUND(-D) = -3", "round(-D) = -3"),
        ("ROUND(D / 4, 1) = 0.6", "round(D / 4, 1) = 0.6"),
        ("ROUND(-D / 4, 2) = -0.63", "round(-D / 4, 2) = -0.63"),
        ("ROUND(D / 3, 3) = 0.833", "round(D / 3, 3) = 0.833"),
        ("ROUND(A / 3.0, 2) = 2.33", "round(A / 3.0, 2) = 2.33"),
        ("NULLIF(A, 7.0) IS NULL", "nullif(A, 7.0) IS NULL"),
        ("COALESCE(N, A) / 2 = 3", "coalesce(N, A) / 2 = 3"),
        ("SUBSTRING(S, 0) = 'abc'", "substr(S, 0) = 'abc'"),
        ("SUBSTRING(S, 0, 1) = ''", "substr(S, 0, 1) = ''"),
        ("SUBSTRING(S, 3, 5) = 'c'", "substr(S, 3, 5) = 'c'"),
        ("SUBSTRING(S, 4) = ''", "substr(S, 4) = ''"),
        ("SUBSTRING(S FROM 2 FOR 0) = ''", "substr(S, 2, 0) = ''"),
        ("SUBSTRING(S, 1.9, 1) = 'a'", "substr(S, 1.9, 1) = 'a'"),
        ("TRIM(BOTH 'ab' FROM CONCAT(S, 'ba')) = 'c'", "trim(S || 'ba', 'ab') = 'c'"),
        ("TRIM(LEADING FROM CONCAT('  ', S)) = S", "ltrim('  ' || S) = S"),
        ("POSITION('' IN S) = 1", "instr(S, '') = 1"),
        ("POSITION('c', S) = 3", "instr(S, 'c') = 3"),
        ("CHAR_LENGTH(CONCAT(S, A, D)) = 7", "length(S || A || D) = 7"),
        ("CONCAT(S, N) IS NULL", "(S || N) IS NULL"),
        ("S < 'abcd' AND 'abc' > 'ABC' AND '' < 'a'", "S < 'abcd' AND 'abc' > 'ABC' AND '' < 'a'"),
        ("S LIKE 'a%c%'", "S LIKE 'a%c%'"),
        ("S LIKE '%%%'", "S LIKE '%%%'"),
        ("S LIKE '___'", "S LIKE '___'"),
        ("S LIKE '____'", "S LIKE '____'"),
        ("'' LIKE ''", "'' LIKE ''"),
        ("'' LIKE '%'", "'' LIKE '%'"),
        ("'' LIKE '_'", "'' LIKE '_'"),
        ("'a%' LIKE 'a!%' ESCAPE '!'", "'a%' LIKE 'a!%' ESCAPE '!'"),
        ("'ab' LIKE 'a!%' ESCAPE '!'", "'ab' LIKE 'a!%' ESCAPE '!'"),
        ("'a!' LIKE 'a!!' ESCAPE '!'", "'a!' LIKE 'a!!' ESCAPE '!'"),
        ("S LIKE T", "S LIKE T"),
        ("T LIKE '%'", "T LIKE '%'"),
        ("A IN (1, N)", "A IN (1, N)"),
        ("A NOT IN (1, N)", "A NOT IN (1, N)"),
        ("A IN (7, N)", "A IN (7, N)"),
        ("A IN (7.0)", "A IN (7.0)"),
        ("A BETWEEN N AND 5", "A BETWEEN N AND 5"),
        ("A BETWEEN N AND 9", "A BETWEEN N AND 9"),
        ("A NOT BETWEEN 9 AND N", "A NOT BETWEEN 9 AND N"),
        ("A BETWEEN 9 AND 5", "A BETWEEN 9 AND 5"),
        ("NOT (N = 1) OR TRUE", "NOT (N = 1) OR TRUE"),
        ("(N = 1) AND FALSE", "(N = 1) AND FALSE"),
        ("CASE WHEN N = 1 THEN 1 ELSE 2 END = 2", "CASE WHEN N = 1 THEN 1 ELSE 2 END = 2"),
        ("CASE N WHEN NULL THEN 1 ELSE 2 END = 2", "CASE N WHEN NULL THEN 1 ELSE 2 END = 2"),
        ("CASE A WHEN 7.0 THEN 1 END = 1", "CASE A WHEN 7.0 THEN 1 END = 1"),
        ("CASE WHEN A > 1 THEN 1 END / 2 = 0", "CASE WHEN A > 1 THEN 1 END / 2 = 0"),
        ("ABS(-D) = D AND ABS(-A) = A", "abs(-D) = D AND abs(-A) = A"),
        ("SIGN(-D) = -1 AND SIGN(0) = 0", "sign(-D) = -1 AND sign(0) = 0"),
        ("CEILING(-D) = -2 AND FLOOR(-D) = -3", "ceiling(-D) = -2 AND floor(-D) = -3"),
        ("UPPER(S) = 'ABC' AND LOWER('ABC') = S", "upper(S) = 'ABC' AND lower('ABC') = S"),
        ("-(-A) = A", "-(-A) = A"),
        ("A = 7 AND D = 2.5 AND N IS NULL", "A = 7 AND D = 2.5 AND N IS NULL"),
    ]

    @Test(arguments: corners)
    func corner(geo: String, lite: String) throws {
        let schema = SimpleSchema([("A", .integer), ("D", .double), ("S", .string), ("N", .integer), ("T", .string)])
        let columns: [Column] = [
            .integer(Int64Column(values: [7])), .double(DoubleColumn(values: [2.5])), .string(StringColumn(["abc"])),
            .integer(Int64Column(values: [0], validity: ValidityBitmap(count: 1, allValid: false))), .string(StringColumn([nil])),
        ]
        let database = try SQLiteDatabase()
        try database.execute("PRAGMA case_sensitive_like = ON")
        try database.execute("CREATE TABLE t (A INTEGER, D REAL, S TEXT, N INTEGER, T TEXT)")
        try database.execute("INSERT INTO t VALUES (7, 2.5, 'abc', NULL, NULL)")
        // 1 = TRUE, 0 = FALSE, 2 = NULL.
        let sqlite = try database.integers("SELECT CASE WHEN (\(lite)) THEN 1 WHEN NOT (\(lite)) THEN 0 ELSE 2 END FROM t")
        try database.close()
        let clause = try CompiledWhereClause(geo, schema: schema)
        let geoSieve: Int64 = clause.evaluate(row: 0, in: columns).map { $0 ? 1 : 0 } ?? 2
        #expect([geoSieve] == sqlite, "GeoSieve \(geo) vs SQLite \(lite) (1 TRUE, 0 FALSE, 2 NULL)")
        let vectorized = clause.matchingRows(in: columns, rowCount: 1)
        #expect(vectorized == (geoSieve == 1 ? [0] : []), "vectorized \(geo)")
    }
}
