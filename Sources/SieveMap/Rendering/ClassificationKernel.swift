import Foundation
import SieveBuffers
import SieveColumns
import SieveSQL

/// The vectorized classification of ``BoundRenderer/classify(rows:)``: one loop per renderer
/// and column type, reading the columns' storage directly, never creating a ``ScalarValue``
/// per row. Rows out of `0 ..< rowCount` are skipped (their output stays as it was).
///
/// A renderer with a value expression has its values computed first, column at a time, by
/// ``CompiledValueExpression/values(rows:in:)``, then classified as a field's would be.
struct ClassificationKernel {
    let classifier: ScalarClassifier
    /// The columns the classifier reads: the renderer's fields in the order of
    /// ``Renderer/fieldNames``; with a value expression, only the normalization field, if any.
    let columns: [Column]
    /// The renderer's compiled value expression, whose value comes before `columns`'.
    let expression: CompiledValueExpression?
    /// All the table's columns, which the expression reads.
    let tableColumns: [Column]
    /// Each class's output index (see ``ScalarClassifier/classIndices(of:)``).
    let classes: [Int32]
    /// The output index of a row in no class.
    let unmatched: Int32
    /// The table's row count.
    let rowCount: Int

    func classify(_ rows: [Int], into output: UnsafeMutableBufferPointer<Int32>) {
        if let expression {
            classify(expression, rows, into: output)
            return
        }
        switch classifier.renderer {
        case .simple:
            for (i, row) in rows.enumerated() where row >= 0 && row < rowCount { output[i] = 0 }
        case .uniqueValue(let unique):
            if columns.count == 1 {
                uniqueValue(rows, into: output)
            } else {
                uniqueValues(rows, delimiter: unique.fieldDelimiter, into: output)
            }
        case .classBreaks(let breaks):
            classBreaks(breaks, rows, into: output)
        }
    }

    /// The output index of a unique-value key.
    @inline(__always)
    private func lookUp(_ key: String) -> Int32 {
        classifier.classByKey[ExactString(key)].map { classes[$0] } ?? unmatched
    }

    // MARK: - Unique value, one field

    private func uniqueValue(_ rows: [Int], into output: UnsafeMutableBufferPointer<Int32>) {
        let nullClass = lookUp("null")
        switch columns[0] {
        case .string(let column):
            switch column.encoding {
            case .dictionary(let codes, let dictionary):
                // Each distinct string looked up once; each row reads its code's class.
                let codeClasses = (0..<dictionary.count).map { lookUp(dictionary[$0]) }
                let validity = column.validity
                codes.withUnsafeBufferPointer { codes in
                    for (i, row) in rows.enumerated() where row >= 0 && row < rowCount {
                        output[i] = validity?.isValid(row) == false ? nullClass : codeClasses[Int(codes[row])]
                    }
                }
            case .plain(let strings):
                let validity = column.validity
                for (i, row) in rows.enumerated() where row >= 0 && row < rowCount {
                    output[i] = validity?.isValid(row) == false ? nullClass : lookUp(strings[row])
                }
            }
        case .integer(let column), .date(let column):
            // The keys that are the text of an integer, by integer.
            var classByInteger: [Int64: Int32] = [:]
            for (key, index) in classifier.classByKey {
                if let integer = Int64(key.string), String(integer) == key.string {
                    if let previous = classByInteger[integer], previous <= index { continue }
                    classByInteger[integer] = Int32(index)
                }
            }
            let validity = column.validity
            column.values.withUnsafeBufferPointer { values in
                for (i, row) in rows.enumerated() where row >= 0 && row < rowCount {
                    if validity?.isValid(row) == false {
                        output[i] = nullClass
                    } else {
                        output[i] = classByInteger[values[row]].map { classes[Int($0)] } ?? unmatched
                    }
                }
            }
        case .double(let column):
            let classByDouble = classByDouble()
            let validity = column.validity
            column.values.withUnsafeBufferPointer { values in
                for (i, row) in rows.enumerated() where row >= 0 && row < rowCount {
                    let value = values[row]
                    if validity?.isValid(row) == false {
                        output[i] = nullClass
                    } else if value.isFinite {
                        output[i] = classByDouble[value].map { classes[Int($0)] } ?? unmatched
                    } else {
                        output[i] = lookUp(JavaScriptNumberText.string(value))
                    }
                }
            }
        }
    }

    /// The keys that are the JavaScript text of a finite double, by double, each to the first
    /// class with it (0 and −0 are one key, as both are written "0").
    private func classByDouble() -> [Double: Int32] {
        var classByDouble: [Double: Int32] = [:]
        for (key, index) in classifier.classByKey {
            if let double = Double(key.string), double.isFinite, JavaScriptNumberText.string(double) == key.string {
                if let previous = classByDouble[double], previous <= index { continue }
                classByDouble[double] = Int32(index)
            }
        }
        return classByDouble
    }

    // MARK: - Unique value, several fields

    /// One row's values of the key fields, as numbers: a dictionary code, an integer, a
    /// double's bits, an interned plain string's number; with a bit per NULL field.
    private struct Atoms: Hashable {
        var values: (Int64, Int64, Int64) = (0, 0, 0)
        var nulls: UInt8 = 0

        static func == (a: Atoms, b: Atoms) -> Bool {
            a.values == b.values && a.nulls == b.nulls
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(values.0)
            hasher.combine(values.1)
            hasher.combine(values.2)
            hasher.combine(nulls)
        }

        subscript(field: Int) -> Int64 {
            get {
                switch field {
                case 0: values.0
                case 1: values.1
                default: values.2
                }
            }
            set {
                switch field {
                case 0: values.0 = newValue
                case 1: values.1 = newValue
                default: values.2 = newValue
                }
            }
        }
    }

    /// Joined keys, classified once per distinct combination of the fields' values.
    private func uniqueValues(_ rows: [Int], delimiter: String, into output: UnsafeMutableBufferPointer<Int32>) {
        var classByAtoms: [Atoms: Int32] = [:]
        var interned: [[ExactString: Int64]] = Array(repeating: [:], count: columns.count)
        var internedTexts: [[String]] = Array(repeating: [], count: columns.count)
        for (i, row) in rows.enumerated() where row >= 0 && row < rowCount {
            var atoms = Atoms()
            for (field, column) in columns.enumerated() {
                if column.isNull(row) {
                    atoms.nulls |= 1 << field
                    continue
                }
                switch column {
                case .integer(let values), .date(let values): atoms[field] = values.values[row]
                case .double(let values):
                    let value = values.values[row]
                    atoms[field] = Int64(bitPattern: (value == 0 ? 0 : value).bitPattern)
                case .string(let strings):
                    switch strings.encoding {
                    case .dictionary(let codes, _): atoms[field] = Int64(codes[row])
                    case .plain(let storage):
                        let text = ExactString(storage[row])
                        if let number = interned[field][text] {
                            atoms[field] = number
                        } else {
                            let number = Int64(internedTexts[field].count)
                            interned[field][text] = number
                            internedTexts[field].append(text.string)
                            atoms[field] = number
                        }
                    }
                }
            }
            if let known = classByAtoms[atoms] {
                output[i] = known
                continue
            }
            var parts: [String] = []
            for (field, column) in columns.enumerated() {
                if atoms.nulls & (1 << field) != 0 {
                    parts.append("")
                    continue
                }
                switch column {
                case .integer, .date: parts.append(String(atoms[field]))
                case .double: parts.append(JavaScriptNumberText.string(Double(bitPattern: UInt64(bitPattern: atoms[field]))))
                case .string(let strings):
                    switch strings.encoding {
                    case .dictionary(_, let dictionary): parts.append(dictionary[Int(atoms[field])])
                    case .plain: parts.append(internedTexts[field][Int(atoms[field])])
                    }
                }
            }
            let index = lookUp(parts.joined(separator: delimiter))
            classByAtoms[atoms] = index
            output[i] = index
        }
    }

    // MARK: - Class breaks

    private func classBreaks(_ breaks: ClassBreaksRenderer, _ rows: [Int], into output: UnsafeMutableBufferPointer<Int32>) {
        var divisor: Column?
        if case .byField = breaks.normalization, columns.count > 1 { divisor = columns[1] }
        switch (columns[0], divisor) {
        case (.integer(let values), nil): classBreaks(breaks, rows, values, nil as DoubleColumn?, into: output)
        case (.double(let values), nil): classBreaks(breaks, rows, values, nil as DoubleColumn?, into: output)
        case (.integer(let values), .integer(let divisor)?): classBreaks(breaks, rows, values, divisor, into: output)
        case (.integer(let values), .double(let divisor)?): classBreaks(breaks, rows, values, divisor, into: output)
        case (.double(let values), .integer(let divisor)?): classBreaks(breaks, rows, values, divisor, into: output)
        case (.double(let values), .double(let divisor)?): classBreaks(breaks, rows, values, divisor, into: output)
        default:
            // Binding admits integer and double columns only; anything else is in no class.
            for (i, row) in rows.enumerated() where row >= 0 && row < rowCount { output[i] = unmatched }
        }
    }

    private func classBreaks<Values: NumericColumn, Divisors: NumericColumn>(
        _ breaks: ClassBreaksRenderer, _ rows: [Int], _ values: Values, _ divisors: Divisors?,
        into output: UnsafeMutableBufferPointer<Int32>
    ) {
        let matcher = BreaksMatcher(breaks, classifier: classifier, hasDivisors: divisors != nil, classes: classes, unmatched: unmatched)
        let validity = values.validity, divisorValidity = divisors?.validity
        for (i, row) in rows.enumerated() where row >= 0 && row < rowCount {
            if validity?.isValid(row) == false {
                output[i] = unmatched
                continue
            }
            let divisor = divisorValidity?.isValid(row) == false ? Double.nan : divisors?.double(at: row) ?? 0
            output[i] = matcher.classIndex(values.double(at: row), divisor: divisor)
        }
    }

    // MARK: - Value expressions

    private func classify(_ expression: CompiledValueExpression, _ rows: [Int], into output: UnsafeMutableBufferPointer<Int32>) {
        // The rows to compute, and where each one's class goes.
        var ids: [UInt32] = []
        var positions: [Int] = []
        ids.reserveCapacity(rows.count)
        positions.reserveCapacity(rows.count)
        for (i, row) in rows.enumerated() where row >= 0 && row < rowCount {
            if let id = UInt32(exactly: row) {
                ids.append(id)
                positions.append(i)
            } else {
                output[i] = classifier.classIndex([expression.value(row: row, in: tableColumns)] + columns.map { $0[row] })
            }
        }
        switch classifier.renderer {
        case .simple:
            for i in positions { output[i] = 0 }
        case .uniqueValue:
            guard expression.resultType == .double else {
                let values = expression.scalarValues(rows: ids, in: tableColumns)
                for (k, i) in positions.enumerated() { output[i] = lookUp(ScalarClassifier.text(values[k], null: "null")) }
                return
            }
            let values = expression.values(rows: ids, in: tableColumns)
            let classByDouble = classByDouble()
            let nullClass = lookUp("null")
            values.doubles.withUnsafeBufferPointer { doubles in
                for (k, i) in positions.enumerated() {
                    let value = doubles[k]
                    if values.isNull[k] {
                        output[i] = nullClass
                    } else if value.isFinite {
                        output[i] = classByDouble[value].map { classes[Int($0)] } ?? unmatched
                    } else {
                        output[i] = lookUp(JavaScriptNumberText.string(value))
                    }
                }
            }
        case .classBreaks(let breaks):
            // NULL values are NaN, which no class holds.
            let values = expression.values(rows: ids, in: tableColumns)
            var divisors: Column?
            if case .byField = breaks.normalization { divisors = columns.first }
            let matcher = BreaksMatcher(breaks, classifier: classifier, hasDivisors: divisors != nil, classes: classes, unmatched: unmatched)
            values.doubles.withUnsafeBufferPointer { doubles in
                for (k, i) in positions.enumerated() {
                    var divisor = 0.0
                    switch divisors {
                    case .integer(let column)?: divisor = column.validity?.isValid(rows[i]) == false ? .nan : Double(column.values[rows[i]])
                    case .double(let column)?: divisor = column.validity?.isValid(rows[i]) == false ? .nan : column.values[rows[i]]
                    default: break
                    }
                    output[i] = matcher.classIndex(doubles[k], divisor: divisor)
                }
            }
        }
    }
}

/// A class-breaks renderer's classification of one number: normalized, then matched against
/// the classes' bounds, as ``ScalarClassifier/classIndex(_:)`` does it.
private struct BreaksMatcher {
    let mins: [Double]
    let maxs: [Double]
    let inclusive: Bool
    let classes: [Int32]
    let unmatched: Int32
    let total: Double
    /// 0 none, 1 by field, 2 log, 3 percent of total, 4 no number at all.
    let mode: Int

    init(_ breaks: ClassBreaksRenderer, classifier: ScalarClassifier, hasDivisors: Bool, classes: [Int32], unmatched: Int32) {
        mins = classifier.bounds.map(\.min)
        maxs = classifier.bounds.map(\.max)
        inclusive = breaks.isMaxInclusive
        self.classes = classes
        self.unmatched = unmatched
        total = classifier.total ?? 0
        switch breaks.normalization {
        case nil: mode = 0
        case .byField: mode = hasDivisors ? 1 : 4
        case .byLog: mode = 2
        case .percentOfTotal: mode = total == 0 ? 4 : 3
        }
    }

    /// The class index of `value` (NaN for NULL), with `divisor` (NaN for NULL) for
    /// normalization by field.
    @inline(__always)
    func classIndex(_ value: Double, divisor: Double) -> Int32 {
        var x: Double
        switch mode {
        case 0: x = value
        case 1: x = divisor == 0 ? .nan : value / divisor
        case 2: x = value > 0 ? log10(value) : .nan
        case 3: x = value / total * 100
        default: x = .nan
        }
        guard x.isFinite else { return unmatched }
        for k in 0..<mins.count where mins[k] <= x && (inclusive ? x <= maxs[k] : x < maxs[k]) {
            return classes[k]
        }
        return unmatched
    }
}

/// A numeric column's storage, read as doubles.
private protocol NumericColumn {
    var validity: ValidityBitmap? { get }
    func double(at row: Int) -> Double
}

extension Int64Column: NumericColumn {
    @inline(__always) fileprivate func double(at row: Int) -> Double { Double(values[row]) }
}

extension DoubleColumn: NumericColumn {
    @inline(__always) fileprivate func double(at row: Int) -> Double { values[row] }
}
