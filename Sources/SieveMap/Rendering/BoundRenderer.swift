import SieveBuffers
import SieveColumns
import SieveFeatures
import SieveSQL

extension Renderer {
    /// Binds the renderer to a table: resolves its field names (ignoring case), checks their
    /// types, compiles its value expression, and for percent-of-total normalization settles
    /// the total.
    ///
    /// A ``valueExpression`` (which takes precedence over `field`/`field1`) is translated (see
    /// ``ArcadeValueExpression``) and compiled as a ``/SieveSQL/CompiledValueExpression`` against
    /// the table's schema. A single field reference (`$feature.TYPE`) binds as that field would.
    ///
    /// - Parameter table: The table whose rows the bound renderer classifies.
    /// - Parameter normalizationTotal: For percent-of-total normalization, the total to divide
    ///   by, overriding the renderer's `normalizationTotal`. When neither gives one, the total
    ///   is the sum of the field (or of the expression's values) over the table's features
    ///   (deleted rows and NULLs left out).
    /// - Throws: ``RendererError/Kind/unknownField`` naming a field the table lacks (with a
    ///   close name when there is one); ``RendererError/Kind/invalidFieldType`` when a class
    ///   breaks field or normalization field is not numeric (integer or double), or a field in
    ///   a value expression's arithmetic is not; ``RendererError/Kind/unsupportedRenderer`` for
    ///   a value expression outside the supported subset; ``RendererError/Kind/invalidRenderer``
    ///   for a unique-value renderer without one to three fields (and no value expression).
    public func bind(to table: FeatureTable, normalizationTotal: Double? = nil) throws(RendererError) -> BoundRenderer {
        try BoundRenderer(renderer: self, table: table, normalizationTotal: normalizationTotal)
    }
}

/// A renderer bound to a table: classifies the table's rows.
///
/// ``symbolClass(forRow:)`` classifies one row; ``classify(rows:)`` classifies many at once
/// without creating a value per row, reading the columns' storage directly (a unique-value
/// renderer on a dictionary-encoded string field looks each distinct string up once; a value
/// expression is computed column at a time by
/// ``/SieveSQL/CompiledValueExpression/values(rows:in:)``). Both give the same classes.
public struct BoundRenderer: Sendable {
    /// The renderer.
    public let renderer: Renderer
    /// The table.
    public let table: FeatureTable
    /// The schema indices of the renderer's fields (``Renderer/fieldNames``, in order; for a
    /// value expression, the fields it names, then the normalization field).
    public let fieldIndices: [Int]
    /// The compiled translation of the renderer's value expression, when it has one that
    /// computes something (`nil` for a field, and for an expression that is a single field
    /// reference, which is read as the field).
    public var valueExpression: CompiledValueExpression? { compiledExpression?.expression }
    /// ``valueExpression``, kept by reference.
    private let compiledExpression: CompiledExpressionBox?
    /// The columns whose values the classifier reads after the expression's value: those of
    /// all of ``fieldIndices`` without an expression, the normalization field's (if any) with
    /// one; a date-only field's as the text of its days (`yyyy-mm-dd`, the value ArcGIS keys
    /// such a field by), other fields' as stored.
    private let inputColumns: [Column]
    /// The total percent-of-total normalization divides by; `nil` for other renderers.
    public let normalizationTotal: Double?
    /// The per-row classification.
    private let classifier: ScalarClassifier

    /// See ``Renderer/defaultClassIndex``.
    public static let defaultClassIndex = Renderer.defaultClassIndex
    /// See ``Renderer/notDrawnClassIndex``.
    public static let notDrawnClassIndex = Renderer.notDrawnClassIndex

    init(renderer: Renderer, table: FeatureTable, normalizationTotal givenTotal: Double?) throws(RendererError) {
        let schema = table.schema
        var indices: [Int] = []
        var inputs: [Int] = []
        var compiled: CompiledValueExpression?
        var total: Double?
        var expression: ArcadeValueExpression?
        if let text = renderer.valueExpression { expression = try ArcadeValueExpression(text) }
        switch renderer {
        case .simple: break
        case .uniqueValue(let unique):
            if let expression {
                (indices, compiled) = try Self.bind(expression, schema: schema, numericValue: false)
                if compiled == nil { inputs = indices }
            } else {
                guard (1...3).contains(unique.fields.count) else {
                    throw RendererError(
                        .invalidRenderer, "a unique-value renderer reads one to three fields, not \(unique.fields.count)",
                        path: "field1")
                }
                for (i, name) in unique.fields.enumerated() { indices.append(try Self.resolve(name, "field\(i + 1)", in: schema)) }
                inputs = indices
            }
        case .classBreaks(let breaks):
            if let expression {
                (indices, compiled) = try Self.bind(expression, schema: schema, numericValue: true)
                if compiled == nil { inputs = indices }
            } else {
                let index = try Self.resolve(breaks.field, "field", in: schema)
                try Self.requireNumeric(index, "field", "a class breaks renderer", in: schema)
                indices = [index]
                inputs = [index]
            }
            switch breaks.normalization {
            case .byField(let name):
                let divisor = try Self.resolve(name, "normalizationField", in: schema)
                try Self.requireNumeric(divisor, "normalizationField", "normalization by field", in: schema)
                indices.append(divisor)
                inputs.append(divisor)
            case .percentOfTotal(let jsonTotal):
                if let fixed = givenTotal ?? jsonTotal {
                    total = fixed
                } else if let compiled {
                    total = Self.sum(compiled, table: table)
                } else if let index = inputs.first {
                    total = Self.sum(table.columns[index], table: table)
                }
            case .byLog, nil: break
            }
        }
        self.renderer = renderer
        self.table = table
        self.fieldIndices = indices
        inputColumns = inputs.map { index in
            let column = table.columns[index]
            guard schema.fields[index].type == .dateOnly, case .date(let days) = column else { return column }
            let texts: [String?] = (0..<days.values.count).map { row in
                days.validity?.isValid(row) == false ? nil : CivilTime.format(milliseconds: days.values[row], dateOnlyAtMidnight: true)
            }
            return .string(StringColumn(texts))
        }
        self.compiledExpression = compiled.map(CompiledExpressionBox.init)
        self.normalizationTotal = total
        self.classifier = try ScalarClassifier(renderer, normalizationTotal: total)
    }

    /// The schema index of field `name`, which the renderer names in `property`.
    private static func resolve(_ name: String, _ property: String, in schema: Schema) throws(RendererError) -> Int {
        guard let index = schema.index(ofField: name) else {
            let hint = WhereClauseError.didYouMean(name, among: schema.fieldNames)
            throw RendererError(
                .unknownField, "the table has no field \(WhereClauseError.quoted(name)) (\(property))\(hint)", path: property,
                fieldName: name)
        }
        return index
    }

    /// Fails unless field `index` holds integers or doubles.
    private static func requireNumeric(_ index: Int, _ property: String, _ purpose: String, in schema: Schema) throws(RendererError) {
        let field = schema.fields[index]
        guard field.columnType == .integer || field.columnType == .double else {
            throw RendererError(
                .invalidFieldType,
                "\(purpose) needs a numeric field; \(WhereClauseError.quoted(field.name)) is a \(field.type.name) field",
                path: property, fieldName: field.name)
        }
    }

    /// The schema indices of the fields `expression` names, and its compiled form — `nil` for
    /// a single field reference, which is read as the field. Arithmetic needs numeric fields,
    /// and so does a class-breaks value (`numericValue`).
    private static func bind(
        _ expression: ArcadeValueExpression, schema: Schema, numericValue: Bool
    ) throws(RendererError) -> (indices: [Int], compiled: CompiledValueExpression?) {
        var indices: [Int] = []
        for name in expression.fieldNames {
            let index = try resolve(name, "valueExpression", in: schema)
            if expression.fieldReference == nil {
                try requireNumeric(index, "valueExpression", "arithmetic in a valueExpression", in: schema)
            } else if numericValue {
                try requireNumeric(index, "valueExpression", "a class breaks renderer", in: schema)
            }
            indices.append(index)
        }
        guard expression.fieldReference == nil else { return (indices, nil) }
        return (indices, try Renderer.compile(expression, schema: schema))
    }

    /// The sum of an expression's values over the table's live rows, NULLs left out.
    private static func sum(_ expression: CompiledValueExpression, table: FeatureTable) -> Double {
        let rows = (0..<table.count).compactMap { row in table.isDeleted(row: row) ? nil : UInt32(exactly: row) }
        let values = expression.values(rows: rows, in: table.columns)
        var sum = 0.0
        for (value, isNull) in zip(values.doubles, values.isNull) where !isNull { sum += value }
        return sum
    }

    /// The sum of a numeric column over the table's live rows, NULLs left out.
    private static func sum(_ column: Column, table: FeatureTable) -> Double {
        var sum = 0.0
        for row in 0..<table.count where !table.isDeleted(row: row) && !column.isNull(row) {
            switch column {
            case .integer(let values): sum += Double(values.values[row])
            case .double(let values): sum += values.values[row]
            default: break
            }
        }
        return sum
    }

    /// The class of row `row`, or `nil` when it is not drawn (no class matches and there is no
    /// default symbol, its class's symbol is `null`, or the row is deleted or out of range).
    public func symbolClass(forRow row: Int) -> SymbolClass? {
        renderer.symbolClass(forClassIndex: classIndex(forRow: row))
    }

    /// The class index of row `row` (see ``classify(rows:)``), read value by value.
    public func classIndex(forRow row: Int) -> Int32 {
        guard row >= 0, row < table.count, !table.isDeleted(row: row) else { return Renderer.notDrawnClassIndex }
        var values = inputColumns.map { $0[row] }
        if let valueExpression { values.insert(valueExpression.value(row: row, in: table.columns), at: 0) }
        return classifier.classIndex(values)
    }

    /// The class of the class index ``classify(rows:)`` returned (see
    /// ``Renderer/symbolClass(forClassIndex:)``).
    public func symbolClass(forClassIndex index: Int32) -> SymbolClass? {
        renderer.symbolClass(forClassIndex: index)
    }

    /// The class index of each of `rows`: the index of its class in `uniqueValueInfos` or
    /// `classBreakInfos` (0 for a simple renderer), ``defaultClassIndex`` for the default
    /// class, ``notDrawnClassIndex`` for a row not drawn (as ``symbolClass(forRow:)`` is
    /// `nil` for it).
    public func classify(rows: [Int]) -> [Int32] {
        var output = [Int32](repeating: Renderer.notDrawnClassIndex, count: rows.count)
        let (classes, unmatched) = ScalarClassifier.classIndices(of: renderer)
        let count = table.count
        let tombstones = table.deletedRowCount > 0
        output.withUnsafeMutableBufferPointer { output in
            let kernel = ClassificationKernel(
                classifier: classifier, columns: inputColumns, expression: valueExpression,
                tableColumns: table.columns, classes: classes, unmatched: unmatched, rowCount: count)
            kernel.classify(rows, into: output)
            if tombstones {
                for (i, row) in rows.enumerated() where row >= 0 && row < count && table.isDeleted(row: row) {
                    output[i] = Renderer.notDrawnClassIndex
                }
            }
        }
        return output
    }
}

/// A compiled value expression held by reference, so that a bound renderer stays small to copy.
private final class CompiledExpressionBox: Sendable {
    let expression: CompiledValueExpression

    init(_ expression: CompiledValueExpression) { self.expression = expression }
}
