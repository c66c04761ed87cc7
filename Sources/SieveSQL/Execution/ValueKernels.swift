import SieveColumns

/// The rows a value expression is computed for: `0 ..< count`, or a list of row ids.
enum ValueRows {
    /// Rows `0 ..< count`.
    case first(Int)
    /// These rows, in this order (any order, repeats allowed).
    case ids([UInt32])

    var count: Int {
        switch self {
        case .first(let count): count
        case .ids(let ids): ids.count
        }
    }

    /// The row at position `k`.
    @inline(__always)
    func row(_ k: Int) -> Int {
        switch self {
        case .first: k
        case .ids(let ids): Int(ids[k])
        }
    }
}

/// One expression's values for a batch of rows, column at a time.
///
/// `integers` holds exactly the rows where the row evaluator gives `.integer` (or NULL),
/// `doubles` those where it gives `.double` (or NULL); `isNull` is `nil` when no value is NULL.
/// Anything else (strings, dates, truth values, or a mix) is `scalars`.
enum ValueVector {
    case integers([Int64], isNull: [Bool]?)
    case doubles([Double], isNull: [Bool]?)
    case scalars([ScalarValue])

    /// The value at position `k`, as the row evaluator gives it.
    @inline(__always)
    func scalar(_ k: Int) -> ScalarValue {
        switch self {
        case .integers(let values, let isNull): (isNull?[k] ?? false) ? .null : .integer(values[k])
        case .doubles(let values, let isNull): (isNull?[k] ?? false) ? .null : .double(values[k])
        case .scalars(let values): values[k]
        }
    }

    /// Every value as a ``ScalarValue``.
    var scalars: [ScalarValue] {
        if case .scalars(let values) = self { return values }
        return (0..<count).map(scalar)
    }

    var count: Int {
        switch self {
        case .integers(let values, _): values.count
        case .doubles(let values, _): values.count
        case .scalars(let values): values.count
        }
    }
}

/// Computes numeric expressions column at a time: columns, constants, `+ - * /`, unary minus
/// and `CAST` to `FLOAT` or `INTEGER` over integer and double vectors, with the overflow,
/// division-by-zero and NULL rules of ``ScalarSemantics``. Every other node is computed row by
/// row with the ``RowEvaluator``, so the answers are the row evaluator's, only faster where a
/// kernel applies.
///
/// The caller guarantees that every row is within every column the expression reads.
struct ValueKernels {
    let columns: [Column]
    let collation: Collation

    var evaluator: RowEvaluator { RowEvaluator(columns: columns, collation: collation) }

    func evaluate(_ expression: BoundExpression, rows: ValueRows) -> ValueVector {
        switch expression {
        case .constant(let value, _):
            return broadcast(value, count: rows.count)
        case .column(let index, _):
            return column(index, rows: rows)
        case .arithmetic(let op, let left, let right, let type) where type != .date:
            return arithmetic(op, evaluate(left, rows: rows), evaluate(right, rows: rows), type: type)
        case .negate(let operand, _):
            return negate(evaluate(operand, rows: rows))
        case .cast(let operand, let target) where target == .double || target == .integer:
            return cast(evaluate(operand, rows: rows), to: target)
        default:
            let evaluator = evaluator
            return .scalars((0..<rows.count).map { evaluator.evaluate(expression, row: rows.row($0)) })
        }
    }

    // MARK: Leaves

    private func broadcast(_ value: ScalarValue, count: Int) -> ValueVector {
        switch value {
        case .integer(let x): .integers(Array(repeating: x, count: count), isNull: nil)
        case .double(let x): .doubles(Array(repeating: x, count: count), isNull: nil)
        case .null: .integers(Array(repeating: 0, count: count), isNull: Array(repeating: true, count: count))
        default: .scalars(Array(repeating: value, count: count))
        }
    }

    private func column(_ index: Int, rows: ValueRows) -> ValueVector {
        switch columns[index] {
        case .integer(let column):
            return .integers(gather(column.values, rows), isNull: nulls(column.validity, rows))
        case .double(let column):
            return .doubles(gather(column.values, rows), isNull: nulls(column.validity, rows))
        case .string, .date:
            let column = columns[index]
            return .scalars((0..<rows.count).map { column[rows.row($0)] })
        }
    }

    private func gather<T: BitwiseCopyable>(_ values: ColumnBuffer<T>, _ rows: ValueRows) -> [T] {
        values.withUnsafeBufferPointer { buffer in
            switch rows {
            case .first(let count): Array(buffer[0..<count])
            case .ids(let ids): ids.map { buffer[Int($0)] }
            }
        }
    }

    private func nulls(_ validity: ValidityBitmap?, _ rows: ValueRows) -> [Bool]? {
        guard let validity else { return nil }
        return (0..<rows.count).map { !validity.isValid(rows.row($0)) }
    }

    // MARK: Operators

    /// Which positions are NULL in either input (`nil`: none).
    private static func union(_ a: [Bool]?, _ b: [Bool]?) -> [Bool]? {
        guard let a else { return b }
        guard let b else { return a }
        return zip(a, b).map { $0 || $1 }
    }

    private func arithmetic(_ op: ArithmeticOperator, _ a: ValueVector, _ b: ValueVector, type: SQLType) -> ValueVector {
        switch (a, b) {
        case (.integers(let x, let xNull), .integers(let y, let yNull)) where type == .integer || type == .interval:
            let isNull = Self.union(xNull, yNull)
            switch op {
            case .add: return Self.integerKernel(x, y, isNull) { $0.addingReportingOverflow($1) }
            case .subtract: return Self.integerKernel(x, y, isNull) { $0.subtractingReportingOverflow($1) }
            case .multiply: return Self.integerKernel(x, y, isNull) { $0.multipliedReportingOverflow(by: $1) }
            case .divide:
                return Self.integerKernel(x, y, isNull) { $1 == 0 ? (0, true) : $0.dividedReportingOverflow(by: $1) }
            }
        default:
            guard let (x, xNull) = Self.asDoubles(a), let (y, yNull) = Self.asDoubles(b) else {
                return .scalars((0..<a.count).map { ScalarSemantics.arithmetic(op, a.scalar($0), b.scalar($0), type: type) })
            }
            let isNull = Self.union(xNull, yNull)
            switch op {
            case .add: return Self.doubleKernel(x, y, isNull) { $0 + $1 }
            case .subtract: return Self.doubleKernel(x, y, isNull) { $0 - $1 }
            case .multiply: return Self.doubleKernel(x, y, isNull) { $0 * $1 }
            case .divide: return Self.doubleKernel(x, y, isNull) { $1 == 0 ? .nan : $0 / $1 }
            }
        }
    }

    /// An integer vector's values as doubles (as ``ScalarSemantics/numeric(_:)`` converts
    /// them), a double vector's as they are; `nil` for other vectors.
    private static func asDoubles(_ vector: ValueVector) -> ([Double], [Bool]?)? {
        switch vector {
        case .integers(let values, let isNull): (values.map { Double($0) }, isNull)
        case .doubles(let values, let isNull): (values, isNull)
        case .scalars: nil
        }
    }

    /// `operation` at every position, NULL where an input is NULL or `operation` reports
    /// overflow.
    @inline(__always)
    private static func integerKernel(
        _ x: [Int64], _ y: [Int64], _ inputNull: [Bool]?, _ operation: (Int64, Int64) -> (partialValue: Int64, overflow: Bool)
    ) -> ValueVector {
        let count = x.count
        var result = [Int64](repeating: 0, count: count)
        var isNull = inputNull
        for k in 0..<count where !(inputNull?[k] ?? false) {
            let (value, overflow) = operation(x[k], y[k])
            if overflow {
                if isNull == nil { isNull = Array(repeating: false, count: count) }
                isNull?[k] = true
            } else {
                result[k] = value
            }
        }
        return .integers(result, isNull: isNull)
    }

    /// `operation` at every position, NULL where an input is NULL or the result is not finite
    /// (overflow, and division by zero, which the operation turns into NaN).
    @inline(__always)
    private static func doubleKernel(_ x: [Double], _ y: [Double], _ inputNull: [Bool]?, _ operation: (Double, Double) -> Double)
        -> ValueVector
    {
        let count = x.count
        var result = [Double](repeating: 0, count: count)
        var isNull = inputNull
        for k in 0..<count where !(inputNull?[k] ?? false) {
            let value = operation(x[k], y[k])
            if value.isFinite {
                result[k] = value
            } else {
                if isNull == nil { isNull = Array(repeating: false, count: count) }
                isNull?[k] = true
            }
        }
        return .doubles(result, isNull: isNull)
    }

    /// Unary minus: `-(-2^63)` is NULL; a double's sign flips (NaN stays NaN).
    private func negate(_ vector: ValueVector) -> ValueVector {
        switch vector {
        case .integers(let values, let inputNull):
            var isNull = inputNull
            var result = [Int64](repeating: 0, count: values.count)
            for k in values.indices where !(inputNull?[k] ?? false) {
                if values[k] == .min {
                    if isNull == nil { isNull = Array(repeating: false, count: values.count) }
                    isNull?[k] = true
                } else {
                    result[k] = -values[k]
                }
            }
            return .integers(result, isNull: isNull)
        case .doubles(let values, let isNull):
            return .doubles(values.map { -$0 }, isNull: isNull)
        case .scalars(let values):
            return .scalars(
                values.map { value in
                    switch value {
                    case .integer(let x): x == .min ? .null : .integer(-x)
                    case .double(let x): .double(-x)
                    default: .null
                    }
                })
        }
    }

    /// `CAST(x AS FLOAT)` or `CAST(x AS INTEGER)`: the result is always a double or an integer
    /// vector (``Cast/apply(_:to:)`` gives only those or NULL).
    private func cast(_ vector: ValueVector, to target: SQLType) -> ValueVector {
        switch (vector, target) {
        case (.integers, .integer), (.doubles, .double):
            return vector
        case (.integers(let values, let isNull), _):
            return .doubles(values.map { Double($0) }, isNull: isNull)
        case (.doubles(let values, let inputNull), _):
            var isNull = inputNull
            var result = [Int64](repeating: 0, count: values.count)
            for k in values.indices where !(inputNull?[k] ?? false) {
                if let value = ScalarSemantics.truncatedInt64(values[k]) {
                    result[k] = value
                } else {
                    if isNull == nil { isNull = Array(repeating: false, count: values.count) }
                    isNull?[k] = true
                }
            }
            return .integers(result, isNull: isNull)
        case (.scalars(let values), _):
            var isNull = Array(repeating: false, count: values.count)
            if target == .integer {
                var result = [Int64](repeating: 0, count: values.count)
                for (k, value) in values.enumerated() {
                    if case .integer(let x) = Cast.apply(value, to: .integer) { result[k] = x } else { isNull[k] = true }
                }
                return .integers(result, isNull: isNull)
            }
            var result = [Double](repeating: 0, count: values.count)
            for (k, value) in values.enumerated() {
                if case .double(let x) = Cast.apply(value, to: .double) { result[k] = x } else { isNull[k] = true }
            }
            return .doubles(result, isNull: isNull)
        }
    }
}
