import SieveColumns
import SieveGeometry
import SieveSQL
import SieveJSON

/// A `having` condition read and checked: the aggregate calls it makes (computed as hidden
/// statistics) and its text with each call replaced by a reference to the hidden output
/// column, bound once the output types are known.
struct HavingClause {
    /// The text as written.
    let sql: String
    /// The text with every aggregate call replaced by `"<hidden name>"`.
    let rewritten: String
    /// The hidden statistics the condition reads, named by their output aliases.
    let aggregates: [StatisticDefinition]

    /// The aggregate function names and the statistics they compute.
    private static let functions: [String: StatisticType] = [
        "COUNT": .count, "SUM": .sum, "MIN": .min, "MAX": .max, "AVG": .avg,
        "STDDEV": .stddev, "STDDEV_SAMP": .stddev, "VAR": .var, "VARIANCE": .var, "VAR_SAMP": .var,
    ]

    /// Parses `sql` and checks its field references: an aggregate's argument must be one field
    /// of `schema`; a field outside an aggregate must be one of `outputNames` (group fields
    /// and output aliases).
    /// - Throws: ``FeatureTableError/Kind/invalidQuery`` saying what is wrong and where.
    init(_ sql: String, schema: Schema, outputNames: [String], hiddenPrefix: String) throws(FeatureTableError) {
        let tree: SQLExpression
        do {
            tree = try WhereClause.parse(Self.countingRows(sql, objectIDField: schema.objectIdFieldName))
        } catch {
            throw FeatureTableError(.invalidQuery, "having \(JSONKey.quoted(sql)): \(error)")
        }
        let outputs = Set(outputNames.map { $0.lowercased() })
        var replacements: [(range: SourceRange, name: String)] = []
        var aggregates: [StatisticDefinition] = []
        var stack = [tree]
        while let node = stack.popLast() {
            switch node.kind {
            case .function(let call):
                if let type = Self.functions[call.normalizedName] {
                    guard call.arguments.count == 1, case .field(let reference) = call.arguments[0].kind else {
                        throw FeatureTableError(
                            .invalidQuery,
                            "having: \(call.name)(…) at \(Self.place(node.range, in: sql)) must have one field name as its argument")
                    }
                    let field = try QueryPlan.resolve(reference.name, in: schema, parameter: "having").name
                    let definition = StatisticDefinition(type, onField: field)
                    let index: Int
                    if let existing = aggregates.firstIndex(where: { $0.type == type && $0.onField == field }) {
                        index = existing
                    } else {
                        index = aggregates.count
                        var hidden = definition
                        hidden.outputAlias = hiddenPrefix + String(index)
                        aggregates.append(hidden)
                    }
                    replacements.append((node.range, aggregates[index].outputAlias))
                    continue
                }
                stack += node.children
            case .field(let reference):
                guard outputs.contains(reference.name.lowercased()) else {
                    throw FeatureTableError(
                        .invalidQuery,
                        "having: \(JSONKey.quoted(reference.name)) at \(Self.place(node.range, in: sql)) is neither a group-by field "
                            + "nor an output statistic; use it inside an aggregate such as SUM(\(reference.name))")
                }
            default:
                stack += node.children
            }
        }
        var bytes = Array(Self.countingRows(sql, objectIDField: schema.objectIdFieldName).utf8)
        for replacement in replacements.sorted(by: { $0.range.lower > $1.range.lower }) {
            var quoted = Array("\"".utf8)
            quoted += replacement.name.utf8
            quoted.append(UInt8(ascii: "\""))
            bytes.replaceSubrange(replacement.range.lower..<replacement.range.upper, with: quoted)
        }
        self.sql = sql
        self.rewritten = String(decoding: bytes, as: UTF8.self)
        self.aggregates = aggregates
    }

    /// `sql` with each `COUNT(*)` (any case, spaces allowed inside) outside quotes written as
    /// `COUNT("<object-ID field>")`, which counts the same rows: the where-clause grammar has
    /// no `*` argument.
    static func countingRows(_ sql: String, objectIDField: String) -> String {
        let bytes = Array(sql.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var i = 0
        func skipSpaces(_ j: Int) -> Int {
            var j = j
            while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x09 || bytes[j] == 0x0A || bytes[j] == 0x0D { j += 1 }
            return j
        }
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                // Copy the quoted text as it is (a doubled quote stays inside).
                var j = i + 1
                while j < bytes.count {
                    if bytes[j] == byte {
                        if j + 1 < bytes.count, bytes[j + 1] == byte { j += 2; continue }
                        break
                    }
                    j += 1
                }
                let end = Swift.min(j + 1, bytes.count)
                result += bytes[i..<end]
                i = end
                continue
            }
            let startsWord = i == 0 || !(bytes[i - 1] == UInt8(ascii: "_") || (bytes[i - 1] | 0x20 >= 0x61 && bytes[i - 1] | 0x20 <= 0x7A)
                || (bytes[i - 1] >= 0x30 && bytes[i - 1] <= 0x39))
            if startsWord, i + 5 <= bytes.count, String(decoding: bytes[i..<(i + 5)], as: UTF8.self).uppercased() == "COUNT" {
                let open = skipSpaces(i + 5)
                if open < bytes.count, bytes[open] == UInt8(ascii: "(") {
                    let star = skipSpaces(open + 1)
                    if star < bytes.count, bytes[star] == UInt8(ascii: "*") {
                        let close = skipSpaces(star + 1)
                        if close < bytes.count, bytes[close] == UInt8(ascii: ")") {
                            result += Array("COUNT(\"".utf8)
                            result += Array(objectIDField.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"").utf8)
                            result += Array("\")".utf8)
                            i = close + 1
                            continue
                        }
                    }
                }
            }
            result.append(byte)
            i += 1
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// `line L, column C` of `range` in `sql`.
    private static func place(_ range: SourceRange, in sql: String) -> String {
        let (line, column) = range.location(in: sql)
        return "line \(line), column \(column)"
    }

    /// The positions (in `rows`) of the groups for which the condition is TRUE, binding it to
    /// the output `fields` (visible and hidden) whose values `rows` hold.
    /// - Throws: ``FeatureTableError/Kind/invalidQuery`` when the condition does not bind (a
    ///   type mismatch, say).
    func keptRows(fields: [Field], rows: [[ScalarValue]], collation: Collation) throws(FeatureTableError) -> [Int] {
        let schema = SimpleSchema(fields.map { ($0.name, $0.columnType) })
        let clause: CompiledWhereClause
        do {
            clause = try CompiledWhereClause(rewritten, schema: schema, collation: collation)
        } catch {
            throw FeatureTableError(.invalidQuery, "having \(JSONKey.quoted(sql)): \(error.message)")
        }
        let columns = fields.indices.map { Self.column(type: fields[$0].columnType, position: $0, rows: rows) }
        return clause.matchingRows(in: columns, rowCount: rows.count).map(Int.init)
    }

    /// The column of output field `position` over `rows`.
    private static func column(type: ColumnType, position: Int, rows: [[ScalarValue]]) -> Column {
        var validity = ValidityBitmap(count: rows.count, allValid: true)
        var hasNull = false
        for (r, row) in rows.enumerated() where row[position].isNull {
            validity.set(r, valid: false)
            hasNull = true
        }
        let bitmap = hasNull ? validity : nil
        switch type {
        case .integer, .date:
            let values = rows.map { row -> Int64 in
                switch row[position] {
                case .integer(let x), .date(let x): x
                default: 0
                }
            }
            let column = Int64Column(values: values, validity: bitmap)
            return type == .date ? .date(column) : .integer(column)
        case .double:
            let values = rows.map { row -> Double in
                switch row[position] {
                case .double(let x): x
                case .integer(let x): Double(x)
                default: 0
                }
            }
            return .double(DoubleColumn(values: values, validity: bitmap))
        case .string:
            return .string(StringColumn(rows.map { row -> String? in
                if case .string(let x) = row[position] { return x }
                return nil
            }))
        }
    }
}
