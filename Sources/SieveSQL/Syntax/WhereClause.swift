/// The entry point of the where-clause language's front end.
///
/// ## Grammar
///
/// Precedence, weakest first (all binary operators associate to the left, comparisons do not
/// chain):
///
/// | Level | Operators |
/// |---|---|
/// | 1 | `OR` |
/// | 2 | `AND` |
/// | 3 | `NOT` (prefix) |
/// | 4 | `= <> != < <= > >=`, `IS [NOT] NULL`, `[NOT] IN (…)`, `[NOT] BETWEEN … AND …`, `[NOT] LIKE … [ESCAPE …]` |
/// | 5 | `+ -` |
/// | 6 | `* /` |
/// | 7 | unary `-` and `+` |
///
/// So `NOT a = b` is `NOT (a = b)`, `a BETWEEN x AND y AND z` is `(a BETWEEN x AND y) AND z`,
/// and `NOT` cannot appear as an operand of a comparison or arithmetic without parentheses.
/// The bounds of `BETWEEN` and the `LIKE` pattern and escape are additive expressions.
///
/// Operands: numbers, `'strings'`, `TRUE`, `FALSE`, `NULL`, `DATE '…'`, `TIMESTAMP '…'`,
/// `INTERVAL [+|-] '…' DAY|HOUR|MINUTE|SECOND [TO HOUR|MINUTE|SECOND]` (an optional `(p)`
/// precision after a field is skipped), `CURRENT_DATE`, `CURRENT_TIMESTAMP` (either with `()`),
/// field names, `NAME(args…)`, `CASE … END`, `CAST(x AS type)`, `EXTRACT(field FROM x)`,
/// `POSITION(sub IN s)`, `SUBSTRING(s FROM i [FOR n])`,
/// `TRIM([BOTH|LEADING|TRAILING] [c FROM] s)`, and `( expression )`.
///
/// ## Keywords and field names
///
/// Keywords are case-insensitive. These are reserved and name a field only when quoted:
/// `AND OR NOT IN BETWEEN LIKE ESCAPE IS NULL TRUE FALSE CASE WHEN THEN ELSE END CURRENT_DATE
/// CURRENT_TIMESTAMP`. All other keywords act as keywords only where the grammar expects them
/// (`DATE` before a string, `CAST` before `(`, `YEAR` inside `EXTRACT`, …) and are ordinary
/// field names elsewhere: `DAY = 3 AND YEAR > 2000` compares two fields. A name in double quotes
/// (`"DATE"`) or in backticks is always a field.
///
/// ## Dates and times
///
/// `DATE` and `TIMESTAMP` literals are read as UTC unless the timestamp carries an offset;
/// both become epoch milliseconds. `DATE` must be `'yyyy-mm-dd'` naming an existing day.
public enum WhereClause {
    /// The default limit on nesting: at most this many levels of parentheses, `NOT`s, signs and
    /// operators, and no tree taller than this.
    public static let defaultMaximumDepth = 200

    /// Parses `sql` into an expression tree.
    ///
    /// - Parameters:
    ///   - sql: The where clause, e.g. `POP > 100000 AND NAME LIKE 'San%'`.
    ///   - maximumDepth: The nesting limit; deeper input fails with
    ///     ``WhereClauseError/Kind/nestingTooDeep`` instead of exhausting the stack.
    /// - Throws: ``WhereClauseError`` with kind ``WhereClauseError/Kind/syntaxError``,
    ///   ``WhereClauseError/Kind/unterminatedString``, ``WhereClauseError/Kind/badLiteral``,
    ///   ``WhereClauseError/Kind/emptyInList`` or ``WhereClauseError/Kind/nestingTooDeep``.
    public static func parse(_ sql: String, maximumDepth: Int = defaultMaximumDepth) throws(WhereClauseError) -> SQLExpression {
        var parser = Parser(sql, maximumDepth: maximumDepth)
        return try parser.parseWhereClause()
    }
}
