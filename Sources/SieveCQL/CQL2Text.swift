import SieveSQL

/// The text encoding of CQL2 (`cql2-text`): reading it into a ``CQL2Expression`` and writing a
/// tree back as text.
///
/// ## Reading
///
/// The whole grammar of OGC 21-065r2 is read: `AND`, `OR`, `NOT`; comparisons; `[NOT] LIKE`,
/// `[NOT] BETWEEN`, `[NOT] IN`, `IS [NOT] NULL`; `CASEI` and `ACCENTI`; the spatial (`S_…`),
/// temporal (`T_…`) and array (`A_…`) functions; other function calls; arithmetic with
/// `+ - * / % div ^` and unary minus; properties; character, number and boolean literals;
/// `DATE`, `TIMESTAMP`, `INTERVAL`, WKT geometries (with `Z`, and `GEOMETRYCOLLECTION`),
/// `BBOX` and arrays.
///
/// - Keywords are case-insensitive and reserved: a property named like one (`date`, `point`,
///   `in`, `s_within`, …) must be written in double quotes (`"date"`). Function names are kept
///   as written.
/// - Character literals take `''` or `\'` for a quote; any other backslash stays as written.
/// - `OR` binds loosest, then `AND`, then `NOT`, then the predicates; arithmetic follows the
///   usual precedence (`+ -`, then `* / % div`, then `^`, which groups to the right, then unary
///   minus). Comparisons do not chain: `a = b = c` is an error.
/// - A parenthesized list, `(a, b)` or `()`, is an array. As a function argument, array element
///   or IN-list item, `(a)` followed by `,` or `)` is a one-element array; elsewhere it is `a`.
///
/// ## Writing
///
/// ``write(_:)`` gives a canonical text: upper-case keywords, single spaces, parentheses only
/// where precedence needs them, quotes escaped as `''`, numbers in their shortest form,
/// geometries as WKT. Every tree read from text writes to text that reads back to an equal tree,
/// and writing that again gives the same text.
///
/// ```swift
/// let filter = try CQL2Text.parse("NOT (a=1 or b like 'x%')")
/// CQL2Text.write(filter)  // NOT (a = 1 OR b LIKE 'x%')
/// ```
public enum CQL2Text {
    /// The default limit on nesting (parentheses, `NOT`s, signs, operators and function calls):
    /// the where-clause parser's limit.
    public static let defaultMaximumDepth = WhereClause.defaultMaximumDepth

    /// Reads a cql2-text filter or expression.
    ///
    /// - Parameters:
    ///   - text: The text, e.g. `S_INTERSECTS(geom, POINT(1 2)) AND pop > 1000`.
    ///   - maximumDepth: The nesting limit; deeper input fails with an error instead of
    ///     exhausting the stack.
    /// - Returns: The tree.
    /// - Throws: ``CQL2Error`` with the line and column of the problem, e.g.
    ///   `cql2-text error at 1:17: expected ')' after the arguments of S_INTERSECTS (it takes 2)`.
    public static func parse(_ text: String, maximumDepth: Int = defaultMaximumDepth) throws(CQL2Error) -> CQL2Expression {
        var parser = try CQL2TextParser(text, maximumDepth: maximumDepth)
        return try parser.parseFilter()
    }

    /// Writes a tree as canonical cql2-text.
    ///
    /// Trees that only the JSON encoding or a program can build may have no exact text form; they
    /// are written as closely as text allows and may read back differently: `AND`/`OR` with fewer
    /// than two operands (written as the operand, or `TRUE`/`FALSE` when empty), a one-element
    /// array outside a function argument, infinite or NaN numbers, function names that are not
    /// identifiers, empty property names, strings ending with a backslash, and interval ends given
    /// as a character literal expression. A quote right after a backslash is written `\'` (the
    /// reader takes `\'` for a quote there, and `''` would end the string).
    public static func write(_ expression: CQL2Expression) -> String {
        var writer = CQL2TextWriter()
        writer.write(expression, minimum: 0)
        return writer.text
    }
}

extension CQL2Expression: CustomStringConvertible {
    /// The expression as canonical cql2-text (``CQL2Text/write(_:)``).
    public var text: String { CQL2Text.write(self) }

    /// The expression as canonical cql2-text.
    public var description: String { text }
}
