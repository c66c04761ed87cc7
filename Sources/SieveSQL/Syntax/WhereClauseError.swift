// Re-exported: the error's category, its location and the `~=` that matches its kinds are
// SieveBase's, and a client of this module uses them with the error.
@_exported import SieveBase

/// The one error type of the where-clause language: lexing, parsing, binding and evaluation all
/// throw it.
///
/// An error carries a ``Kind`` to match on, a human-readable ``message``, the ``sql`` text it is
/// about and, when it can point at something, the ``range`` of the offending text. Its
/// ``description`` reads like
///
/// ```
/// where clause error at 1:17: unknown field "popu" (did you mean "POP"?)
/// ```
///
/// Match kinds in `catch` clauses the way Foundation's `CocoaError` codes are matched:
///
/// ```swift
/// do {
///     _ = try WhereClause.parse(sql)
/// } catch WhereClauseError.unterminatedString {
///     …
/// } catch {
///     print(error.kind, error.message)
/// }
/// ```
public struct WhereClauseError: GeoSieveKindedError, Hashable {
    /// What went wrong, as an open set of named values.
    ///
    /// Other parts of the module (and clients) add kinds with
    /// `extension WhereClauseError.Kind { public static let myKind = Self(rawValue: "myKind") }`;
    /// to make `catch WhereClauseError.myKind` work, also add
    /// `extension WhereClauseError { public static var myKind: Kind { .myKind } }`.
    ///
    /// As a ``/SieveBase/GeoSieveErrorKind``, a kind's `description` is its ``rawValue`` and `~=`
    /// matches errors of the kind, both for `any Error` and in typed `throws(WhereClauseError)`
    /// code.
    public struct Kind: GeoSieveErrorKind {
        /// The error type of these kinds.
        public typealias Failure = WhereClauseError
        /// The kind's name, such as `"unknownField"`.
        public let rawValue: String

        /// A kind named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The text cannot be parsed: an unexpected token or character, a missing operand or
        /// keyword, trailing text after a complete expression, or an empty where clause.
        public static let syntaxError = Kind(rawValue: "syntaxError")
        /// A `'string'`, a `"quoted identifier"` or an identifier in backticks has no closing quote.
        public static let unterminatedString = Kind(rawValue: "unterminatedString")
        /// A literal is malformed or out of range: an impossible `DATE`/`TIMESTAMP`, an `INTERVAL`
        /// text that does not fit its qualifier, a number followed by letters.
        public static let badLiteral = Kind(rawValue: "badLiteral")
        /// A field name does not resolve against the schema (binder).
        public static let unknownField = Kind(rawValue: "unknownField")
        /// Operand types do not fit an operator or function (binder).
        public static let typeMismatch = Kind(rawValue: "typeMismatch")
        /// A function name is not in the function catalogue (binder).
        public static let unknownFunction = Kind(rawValue: "unknownFunction")
        /// A function is called with too few or too many arguments (binder).
        public static let wrongArgumentCount = Kind(rawValue: "wrongArgumentCount")
        /// `IN ()` with no values.
        public static let emptyInList = Kind(rawValue: "emptyInList")
        /// The expression nests deeper than the parser's limit.
        public static let nestingTooDeep = Kind(rawValue: "nestingTooDeep")
    }

    /// The fields live in one immutable box so that the error is a single reference: typed
    /// `throws(WhereClauseError)` reserves room for the error at every call site, and a small
    /// error keeps the parser's (and binder's) recursion cheap in stack.
    private final class Storage: Sendable {
        let kind: Kind
        let message: String
        let sql: String
        let range: SourceRange?

        init(kind: Kind, message: String, sql: String, range: SourceRange?) {
            self.kind = kind
            self.message = message
            self.sql = sql
            self.range = range
        }
    }

    private var storage: Storage

    /// What went wrong.
    public var kind: Kind {
        get { storage.kind }
        set { storage = Storage(kind: newValue, message: message, sql: sql, range: range) }
    }
    /// What went wrong, for people, without the location: `unknown field "popu" (did you mean "POP"?)`.
    public var message: String {
        get { storage.message }
        set { storage = Storage(kind: kind, message: newValue, sql: sql, range: range) }
    }
    /// The where-clause text the error is about.
    public var sql: String {
        get { storage.sql }
        set { storage = Storage(kind: kind, message: message, sql: newValue, range: range) }
    }
    /// The offending text in ``sql``, when the error can point at something.
    public var range: SourceRange? {
        get { storage.range }
        set { storage = Storage(kind: kind, message: message, sql: sql, range: newValue) }
    }

    /// An error of `kind` about `range` of `sql`.
    public init(_ kind: Kind, _ message: String, sql: String, range: SourceRange?) {
        storage = Storage(kind: kind, message: message, sql: sql, range: range)
    }

    /// Errors are equal when their kind, message, SQL text and range are.
    public static func == (a: WhereClauseError, b: WhereClauseError) -> Bool {
        a.kind == b.kind && a.message == b.message && a.sql == b.sql && a.range == b.range
    }

    /// Hashes the kind, message, SQL text and range.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(message)
        hasher.combine(sql)
        hasher.combine(range)
    }

    /// The 1-based line and column (in `Character`s) where ``range`` starts, if there is a range.
    public var location: (line: Int, column: Int)? {
        range?.location(in: sql)
    }

    /// Every where-clause error is the caller's: the text does not parse or bind.
    public var category: ErrorCategory { .invalidRequest }

    /// ``location`` in the where clause (input `where`), when the error has a range.
    public var inputLocation: InputLocation? {
        location.map { InputLocation(input: "where", line: $0.line, column: $0.column) }
    }

    /// `where clause error at LINE:COLUMN: MESSAGE`, or `where clause error: MESSAGE` without a
    /// range.
    public var description: String {
        guard let (line, column) = location else { return "where clause error: \(message)" }
        return "where clause error at \(line):\(column): \(message)"
    }

    /// ``Kind/syntaxError``, for `catch WhereClauseError.syntaxError`.
    public static var syntaxError: Kind { .syntaxError }
    /// ``Kind/unterminatedString``, for `catch WhereClauseError.unterminatedString`.
    public static var unterminatedString: Kind { .unterminatedString }
    /// ``Kind/badLiteral``, for `catch WhereClauseError.badLiteral`.
    public static var badLiteral: Kind { .badLiteral }
    /// ``Kind/unknownField``, for `catch WhereClauseError.unknownField`.
    public static var unknownField: Kind { .unknownField }
    /// ``Kind/typeMismatch``, for `catch WhereClauseError.typeMismatch`.
    public static var typeMismatch: Kind { .typeMismatch }
    /// ``Kind/unknownFunction``, for `catch WhereClauseError.unknownFunction`.
    public static var unknownFunction: Kind { .unknownFunction }
    /// ``Kind/wrongArgumentCount``, for `catch WhereClauseError.wrongArgumentCount`.
    public static var wrongArgumentCount: Kind { .wrongArgumentCount }
    /// ``Kind/emptyInList``, for `catch WhereClauseError.emptyInList`.
    public static var emptyInList: Kind { .emptyInList }
    /// ``Kind/nestingTooDeep``, for `catch WhereClauseError.nestingTooDeep`.
    public static var nestingTooDeep: Kind { .nestingTooDeep }
}

extension WhereClauseError {
    /// The candidate closest to `name`, if it is close enough to be a plausible typo; `nil`
    /// otherwise.
    ///
    /// Names are compared case-insensitively (Unicode lower-casing) by Levenshtein distance over
    /// `Character`s, counting a swap of two adjacent characters as one edit (so `nmae` is one
    /// edit from `NAME`). "Close enough" means at most one edit per three characters of `name`
    /// (at least 1, at most 3) and fewer edits than `name` has characters. An exact
    /// case-insensitive match has distance 0 and is returned as is. Among equally close
    /// candidates the first wins. When no candidate is that close, a name of three characters
    /// or more that begins a candidate suggests the first such candidate (`pop` → `pop_est`).
    ///
    /// ```swift
    /// WhereClauseError.suggestion(for: "popu", among: ["OBJECTID", "POP", "NAME"])  // "POP"
    /// ```
    ///
    /// - Complexity: Names longer than ``suggestionLengthLimit`` characters get no suggestion
    ///   and are never lower-cased or compared, so a megabyte-long name costs nothing here;
    ///   otherwise O(n·m) per candidate.
    public static func suggestion(for name: String, among candidates: some Sequence<String>) -> String? {
        guard hasAtMost(suggestionLengthLimit, characters: name) else { return nil }
        let target = Array(name.lowercased())
        let limit = Swift.min(3, Swift.max(1, target.count / 3))
        var best: (candidate: String, distance: Int)?
        // The first candidate the name begins, kept in the same pass (`candidates` may be
        // single-pass) for when none is a plausible typo.
        var extended: String?
        let prefix = String(target)
        for candidate in candidates {
            if extended == nil, target.count >= 3, hasAtMost(suggestionLengthLimit, characters: candidate),
                candidate.lowercased().hasPrefix(prefix)
            {
                extended = candidate
            }
            // A candidate longer than the name by more than `limit` can never be close enough.
            guard hasAtMost(target.count + limit, characters: candidate) else { continue }
            let other = Array(candidate.lowercased())
            guard abs(other.count - target.count) <= limit else { continue }
            let distance = editDistance(target, other)
            guard distance <= limit, distance < target.count else { continue }
            if distance < best?.distance ?? Int.max {
                best = (candidate, distance)
            }
        }
        return best?.candidate ?? extended
    }

    /// The longest name, in characters, ``suggestion(for:among:)`` looks for a match for.
    public static let suggestionLengthLimit = 256

    /// Whether `text` has at most `limit` characters; stops counting after `limit + 1`.
    private static func hasAtMost(_ limit: Int, characters text: String) -> Bool {
        // A character is at least one byte.
        if text.utf8.count <= limit { return true }
        var count = 0
        for _ in text {
            count += 1
            if count > limit { return false }
        }
        return true
    }

    /// `" (did you mean "X"?)"` with the ``suggestion(for:among:)`` for `name`, or `""` when there
    /// is none; ready to append to a message.
    public static func didYouMean(_ name: String, among candidates: some Sequence<String>) -> String {
        guard let suggestion = suggestion(for: name, among: candidates) else { return "" }
        return " (did you mean \(quoted(suggestion))?)"
    }

    /// Insertions, deletions, substitutions and adjacent transpositions needed to turn `a` into
    /// `b` (optimal string alignment distance).
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var distance = Swift.min(previous[j - 1] + cost, previous[j] + 1, current[j - 1] + 1)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    distance = Swift.min(distance, beforePrevious[j - 2] + 1)
                }
                current[j] = distance
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}

extension WhereClauseError {
    /// The most characters (Unicode scalars) of user text a message quotes. Longer text is cut
    /// to its first `excerptLimit - 3` characters and `…`, and the message says how long the
    /// text was, so a megabyte-long name or literal never ends up in a message whole.
    public static let excerptLimit = 80

    /// `text` shortened for a message: unchanged when it has at most `limit` characters (Unicode
    /// scalars), else its first `limit - 3` and `…`; control characters and line or paragraph
    /// separators appear as `<U+000A>` so that a message stays one line. `length` is the number
    /// of characters of `text` when it was cut, `nil` when it is shown whole.
    ///
    /// ```swift
    /// WhereClauseError.excerpt("POP").text                                     // "POP"
    /// WhereClauseError.excerpt(String(repeating: "x", count: 1000)).length    // 1000
    /// ```
    ///
    /// - Complexity: O(`limit`) when the text is shown whole; O(n) when it is cut, to count
    ///   its characters (nothing beyond the first `limit` is copied).
    public static func excerpt(_ text: String, limit: Int = excerptLimit) -> (text: String, length: Int?) {
        let limit = Swift.max(4, limit)
        var shown = ""
        var count = 0
        let scalars = text.unicodeScalars
        var index = scalars.startIndex
        let end = scalars.endIndex
        var cutAt: String.Index?
        var cutShown = ""
        while index < end {
            let scalar = scalars[index]
            if count == limit - 3 {
                cutAt = index
                cutShown = shown
            }
            if count == limit { break }
            append(scalar, to: &shown)
            count += 1
            scalars.formIndex(after: &index)
        }
        guard index < end, let cutAt else { return (shown, nil) }
        // Cut: count the rest without copying it.
        let total = (limit - 3) + scalars[cutAt...].count
        return (cutShown + "…", total)
    }

    /// `text` in quotes for a message, shortened as ``excerpt(_:limit:)`` says, with the length
    /// after the closing quote when cut: `"POP"`, or `"xxxx…" (1048576 characters)`.
    ///
    /// Every message that repeats text from the where clause or the schema (field, function
    /// and type names, literals) goes through this function or ``excerpt(_:limit:)``.
    public static func quoted(_ text: String, quote: String = "\"", limit: Int = excerptLimit) -> String {
        let (shown, length) = excerpt(text, limit: limit)
        guard let length else { return quote + shown + quote }
        return quote + shown + quote + " (\(length) characters)"
    }

    private static func append(_ scalar: Unicode.Scalar, to output: inout String) {
        switch scalar.value {
        case 0..<0x20, 0x7F..<0xA0, 0x2028, 0x2029:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            output += "<U+" + String(repeating: "0", count: Swift.max(0, 4 - hex.count)) + hex + ">"
        default:
            output.unicodeScalars.append(scalar)
        }
    }
}
