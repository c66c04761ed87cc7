import Foundation
import SieveColumns
import SieveSQL

/// Class indices as ``BoundRenderer/classify(rows:)`` returns them: an index ≥ 0 into the
/// renderer's classes, or one of two reserved values.
extension Renderer {
    /// The class index of features in the default class (``SymbolClass/Match/default``).
    public static let defaultClassIndex: Int32 = -1
    /// The class index of features that are not drawn: no class and no default symbol, a class
    /// whose symbol is `null`, a deleted row, a row out of range.
    public static let notDrawnClassIndex: Int32 = -2

    /// The class a class index stands for, `nil` for ``notDrawnClassIndex`` (or an index the
    /// renderer has no drawn class for).
    public func symbolClass(forClassIndex index: Int32) -> SymbolClass? {
        switch self {
        case .simple(let renderer):
            return index == 0 ? SymbolClass(match: .info(0), label: renderer.label, symbol: renderer.symbol) : nil
        case .uniqueValue(let renderer):
            if index == Renderer.defaultClassIndex {
                return renderer.defaultSymbol.map { SymbolClass(match: .default, label: renderer.defaultLabel, symbol: $0) }
            }
            guard index >= 0, Int(index) < renderer.uniqueValueInfos.count else { return nil }
            let info = renderer.uniqueValueInfos[Int(index)]
            return info.symbol.map { SymbolClass(match: .info(Int(index)), label: info.label, symbol: $0) }
        case .classBreaks(let renderer):
            if index == Renderer.defaultClassIndex {
                return renderer.defaultSymbol.map { SymbolClass(match: .default, label: renderer.defaultLabel, symbol: $0) }
            }
            guard index >= 0, Int(index) < renderer.classBreakInfos.count else { return nil }
            let info = renderer.classBreakInfos[Int(index)]
            return info.symbol.map { SymbolClass(match: .info(Int(index)), label: info.label, symbol: $0) }
        }
    }

    /// The class of a feature given by its attributes, for callers without a table. Keys are
    /// field names, matched ignoring case (an exact match first); a missing field is NULL.
    ///
    /// Class breaks classify integer and double values; any other value (a string, a date) is
    /// treated as NULL.
    ///
    /// A ``valueExpression`` is evaluated on the attributes as on a table's row; in its
    /// arithmetic, a value that is not an integer or a double counts as NULL (binding to a
    /// table rejects such fields instead).
    ///
    /// - Parameter attributes: The feature's values by field name.
    /// - Parameter normalizationTotal: For percent-of-total normalization: the total to use
    ///   instead of the renderer's `normalizationTotal`.
    /// - Returns: The class, or `nil` when the feature is not drawn.
    /// - Throws: ``RendererError/Kind/missingNormalizationTotal`` for percent-of-total
    ///   normalization when neither the renderer nor the caller gives a total;
    ///   ``RendererError/Kind/unsupportedRenderer`` for a value expression outside the supported
    ///   subset.
    public func symbolClass(
        for attributes: [String: ScalarValue], normalizationTotal: Double? = nil
    ) throws(RendererError) -> SymbolClass? {
        var lowercased: [String: ScalarValue] = [:]
        for (key, value) in attributes { lowercased[key.lowercased()] = value }
        func value(_ name: String) -> ScalarValue { attributes[name] ?? lowercased[name.lowercased()] ?? .null }
        let classifier = try ScalarClassifier(self, normalizationTotal: normalizationTotal)
        guard let text = valueExpression else {
            return symbolClass(forClassIndex: classifier.classIndex(fieldNames.map(value)))
        }
        let expression = try ArcadeValueExpression(text)
        var inputs = [try Self.evaluate(expression, value)]
        if case .classBreaks(let breaks) = self, case .byField(let divisor) = breaks.normalization {
            inputs.append(value(divisor))
        }
        return symbolClass(forClassIndex: classifier.classIndex(inputs))
    }

    /// The value of `expression` for a feature whose fields hold `value(name)`: the field's
    /// own value for a single field reference, else the translated arithmetic computed by a
    /// ``CompiledValueExpression`` on a one-row table of the fields it names (integers and
    /// doubles as they are, anything else as NULL) — as a bound renderer computes it.
    static func evaluate(_ expression: ArcadeValueExpression, _ value: (String) -> ScalarValue) throws(RendererError) -> ScalarValue {
        if let field = expression.fieldReference { return value(field) }
        var schemaFields: [(name: String, type: ColumnType)] = []
        var columns: [Column] = []
        for name in expression.fieldNames {
            switch value(name) {
            case .integer(let integer):
                schemaFields.append((name, .integer))
                columns.append(.integer(Int64Column(values: [integer])))
            case .double(let double):
                schemaFields.append((name, .double))
                columns.append(.double(DoubleColumn(values: [double])))
            default:
                schemaFields.append((name, .double))
                columns.append(.double(DoubleColumn(values: [0], validity: ValidityBitmap(count: 1, allValid: false))))
            }
        }
        let compiled = try compile(expression, schema: SimpleSchema(schemaFields))
        return compiled.value(row: 0, in: columns)
    }

    /// `expression`'s translation compiled against `schema`, whose fields it names are known
    /// to exist.
    static func compile(_ expression: ArcadeValueExpression, schema: any WhereClauseSchema) throws(RendererError) -> CompiledValueExpression {
        do {
            return try CompiledValueExpression(expression.whereClause, schema: schema)
        } catch {
            throw RendererError(
                .unsupportedRenderer, "Arcade valueExpression: its translation \(expression.whereClause) fails: \(error.message)",
                path: "valueExpression")
        }
    }
}

/// A renderer's classification of one feature from its field values as ``ScalarValue``s: the
/// per-row path, and the reference the vectorized path (``BoundRenderer/classify(rows:)``)
/// is tested against.
struct ScalarClassifier: Sendable {
    let renderer: Renderer
    /// The class of each key of a unique-value renderer (the first class with the key).
    let classByKey: [ExactString: Int]
    /// Class-breaks bounds.
    let bounds: [(min: Double, max: Double)]
    /// The total of percent-of-total normalization.
    let total: Double?
    /// Each class's index as returned: its own, or not drawn when its symbol is `null`.
    let classIndices: [Int32]
    /// The index of features in no class: the default class, or not drawn.
    let unmatched: Int32

    /// - Throws: ``RendererError/Kind/missingNormalizationTotal`` for percent-of-total
    ///   normalization with no total.
    init(_ renderer: Renderer, normalizationTotal: Double?) throws(RendererError) {
        self.renderer = renderer
        var classByKey: [ExactString: Int] = [:]
        var bounds: [(min: Double, max: Double)] = []
        var total: Double?
        switch renderer {
        case .simple: break
        case .uniqueValue(let unique):
            for (index, info) in unique.uniqueValueInfos.enumerated() where classByKey[ExactString(info.value)] == nil {
                classByKey[ExactString(info.value)] = index
            }
        case .classBreaks(let breaks):
            bounds = breaks.classBounds
            if case .percentOfTotal(let jsonTotal) = breaks.normalization {
                guard let given = normalizationTotal ?? jsonTotal else {
                    throw RendererError(
                        .missingNormalizationTotal,
                        "percent-of-total normalization needs a total: none in the renderer and none given",
                        path: "normalizationTotal")
                }
                total = given
            }
        }
        self.classByKey = classByKey
        self.bounds = bounds
        self.total = total
        (classIndices, unmatched) = Self.classIndices(of: renderer)
    }

    /// The class index of a feature whose renderer fields (``Renderer/fieldNames``, in order)
    /// hold `values`.
    func classIndex(_ values: [ScalarValue]) -> Int32 {
        switch renderer {
        case .simple: return 0
        case .uniqueValue(let unique):
            let key: String
            if values.count == 1 {
                key = Self.text(values[0], null: "null")
            } else {
                key = values.map { Self.text($0, null: "") }.joined(separator: unique.fieldDelimiter)
            }
            return classByKey[ExactString(key)].map { classIndices[$0] } ?? unmatched
        case .classBreaks(let breaks):
            guard let value = Self.number(values[0]) else { return unmatched }
            var x: Double
            switch breaks.normalization {
            case nil: x = value
            case .byLog: x = value > 0 ? log10(value) : .nan
            case .byField:
                let divisor = values.count > 1 ? Self.number(values[1]) : nil
                x = divisor.map { $0 == 0 ? .nan : value / $0 } ?? .nan
            case .percentOfTotal:
                let total = total ?? 0
                x = total == 0 ? .nan : value / total * 100
            }
            guard x.isFinite else { return unmatched }
            let match = bounds.firstIndex { bound in
                bound.min <= x && (breaks.isMaxInclusive ? x <= bound.max : x < bound.max)
            }
            return match.map { classIndices[$0] } ?? unmatched
        }
    }

    /// For each class of `renderer`, the index features in it get (its own, or not drawn when
    /// its symbol is `null`), and the index of features in no class (the default class when
    /// there is a default symbol, else not drawn).
    static func classIndices(of renderer: Renderer) -> (classes: [Int32], unmatched: Int32) {
        func index(_ symbol: Symbol?, _ i: Int) -> Int32 { symbol == nil ? Renderer.notDrawnClassIndex : Int32(i) }
        func unmatched(_ symbol: Symbol?) -> Int32 { symbol == nil ? Renderer.notDrawnClassIndex : Renderer.defaultClassIndex }
        switch renderer {
        case .simple: return ([0], Renderer.notDrawnClassIndex)
        case .uniqueValue(let unique):
            return (unique.uniqueValueInfos.enumerated().map { index($1.symbol, $0) }, unmatched(unique.defaultSymbol))
        case .classBreaks(let breaks):
            return (breaks.classBreakInfos.enumerated().map { index($1.symbol, $0) }, unmatched(breaks.defaultSymbol))
        }
    }

    /// The text of a value in a unique-value key, JavaScript's `String(value)`; `null` for NULL.
    /// (A date-only field reaches it as the text of its day; see ``BoundRenderer``.)
    static func text(_ value: ScalarValue, null: String) -> String {
        switch value {
        case .null: null
        case .string(let string): string
        case .integer(let integer), .date(let integer): String(integer)
        case .double(let double): JavaScriptNumberText.string(double)
        case .boolean(let bool): bool ? "true" : "false"
        }
    }

    /// The number class breaks classify: integers and doubles; `nil` for anything else.
    static func number(_ value: ScalarValue) -> Double? {
        switch value {
        case .integer(let integer): Double(integer)
        case .double(let double): double
        default: nil
        }
    }
}
