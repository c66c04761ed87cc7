import SieveCQL
import SieveColumns
import SieveFeatures
import SieveJSON

/// The time of a time-aware layer (ArcGIS `timeInfo`): one date field, each feature an instant,
/// or a start and an end field, each feature an interval (a NULL start or end: open).
///
/// The ArcGIS `time` parameter and OGC API `datetime` select by it, as the ArcGIS API for
/// JavaScript's time slider asks:
/// - with one field, the features whose instant lies in the query's interval (ends included), or
///   equals the query's instant;
/// - with two, the features whose interval overlaps the query's:
///   `(start IS NULL OR start <= qEnd) AND (end IS NULL OR end >= qStart)`;
/// - a query bound given as `null` (ArcGIS) or `..` (OGC) is open.
public struct LayerTime: Sendable, Hashable {
    /// The field of each feature's instant, or of its interval's start.
    public let startField: String
    /// The field of each feature's interval's end, when features are intervals.
    public let endField: String?

    /// The time of a table of `schema`: `startField` (and `endField`) must be date or date-only
    /// fields of it (matched ignoring case; the schema's spelling is kept).
    /// - Throws: ``ServerRequestError`` (bad request) naming a field that is missing or not a date.
    public init(startField: String, endField: String? = nil, schema: Schema) throws(ServerRequestError) {
        func field(_ name: String) throws(ServerRequestError) -> String {
            guard let field = schema.fields.first(where: { $0.name.lowercased() == name.lowercased() }) else {
                throw ServerRequestError(.badRequest, "the time field \(RequestParameters.quoted(name)) is not a field of the table")
            }
            guard field.type == .date || field.type == .dateOnly else {
                throw ServerRequestError(.badRequest, "the time field \(RequestParameters.quoted(name)) is \(field.type.name), not a date")
            }
            return field.name
        }
        self.startField = try field(startField)
        self.endField = try endField.map(field)
    }

    /// The features whose time meets `target` (a CQL2 instant, day or interval), as a CQL2
    /// expression: with one field, `T_INTERSECTS(field, target)` (and, with `nullsMatch`, a
    /// feature without a value); with two, the feature's interval overlapping the target, a NULL
    /// end open: `(start IS NULL OR NOT T_AFTER(start, target)) AND (end IS NULL OR NOT
    /// T_BEFORE(end, target))`.
    func expression(_ target: CQL2Expression, nullsMatch: Bool) -> CQL2Expression {
        let start = CQL2Expression.property(startField)
        guard let endField else {
            let test = CQL2Expression.temporal(.intersects, start, target)
            return nullsMatch ? .or([test, .isNull(start, negated: false)]) : test
        }
        let end = CQL2Expression.property(endField)
        return .and([
            .or([.isNull(start, negated: false), .not(.temporal(.after, start, target))]),
            .or([.isNull(end, negated: false), .not(.temporal(.before, end, target))]),
        ])
    }

    /// The CQL2 target of an ArcGIS `time` value: an instant, or an interval whose `nil` ends
    /// are open; `nil` when both are open (every feature).
    static func target(from: Int64?, to: Int64?) -> CQL2Expression? {
        func stamp(_ ms: Int64) -> String { CivilTime.format(milliseconds: ms) }
        switch (from, to) {
        case (nil, nil): return nil
        case (let a?, let b?) where a == b: return .timestamp(stamp(a))
        default: return .interval(from.map { .timestamp(stamp($0)) } ?? .unbounded, to.map { .timestamp(stamp($0)) } ?? .unbounded)
        }
    }

    /// The ArcGIS `time` parameter: `t` (an instant) or `t1,t2` (an interval), epoch
    /// milliseconds, `null` for an open end.
    /// - Throws: ``ServerRequestError`` (bad request) for other text.
    static func arcGISInterval(_ text: String) throws(ServerRequestError) -> (from: Int64?, to: Int64?) {
        let invalid = ServerRequestError(
            .badRequest, "Cannot perform query. Invalid query parameters.",
            details: ["time must be epoch milliseconds t or t1,t2 (null for an open end), not \(RequestParameters.quoted(text))"])
        func bound(_ part: Substring) throws(ServerRequestError) -> Int64? {
            let trimmed = part.trimmingWhitespace()
            if trimmed.lowercased() == "null" { return nil }
            guard let value = Int64(trimmed) else { throw invalid }
            return value
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            let instant = try bound(parts[0])
            return (instant, instant)
        case 2: return (try bound(parts[0]), try bound(parts[1]))
        default: throw invalid
        }
    }
}
