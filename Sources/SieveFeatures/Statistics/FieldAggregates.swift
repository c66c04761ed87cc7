import SieveColumns
import SieveSQL

/// Which accumulations one field's statistics need.
struct AggregateNeeds: Hashable {
    /// Sums (sum, avg, and the means of stddev/var).
    var sum = false
    /// Sums of squared deviations from the mean (stddev, var).
    var variance = false
    /// Smallest and largest values.
    var minMax = false
    /// Each group's values sorted (the percentiles).
    var sortedValues = false
}

/// One field's accumulations per group slot, computed by passes over the column's typed
/// storage at the selected rows: no value is boxed per row.
///
/// Sums of doubles are compensated (Neumaier); integer sums are exact `Int64` sums, and a
/// group whose sum overflows is summed again as compensated doubles. The variance is the
/// corrected two-pass form: the mean first, then `Σd² − (Σd)²/n` over the deviations
/// `d = x − mean`, accurate for large values with a small spread.
struct FieldAggregates {
    /// The non-NULL values per slot.
    var counts: [Int64]
    /// Exact integer sums (integer and date columns).
    var integerSums: [Int64] = []
    /// Slots whose integer sum overflowed `Int64` (their sum is in ``doubleSums``).
    var overflowed: [Bool] = []
    /// Whether any slot overflowed.
    var anyOverflow = false
    /// Double sums: a double column's sums, or an integer column's for overflowed slots.
    var doubleSums: [Double] = []
    /// Means (for the variance and avg).
    var means: [Double] = []
    /// Sums of squared deviations from the mean, corrected.
    var squaredDeviations: [Double] = []
    /// Integer minimum and maximum per slot (integer and date columns).
    var integerMin: [Int64] = []
    var integerMax: [Int64] = []
    /// Double minimum and maximum per slot, NaN when the rules say so (see the statistics
    /// documentation: NaN orders below every number).
    var doubleMin: [Double] = []
    var doubleMax: [Double] = []
    /// For strings: the table row holding each slot's smallest and largest string.
    var minRow: [Int] = []
    var maxRow: [Int] = []
    /// Each slot's non-NULL values sorted ascending, slot after slot: slot `g`'s are
    /// `sorted[offsets[g] ..< offsets[g + 1]]` (integers for integer and date columns).
    var offsets: [Int] = []
    var sortedIntegers: [Int64] = []
    var sortedDoubles: [Double] = []

    /// Accumulates `column` at `rows` grouped by `keys`.
    init(column: Column, rows: [UInt32], keys: GroupKeys, needs: AggregateNeeds, collation: Collation) {
        let slots = keys.slotCount
        let validity = column.validity
        counts = keys.rowCounts
        if validity != nil {
            counts = [Int64](repeating: 0, count: slots)
            for (p, row) in rows.enumerated() where validity?.isValid(Int(row)) ?? true {
                counts[Int(keys.ids[p])] += 1
            }
        }
        switch column {
        case .integer(let column), .date(let column):
            column.values.withUnsafeBufferPointer { values in
                accumulateIntegers(values, validity: validity, rows: rows, ids: keys.ids, slots: slots, needs: needs)
            }
        case .double(let column):
            column.values.withUnsafeBufferPointer { values in
                accumulateDoubles(values, validity: validity, rows: rows, ids: keys.ids, slots: slots, needs: needs)
            }
        case .string(let column):
            if needs.minMax { accumulateStrings(column, rows: rows, ids: keys.ids, slots: slots, collation: collation) }
        }
    }

    // MARK: Integers

    private mutating func accumulateIntegers(
        _ values: UnsafeBufferPointer<Int64>, validity: ValidityBitmap?, rows: [UInt32], ids: [UInt32], slots: Int,
        needs: AggregateNeeds
    ) {
        if needs.sum || needs.variance {
            var sums = [Int64](repeating: 0, count: slots)
            var overflowed = [Bool](repeating: false, count: slots)
            var any = false
            rows.withUnsafeBufferPointer { rows in
                ids.withUnsafeBufferPointer { ids in
                    sums.withUnsafeMutableBufferPointer { sums in
                        overflowed.withUnsafeMutableBufferPointer { overflowed in
                            if slots == 1, validity == nil {
                                // One group: the sum stays in a register.
                                var sum: Int64 = 0
                                var overflow = false
                                for p in 0..<rows.count {
                                    let (next, carried) = sum.addingReportingOverflow(values[Int(rows[p])])
                                    sum = next
                                    overflow = overflow || carried
                                }
                                sums[0] = sum
                                overflowed[0] = overflow
                                any = overflow
                                return
                            }
                            for p in 0..<rows.count {
                                let row = Int(rows[p])
                                if let validity, !validity.isValid(row) { continue }
                                let slot = Int(ids[p])
                                let (sum, overflow) = sums[slot].addingReportingOverflow(values[row])
                                sums[slot] = sum
                                if overflow {
                                    overflowed[slot] = true
                                    any = true
                                }
                            }
                        }
                    }
                }
            }
            integerSums = sums
            self.overflowed = overflowed
            anyOverflow = any
            if any {
                // The overflowed slots again, as compensated doubles.
                var high = [Double](repeating: 0, count: slots)
                var low = [Double](repeating: 0, count: slots)
                for (p, row) in rows.enumerated() where overflowed[Int(ids[p])] && (validity?.isValid(Int(row)) ?? true) {
                    Self.add(Double(values[Int(row)]), slot: Int(ids[p]), high: &high, low: &low)
                }
                doubleSums = Self.total(high, low)
            }
            means = (0..<slots).map { slot in
                let count = counts[slot]
                guard count > 0 else { return .nan }
                return overflowed[slot] ? doubleSums[slot] / Double(count) : Double(sums[slot]) / Double(count)
            }
        }
        if needs.variance {
            deviations(count: rows.count, rows: rows, ids: ids, validity: validity, slots: slots) { Double(values[$0]) }
        }
        if needs.minMax {
            var low = [Int64](repeating: .max, count: slots)
            var high = [Int64](repeating: .min, count: slots)
            for (p, row) in rows.enumerated() where validity?.isValid(Int(row)) ?? true {
                let slot = Int(ids[p])
                let value = values[Int(row)]
                if value < low[slot] { low[slot] = value }
                if value > high[slot] { high[slot] = value }
            }
            integerMin = low
            integerMax = high
        }
        if needs.sortedValues {
            (offsets, sortedIntegers) = Self.segments(
                rows: rows, ids: ids, validity: validity, counts: counts, value: { values[$0] }, by: <)
        }
    }

    // MARK: Doubles

    private mutating func accumulateDoubles(
        _ values: UnsafeBufferPointer<Double>, validity: ValidityBitmap?, rows: [UInt32], ids: [UInt32], slots: Int,
        needs: AggregateNeeds
    ) {
        if needs.sum || needs.variance {
            var high = [Double](repeating: 0, count: slots)
            var low = [Double](repeating: 0, count: slots)
            rows.withUnsafeBufferPointer { rows in
                ids.withUnsafeBufferPointer { ids in
                    high.withUnsafeMutableBufferPointer { high in
                        low.withUnsafeMutableBufferPointer { low in
                            if slots == 1, validity == nil {
                                // One group: the compensated sum stays in registers.
                                var s = 0.0, c = 0.0
                                for p in 0..<rows.count {
                                    let x = values[Int(rows[p])]
                                    let t = s + x
                                    c += abs(s) >= abs(x) ? (s - t) + x : (x - t) + s
                                    s = t
                                }
                                high[0] = s
                                low[0] = c
                                return
                            }
                            for p in 0..<rows.count {
                                let row = Int(rows[p])
                                if let validity, !validity.isValid(row) { continue }
                                let slot = Int(ids[p])
                                let x = values[row]
                                let s = high[slot]
                                let t = s + x
                                low[slot] += abs(s) >= abs(x) ? (s - t) + x : (x - t) + s
                                high[slot] = t
                            }
                        }
                    }
                }
            }
            doubleSums = Self.total(high, low)
            means = (0..<slots).map { counts[$0] > 0 ? doubleSums[$0] / Double(counts[$0]) : .nan }
        }
        if needs.variance {
            deviations(count: rows.count, rows: rows, ids: ids, validity: validity, slots: slots) { values[$0] }
        }
        if needs.minMax {
            // NaN orders below every number: it is the minimum when present, and the maximum
            // only when every value is NaN.
            var low = [Double](repeating: .infinity, count: slots)
            var high = [Double](repeating: -.infinity, count: slots)
            var sawNaN = [Bool](repeating: false, count: slots)
            var sawNumber = [Bool](repeating: false, count: slots)
            for (p, row) in rows.enumerated() where validity?.isValid(Int(row)) ?? true {
                let slot = Int(ids[p])
                let value = values[Int(row)]
                if value.isNaN {
                    sawNaN[slot] = true
                    continue
                }
                sawNumber[slot] = true
                if value < low[slot] { low[slot] = value }
                if value > high[slot] { high[slot] = value }
            }
            for slot in 0..<slots {
                if sawNaN[slot] { low[slot] = .nan }
                if !sawNumber[slot] { high[slot] = .nan }
            }
            doubleMin = low
            doubleMax = high
        }
        if needs.sortedValues {
            (offsets, sortedDoubles) = Self.segments(
                rows: rows, ids: ids, validity: validity, counts: counts, value: { values[$0] },
                by: { $0 < $1 || ($0.isNaN && !$1.isNaN) })
        }
    }

    // MARK: Strings

    private mutating func accumulateStrings(_ column: StringColumn, rows: [UInt32], ids: [UInt32], slots: Int, collation: Collation) {
        let validity = column.validity
        var rank: (Int) -> Int64
        switch column.encoding {
        case .dictionary(let codes, let dictionary):
            let ranks = StringOrder.ranks((0..<dictionary.count).map { dictionary[$0] }, collation: collation)
            rank = { ranks[Int(codes[$0])] }
        case .plain(let storage):
            let valid = rows.filter { validity?.isValid(Int($0)) ?? true }
            let ranks = StringOrder.ranks(valid.map { storage[Int($0)] }, collation: collation)
            var byRow: [Int: Int64] = [:]
            for (i, row) in valid.enumerated() { byRow[Int(row)] = ranks[i] }
            rank = { byRow[$0] ?? 0 }
        }
        var lowRank = [Int64](repeating: .max, count: slots)
        var highRank = [Int64](repeating: .min, count: slots)
        var low = [Int](repeating: -1, count: slots)
        var high = [Int](repeating: -1, count: slots)
        for (p, row) in rows.enumerated() where validity?.isValid(Int(row)) ?? true {
            let slot = Int(ids[p])
            let r = rank(Int(row))
            if r < lowRank[slot] {
                lowRank[slot] = r
                low[slot] = Int(row)
            }
            if r > highRank[slot] {
                highRank[slot] = r
                high[slot] = Int(row)
            }
        }
        minRow = low
        maxRow = high
    }

    // MARK: Shared passes

    /// The second pass of the variance: `Σd² − (Σd)²/n` per slot, `d = x − mean`.
    private mutating func deviations(
        count: Int, rows: [UInt32], ids: [UInt32], validity: ValidityBitmap?, slots: Int, value: (Int) -> Double
    ) {
        var squares = [Double](repeating: 0, count: slots)
        var linear = [Double](repeating: 0, count: slots)
        let means = self.means
        rows.withUnsafeBufferPointer { rows in
            ids.withUnsafeBufferPointer { ids in
                means.withUnsafeBufferPointer { means in
                    squares.withUnsafeMutableBufferPointer { squares in
                        linear.withUnsafeMutableBufferPointer { linear in
                            if slots == 1, validity == nil {
                                let mean = means[0]
                                var square = 0.0, sum = 0.0
                                for p in 0..<rows.count {
                                    let d = value(Int(rows[p])) - mean
                                    square += d * d
                                    sum += d
                                }
                                squares[0] = square
                                linear[0] = sum
                                return
                            }
                            for p in 0..<rows.count {
                                let row = Int(rows[p])
                                if let validity, !validity.isValid(row) { continue }
                                let slot = Int(ids[p])
                                let d = value(row) - means[slot]
                                squares[slot] += d * d
                                linear[slot] += d
                            }
                        }
                    }
                }
            }
        }
        squaredDeviations = (0..<slots).map { slot in
            let n = Double(counts[slot])
            guard n > 0 else { return .nan }
            return Swift.max(0, squares[slot] - linear[slot] * linear[slot] / n)
        }
    }

    /// Adds `x` to a slot's compensated sum.
    @inline(__always)
    private static func add(_ x: Double, slot: Int, high: inout [Double], low: inout [Double]) {
        let s = high[slot]
        let t = s + x
        low[slot] += abs(s) >= abs(x) ? (s - t) + x : (x - t) + s
        high[slot] = t
    }

    /// The compensated sums: `high + low`, or `high` alone when it is not finite (an infinite
    /// or NaN sum, whose compensation is meaningless).
    private static func total(_ high: [Double], _ low: [Double]) -> [Double] {
        zip(high, low).map { $0.isFinite ? $0 + $1 : $0 }
    }

    /// The non-NULL values of each slot, sorted by `less`, slot after slot (a counting sort by
    /// slot, then one sort per slot), and the slot offsets.
    private static func segments<T>(
        rows: [UInt32], ids: [UInt32], validity: ValidityBitmap?, counts: [Int64], value: (Int) -> T, by less: (T, T) -> Bool
    ) -> ([Int], [T]) {
        var offsets = [Int](repeating: 0, count: counts.count + 1)
        for (slot, count) in counts.enumerated() { offsets[slot + 1] = offsets[slot] + Int(count) }
        var next = Array(offsets.dropLast())
        var sorted: [T] = []
        if let first = rows.first(where: { validity?.isValid(Int($0)) ?? true }) {
            sorted = Array(repeating: value(Int(first)), count: offsets[counts.count])
        }
        for (p, row) in rows.enumerated() where validity?.isValid(Int(row)) ?? true {
            let slot = Int(ids[p])
            sorted[next[slot]] = value(Int(row))
            next[slot] += 1
        }
        for slot in counts.indices where offsets[slot + 1] - offsets[slot] > 1 {
            sorted[offsets[slot]..<offsets[slot + 1]].sort(by: less)
        }
        return (offsets, sorted)
    }
}
