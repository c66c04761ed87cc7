import SieveBuffers
import SieveColumns

/// One node of a compiled condition. `select` writes into `output` the rows of `input` for
/// which the condition is TRUE (`wantTrue`) or FALSE (`!wantTrue`) — never the rows where it is
/// unknown — in ascending order, and returns how many it wrote. Asking for TRUE and for FALSE
/// separately is what makes three-valued logic exact: `NOT x` is TRUE exactly where `x` is
/// FALSE.
protocol FilterNode: AnyObject {
    func select(_ input: Rows, wantTrue: Bool, into output: UnsafeMutablePointer<UInt32>) -> Int
    /// How many rows of `input` are TRUE, without listing them when the node can (the root of
    /// a count query); `scratch` has room for the batch.
    func countTrue(_ input: Rows, scratch: UnsafeMutablePointer<UInt32>) -> Int
}

extension FilterNode {
    func countTrue(_ input: Rows, scratch: UnsafeMutablePointer<UInt32>) -> Int {
        select(input, wantTrue: true, into: scratch)
    }
}

/// The counting twin of ``scanRows(_:wantTrue:validity:into:_:)``: no row list is written, so
/// the loop is a plain reduction the compiler can vectorize.
@inline(__always)
func countRows(_ rows: Rows, wantTrue: Bool, validity: ValidityWords?, _ test: (Int) -> Bool) -> Int {
    var n = 0
    let want: UInt8 = wantTrue ? 1 : 0
    switch rows {
    case .range(let lower, let upper):
        if let validity {
            for i in lower..<upper {
                let valid = UInt8(truncatingIfNeeded: validity[i &>> 6] &>> UInt64(i & 63)) & 1
                n &+= Int(valid & ((test(i) ? 1 : 0) ^ want ^ 1))
            }
        } else {
            for i in lower..<upper { n &+= Int((test(i) ? 1 : 0) ^ want ^ 1) }
        }
    case .list(let ids, let count):
        for k in 0..<count {
            let i = Int(ids[k])
            let valid: UInt8 = validity.map { UInt8(truncatingIfNeeded: $0[i &>> 6] &>> UInt64(i & 63)) & 1 } ?? 1
            n &+= Int(valid & ((test(i) ? 1 : 0) ^ want ^ 1))
        }
    }
    return n
}

/// The inner loop shared by every leaf: rows pass when valid and `test` equals `wantTrue`.
@inline(__always)
func scanRows(
    _ rows: Rows, wantTrue: Bool, validity: ValidityWords?,
    into output: UnsafeMutablePointer<UInt32>, _ test: (Int) -> Bool
) -> Int {
    var n = 0
    let want: UInt8 = wantTrue ? 1 : 0
    switch rows {
    case .range(let lower, let upper):
        if let validity {
            for i in lower..<upper {
                output[n] = UInt32(truncatingIfNeeded: i)
                let valid = UInt8(truncatingIfNeeded: validity[i &>> 6] &>> UInt64(i & 63)) & 1
                let hit: UInt8 = (test(i) ? 1 : 0) ^ want ^ 1
                n &+= Int(valid & hit)
            }
        } else {
            for i in lower..<upper {
                output[n] = UInt32(truncatingIfNeeded: i)
                let hit: UInt8 = (test(i) ? 1 : 0) ^ want ^ 1
                n &+= Int(hit)
            }
        }
    case .list(let ids, let count):
        if let validity {
            for k in 0..<count {
                let i = Int(ids[k])
                output[n] = ids[k]
                let valid = UInt8(truncatingIfNeeded: validity[i &>> 6] &>> UInt64(i & 63)) & 1
                let hit: UInt8 = (test(i) ? 1 : 0) ^ want ^ 1
                n &+= Int(valid & hit)
            }
        } else {
            for k in 0..<count {
                let i = Int(ids[k])
                output[n] = ids[k]
                let hit: UInt8 = (test(i) ? 1 : 0) ^ want ^ 1
                n &+= Int(hit)
            }
        }
    }
    return n
}

/// Writes at `output[count]` onwards the rows whose bits are set in `bits` (bit k standing for
/// row `first + k`), ascending, and advances `count` past them.
@inline(__always)
func writeRows(ofBits bits: UInt64, from first: Int, into output: UnsafeMutablePointer<UInt32>, count: inout Int) {
    var bits = bits
    while bits != 0 {
        output[count] = UInt32(truncatingIfNeeded: first &+ bits.trailingZeroBitCount)
        count &+= 1
        bits &= bits &- 1
    }
}

/// Runs `body` with the validity words of a column, or `nil` when it has no NULLs.
@inline(__always)
func withValidity<R>(_ validity: ValidityBitmap?, _ body: (ValidityWords?) -> R) -> R {
    guard let validity else { return body(nil) }
    return validity.withWords { body($0) }
}

// MARK: Logic

/// `a AND b AND …`: TRUE narrows child by child; FALSE collects each child's FALSE rows.
final class AndNode: FilterNode {
    let children: [FilterNode]
    let scratch: [RowBuffer]

    init(_ children: [FilterNode], batchSize: Int) {
        self.children = children
        scratch = (0..<3).map { _ in RowBuffer(capacity: batchSize) }
    }

    func select(_ input: Rows, wantTrue: Bool, into output: UnsafeMutablePointer<UInt32>) -> Int {
        wantTrue ? narrow(input, children, want: true, output, scratch) : collect(input, children, want: false, output, scratch)
    }
}

/// `a OR b OR …`: TRUE collects each child's TRUE rows; FALSE narrows child by child.
final class OrNode: FilterNode {
    let children: [FilterNode]
    let scratch: [RowBuffer]

    init(_ children: [FilterNode], batchSize: Int) {
        self.children = children
        scratch = (0..<3).map { _ in RowBuffer(capacity: batchSize) }
    }

    func select(_ input: Rows, wantTrue: Bool, into output: UnsafeMutablePointer<UInt32>) -> Int {
        wantTrue ? collect(input, children, want: true, output, scratch) : narrow(input, children, want: false, output, scratch)
    }
}

/// Rows where every child answers `want`: each child only looks at the survivors of the last.
private func narrow(
    _ input: Rows, _ children: [FilterNode], want: Bool, _ output: UnsafeMutablePointer<UInt32>, _ scratch: [RowBuffer]
) -> Int {
    var current = input
    for (k, child) in children.enumerated() {
        let target = k == children.count - 1 ? output : scratch[k % 2].pointer
        let count = child.select(current, wantTrue: want, into: target)
        if count == 0 { return 0 }
        current = .list(UnsafePointer(target), count)
    }
    return current.count
}

/// Rows where some child answers `want`: each child only looks at rows no earlier child took.
private func collect(
    _ input: Rows, _ children: [FilterNode], want: Bool, _ output: UnsafeMutablePointer<UInt32>, _ scratch: [RowBuffer]
) -> Int {
    if case .range(let lower, let upper) = input {
        return collect(lower..<upper, children, want: want, output, scratch)
    }
    // scratch[0]: rows still undecided; scratch[1]: this child's hits; scratch[2]: merge space.
    var remaining = input
    var collected = 0
    for (k, child) in children.enumerated() {
        let hits = scratch[1].pointer
        let hitCount = child.select(remaining, wantTrue: want, into: hits)
        guard hitCount > 0 else { continue }
        collected = SortedRows.union(UnsafePointer(output), collected, UnsafePointer(hits), hitCount, into: scratch[2].pointer)
        output.update(from: scratch[2].pointer, count: collected)
        if k < children.count - 1 {
            let left = SortedRows.subtract(remaining, UnsafePointer(hits), hitCount, into: scratch[2].pointer)
            scratch[0].pointer.update(from: scratch[2].pointer, count: left)
            if left == 0 { break }
            remaining = .list(UnsafePointer(scratch[0].pointer), left)
        }
    }
    return collected
}

/// ``collect(_:_:want:_:_:)`` over a range of rows (a batch of a full scan), with a bitmap of the
/// rows taken instead of merging sorted lists: a merge of two children's interleaved hits, or
/// taking them out of the undecided rows, branches on the data and mispredicts about once a hit;
/// setting and testing bits does not.
private func collect(
    _ rows: Range<Int>, _ children: [FilterNode], want: Bool, _ output: UnsafeMutablePointer<UInt32>, _ scratch: [RowBuffer]
) -> Int {
    let lower = rows.lowerBound
    return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: (rows.count + 63) >> 6) { taken in
        taken.initialize(repeating: 0)
        var remaining = Rows.range(lower, rows.upperBound)
        for (k, child) in children.enumerated() {
            let hits = scratch[1].pointer
            let hitCount = child.select(remaining, wantTrue: want, into: hits)
            guard hitCount > 0 else { continue }
            for h in 0..<hitCount {
                let offset = Int(hits[h]) &- lower
                taken[offset &>> 6] |= 1 &<< UInt64(offset & 63)
            }
            guard k < children.count - 1 else { break }
            // The rows still undecided (their bit clear), written over the last list of them
            // (never ahead of where it is read).
            let left = scratch[0].pointer
            let n = scanRows(remaining, wantTrue: false, validity: nil, into: left) { row in
                let offset = row &- lower
                return taken[offset &>> 6] &>> UInt64(offset & 63) & 1 != 0
            }
            if n == 0 { break }
            remaining = .list(UnsafePointer(left), n)
        }
        // The rows taken, ascending.
        var n = 0
        for w in 0..<taken.count { writeRows(ofBits: taken[w], from: lower &+ w &<< 6, into: output, count: &n) }
        return n
    }
}

/// `NOT x`: TRUE where x is FALSE and the other way round.
final class NotNode: FilterNode {
    let child: FilterNode

    init(_ child: FilterNode) { self.child = child }

    func select(_ input: Rows, wantTrue: Bool, into output: UnsafeMutablePointer<UInt32>) -> Int {
        child.select(input, wantTrue: !wantTrue, into: output)
    }
}

/// A constant condition: TRUE, FALSE or unknown for every row.
final class ConstantNode: FilterNode {
    let value: Bool?

    init(_ value: Bool?) { self.value = value }

    func select(_ input: Rows, wantTrue: Bool, into output: UnsafeMutablePointer<UInt32>) -> Int {
        guard let value, value == wantTrue else { return 0 }
        return SortedRows.copy(input, into: output)
    }
}

// MARK: Leaves

/// `column IS [NOT] NULL`: never unknown.
final class IsNullNode: FilterNode {
    let validity: ValidityBitmap?
    let negated: Bool

    init(validity: ValidityBitmap?, negated: Bool) {
        self.validity = validity
        self.negated = negated
    }

    func select(_ input: Rows, wantTrue: Bool, into output: UnsafeMutablePointer<UInt32>) -> Int {
        // The condition is "the row is valid" when negated (IS NOT NULL).
        let wantValid = wantTrue == negated
        guard let validity else { return wantValid ? SortedRows.copy(input, into: output) : 0 }
        return validity.withWords { words in
            if case .range(let lower, let upper) = input {
                return Self.rows(lower..<upper, valid: wantValid, words, into: output)
            }
            return scanRows(input, wantTrue: wantValid, validity: nil, into: output) { i in
                words[i &>> 6] &>> UInt64(i & 63) & 1 != 0
            }
        }
    }

    /// The rows of `range` that are valid (or NULL, when `valid` is false), read a word of the
    /// bitmap at a time: the time goes with the rows found (a few NULLs among many rows, say)
    /// rather than with the rows looked at.
    private static func rows(_ range: Range<Int>, valid: Bool, _ words: ValidityWords, into output: UnsafeMutablePointer<UInt32>) -> Int {
        guard !range.isEmpty else { return 0 }
        var n = 0
        let flip: UInt64 = valid ? 0 : ~0
        for w in (range.lowerBound &>> 6)...((range.upperBound &- 1) &>> 6) {
            var bits = words[w] ^ flip
            let base = w &<< 6
            // Only the bits of rows in the range.
            if base < range.lowerBound { bits &= ~0 &<< UInt64(range.lowerBound &- base) }
            if base &+ 64 > range.upperBound { bits &= ~(~0 &<< UInt64(range.upperBound &- base)) }
            writeRows(ofBits: bits, from: base, into: output, count: &n)
        }
        return n
    }
}

/// An integer or date column compared with integer bounds: `low <= x <= high` (inclusive),
/// which every integer comparison with a constant, and BETWEEN, reduce to. `inverted` selects
/// the complement among non-NULL rows (for `<>` and NOT BETWEEN).
final class IntegerRangeNode: FilterNode {
    let values: ColumnBuffer<Int64>
    let validity: ValidityBitmap?
    let low: Int64
    let high: Int64
    let inverted: Bool

    init(values: ColumnBuffer<Int64>, validity: ValidityBitmap?, low: Int64, high: Int64, inverted: Bool) {
        self.values = values
        self.validity = validity
        self.low = low
        self.high = high
        self.inverted = inverted
    }

    func select(_ input: Rows, wantTrue: Bool, into output: UnsafeMutablePointer<UInt32>) -> Int {
        let low = self.low, high = self.high
        let want = wantTrue != inverted
        return values.withUnsafeBufferPointer { values in
            withValidity(validity) { validity in
                if low == .min {
                    return scanRows(input, wantTrue: want, validity: validity, into: output) { values[$0] <= high }
                }
                if high == .max {
                    return scanRows(input, wantTrue: want, validity: validity, into: output) { values[$0] >= low }
                }
                // One unsigned compare tests both bounds.
                let width = UInt64(bitPattern: high &- low)
                return scanRows(input, wantTrue: want, validity: validity, into: output) {
                    UInt64(bitPattern: values[$0] &- low) <= width
                }
            }
        }
    }

    func countTrue(_ input: Rows, scratch: UnsafeMutablePointer<UInt32>) -> Int {
        let low = self.low
        let width = UInt64(bitPattern: high &- low)
        return values.withUnsafeBufferPointer { values in
            withValidity(validity) { validity in
                countRows(input, wantTrue: !inverted, validity: validity) { UInt64(bitPattern: values[$0] &- low) <= width }
            }
        }
    }
}

/// A double column compared with double bounds, each open or closed; `inverted` selects the
/// complement among non-NULL rows.
final class DoubleRangeNode: FilterNode {
    let values: ColumnBuffer<Double>
    let validity: ValidityBitmap?
    let low: Double
    let lowInclusive: Bool
    let high: Double
    let highInclusive: Bool
    let inverted: Bool

    init(values: ColumnBuffer<Double>, validity: ValidityBitmap?, low: Double, lowInclusive: Bool, high: Double, highInclusive: Bool, inverted: Bool) {
        self.values = values
        self.validity = validity
        self.low = low
        self.lowInclusive = lowInclusive
        self.high = high
        self.highInclusive = highInclusive
        self.inverted = inverted
    }

    func select(_ input: Rows, wantTrue: Bool, into output: UnsafeMutablePointer<UInt32>) -> Int {
        let low = self.low, high = self.high
        let want = wantTrue != inverted
        return values.withUnsafeBufferPointer { values in
            withValidity(validity) { validity in
                switch (lowInclusive, highInclusive) {
                case (true, true):
                    return scanRows(input, wantTrue: want, validity: validity, into: output) { values[$0] >= low && values[$0] <= high }
                case (true, false):
                    return scanRows(input, wantTrue: want, validity: validity, into: output) { values[$0] >= low && values[$0] < high }
                case (false, true):
                    return scanRows(input, wantTrue: want, validity: validity, into: output) { values[$0] > low && values[$0] <= high }
                case (false, false):
                    return scanRows(input, wantTrue: want, validity: validity, into: output) { values[$0] > low && values[$0] < high }
                }
            }
        }
    }
}

/// An integer or date column `IN` a set of constants (NULL-free list).
final class IntegerSetNode: FilterNode {
    let values: ColumnBuffer<Int64>
    let validity: ValidityBitmap?
    let members: Set<Int64>
    let negated: Bool

    init(values: ColumnBuffer<Int64>, validity: ValidityBitmap?, members: Set<Int64>, negated: Bool) {
        self.values = values
        self.validity = validity
        self.members = members
        self.negated = negated
    }

    func select(_ input: Rows, wantTrue: Bool, into output: UnsafeMutablePointer<UInt32>) -> Int {
        let members = self.members
        return values.withUnsafeBufferPointer { values in
            withValidity(validity) { validity in
                scanRows(input, wantTrue: wantTrue != negated, validity: validity, into: output) { members.contains(values[$0]) }
            }
        }
    }
}

/// A dictionary-encoded string column under any condition that reads no other column: the
/// condition was evaluated once per distinct string (and once for NULL), and each row looks its
/// code up. `truth[code]` is 1 for TRUE, 0 for FALSE, 2 for unknown.
final class DictionaryTableNode: FilterNode {
    let codes: ColumnBuffer<UInt32>
    let validity: ValidityBitmap?
    /// The answers per code, followed by the answer for NULL rows.
    let table: [UInt8]
    let nullSlot: Int

    init(codes: ColumnBuffer<UInt32>, validity: ValidityBitmap?, truth: [UInt8], nullTruth: UInt8) {
        self.codes = codes
        self.validity = validity
        // NULL rows get a table slot of their own, after the codes.
        self.table = truth + [nullTruth]
        self.nullSlot = truth.count
    }

    func select(_ input: Rows, wantTrue: Bool, into output: UnsafeMutablePointer<UInt32>) -> Int {
        let want: UInt8 = wantTrue ? 1 : 0
        let nullSlot = self.nullSlot
        return codes.withUnsafeBufferPointer { codes in
            table.withUnsafeBufferPointer { table in
                withValidity(validity) { validity in
                    if let validity {
                        return scanRows(input, wantTrue: true, validity: nil, into: output) { i in
                            let valid = validity[i &>> 6] &>> UInt64(i & 63) & 1 != 0
                            return table[valid ? Int(codes[i]) : nullSlot] == want
                        }
                    }
                    return scanRows(input, wantTrue: true, validity: nil, into: output) { table[Int(codes[$0])] == want }
                }
            }
        }
    }
}

/// A plain (not dictionary-encoded) string column matched against a compiled LIKE pattern
/// (equality is the pattern without wildcards), on the UTF-8 bytes in place.
final class PlainStringMatchNode: FilterNode {
    let storage: StringStorage
    let validity: ValidityBitmap?
    let pattern: LikePattern
    let negated: Bool

    init(storage: StringStorage, validity: ValidityBitmap?, pattern: LikePattern, negated: Bool) {
        self.storage = storage
        self.validity = validity
        self.pattern = pattern
        self.negated = negated
    }

    func select(_ input: Rows, wantTrue: Bool, into output: UnsafeMutablePointer<UInt32>) -> Int {
        let want = wantTrue != negated
        return storage.bytes.withUnsafeBufferPointer { bytes in
            storage.offsets.withUnsafeBufferPointer { offsets in
                withValidity(validity) { validity in
                    // The pattern's shape is decided once, outside the row loop.
                    switch pattern.shape {
                    case .prefix(let needle), .exact(let needle):
                        let exact: Bool
                        if case .exact = pattern.shape { exact = true } else { exact = false }
                        return needle.withUnsafeBufferPointer { needle in
                            // Short prefixes: one masked 8-byte load and compare per row, no
                            // data-dependent branch (rows near the buffer's end take the slow path).
                            if !exact, needle.count <= 8, let base = bytes.baseAddress, let pattern = needle.baseAddress {
                                // The needle and its mask as 8-byte words in memory order, so
                                // the comparison is right whatever the byte order.
                                var needleBytes = [UInt8](repeating: 0, count: 8)
                                var maskBytes = [UInt8](repeating: 0, count: 8)
                                for k in 0..<needle.count {
                                    needleBytes[k] = pattern[k]
                                    maskBytes[k] = 0xFF
                                }
                                let wanted = needleBytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                                let mask = maskBytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                                let safeEnd = bytes.count &- 8
                                let count = needle.count
                                return scanRows(input, wantTrue: want, validity: validity, into: output) { i in
                                    let start = offsets[i], length = offsets[i &+ 1] &- start
                                    if start > safeEnd { return length >= count && Self.bytesEqual(bytes, start, needle) }
                                    let word = UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self)
                                    return (length >= count) && (word & mask == wanted)
                                }
                            }
                            return scanRows(input, wantTrue: want, validity: validity, into: output) { i in
                                let start = offsets[i], length = offsets[i &+ 1] &- start
                                if exact ? length != needle.count : length < needle.count { return false }
                                return Self.bytesEqual(bytes, start, needle)
                            }
                        }
                    case .suffix(let needle):
                        return needle.withUnsafeBufferPointer { needle in
                            scanRows(input, wantTrue: want, validity: validity, into: output) { i in
                                let end = offsets[i &+ 1], length = end &- offsets[i]
                                if length < needle.count { return false }
                                return Self.bytesEqual(bytes, end &- needle.count, needle)
                            }
                        }
                    default:
                        let pattern = self.pattern
                        return scanRows(input, wantTrue: want, validity: validity, into: output) { i in
                            let start = offsets[i]
                            return pattern.matches(UnsafeBufferPointer(rebasing: bytes[start..<offsets[i &+ 1]]))
                        }
                    }
                }
            }
        }
    }

    /// Whether `bytes[start ..< start + needle.count]` equals `needle` (the range is known to
    /// be inside `bytes`). Compares eight bytes at a time.
    @inline(__always)
    static func bytesEqual(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ needle: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress, let other = needle.baseAddress else { return needle.isEmpty }
        var k = 0
        let count = needle.count
        while k &+ 8 <= count {
            let a = UnsafeRawPointer(base + (start &+ k)).loadUnaligned(as: UInt64.self)
            let b = UnsafeRawPointer(other + k).loadUnaligned(as: UInt64.self)
            if a != b { return false }
            k &+= 8
        }
        while k < count {
            if base[start &+ k] != other[k] { return false }
            k &+= 1
        }
        return true
    }
}

/// Anything else: the row evaluator, one row at a time.
final class RowFallbackNode: FilterNode {
    let expression: BoundExpression
    let evaluator: RowEvaluator

    init(_ expression: BoundExpression, evaluator: RowEvaluator) {
        self.expression = expression
        self.evaluator = evaluator
    }

    func select(_ input: Rows, wantTrue: Bool, into output: UnsafeMutablePointer<UInt32>) -> Int {
        scanRows(input, wantTrue: true, validity: nil, into: output) { i in
            if case .boolean(let value) = evaluator.evaluate(expression, row: i) { return value == wantTrue }
            return false
        }
    }
}
