import SieveColumns
import SieveSQL

/// The group of every selected row, computed from the typed column storage without boxing a
/// value per row: each group field gives each row a small key code (a string column's
/// dictionary code, an integer's offset from the minimum or a hashed code), and the codes of
/// several fields are combined into one, either by arithmetic (when the product of their
/// cardinalities is small) or through a hash map of the pair.
///
/// Group ids are *slots* in `0 ..< slotCount`; a slot may hold no row (a dictionary string no
/// selected row uses), which ``firstRow`` marks with `-1`.
struct GroupKeys {
    /// The group slot of each selected row, by position in the selection.
    let ids: [UInt32]
    /// The number of slots.
    let slotCount: Int
    /// The first selected table row of each slot (its group values are read from it), or `-1`
    /// for a slot no row falls into.
    let firstRow: [Int]
    /// The number of selected rows in each slot.
    let rowCounts: [Int64]

    /// The most slots an arithmetic combination may make before codes are compacted.
    private static func slotLimit(rows: Int) -> Int { Swift.max(1 << 16, 2 * rows) }

    /// Groups `rows` (ascending table rows) by the columns `fields` (schema indices), strings
    /// under `collation`. With no field every row falls into slot 0 (and slot 0 exists even
    /// when there is no row: an aggregate without grouping gives one row).
    init(rows: [UInt32], fields: [Int], columns: [Column], collation: Collation) {
        let n = rows.count
        var codes = [UInt32](repeating: 0, count: n)
        var cardinality = 1
        for (i, field) in fields.enumerated() {
            let (next, nextCardinality) = Self.keyCodes(columns[field], rows: rows, collation: collation)
            if i == 0 {
                codes = next
                cardinality = nextCardinality
                continue
            }
            let limit = Self.slotLimit(rows: n)
            if cardinality.multipliedReportingOverflow(by: nextCardinality).partialValue > limit
                || cardinality.multipliedReportingOverflow(by: nextCardinality).overflow
            {
                (codes, cardinality) = Self.compacted(codes)
            }
            let product = cardinality.multipliedReportingOverflow(by: nextCardinality)
            if !product.overflow, product.partialValue <= limit {
                let width = UInt32(nextCardinality)
                for p in 0..<n { codes[p] = codes[p] &* width &+ next[p] }
                cardinality = product.partialValue
            } else {
                (codes, cardinality) = Self.hashedPairs(codes, next)
            }
        }
        var firstRow = [Int](repeating: -1, count: cardinality)
        var rowCounts = [Int64](repeating: 0, count: cardinality)
        if fields.isEmpty {
            firstRow[0] = Int(rows.first ?? 0)
            rowCounts[0] = Int64(n)
        } else {
            codes.withUnsafeBufferPointer { codes in
                rows.withUnsafeBufferPointer { rows in
                    firstRow.withUnsafeMutableBufferPointer { firstRow in
                        rowCounts.withUnsafeMutableBufferPointer { rowCounts in
                            for p in 0..<n {
                                let slot = Int(codes[p])
                                if firstRow[slot] < 0 { firstRow[slot] = Int(rows[p]) }
                                rowCounts[slot] += 1
                            }
                        }
                    }
                }
            }
        }
        self.ids = codes
        self.slotCount = cardinality
        self.firstRow = firstRow
        self.rowCounts = rowCounts
    }

    /// Each selected row's key code for one column (0 for NULL) and the number of codes.
    private static func keyCodes(_ column: Column, rows: [UInt32], collation: Collation) -> ([UInt32], Int) {
        let validity = column.validity
        switch column {
        case .string(let strings):
            switch strings.encoding {
            case .dictionary(let dictionaryCodes, let dictionary):
                // One code per distinct key of the dictionary (folded under nocase), 1-based.
                var remap = [UInt32](repeating: 0, count: dictionary.count)
                var keyCount = dictionary.count
                if collation == .nocase {
                    var seen: [ExactString: UInt32] = [:]
                    for i in 0..<dictionary.count {
                        let key = ExactString(StringOrder.foldedKey(dictionary[i]))
                        if let code = seen[key] {
                            remap[i] = code
                        } else {
                            remap[i] = UInt32(seen.count)
                            seen[key] = remap[i]
                        }
                    }
                    keyCount = seen.count
                } else {
                    for i in 0..<dictionary.count { remap[i] = UInt32(i) }
                }
                var codes = [UInt32](repeating: 0, count: rows.count)
                dictionaryCodes.withUnsafeBufferPointer { source in
                    remap.withUnsafeBufferPointer { remap in
                        rows.withUnsafeBufferPointer { rows in
                            codes.withUnsafeMutableBufferPointer { codes in
                                for p in 0..<rows.count {
                                    let row = Int(rows[p])
                                    if let validity, !validity.isValid(row) { continue }
                                    codes[p] = remap[Int(source[row])] &+ 1
                                }
                            }
                        }
                    }
                }
                return (codes, keyCount + 1)
            case .plain(let storage):
                var seen: [ExactString: UInt32] = [:]
                var codes = [UInt32](repeating: 0, count: rows.count)
                for (p, row) in rows.enumerated() where validity?.isValid(Int(row)) ?? true {
                    let string = storage[Int(row)]
                    let key = ExactString(collation == .nocase ? StringOrder.foldedKey(string) : string)
                    if let code = seen[key] {
                        codes[p] = code
                    } else {
                        let code = UInt32(seen.count + 1)
                        seen[key] = code
                        codes[p] = code
                    }
                }
                return (codes, seen.count + 1)
            }
        case .integer(let column), .date(let column):
            return integerCodes(column.values, validity: validity, rows: rows)
        case .double(let column):
            var seen: [UInt64: UInt32] = [:]
            var codes = [UInt32](repeating: 0, count: rows.count)
            column.values.withUnsafeBufferPointer { values in
                for (p, row) in rows.enumerated() where validity?.isValid(Int(row)) ?? true {
                    let value = values[Int(row)]
                    // -0 groups with 0, and every NaN with every other NaN.
                    let bits = value.isNaN ? Double.nan.bitPattern : (value == 0 ? 0 : value.bitPattern)
                    if let code = seen[bits] {
                        codes[p] = code
                    } else {
                        let code = UInt32(seen.count + 1)
                        seen[bits] = code
                        codes[p] = code
                    }
                }
            }
            return (codes, seen.count + 1)
        }
    }

    /// Integer key codes: the offset from the smallest value when the values span a small
    /// range, else codes through a hash map.
    private static func integerCodes(_ values: ColumnBuffer<Int64>, validity: ValidityBitmap?, rows: [UInt32]) -> ([UInt32], Int) {
        var codes = [UInt32](repeating: 0, count: rows.count)
        return values.withUnsafeBufferPointer { values in
            var low = Int64.max, high = Int64.min
            for row in rows where validity?.isValid(Int(row)) ?? true {
                let value = values[Int(row)]
                low = Swift.min(low, value)
                high = Swift.max(high, value)
            }
            guard low <= high else { return (codes, 1) }
            let span = high.subtractingReportingOverflow(low)
            if !span.overflow, span.partialValue < Int64(slotLimit(rows: rows.count)) {
                for (p, row) in rows.enumerated() where validity?.isValid(Int(row)) ?? true {
                    codes[p] = UInt32(truncatingIfNeeded: values[Int(row)] &- low) &+ 1
                }
                return (codes, Int(span.partialValue) + 2)
            }
            var seen: [Int64: UInt32] = [:]
            for (p, row) in rows.enumerated() where validity?.isValid(Int(row)) ?? true {
                let value = values[Int(row)]
                if let code = seen[value] {
                    codes[p] = code
                } else {
                    let code = UInt32(seen.count + 1)
                    seen[value] = code
                    codes[p] = code
                }
            }
            return (codes, seen.count + 1)
        }
    }

    /// `codes` renumbered densely in order of first appearance.
    private static func compacted(_ codes: [UInt32]) -> ([UInt32], Int) {
        var seen: [UInt32: UInt32] = [:]
        var result = codes
        for (p, code) in codes.enumerated() {
            if let dense = seen[code] {
                result[p] = dense
            } else {
                let dense = UInt32(seen.count)
                seen[code] = dense
                result[p] = dense
            }
        }
        return (result, Swift.max(seen.count, 1))
    }

    /// One dense code per distinct pair `(a[p], b[p])`.
    private static func hashedPairs(_ a: [UInt32], _ b: [UInt32]) -> ([UInt32], Int) {
        var seen: [UInt64: UInt32] = [:]
        var result = a
        for p in a.indices {
            let key = UInt64(a[p]) << 32 | UInt64(b[p])
            if let dense = seen[key] {
                result[p] = dense
            } else {
                let dense = UInt32(seen.count)
                seen[key] = dense
                result[p] = dense
            }
        }
        return (result, Swift.max(seen.count, 1))
    }
}

/// String ordering and keys under a collation, as the engine's ORDER BY and comparisons use
/// them: binary compares UTF-8 bytes, nocase the bytes of the upper- then lower-cased strings.
enum StringOrder {
    /// The case-folded key of `string` for the nocase collation.
    static func foldedKey(_ string: String) -> String { string.uppercased().lowercased() }

    /// Whether `a` orders before `b` under `collation`.
    static func less(_ a: String, _ b: String, collation: Collation) -> Bool {
        switch collation {
        case .binary: return a.utf8.lexicographicallyPrecedes(b.utf8)
        case .nocase: return foldedKey(a).utf8.lexicographicallyPrecedes(foldedKey(b).utf8)
        }
    }

    /// Negative, zero or positive as `a` orders before, with or after `b` under `collation`.
    static func compare(_ a: String, _ b: String, collation: Collation) -> Int {
        if less(a, b, collation: collation) { return -1 }
        if less(b, a, collation: collation) { return 1 }
        return 0
    }

    /// The dense rank of each of `strings` under `collation` (equal keys share a rank).
    static func ranks(_ strings: [String], collation: Collation) -> [Int64] {
        SortKey.ranks(of: strings.map { Array((collation == .nocase ? foldedKey($0) : $0).utf8) })
    }
}
