import SieveColumns
import SieveGeometry
import SieveJSON

/// The kind of an aggregate in a statistics query: the `statisticType` values of the ArcGIS
/// REST `outStatistics` parameter (the raw values are those names).
public enum StatisticType: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The number of non-NULL values of the field (on the object-ID field: the number of rows).
    case count
    /// The sum of the non-NULL values (numeric fields only).
    case sum
    /// The smallest non-NULL value (numbers, strings under the collation, dates).
    case min
    /// The largest non-NULL value (numbers, strings under the collation, dates).
    case max
    /// The mean of the non-NULL values (numeric fields only).
    case avg
    /// The sample standard deviation (n − 1) of the non-NULL values (numeric fields only).
    case stddev
    /// The sample variance (n − 1) of the non-NULL values (numeric fields only).
    case `var`
    /// The continuous percentile, interpolated linearly between the two nearest values, as
    /// PostgreSQL's `percentile_cont(p) WITHIN GROUP (ORDER BY x)` (numeric fields only).
    case percentileCont = "percentile_cont"
    /// The discrete percentile: the first value whose cumulative distribution reaches `p`, as
    /// PostgreSQL's `percentile_disc(p) WITHIN GROUP (ORDER BY x)` (numeric and date fields).
    case percentileDisc = "percentile_disc"

    /// The REST name (`count`, `sum`, …, `percentile_cont`).
    public var description: String { rawValue }

    /// Whether the statistic takes a percentile parameter.
    public var isPercentile: Bool { self == .percentileCont || self == .percentileDisc }

    /// The type named `name`, ignoring case; `variance` and `stddev_samp`/`var_samp` are
    /// accepted as the sample statistics they name in SQL.
    public init?(name: String) {
        let lowered = name.lowercased()
        switch lowered {
        case "variance", "var_samp": self = .var
        case "stddev_samp": self = .stddev
        default:
            guard let type = StatisticType(rawValue: lowered) else { return nil }
            self = type
        }
    }
}

/// One statistic of a statistics query: what to compute (``type``), over which field
/// (``onField``), and under which output name (``outputAlias``) — one entry of the ArcGIS REST
/// `outStatistics` array.
///
/// ```swift
/// let statistics = [
///     StatisticDefinition(.count, onField: "fid", outputAlias: "n"),
///     StatisticDefinition(.percentileCont, onField: "pop_est", outputAlias: "p90", percentile: 0.9),
/// ]
/// // or, from the command-line form:
/// let same = try StatisticDefinition.list("count:fid:n,percentile_cont(0.9):pop_est:p90")
/// ```
public struct StatisticDefinition: Hashable, Sendable, CustomStringConvertible {
    /// What to compute.
    public var type: StatisticType
    /// The field the statistic is computed over, matched ignoring case.
    public var onField: String
    /// The output field's name; empty for the default `<TYPE>_<field>` (the type upper-cased,
    /// the field's name as the schema spells it, e.g. `SUM_pop_est`). Output names must be
    /// unique (ignoring case) and differ from the group-by fields.
    public var outputAlias: String
    /// For ``StatisticType/percentileCont`` and ``StatisticType/percentileDisc``: the fraction
    /// `p` in `0…1` (required for them, ignored by the other types).
    public var percentile: Double?
    /// For the percentiles: whether the values are ordered descending (`orderBy: "DESC"` in
    /// REST), which reads the percentile from the top: `p` descending is `1 − p` ascending for
    /// the continuous percentile.
    public var percentileDescending: Bool

    /// A statistic definition.
    public init(
        _ type: StatisticType, onField: String, outputAlias: String = "", percentile: Double? = nil,
        percentileDescending: Bool = false
    ) {
        self.type = type
        self.onField = onField
        self.outputAlias = outputAlias
        self.percentile = percentile
        self.percentileDescending = percentileDescending
    }

    /// The command-line form, `type:field:alias` (with `type(p)` or `type(p DESC)` for a
    /// percentile).
    public var description: String {
        var head = type.rawValue
        if type.isPercentile, let percentile {
            head += "(\(percentile)\(percentileDescending ? " DESC" : ""))"
        }
        return head + ":" + onField + (outputAlias.isEmpty ? "" : ":" + outputAlias)
    }

    /// Reads the command-line form: comma-separated items `type:field[:alias]`, where `type` is
    /// a ``StatisticType`` name (any case) and a percentile is written with its fraction, and
    /// optionally `DESC`, in parentheses: `percentile_cont(0.9):pop_est:p90`,
    /// `percentile_disc(0.25 DESC):gdp:q`.
    ///
    /// ```swift
    /// try StatisticDefinition.list("count:fid:n,avg:pop_est:avgpop")
    /// ```
    /// - Throws: ``FeatureTableError/Kind/invalidQuery`` naming the item (1-based) and what is
    ///   wrong: an empty list or item, an unknown type, a missing field, too many `:` parts, a
    ///   percentile without or with a bad fraction, or a fraction on another type.
    public static func list(_ text: String) throws(FeatureTableError) -> [StatisticDefinition] {
        guard !text.allSatisfy(\.isWhitespace) else {
            throw FeatureTableError(.invalidQuery, "no statistic in \(JSONKey.quoted(text))")
        }
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        try checkCount(items.count)
        var result: [StatisticDefinition] = []
        for (i, rawItem) in items.enumerated() {
            let item = String(rawItem.trimmingWhitespace())
            let place = "statistic \(i + 1) (\(JSONKey.quoted(item)))"
            guard !item.isEmpty else {
                throw FeatureTableError(.invalidQuery, "statistic \(i + 1) is empty in \(JSONKey.quoted(text))")
            }
            let parts = item.split(separator: ":", omittingEmptySubsequences: false).map { String($0.trimmingWhitespace()) }
            guard parts.count >= 2, parts.count <= 3 else {
                throw FeatureTableError(.invalidQuery, "\(place) must be type:field or type:field:alias")
            }
            var head = Substring(parts[0])
            var argument: Substring?
            if let open = head.firstIndex(of: "(") {
                guard head.last == ")" else {
                    throw FeatureTableError(.invalidQuery, "\(place): missing ')' after the percentile")
                }
                argument = head[head.index(after: open)..<head.index(before: head.endIndex)]
                head = head[..<open]
            }
            let typeName = String(head.trimmingWhitespace())
            guard let type = StatisticType(name: typeName) else {
                throw FeatureTableError(
                    .invalidQuery,
                    "\(place): unknown statistic type \(JSONKey.quoted(typeName)); expected one of "
                        + StatisticType.allCases.map(\.rawValue).joined(separator: ", "))
            }
            guard !parts[1].isEmpty else {
                throw FeatureTableError(.invalidQuery, "\(place): missing field name")
            }
            var definition = StatisticDefinition(type, onField: parts[1], outputAlias: parts.count == 3 ? parts[2] : "")
            if type.isPercentile {
                guard let argument else {
                    throw FeatureTableError(.invalidQuery, "\(place): \(type) needs a fraction, e.g. \(type)(0.5)")
                }
                let words = argument.split(whereSeparator: \.isWhitespace)
                guard let first = words.first, let value = Double(first), words.count <= 2 else {
                    throw FeatureTableError(
                        .invalidQuery, "\(place): expected a number (and optionally ASC or DESC) in parentheses, not \(JSONKey.quoted(String(argument)))")
                }
                if words.count == 2 {
                    switch words[1].uppercased() {
                    case "ASC": definition.percentileDescending = false
                    case "DESC": definition.percentileDescending = true
                    default:
                        throw FeatureTableError(.invalidQuery, "\(place): expected ASC or DESC, not \(JSONKey.quoted(String(words[1])))")
                    }
                }
                definition.percentile = value
                try definition.checkPercentile(place: place)
            } else if argument != nil {
                throw FeatureTableError(.invalidQuery, "\(place): only percentile_cont and percentile_disc take a parameter")
            }
            result.append(definition)
        }
        return result
    }

    /// Reads the REST `outStatistics` JSON: an array of objects with `statisticType`,
    /// `onStatisticField`, optional `outStatisticFieldName`, and for the percentiles
    /// `statisticParameters` `{"value": p, "orderBy": "ASC"|"DESC"}`.
    ///
    /// ```swift
    /// try StatisticDefinition.list(outStatisticsJSON: """
    ///     [{"statisticType":"sum","onStatisticField":"POP","outStatisticFieldName":"total"}]
    ///     """)
    /// ```
    /// - Throws: ``FeatureTableError/Kind/invalidQuery`` naming the element (0-based, as
    ///   `outStatistics[i]`) and member: text that is not JSON, not an array of objects, a
    ///   missing or non-string member, an unknown statistic type, a missing or bad percentile.
    /// The most statistics one request may ask for.
    public static let maximumCount = 100

    /// Refuses lists over ``maximumCount``.
    private static func checkCount(_ count: Int) throws(FeatureTableError) {
        guard count <= maximumCount else {
            throw FeatureTableError(.invalidQuery, "\(count) statistics asked for; at most \(maximumCount) are allowed")
        }
    }

    public static func list(outStatisticsJSON text: String) throws(FeatureTableError) -> [StatisticDefinition] {
        let document: JSONValue
        do {
            document = try JSONReader.parse(text)
        } catch {
            throw FeatureTableError(.invalidQuery, "outStatistics is not JSON: \(error.message)")
        }
        guard let elements = document.arrayValue else {
            throw FeatureTableError(.invalidQuery, "outStatistics must be a JSON array, not \(document.kindDescription)")
        }
        guard !elements.isEmpty else { throw FeatureTableError(.invalidQuery, "outStatistics is empty") }
        try checkCount(elements.count)
        var result: [StatisticDefinition] = []
        for (i, element) in elements.enumerated() {
            let place = "outStatistics[\(i)]"
            guard let object = element.objectValue else {
                throw FeatureTableError(.invalidQuery, "\(place) must be an object, not \(element.kindDescription)")
            }
            func string(_ key: String, required: Bool) throws(FeatureTableError) -> String? {
                guard let value = object[key], !value.isNull else {
                    if required { throw FeatureTableError(.invalidQuery, "\(place) has no \(key)") }
                    return nil
                }
                guard let string = value.stringValue else {
                    throw FeatureTableError(.invalidQuery, "\(place).\(key) must be a string, not \(value.kindDescription)")
                }
                return string
            }
            let typeName = try string("statisticType", required: true) ?? ""
            guard let type = StatisticType(name: typeName.trimmingWhitespace().description) else {
                throw FeatureTableError(
                    .invalidQuery,
                    "\(place).statisticType \(JSONKey.quoted(typeName)) is not one of "
                        + StatisticType.allCases.map(\.rawValue).joined(separator: ", "))
            }
            let field = String((try string("onStatisticField", required: true) ?? "").trimmingWhitespace())
            guard !field.isEmpty else { throw FeatureTableError(.invalidQuery, "\(place).onStatisticField is empty") }
            let alias = String((try string("outStatisticFieldName", required: false) ?? "").trimmingWhitespace())
            var definition = StatisticDefinition(type, onField: field, outputAlias: alias)
            if type.isPercentile {
                guard let parameters = object["statisticParameters"]?.objectValue else {
                    throw FeatureTableError(.invalidQuery, "\(place) (\(type)) needs statisticParameters {\"value\": p}")
                }
                guard let value = parameters["value"]?.doubleValue else {
                    throw FeatureTableError(.invalidQuery, "\(place).statisticParameters.value must be a number")
                }
                definition.percentile = value
                if let order = parameters["orderBy"], !order.isNull {
                    switch order.stringValue?.uppercased() {
                    case "ASC": definition.percentileDescending = false
                    case "DESC": definition.percentileDescending = true
                    default:
                        throw FeatureTableError(.invalidQuery, "\(place).statisticParameters.orderBy must be \"ASC\" or \"DESC\"")
                    }
                }
                try definition.checkPercentile(place: place)
            }
            result.append(definition)
        }
        return result
    }

    /// Checks that a percentile statistic has a fraction in `0…1`.
    func checkPercentile(place: String) throws(FeatureTableError) {
        guard type.isPercentile else { return }
        guard let percentile else {
            throw FeatureTableError(.invalidQuery, "\(place): \(type) needs a percentile in 0…1")
        }
        guard percentile >= 0, percentile <= 1 else {
            throw FeatureTableError(.invalidQuery, "\(place): the percentile must be in 0…1, not \(percentile)")
        }
    }
}
