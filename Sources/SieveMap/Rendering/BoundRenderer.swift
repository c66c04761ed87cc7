import SieveBuffers
import SieveColumns
import SieveFeatures
import SieveSQL

extension Renderer {
    /// Binds the renderer to a table: resolves its field names (ignoring case), checks their
    /// types, and for percent-of-total normalization settles the total.
    ///
    /// - Parameter normalizationTotal: For percent-of-total normalization, the total to divide
    ///   by, overriding the renderer's `normalizationTotal`. When neither gives one, the total
    ///   is the sum of the field over the table's features (deleted rows and NULLs left out).
    /// - Throws: ``RendererError/Kind/unknownField`` naming a field the table lacks (with a
    ///   close name when there is one); ``RendererError/Kind/invalidFieldType`` when a class
    ///   breaks field or normalization field is not numeric (integer or double);
    ///   ``RendererError/Kind/invalidRenderer`` for a unique-value renderer without one to
    ///   three fields.
    public func bind(to table: FeatureTable, normalizationTotal: Double? = nil) throws(RendererError) -> BoundRenderer {
        try BoundRenderer(renderer: self, table: table, normalizationTotal: normalizationTotal)
    }
}

/// A renderer bound to a table: classifies the table's rows.
///
/// ``symbolClass(forRow:)`` classifies one row; ``classify(rows:)`` classifies many at once
/// without creating a value per row, reading the columns' storage directly (a unique-value
/// renderer on a dictionary-encoded string field looks each distinct string up once). Both
/// give the same classes.
public struct BoundRenderer: Sendable {
    /// The renderer.
    public let renderer: Renderer
    /// The table.
    public let table: FeatureTable
    /// The schema indices of the renderer's fields (``Renderer/fieldNames``, in order).
    public let fieldIndices: [Int]
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
        func resolve(_ name: String, _ property: String) throws(RendererError) -> Int {
            guard let index = schema.index(ofField: name) else {
                let hint = WhereClauseError.didYouMean(name, among: schema.fieldNames)
                throw RendererError(
                    .unknownField, "the table has no field \(WhereClauseError.quoted(name)) (\(property))\(hint)", path: property,
                    fieldName: name)
            }
            return index
        }
        func requireNumeric(_ index: Int, _ property: String, _ purpose: String) throws(RendererError) {
            let field = schema.fields[index]
            guard field.columnType == .integer || field.columnType == .double else {
                throw RendererError(
                    .invalidFieldType,
                    "\(purpose) needs a numeric field; \(WhereClauseError.quoted(field.name)) is a \(field.type.name) field",
                    path: property, fieldName: field.name)
            }
        }
        var indices: [Int] = []
        var total: Double?
        switch renderer {
        case .simple: break
        case .uniqueValue(let unique):
            guard (1...3).contains(unique.fields.count) else {
                throw RendererError(
                    .invalidRenderer, "a unique-value renderer reads one to three fields, not \(unique.fields.count)", path: "field1")
            }
            for (i, name) in unique.fields.enumerated() { indices.append(try resolve(name, "field\(i + 1)")) }
        case .classBreaks(let breaks):
            let index = try resolve(breaks.field, "field")
            try requireNumeric(index, "field", "a class breaks renderer")
            indices.append(index)
            switch breaks.normalization {
            case .byField(let name):
                let divisor = try resolve(name, "normalizationField")
                try requireNumeric(divisor, "normalizationField", "normalization by field")
                indices.append(divisor)
            case .percentOfTotal(let jsonTotal):
                total = givenTotal ?? jsonTotal ?? Self.sum(table.columns[index], table: table)
            case .byLog, nil: break
            }
        }
        self.renderer = renderer
        self.table = table
        self.fieldIndices = indices
        self.normalizationTotal = total
        self.classifier = try ScalarClassifier(renderer, normalizationTotal: total)
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
        let columns = table.columns
        return classifier.classIndex(fieldIndices.map { columns[$0][row] })
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
                classifier: classifier, columns: fieldIndices.map { table.columns[$0] }, classes: classes, unmatched: unmatched,
                rowCount: count)
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
