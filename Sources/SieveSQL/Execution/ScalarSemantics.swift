import SieveColumns

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The value semantics of the where-clause language, one value at a time: comparison with
/// NULL and mixed numeric types, arithmetic with NULL and overflow, and the built-in functions.
/// The vectorized kernels must agree with these functions; the tests compare them.
///
/// Nothing here traps, for any input. At the ends of the ranges:
/// - Integer and interval arithmetic (`+ - * /`, unary minus, `ABS`) that overflows `Int64`
///   gives NULL; so does division by zero. `MOD(-2^63, -1)` is 0.
/// - A double result that is not finite (overflow to ±∞) gives NULL.
/// - `CAST(x AS INTEGER)` truncates toward zero and gives NULL outside `-2^63 ..< 2^63`.
/// - Dates are `Int64` epoch milliseconds; every value is a valid instant (years
///   -292,275,055 to 292,278,994). `date ± interval`, `date ± days` and `CAST(… AS DATE)` give
///   NULL when the result leaves that range; `date - date` is exact for any two dates.
/// - `ROUND`/`TRUNCATE` of an integer round exactly in integer arithmetic (NULL when the
///   result leaves `Int64`); digits given as doubles are truncated and saturate.
/// - Strings compare as UTF-8 bytes (see ``Collation``).
enum ScalarSemantics {
    // MARK: Comparison

    /// The order of two non-NULL values of comparable types (-1, 0, 1), or `nil` when either is
    /// NULL or a double is NaN.
    static func compare(_ a: ScalarValue, _ b: ScalarValue, collation: Collation) -> Int? {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.double(let x), .double(let y)):
            if x.isNaN || y.isNaN { return nil }
            return x < y ? -1 : (x == y ? 0 : 1)
        case (.integer(let x), .double(let y)): return y.isNaN ? nil : compare(x, y)
        case (.double(let x), .integer(let y)): return x.isNaN ? nil : -compare(y, x)
        case (.date(let x), .date(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.string(let x), .string(let y)): return compareStrings(x, y, collation)
        case (.boolean(let x), .boolean(let y)): return x == y ? 0 : (!x ? -1 : 1)
        default: return nil
        }
    }

    /// Exact comparison of an integer with a (non-NaN) double, without rounding the integer.
    @inline(__always)
    static func compare(_ a: Int64, _ b: Double) -> Int {
        if b >= 9_223_372_036_854_775_808.0 { return -1 }
        if b < -9_223_372_036_854_775_808.0 { return 1 }
        let whole = b.rounded(.towardZero)
        let integer = Int64(whole)
        if a < integer { return -1 }
        if a > integer { return 1 }
        let fraction = b - whole
        return fraction > 0 ? -1 : (fraction < 0 ? 1 : 0)
    }

    /// Strings under a collation: `binary` orders by Unicode scalar values (the UTF-8 bytes),
    /// `nocase` orders the case-folded strings the same way.
    static func compareStrings(_ a: String, _ b: String, _ collation: Collation) -> Int {
        let x = collation.key(a), y = collation.key(b)
        if x.utf8.elementsEqual(y.utf8) { return 0 }
        return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1
    }

    // MARK: Arithmetic

    /// `a op b` with NULL in, NULL out; integer (and interval) overflow and division by zero
    /// give NULL, and so does a double result that is not finite; `date ± number` adds days
    /// (NULL when the result leaves the `Int64` milliseconds), `date - date` gives days (a
    /// double). (`date ± interval` is bound to ``BuiltinFunction/addMilliseconds`` and
    /// ``BuiltinFunction/subtractMilliseconds``.)
    static func arithmetic(_ op: ArithmeticOperator, _ a: ScalarValue, _ b: ScalarValue, type: SQLType) -> ScalarValue {
        switch (a, b) {
        case (.null, _), (_, .null): return .null
        case (.integer(let x), .integer(let y)) where type == .integer || type == .interval:
            let result: (partialValue: Int64, overflow: Bool)
            switch op {
            case .add: result = x.addingReportingOverflow(y)
            case .subtract: result = x.subtractingReportingOverflow(y)
            case .multiply: result = x.multipliedReportingOverflow(by: y)
            case .divide:
                if y == 0 { return .null }
                result = x.dividedReportingOverflow(by: y)
            }
            return result.overflow ? .null : .integer(result.partialValue)
        case (.date(let x), _) where type == .date:
            return shiftDate(x, byDays: b, subtracting: op == .subtract)
        case (.date(let x), .date(let y)) where type == .double && op == .subtract:
            return .double(daysBetween(x, y))
        default:
            guard let x = numeric(a), let y = numeric(b) else { return .null }
            let value: Double
            switch op {
            case .add: value = x + y
            case .subtract: value = x - y
            case .multiply: value = x * y
            case .divide:
                if y == 0 { return .null }
                value = x / y
            }
            return value.isFinite ? .double(value) : .null
        }
    }

    /// `date ± days`: a whole number of days exactly, a fractional one rounded to the nearest
    /// millisecond (half away from zero); NULL when the result leaves the `Int64` milliseconds.
    static func shiftDate(_ ms: Int64, byDays days: ScalarValue, subtracting: Bool) -> ScalarValue {
        let delta: Int64
        switch days {
        case .integer(let days):
            let (product, overflow) = days.multipliedReportingOverflow(by: CivilTime.millisecondsPerDay)
            if overflow { return .null }
            delta = product
        case .double(let days):
            guard let product = wholeInt64(exactly: (days * 86_400_000).rounded()) else { return .null }
            delta = product
        default:
            return .null
        }
        let (result, overflow) = subtracting ? ms.subtractingReportingOverflow(delta) : ms.addingReportingOverflow(delta)
        return overflow ? .null : .date(result)
    }

    /// `a - b` in days, for any two instants (the difference in milliseconds may not fit
    /// `Int64`: then whole days and the rest are subtracted apart).
    static func daysBetween(_ a: Int64, _ b: Int64) -> Double {
        let (difference, overflow) = a.subtractingReportingOverflow(b)
        if !overflow { return Double(difference) / 86_400_000 }
        let x = CivilTime.floorDivideWithRemainder(a, CivilTime.millisecondsPerDay)
        let y = CivilTime.floorDivideWithRemainder(b, CivilTime.millisecondsPerDay)
        return Double(x.quotient - y.quotient) + Double(x.remainder - y.remainder) / 86_400_000
    }

    /// The `Int64` equal to a whole double, `nil` when it is not whole or outside
    /// `-2^63 ..< 2^63`.
    @inline(__always)
    static func wholeInt64(exactly x: Double) -> Int64? {
        guard x >= -9_223_372_036_854_775_808.0, x < 9_223_372_036_854_775_808.0, x == x.rounded(.towardZero) else { return nil }
        return Int64(x)
    }

    /// A double truncated toward zero, `nil` when the result is outside `Int64` (or NaN):
    /// `CAST(… AS INTEGER)`.
    @inline(__always)
    static func truncatedInt64(_ x: Double) -> Int64? {
        // -2^63 is a double and fits; the next double below it is 2,048 lower.
        guard x >= -9_223_372_036_854_775_808.0, x < 9_223_372_036_854_775_808.0 else { return nil }
        return Int64(x.rounded(.towardZero))
    }

    /// The number as a double, `nil` when not a number.
    @inline(__always)
    static func numeric(_ value: ScalarValue) -> Double? {
        switch value {
        case .integer(let x): Double(x)
        case .double(let x): x
        default: nil
        }
    }

    // MARK: Functions

    /// Evaluates a built-in function on evaluated arguments. NULL in, NULL out, except
    /// `COALESCE` and `NULLIF`, which follow their SQL definitions.
    static func call(_ function: BuiltinFunction, _ args: [ScalarValue], type: SQLType, collation: Collation) -> ScalarValue {
        switch function {
        case .coalesce:
            return args.first { !$0.isNull }.map { RowEvaluator.widened($0, to: type) } ?? .null
        case .nullif:
            guard args.count == 2 else { return .null }
            if args[0].isNull { return .null }
            if let order = compare(args[0], args[1], collation: collation), order == 0 { return .null }
            return args[0]
        case .concat:
            var result = ""
            for arg in args {
                guard let text = text(arg) else { return .null }
                result += text
            }
            return .string(result)
        default:
            break
        }
        if args.contains(where: \.isNull) { return .null }
        switch function {
        case .charLength:
            guard case .string(let s) = args[0] else { return .null }
            return .integer(Int64(s.unicodeScalars.count))
        case .position:
            guard case .string(let needle) = args[0], case .string(let haystack) = args[1] else { return .null }
            return .integer(position(of: needle, in: haystack))
        case .substring:
            guard case .string(let s) = args[0], let start = integerArgument(args[1]) else { return .null }
            let length = args.count > 2 ? integerArgument(args[2]) : nil
            if args.count > 2 && length == nil { return .null }
            return .string(substring(s, start: start, length: length))
        case .trimBoth, .trimLeading, .trimTrailing:
            guard case .string(let s) = args[args.count - 1] else { return .null }
            var characters: Set<Unicode.Scalar> = [" "]
            if args.count == 2, case .string(let set) = args[0] { characters = Set(set.unicodeScalars) }
            return .string(trim(s, characters, leading: function != .trimTrailing, trailing: function != .trimLeading))
        case .upper:
            guard case .string(let s) = args[0] else { return .null }
            return .string(s.uppercased())
        case .lower:
            guard case .string(let s) = args[0] else { return .null }
            return .string(s.lowercased())
        case .caseFold:
            guard case .string(let s) = args[0] else { return .null }
            return .string(UnicodeFolding.caseFolded(s))
        case .accentFold:
            guard case .string(let s) = args[0] else { return .null }
            return .string(UnicodeFolding.accentFolded(s))
        case .abs:
            if case .integer(let x) = args[0] { return x == .min ? .null : .integer(Swift.abs(x)) }
            return numeric(args[0]).map { .double(Swift.abs($0)) } ?? .null
        case .ceiling, .floor:
            if case .integer = args[0] { return args[0] }
            guard let x = numeric(args[0]) else { return .null }
            return .double(function == .ceiling ? x.rounded(.up) : x.rounded(.down))
        case .round, .truncate:
            var digits: Int64 = 0
            if args.count > 1 {
                guard let value = integerArgument(args[1]) else { return .null }
                digits = value
            }
            if case .integer(let x) = args[0] {
                return roundInteger(x, digits: digits, toNearest: function == .round).map(ScalarValue.integer) ?? .null
            }
            guard let x = numeric(args[0]) else { return .null }
            let rule: FloatingPointRoundingRule = function == .round ? .toNearestOrAwayFromZero : .towardZero
            return roundDecimal(x, digits: digits, rule: rule).map(ScalarValue.double) ?? .null
        case .mod:
            if case .integer(let x) = args[0], case .integer(let y) = args[1] {
                if y == 0 { return .null }
                return .integer(x.remainderReportingOverflow(dividingBy: y).partialValue)
            }
            guard let x = numeric(args[0]), let y = numeric(args[1]), y != 0 else { return .null }
            return .double(fmod(x, y))
        case .power:
            guard let x = numeric(args[0]), let y = numeric(args[1]) else { return .null }
            let value = pow(x, y)
            return value.isFinite ? .double(value) : .null
        case .log, .log10:
            guard let x = numeric(args[0]), x > 0 else { return .null }
            return .double(function == .log ? Self.naturalLog(x) : log10(x))
        case .sin, .cos, .tan:
            guard let x = numeric(args[0]) else { return .null }
            let value = function == .sin ? sin(x) : (function == .cos ? cos(x) : tan(x))
            return .double(value)
        case .sign:
            guard let x = numeric(args[0]) else { return .null }
            return .integer(x > 0 ? 1 : (x < 0 ? -1 : 0))
        case .extractYear, .extractMonth, .extractDay, .extractHour, .extractMinute, .extractSecond:
            guard case .date(let ms) = args[0] else { return .null }
            let c = CivilTime.components(milliseconds: ms)
            switch function {
            case .extractYear: return .integer(c.year)
            case .extractMonth: return .integer(c.month)
            case .extractDay: return .integer(c.day)
            case .extractHour: return .integer(c.hour)
            case .extractMinute: return .integer(c.minute)
            // One correctly rounded division: the double nearest to the decimal `ss.fff`
            // (`Double(ss) + Double(fff) / 1000` rounds twice and misses 788 of the 60,000).
            default: return .double(Double(c.second * 1000 + c.millisecond) / 1000)
            }
        case .addMilliseconds, .subtractMilliseconds:
            guard case .date(let ms) = args[0], case .integer(let delta) = args[1] else { return .null }
            let (result, overflow) =
                function == .addMilliseconds ? ms.addingReportingOverflow(delta) : ms.subtractingReportingOverflow(delta)
            return overflow ? .null : .date(result)
        case .coalesce, .nullif, .concat:
            return .null
        }
    }

    /// A value as text for `CONCAT` and `CAST(… AS VARCHAR)`.
    static func text(_ value: ScalarValue) -> String? {
        switch value {
        case .null: nil
        case .string(let s): s
        case .integer(let x): String(x)
        case .double(let x): formatDouble(x)
        case .date(let ms): CivilTime.format(milliseconds: ms, dateOnlyAtMidnight: true)
        case .boolean(let b): b ? "1" : "0"
        }
    }

    /// Shortest round-trip text of a double; whole numbers keep a `.0`.
    static func formatDouble(_ x: Double) -> String { "\(x)" }

    /// A whole-number argument (`SUBSTRING`'s start and length, `ROUND`'s digits): doubles are
    /// truncated toward zero and saturate at the ends of `Int64` (a start of `1e300` is past
    /// every string, as `9223372036854775807` is); `nil` for NaN and non-numbers.
    static func integerArgument(_ value: ScalarValue) -> Int64? {
        switch value {
        case .integer(let x): return x
        case .double(let x):
            if x.isNaN { return nil }
            if x >= 9_223_372_036_854_775_808.0 { return .max }
            return truncatedInt64(x) ?? .min
        default: return nil
        }
    }

    /// 1-based position of `needle` in `haystack` in Unicode scalars; 0 when absent; 1 for an
    /// empty needle.
    ///
    /// The search runs on the UTF-8 bytes (``ByteSearch``), where the first match is the first
    /// match in scalars, then counts the scalars before it.
    /// - Complexity: O(n + m) for a haystack of n bytes and a needle of m.
    static func position(of needle: String, in haystack: String) -> Int64 {
        var needle = needle, haystack = haystack
        return needle.withUTF8 { needle in
            haystack.withUTF8 { haystack in
                guard let offset = ByteSearch.firstIndex(of: needle, in: haystack, from: 0, to: haystack.count) else { return 0 }
                // Scalars start at every byte that is not a continuation byte (10xxxxxx).
                var scalars: Int64 = 1
                for k in 0..<offset where haystack[k] & 0xC0 != 0x80 { scalars += 1 }
                return scalars
            }
        }
    }

    /// SQL `SUBSTRING(s FROM start FOR length)` in Unicode scalars: the characters at 1-based
    /// positions `start ..< start + length` that exist (positions before 1 count but hold
    /// nothing); no length means to the end; a negative length gives ''.
    static func substring(_ s: String, start: Int64, length: Int64?) -> String {
        let scalars = Array(s.unicodeScalars)
        let from = max(start, 1)
        var to = Int64(scalars.count) + 1
        if let length {
            if length < 0 { return "" }
            let (end, overflow) = start.addingReportingOverflow(length)
            if !overflow { to = min(to, end) }
        }
        guard from < to else { return "" }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars[Int(from - 1)..<Int(to - 1)])
        return String(result)
    }

    static func trim(_ s: String, _ characters: Set<Unicode.Scalar>, leading: Bool, trailing: Bool) -> String {
        var scalars = Array(s.unicodeScalars)[...]
        if leading { while let first = scalars.first, characters.contains(first) { scalars.removeFirst() } }
        if trailing { while let last = scalars.last, characters.contains(last) { scalars.removeLast() } }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars)
        return String(result)
    }

    /// The natural logarithm (named apart from the `.log` function case).
    static func naturalLog(_ x: Double) -> Double { log(x) }

    /// `x` rounded (`toNearest`: half away from zero) or truncated to a multiple of
    /// `10^-digits`, in exact integer arithmetic; `digits >= 0` leaves an integer as it is.
    /// `nil` (NULL) when the result leaves `Int64` (`ROUND(9e18, -19)` is 10^19).
    static func roundInteger(_ x: Int64, digits: Int64, toNearest: Bool) -> Int64? {
        guard digits < 0 else { return x }
        // 10^19 and beyond exceed Int64, and every |x| is below 10^19 (< 9.23e18).
        if digits < -18 {
            // Only ROUND to a multiple of 10^19 can carry |x| ≥ 5·10^18 up, to ±10^19.
            if toNearest && digits == -19 && x.magnitude >= 5_000_000_000_000_000_000 { return nil }
            return 0
        }
        var scale: Int64 = 1
        for _ in 0..<Int(-digits) { scale *= 10 }
        var quotient = x / scale
        let remainder = x % scale
        if toNearest && remainder.magnitude * 2 >= scale.magnitude { quotient += x < 0 ? -1 : 1 }
        let (result, overflow) = quotient.multipliedReportingOverflow(by: scale)
        return overflow ? nil : result
    }

    /// `x` rounded to `digits` decimal places (negative: tens, hundreds, …) by `rule`; `nil`
    /// (NULL) when the result overflows to infinity (`ROUND(1.7e308, -308)`).
    static func roundDecimal(_ x: Double, digits: Int64, rule: FloatingPointRoundingRule) -> Double? {
        // Every finite double is below 10^309: rounding to 10^309 or coarser gives zero.
        if digits < -308 { return x < 0 ? -0.0 : 0.0 }
        // Scale in up to two steps so that 10^digits itself stays finite; from 10^616 on,
        // even the smallest subnormal scales beyond 2^52 and is left as it is below.
        let clamped = min(digits, 616)
        let first = pow(10.0, Double(min(clamped, 308)))
        let second = pow(10.0, Double(max(clamped - 308, 0)))
        let scaled = x * first * second
        // Not finite: x has no digits that fine. From 2^52 on every double is a whole number:
        // nothing to round (and scaling back could only lose precision).
        guard scaled.isFinite, Swift.abs(scaled) < 4_503_599_627_370_496 else { return x }
        let result = scaled.rounded(rule) / second / first
        return result.isFinite ? result : nil
    }
}

