import SieveColumns

/// The constants of a long `IN` list, hashed, so that `x IN (…)` costs one lookup per row
/// instead of one comparison per list item.
///
/// The answer is exactly the one a scan of the list with ``ScalarSemantics/compare(_:_:collation:)``
/// gives, in three-valued logic: TRUE when some item equals the value, else unknown when some
/// item cannot be compared with it (a NULL, a NaN, a value of another type), else FALSE.
/// Equality is the comparison's, so the keys are chosen to make equal values hash alike:
///
/// - integers and doubles share one key space: a double holding an integer in `Int64`'s range
///   is keyed as that integer (so `2` and `2.0` meet, and `-0.0` is `0`), any other double by
///   its bits; the exact integer-double comparison never equates anything else;
/// - dates are keyed by their epoch milliseconds, apart from numbers (dates never equal numbers);
/// - strings are keyed by the UTF-8 bytes of their collation key, never by `String` equality,
///   which would merge canonically equivalent strings (`"é"` and `"e\u{301}"` stay different).
struct ConstantSet: Sendable {
    /// The classes of values that compare with each other; values of different classes never do.
    enum Family: UInt8, Sendable {
        case number = 1, date = 2, string = 4, boolean = 8
    }

    /// Lists shorter than this are scanned, not hashed.
    static let minimumCount = 8

    /// Numbers that equal an integer, as that integer.
    private(set) var integers = Set<Int64>()
    /// Other doubles (not NaN), by their bits.
    private(set) var doubles = Set<UInt64>()
    private(set) var dates = Set<Int64>()
    private(set) var strings = Set<ByteString>()
    /// Bit 0: FALSE is listed; bit 1: TRUE is.
    private(set) var booleans: UInt8 = 0
    /// The families of the non-NULL items (a bit per ``Family``).
    private(set) var families: UInt8 = 0
    /// Whether some item is NULL or NaN, and so compares with nothing.
    private(set) var hasIncomparable = false
    let collation: Collation

    /// The set of the constants among `items`; the other items are left out.
    init(_ items: [BoundExpression], collation: Collation) {
        self.collation = collation
        for item in items {
            guard case .constant(let value, _) = item else { continue }
            switch value {
            case .null:
                hasIncomparable = true
            case .integer(let x):
                if integers.isEmpty { integers.reserveCapacity(items.count) }
                integers.insert(x)
                families |= Family.number.rawValue
            case .double(let x):
                if x.isNaN {
                    hasIncomparable = true
                } else if let integer = Self.integer(exactly: x) {
                    if integers.isEmpty { integers.reserveCapacity(items.count) }
                    integers.insert(integer)
                } else {
                    if doubles.isEmpty { doubles.reserveCapacity(items.count) }
                    doubles.insert(x.bitPattern)
                }
                if !x.isNaN { families |= Family.number.rawValue }
            case .date(let ms):
                if dates.isEmpty { dates.reserveCapacity(items.count) }
                dates.insert(ms)
                families |= Family.date.rawValue
            case .boolean(let b):
                booleans |= b ? 2 : 1
                families |= Family.boolean.rawValue
            case .string(let s):
                if strings.isEmpty { strings.reserveCapacity(items.count) }
                strings.insert(ByteString(collation.key(s)))
                families |= Family.string.rawValue
            }
        }
    }

    /// The integer a double equals exactly, if any (`-0.0` is 0).
    @inline(__always)
    static func integer(exactly x: Double) -> Int64? {
        guard x >= -9_223_372_036_854_775_808.0, x < 9_223_372_036_854_775_808.0, x == x.rounded(.towardZero) else { return nil }
        return Int64(x)
    }

    /// `value IN (items)`: `true`, `false`, or `nil` for unknown. `value` is not NULL.
    func contains(_ value: ScalarValue) -> Bool? {
        let found: Bool
        let family: Family
        switch value {
        case .null:
            return nil
        case .integer(let x):
            (found, family) = (integers.contains(x), .number)
        case .double(let x):
            if x.isNaN { return nil }
            if let integer = Self.integer(exactly: x) {
                found = integers.contains(integer)
            } else {
                found = doubles.contains(x.bitPattern)
            }
            family = .number
        case .date(let ms):
            (found, family) = (dates.contains(ms), .date)
        case .boolean(let b):
            (found, family) = (booleans & (b ? 2 : 1) != 0, .boolean)
        case .string(let s):
            (found, family) = (strings.contains(ByteString(collation.key(s))), .string)
        }
        if found { return true }
        if hasIncomparable || families & ~family.rawValue != 0 { return nil }
        return false
    }

    /// The integers a value of an integer column (`dates` false) or a date column (`dates`
    /// true) can equal, when the answer for every non-NULL value is TRUE or FALSE, never
    /// unknown (no NULL items, no items of another family); `nil` otherwise. (A double that is
    /// not an integer equals no integer.)
    func integerMembers(dates: Bool) -> Set<Int64>? {
        let family: Family = dates ? .date : .number
        guard !hasIncomparable, families & ~family.rawValue == 0 else { return nil }
        return dates ? self.dates : integers
    }
}

/// A string that hashes and compares by its UTF-8 bytes.
struct ByteString: Hashable, Sendable {
    let string: String

    init(_ string: String) {
        var string = string
        string.makeContiguousUTF8()
        self.string = string
    }

    static func == (a: ByteString, b: ByteString) -> Bool {
        a.string.utf8.count == b.string.utf8.count && a.string.utf8.elementsEqual(b.string.utf8)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(string.utf8.count)
        let hashed: Void? = string.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil {
            for byte in string.utf8 { hasher.combine(byte) }
        }
    }
}

extension BoundExpression {
    /// `value [NOT] IN (items)`: its constants in a hashed ``ConstantSet`` when there are at
    /// least ``ConstantSet/minimumCount`` of them, the other items kept for a scan; the list
    /// as is otherwise.
    static func membership(_ value: BoundExpression, _ items: [BoundExpression], negated: Bool, collation: Collation) -> BoundExpression {
        var others: [BoundExpression] = []
        for item in items {
            if case .constant = item { continue }
            others.append(item)
        }
        guard items.count - others.count >= ConstantSet.minimumCount else { return .inList(value, items, negated: negated) }
        return .inSet(value, ConstantSet(items, collation: collation), others, negated: negated)
    }

    /// The operands of an n-ary AND (`isOr` false) or OR with the comparisons of one column
    /// with constants merged into one hashed test: in an OR, `x = c1 OR x = c2 OR …` becomes
    /// `x IN (c1, c2, …)`; in an AND, `x <> c1 AND x <> c2 AND …` becomes
    /// `x NOT IN (c1, c2, …)`. That is the definition of `IN` in three-valued logic, and AND and
    /// OR are commutative and associative there, so the answer is unchanged; it only stops a
    /// clause of a million such terms from testing each row a million times. A column compared
    /// fewer than ``ConstantSet/minimumCount`` times keeps its terms as written.
    ///
    /// The merged test takes the place of the column's first term; the other operands keep
    /// their order.
    static func mergingComparisons(_ operands: [BoundExpression], isOr: Bool, collation: Collation) -> [BoundExpression] {
        let wanted: ComparisonOperator = isOr ? .equal : .notEqual
        func term(_ operand: BoundExpression) -> (column: Int, type: SQLType, constant: BoundExpression)? {
            guard case .compare(let op, let a, let b) = operand, op == wanted else { return nil }
            if case .column(let index, let type) = a, case .constant = b { return (index, type, b) }
            if case .column(let index, let type) = b, case .constant = a { return (index, type, a) }
            return nil
        }
        // Per column index: how many terms compare it, then their constants.
        var counts: [Int] = []
        for operand in operands {
            guard let (column, _, _) = term(operand) else { continue }
            if column >= counts.count { counts += repeatElement(0, count: column + 1 - counts.count) }
            counts[column] += 1
        }
        guard counts.contains(where: { $0 >= ConstantSet.minimumCount }) else { return operands }
        var constants = [[BoundExpression]](repeating: [], count: counts.count)
        var slots = [Int](repeating: -1, count: counts.count)
        var types = [SQLType](repeating: .null, count: counts.count)
        var result: [BoundExpression] = []
        result.reserveCapacity(operands.count)
        for operand in operands {
            guard let (column, type, constant) = term(operand), counts[column] >= ConstantSet.minimumCount else {
                result.append(operand)
                continue
            }
            if slots[column] < 0 {
                slots[column] = result.count
                types[column] = type
                constants[column].reserveCapacity(counts[column])
                result.append(operand)  // replaced below
            }
            constants[column].append(constant)
        }
        for column in slots.indices where slots[column] >= 0 {
            result[slots[column]] = membership(
                .column(index: column, type: types[column]), constants[column], negated: !isOr, collation: collation)
        }
        return result
    }
}

extension BoundExpression {
    /// Whether the expression reads some column. Unlike ``columns`` it builds no set and stops at
    /// the first column, so that constant folding, which asks at every node, stays cheap on
    /// clauses of a million terms.
    var readsColumns: Bool {
        switch self {
        case .constant: false
        case .column: true
        case .not(let x), .isNull(let x, _), .like(let x, _, _), .negate(let x, _), .cast(let x, _):
            x.readsColumns
        case .and(let xs), .or(let xs), .function(_, let xs, _): xs.contains { $0.readsColumns }
        case .compare(_, let a, let b), .arithmetic(_, let a, let b, _), .likeDynamic(let a, let b, _, _):
            a.readsColumns || b.readsColumns
        case .inList(let x, let list, _), .inSet(let x, _, let list, _): x.readsColumns || list.contains { $0.readsColumns }
        case .between(let x, let low, let high, _): x.readsColumns || low.readsColumns || high.readsColumns
        case .caseWhen(let branches, let otherwise, _):
            otherwise?.readsColumns == true || branches.contains { $0.condition.readsColumns || $0.value.readsColumns }
        }
    }
}
