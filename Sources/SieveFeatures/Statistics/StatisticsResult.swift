import SieveColumns
import SieveGeometry
import SieveSQL
import SieveJSON

/// What a statistics query asks for, after the ArcGIS REST `query` operation with
/// `outStatistics`: which rows (``query``), which aggregates (``statistics``), grouped by
/// which fields (``groupByFields``), which groups are kept (``having``) and in what order
/// (``orderBy``).
///
/// ```swift
/// let parameters = StatisticsQueryParameters(
///     query: QueryParameters(whereClause: "pop_est > 0"),
///     statistics: try StatisticDefinition.list("count:fid:n,avg:pop_est:avgpop"),
///     groupByFields: ["continent"],
///     having: "COUNT(fid) > 3",
///     orderBy: [SortField("avgpop", ascending: false)])
/// let result = try table.queryStatistics(parameters)
/// ```
///
/// Of ``query`` only the row selection (where clause, object IDs, spatial filter) and the
/// collation are used; its out fields and order are checked but do not apply, and its
/// `resultOffset` and `maxFeatures` do not page the groups.
public struct StatisticsQueryParameters: Hashable, Sendable {
    /// The rows the statistics are computed over, selected as ``FeatureTable/queryFeatures(_:)``
    /// selects them; its ``QueryParameters/collation`` (else the table's) orders and groups
    /// strings.
    public var query: QueryParameters
    /// The aggregates, in output order (after the group fields). At least one is needed.
    public var statistics: [StatisticDefinition]
    /// The fields to group by (ignoring case), in output order; empty for one row over all
    /// the selected rows.
    public var groupByFields: [String]
    /// A condition over each group's aggregates, such as `COUNT(fid) > 3 AND AVG(pop_est) >=
    /// 1e6`, or over output names and group fields; only groups for which it is TRUE are kept.
    /// `nil` or blank keeps every group.
    public var having: String?
    /// The order of the output rows, naming group fields or output names (ignoring case);
    /// empty for the group-field values ascending (NULL first).
    public var orderBy: [SortField]

    /// Statistics query parameters.
    public init(
        query: QueryParameters = .init(), statistics: [StatisticDefinition], groupByFields: [String] = [], having: String? = nil,
        orderBy: [SortField] = []
    ) {
        self.query = query
        self.statistics = statistics
        self.groupByFields = groupByFields
        self.having = having
        self.orderBy = orderBy
    }
}

/// The answer of a statistics query (``FeatureTable/queryStatistics(_:)``) or a distinct-values
/// query (``FeatureTable/queryDistinctValues(_:)``): the output fields and one row of values
/// per group.
///
/// Output field types: `count` is `Integer` (`BigInteger` when a count passes the 32-bit
/// range); `sum` is `BigInteger` over an integer field (`Double` when some group's sum
/// overflows 64 bits) and `Double` over a double field; `avg`, `stddev`, `var` and
/// `percentile_cont` are `Double`; `min`, `max` and `percentile_disc` have the field's type
/// (an object-ID field's values as `BigInteger`). Group fields keep their type likewise.
public struct StatisticsResult: Hashable, Sendable {
    /// The output fields: the group fields first, then one per statistic in definition order.
    public let fields: [Field]
    /// One row per group, each holding one value per field of ``fields``.
    public let rows: [[ScalarValue]]

    /// A result of `fields` and `rows`.
    public init(fields: [Field], rows: [[ScalarValue]]) {
        self.fields = fields
        self.rows = rows
    }

    /// The position of the field named `name` (ignoring case) in ``fields``, or `nil`.
    public func index(ofField name: String) -> Int? {
        let lowered = name.lowercased()
        return fields.firstIndex { $0.name.lowercased() == lowered }
    }

    /// The value of the field named `name` (ignoring case) in row `row`, or `nil` when there
    /// is no such field.
    public func value(row: Int, field name: String) -> ScalarValue? {
        index(ofField: name).map { rows[row][$0] }
    }

    /// The result in the shape of an ArcGIS REST statistics response:
    /// `{"displayFieldName":"","fieldAliases":{…},"fields":[…],"features":[{"attributes":{…}}]}`.
    ///
    /// Dates are epoch milliseconds (a date-only field's days `"yyyy-mm-dd"`, as in feature
    /// queries), doubles keep a fraction (`51.0`), and NaN or infinite
    /// values are written as `null` (never as bare tokens).
    public var esriJSON: String { String(decoding: esriJSONBytes, as: UTF8.self) }

    /// ``esriJSON`` as UTF-8 bytes.
    public var esriJSONBytes: [UInt8] {
        var bytes: [UInt8] = []
        writeEsriJSON(into: &bytes)
        return bytes
    }

    /// Appends ``esriJSON`` to `bytes` as UTF-8, the fields' types declared as `types` says (with
    /// ``EsriFieldTypes/before11_2``, a date-only field's days as epoch milliseconds).
    public func writeEsriJSON(into bytes: inout [UInt8], types: EsriFieldTypes = .all) {
        bytes.append(contentsOf: #"{"displayFieldName":"","fieldAliases":{"#.utf8)
        for (i, field) in fields.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(field.name, into: &bytes)
            bytes.append(UInt8(ascii: ":"))
            JSONWriter.writeString(field.alias, into: &bytes)
        }
        bytes.append(contentsOf: #"},"fields":"#.utf8)
        JSONWriter.write(.array(fields.map { $0.esriJSONValue(types: types) }), into: &bytes)
        bytes.append(contentsOf: #","features":["#.utf8)
        let keys = fields.map { field -> [UInt8] in
            var key: [UInt8] = []
            JSONWriter.writeString(field.name, into: &key)
            key.append(UInt8(ascii: ":"))
            return key
        }
        let days = fields.map { types.declared($0.type) == .dateOnly }
        for (r, row) in rows.enumerated() {
            if r > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: #"{"attributes":{"#.utf8)
            for (i, value) in row.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes.append(contentsOf: keys[i])
                Self.write(value, dateOnly: days[i], into: &bytes)
            }
            bytes.append(contentsOf: "}}".utf8)
        }
        bytes.append(contentsOf: "]}".utf8)
    }

    /// Appends one attribute value: a date-only field's day (`dateOnly`) as `"yyyy-mm-dd"`, as
    /// feature queries write it.
    private static func write(_ value: ScalarValue, dateOnly: Bool, into bytes: inout [UInt8]) {
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .date(let x) where dateOnly:
            JSONWriter.writeString(CivilTime.format(milliseconds: x, dateOnlyAtMidnight: true), into: &bytes)
        case .integer(let x), .date(let x): JSONOutput.appendInteger(x, to: &bytes)
        case .double(let x): JSONWriter.writeAttributeDouble(x, into: &bytes)
        case .string(let x): JSONWriter.writeString(x, into: &bytes)
        case .boolean(let x): bytes.append(contentsOf: (x ? "true" : "false").utf8)
        }
    }
}

extension ScalarValue {
    /// Negative, zero or positive as `a` orders before, with or after `b` in a statistics
    /// result: NULL first, NaN below every number, strings under `collation`.
    static func statisticsOrder(_ a: ScalarValue, _ b: ScalarValue, collation: Collation) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.integer(let x), .integer(let y)), (.date(let x), .date(let y)):
            return x < y ? -1 : (x > y ? 1 : 0)
        case (.string(let x), .string(let y)):
            return StringOrder.compare(x, y, collation: collation)
        case (.boolean(let x), .boolean(let y)):
            return x == y ? 0 : (x ? 1 : -1)
        default:
            guard let x = a.numericValue, let y = b.numericValue else { return 0 }
            if x.isNaN || y.isNaN { return x.isNaN == y.isNaN ? 0 : (x.isNaN ? -1 : 1) }
            return x < y ? -1 : (x > y ? 1 : 0)
        }
    }

    /// The value as a double when it is a number.
    private var numericValue: Double? {
        switch self {
        case .integer(let x): Double(x)
        case .double(let x): x
        default: nil
        }
    }
}
