import SieveBuffers
import SieveColumns

/// Turns a bound condition into a tree of ``FilterNode``s, choosing for each part the fastest
/// kernel that is exact for it, and the row evaluator for whatever has no kernel.
struct FilterCompiler {
    let columns: [Column]
    let collation: Collation
    let batchSize: Int

    var evaluator: RowEvaluator { RowEvaluator(columns: columns, collation: collation) }

    func compile(_ expression: BoundExpression) -> FilterNode {
        if let node = dictionaryTable(expression) { return node }
        switch expression {
        case .constant(let value, _):
            if case .boolean(let truth) = value { return ConstantNode(truth) }
            return ConstantNode(nil)
        case .and(let operands):
            return AndNode(operands.map(compile), batchSize: batchSize)
        case .or(let operands):
            return OrNode(operands.map(compile), batchSize: batchSize)
        case .not(let operand):
            return NotNode(compile(operand))
        case .isNull(.column(let index, _), let negated):
            return IsNullNode(validity: columns[index].validity, negated: negated)
        case .compare(let op, let left, let right):
            if let node = comparison(op, left, right) { return node }
            if let node = comparison(op.swapped, right, left) { return node }
        case .between(.column(let index, _), .constant(let low, _), .constant(let high, _), let negated):
            if let node = range(column: index, low: low, lowInclusive: true, high: high, highInclusive: true, inverted: negated) {
                return node
            }
        case .inList(.column(let index, _), let list, let negated):
            if let node = integerSet(column: index, list, negated: negated) { return node }
        case .inSet(.column(let index, _), let set, let others, let negated) where others.isEmpty:
            if case .integer(let column) = columns[index], let members = set.integerMembers(dates: false) {
                return IntegerSetNode(values: column.values, validity: column.validity, members: members, negated: negated)
            }
            if case .date(let column) = columns[index], let members = set.integerMembers(dates: true) {
                return IntegerSetNode(values: column.values, validity: column.validity, members: members, negated: negated)
            }
        case .like(.column(let index, _), let pattern, let negated):
            if collation == .binary, case .string(let column) = columns[index], case .plain(let storage) = column.encoding {
                return PlainStringMatchNode(storage: storage, validity: column.validity, pattern: pattern, negated: negated)
            }
        default:
            break
        }
        return RowFallbackNode(expression, evaluator: evaluator)
    }

    // MARK: Dictionary columns

    /// A condition that reads only one dictionary-encoded string column: evaluate it once per
    /// distinct string and once for NULL.
    private func dictionaryTable(_ expression: BoundExpression) -> FilterNode? {
        let used = expression.columns
        guard used.count == 1, let index = used.first, case .string(let column) = columns[index],
            case .dictionary(let codes, let dictionary) = column.encoding
        else { return nil }
        // A table with one row per distinct string, then one NULL row, in place of the column.
        var values: [String?] = (0..<dictionary.count).map { dictionary[$0] }
        values.append(nil)
        var substituted = columns
        substituted[index] = .string(
            StringColumn(
                encoding: .dictionary(codes: ColumnBuffer((0..<UInt32(dictionary.count)).map { $0 } + [0]), dictionary: dictionary),
                validity: {
                    var bitmap = ValidityBitmap(count: values.count, allValid: true)
                    bitmap.set(values.count - 1, valid: false)
                    return bitmap
                }()))
        let evaluator = RowEvaluator(columns: substituted, collation: collation)
        var truth: [UInt8] = []
        truth.reserveCapacity(dictionary.count)
        func answer(_ row: Int) -> UInt8 {
            switch evaluator.evaluate(expression, row: row) {
            case .boolean(true): 1
            case .boolean(false): 0
            default: 2
            }
        }
        for code in 0..<dictionary.count { truth.append(answer(code)) }
        return DictionaryTableNode(codes: codes, validity: column.validity, truth: truth, nullTruth: answer(dictionary.count))
    }

    // MARK: Comparisons with constants

    /// `column op constant` with a kernel, or `nil`.
    private func comparison(_ op: ComparisonOperator, _ left: BoundExpression, _ right: BoundExpression) -> FilterNode? {
        guard case .column(let index, _) = left, case .constant(let constant, _) = right else { return nil }
        if case .string(let text) = constant, collation == .binary, op == .equal || op == .notEqual,
            case .string(let column) = columns[index], case .plain(let storage) = column.encoding,
            let pattern = try? LikePattern(Self.escapedForLike(text), escape: "\\")
        {
            return PlainStringMatchNode(storage: storage, validity: column.validity, pattern: pattern, negated: op == .notEqual)
        }
        switch op {
        case .equal: return range(column: index, low: constant, lowInclusive: true, high: constant, highInclusive: true, inverted: false)
        case .notEqual: return range(column: index, low: constant, lowInclusive: true, high: constant, highInclusive: true, inverted: true)
        case .less: return range(column: index, low: nil, lowInclusive: true, high: constant, highInclusive: false, inverted: false)
        case .lessOrEqual: return range(column: index, low: nil, lowInclusive: true, high: constant, highInclusive: true, inverted: false)
        case .greater: return range(column: index, low: constant, lowInclusive: false, high: nil, highInclusive: true, inverted: false)
        case .greaterOrEqual: return range(column: index, low: constant, lowInclusive: true, high: nil, highInclusive: true, inverted: false)
        }
    }

    /// The text as a LIKE pattern (escape `\`) matching exactly itself.
    ///
    /// Escapes Unicode scalars, as the LIKE compiler reads them, not `Character`s: `%`, `_`
    /// or `\` followed by a combining mark is one `Character` that equals none of them, and
    /// would otherwise be left a wildcard.
    static func escapedForLike(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "%" || scalar == "_" || scalar == "\\" { result.append("\\") }
            result.append(scalar)
        }
        return String(result)
    }

    /// `low ≤/< column ≤/< high` on a numeric or date column with numeric or date bounds
    /// (`nil` = unbounded); `inverted` takes the complement among non-NULL rows.
    private func range(
        column index: Int, low: ScalarValue?, lowInclusive: Bool, high: ScalarValue?, highInclusive: Bool, inverted: Bool
    ) -> FilterNode? {
        switch columns[index] {
        case .integer(let column), .date(let column):
            let isDate = columns[index].type == .date
            guard let lower = integerBound(low, inclusive: lowInclusive, isLower: true, dates: isDate),
                let upper = integerBound(high, inclusive: highInclusive, isLower: false, dates: isDate)
            else { return nil }
            switch (lower, upper) {
            case (.value(let a), .value(let b)) where a <= b:
                return IntegerRangeNode(values: column.values, validity: column.validity, low: a, high: b, inverted: inverted)
            default:
                // No integer satisfies the bounds: FALSE for every non-NULL row (TRUE if inverted).
                return IntegerRangeNode(values: column.values, validity: column.validity, low: .min, high: .max, inverted: !inverted)
            }
        case .double(let column):
            guard let lower = doubleBound(low, default: -.infinity), let upper = doubleBound(high, default: .infinity) else {
                return nil
            }
            return DoubleRangeNode(
                values: column.values, validity: column.validity, low: lower, lowInclusive: lowInclusive || low == nil,
                high: upper, highInclusive: highInclusive || high == nil, inverted: inverted)
        case .string:
            return nil
        }
    }

    private enum IntegerBound {
        case value(Int64)
        case impossible
    }

    /// The tightest inclusive integer bound equivalent to a numeric bound, `.impossible` when no
    /// integer satisfies it, `nil` when the bound has no kernel (NULL, strings, type mismatch).
    private func integerBound(_ bound: ScalarValue?, inclusive: Bool, isLower: Bool, dates: Bool) -> IntegerBound? {
        guard let bound else { return .value(isLower ? .min : .max) }
        var exact: Int64
        switch bound {
        case .integer(let value) where !dates, .date(let value) where dates:
            exact = value
        case .double(let value) where !dates:
            guard !value.isNaN else { return nil }
            if value >= 9_223_372_036_854_775_808.0 { return isLower ? .impossible : .value(.max) }
            if value < -9_223_372_036_854_775_808.0 { return isLower ? .value(.min) : .impossible }
            let rounded = isLower ? value.rounded(.up) : value.rounded(.down)
            if rounded != value {
                // x > 2.5 ⇔ x ≥ 3, x < 2.5 ⇔ x ≤ 2: the bound becomes inclusive.
                if rounded >= 9_223_372_036_854_775_808.0 { return isLower ? .impossible : .value(.max) }
                return .value(Int64(rounded))
            }
            exact = Int64(value)
        default:
            return nil
        }
        if !inclusive {
            if isLower {
                guard exact < .max else { return .impossible }
                exact += 1
            } else {
                guard exact > .min else { return .impossible }
                exact -= 1
            }
        }
        return .value(exact)
    }

    /// A double bound, `nil` when it has no exact kernel.
    private func doubleBound(_ bound: ScalarValue?, default value: Double) -> Double? {
        guard let bound else { return value }
        switch bound {
        case .double(let x): return x.isNaN ? nil : x
        case .integer(let x):
            let converted = Double(x)
            // Only integers a double holds exactly compare the same way.
            guard converted < 9_223_372_036_854_775_808.0, Int64(converted) == x else { return nil }
            return converted
        default: return nil
        }
    }

    /// `column IN (constants)` on an integer or date column, when no constant is NULL.
    private func integerSet(column index: Int, _ list: [BoundExpression], negated: Bool) -> FilterNode? {
        let isDate: Bool
        let column: Int64Column
        switch columns[index] {
        case .integer(let values): (isDate, column) = (false, values)
        case .date(let values): (isDate, column) = (true, values)
        default: return nil
        }
        var members = Set<Int64>()
        for item in list {
            switch item.constantValue {
            case .integer(let value)? where !isDate: members.insert(value)
            case .date(let value)? where isDate: members.insert(value)
            case .double(let value)? where !isDate:
                // A non-integral double, or one beyond Int64, equals no integer.
                if let integer = ScalarSemantics.wholeInt64(exactly: value) { members.insert(integer) }
            default: return nil
            }
        }
        return IntegerSetNode(values: column.values, validity: column.validity, members: members, negated: negated)
    }
}
