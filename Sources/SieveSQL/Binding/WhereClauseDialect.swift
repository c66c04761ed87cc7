/// The filter language an expression tree was written in. The tree is the same
/// ``SQLExpression`` either way; the dialect decides what binding accepts.
///
/// - ``arcGIS``: the ArcGIS where clause. A string literal compared with a date is read as a
///   date (`d > '2020-01-01'`), and only the where-clause functions are known.
/// - ``cql2``: a CQL2 filter lowered to the tree (SieveCQL does this). Operands of a comparison
///   must agree in type as CQL2 requires — a string is never read as a date — except that
///   `TRUE` and `FALSE` compare with integer fields as 1 and 0 (GeoSieve stores booleans as
///   0/1 integers); CQL2's own functions `CASEI` and `ACCENTI` are known as
///   well as the where-clause functions.
public enum WhereClauseDialect: String, Hashable, Sendable, CaseIterable {
    /// The ArcGIS where-clause language.
    case arcGIS
    /// CQL2, lowered to the where-clause tree.
    case cql2
}
