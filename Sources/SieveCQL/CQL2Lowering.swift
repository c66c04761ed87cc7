import SieveColumns
import SieveGeometry
import SieveSQL

/// Rewrites a CQL2 tree into the where-clause tree (``WhereClauseDialect/cql2``).
///
/// Every node it makes carries, as its range, the number of the CQL2 node it came from
/// (`n..<n+1`, an index into ``sources``), so binding errors name the CQL2 text at fault.
///
/// The rewriting, construct by construct:
/// - logic, comparisons, `LIKE` (escape `\`), `BETWEEN`, `IN`, `IS NULL`, literals, properties,
///   `+ - *` and unary minus map one to one; `/` divides as real numbers (an integer dividend is
///   cast to a double first), `div` is `TRUNCATE(a / b)` (integer division toward zero), `%` is
///   `MOD` and `^` is `POWER`;
/// - `CASEI(x)` and `ACCENTI(x)` are calls of the folding functions of the same names;
/// - `DATE('d')` is the instant of midnight UTC and `TIMESTAMP('t')` its instant, in
///   comparisons; in temporal functions a date is the whole day `[d 00:00:00.000, d 23:59:59.999]`,
///   an interval bound by dates runs from the start of its first day to the end of its last,
///   `'..'` is open, a date-only property is its whole day too, and any other property or a
///   timestamp is an instant. Each Allen relation becomes the conjunction of comparisons of the
///   ends that defines it, so NULL ends give NULL;
/// - array functions over array literals become `IN` tests: `A_CONTAINS(a, b)` is every item of
///   `b` `IN` `a`, `A_CONTAINEDBY(a, b)` is `A_CONTAINS(b, a)`, `A_EQUALS` both (the arrays hold
///   the same values, as sets), `A_OVERLAPS(a, b)` is some item of `a` `IN` `b`;
/// - spatial functions and `IS NULL` of the geometry become ``CQL2GeometryTest``s, read as 0/1
///   fields; `BBOX(w, s, e, n)` is a rectangle, or two when `w > e` (the box crosses the
///   antimeridian: `[w, 180]` and `[-180, e]`).
struct CQL2Lowering {
    let encoding: CQL2Error.Encoding
    /// The geometry property's names, lower case.
    let geometryNames: Set<String>
    /// The names of the date-only fields, lower case: in temporal functions, whole days.
    let dateOnlyNames: Set<String>
    /// The CQL2 node behind each number used as a range.
    private(set) var sources: [CQL2Expression] = []
    private(set) var geometryTests: [CQL2GeometryTest] = []

    init(encoding: CQL2Error.Encoding, geometryNames: Set<String>, dateOnlyNames: Set<String> = []) {
        self.encoding = encoding
        self.geometryNames = geometryNames
        self.dateOnlyNames = dateOnlyNames
    }

    /// From a day's first instant to its last: 86,399,999 ms.
    static let restOfDay: Int64 = CivilTime.millisecondsPerDay - 1

    private func fail(_ message: String, _ node: CQL2Expression) -> CQL2Error {
        CQL2Error(encoding, "\(message) (in \(WhereClauseError.quoted(CQL2Text.write(node), quote: "")))", line: 0, column: 0, offset: 0)
    }

    /// The range that stands for `node`.
    private mutating func range(_ node: CQL2Expression) -> SourceRange {
        sources.append(node)
        return SourceRange(lower: sources.count - 1, upper: sources.count)
    }

    private func isGeometryProperty(_ node: CQL2Expression) -> Bool {
        if case .property(let name) = node { return geometryNames.contains(name.lowercased()) }
        return false
    }

    private func isDateOnlyProperty(_ node: CQL2Expression) -> Bool {
        if case .property(let name) = node { return dateOnlyNames.contains(name.lowercased()) }
        return false
    }

    mutating func lower(_ node: CQL2Expression) throws(CQL2Error) -> SQLExpression {
        let at = range(node)
        switch node {
        case .and(let operands), .or(let operands):
            var lowered: [SQLExpression] = []
            for operand in operands { lowered.append(try lower(operand)) }
            let isAnd: Bool
            if case .and = node { isAnd = true } else { isAnd = false }
            return junction(lowered, isAnd: isAnd, at)
        case .not(let operand):
            return SQLExpression(.not(try lower(operand)), range: at)
        case .comparison(let op, let left, let right):
            return SQLExpression(.comparison(Self.comparison(op), try lower(left), try lower(right)), range: at)
        case .like(let operand, let pattern, let negated):
            let escape = SQLExpression(.literal(.string("\\")), range: at)
            return SQLExpression(.like(try lower(operand), pattern: try lower(pattern), escape: escape, negated: negated), range: at)
        case .between(let operand, let lower, let upper, let negated):
            return SQLExpression(
                .between(try self.lower(operand), lower: try self.lower(lower), upper: try self.lower(upper), negated: negated), range: at)
        case .inList(let operand, let items, let negated):
            let value = try lower(operand)
            guard !items.isEmpty else {
                // `x IN ()` holds for nothing; `x NOT IN ()` for everything.
                return SQLExpression(.literal(.boolean(negated)), range: at)
            }
            var lowered: [SQLExpression] = []
            for item in items { lowered.append(try lower(item)) }
            return SQLExpression(.inList(value, lowered, negated: negated), range: at)
        case .isNull(let operand, let negated):
            if isGeometryProperty(operand) {
                let field = try geometryTest(.present, at)
                // The test is 1 when a geometry is present.
                return SQLExpression(.comparison(.equal, field, SQLExpression(.literal(.integer(negated ? 1 : 0)), range: at)), range: at)
            }
            return SQLExpression(.isNull(try lower(operand), negated: negated), range: at)
        case .caseInsensitive(let operand):
            return call("CASEI", [try lower(operand)], at)
        case .accentInsensitive(let operand):
            return call("ACCENTI", [try lower(operand)], at)
        case .spatial(let function, let left, let right):
            return try spatial(function, left, right, node, at)
        case .temporal(let function, let left, let right):
            return try temporal(function, left, right, node, at)
        case .arrayComparison(let function, let left, let right):
            return try array(function, left, right, node, at)
        case .function(let name, let arguments):
            var lowered: [SQLExpression] = []
            for argument in arguments { lowered.append(try lower(argument)) }
            return call(name, lowered, at)
        case .arithmetic(let op, let left, let right):
            return try arithmetic(op, try lower(left), try lower(right), at)
        case .negate(let operand):
            return SQLExpression(.negate(try lower(operand)), range: at)
        case .property(let name):
            guard !isGeometryProperty(node) else {
                throw fail("the geometry property \(WhereClauseError.quoted(name)) can only be an argument of a spatial function or of IS NULL", node)
            }
            return SQLExpression(.field(FieldReference(name: name, isQuoted: true)), range: at)
        case .string(let value):
            return SQLExpression(.literal(.string(value)), range: at)
        case .integer(let value):
            return SQLExpression(.literal(.integer(value)), range: at)
        case .real(let value):
            return SQLExpression(.literal(.double(value)), range: at)
        case .boolean(let value):
            return SQLExpression(.literal(.boolean(value)), range: at)
        case .date(let text):
            return SQLExpression(.literal(.date(try date(text, node))), range: at)
        case .timestamp(let text):
            return SQLExpression(.literal(.timestamp(try timestamp(text, node))), range: at)
        case .interval:
            throw fail("an INTERVAL can only be an argument of a temporal function (T_…)", node)
        case .geometry, .bbox:
            throw fail("a geometry can only be an argument of a spatial function (S_…)", node)
        case .array:
            throw fail("an array can only be an argument of an array function (A_…) or the list of IN", node)
        }
    }

    // MARK: Pieces

    private static func comparison(_ op: CQL2ComparisonOperator) -> ComparisonOperator {
        switch op {
        case .equal: .equal
        case .notEqual: .notEqual
        case .lessThan: .less
        case .lessThanOrEqual: .lessOrEqual
        case .greaterThan: .greater
        case .greaterThanOrEqual: .greaterOrEqual
        }
    }

    /// `AND`/`OR` of `operands`; one operand stands alone, none is the junction's identity.
    private func junction(_ operands: [SQLExpression], isAnd: Bool, _ at: SourceRange) -> SQLExpression {
        switch operands.count {
        case 0: return SQLExpression(.literal(.boolean(isAnd)), range: at)
        case 1: return operands[0]
        default: return SQLExpression(isAnd ? .and(operands) : .or(operands), range: at)
        }
    }

    private func call(_ name: String, _ arguments: [SQLExpression], _ at: SourceRange) -> SQLExpression {
        SQLExpression(.function(FunctionCall(name: name, nameRange: at, arguments: arguments)), range: at)
    }

    private func arithmetic(
        _ op: CQL2ArithmeticOperator, _ left: SQLExpression, _ right: SQLExpression, _ at: SourceRange
    ) throws(CQL2Error) -> SQLExpression {
        switch op {
        case .add: return SQLExpression(.arithmetic(.add, left, right), range: at)
        case .subtract: return SQLExpression(.arithmetic(.subtract, left, right), range: at)
        case .multiply: return SQLExpression(.arithmetic(.multiply, left, right), range: at)
        case .divide:
            // Real division: the core divides integers as integers.
            return SQLExpression(.arithmetic(.divide, SQLExpression(.cast(left, to: .float), range: at), right), range: at)
        case .integerDivide:
            return call("TRUNCATE", [SQLExpression(.arithmetic(.divide, left, right), range: at)], at)
        case .remainder:
            return call("MOD", [left, right], at)
        case .power:
            return call("POWER", [left, right], at)
        }
    }

    private func date(_ text: String, _ node: CQL2Expression) throws(CQL2Error) -> Int64 {
        guard let ms = CivilTime.parse(text, syntax: .sqlDate) else {
            throw fail("\(WhereClauseError.quoted(text, quote: "'")) is not a date: expected 'yyyy-mm-dd'", node)
        }
        return ms
    }

    private func timestamp(_ text: String, _ node: CQL2Expression) throws(CQL2Error) -> Int64 {
        guard let ms = CivilTime.parse(text, syntax: [.isoSeparator, .time, .zulu]) else {
            throw fail("\(WhereClauseError.quoted(text, quote: "'")) is not a timestamp: expected 'yyyy-mm-ddThh:mm:ss[.fff]Z'", node)
        }
        return ms
    }

    // MARK: Spatial functions

    /// The most spatial functions (and `IS NULL`s of the geometry) one filter may hold: each is
    /// a column of the table's length while the filter runs.
    static let maximumGeometryTests = 64

    /// The field of a new geometry test, compared with 1.
    private mutating func geometryTest(_ kind: CQL2GeometryTest.Kind, _ at: SourceRange) throws(CQL2Error) -> SQLExpression {
        guard geometryTests.count < Self.maximumGeometryTests else {
            throw fail("the filter holds more than \(Self.maximumGeometryTests) spatial functions", sources[at.lower])
        }
        // A name no file gives a field: it starts with a control character.
        let name = "\u{1}geometry test \(geometryTests.count)"
        geometryTests.append(CQL2GeometryTest(kind: kind, fieldName: name))
        return SQLExpression(.field(FieldReference(name: name, isQuoted: true)), range: at)
    }

    private mutating func spatial(
        _ function: CQL2SpatialFunction, _ left: CQL2Expression, _ right: CQL2Expression, _ node: CQL2Expression,
        _ at: SourceRange
    ) throws(CQL2Error) -> SQLExpression {
        let leftIsFeature = isGeometryProperty(left), rightIsFeature = isGeometryProperty(right)
        let kind: CQL2GeometryTest.Kind
        switch (leftIsFeature, rightIsFeature) {
        case (true, true):
            throw fail("\(function.rawValue) compares the geometry property with itself; one argument must be a geometry literal", node)
        case (true, false):
            kind = .relationship(Self.relationship(function, featureFirst: true), try geometry(right, node))
        case (false, true):
            kind = .relationship(Self.relationship(function, featureFirst: false), try geometry(left, node))
        case (false, false):
            kind = .literals(Self.relationship(function, featureFirst: true), try geometry(left, node), try geometry(right, node))
        }
        let field = try geometryTest(kind, at)
        return SQLExpression(.comparison(.equal, field, SQLExpression(.literal(.integer(1)), range: at)), range: at)
    }

    /// The relationship "feature REL literal" that `function(feature, literal)` tests, or with
    /// `featureFirst` false, that `function(literal, feature)` tests.
    static func relationship(_ function: CQL2SpatialFunction, featureFirst: Bool) -> SpatialRelationship {
        switch function {
        case .intersects: .intersects
        case .equals: .equals
        case .disjoint: .disjoint
        case .touches: .touches
        case .overlaps: .overlaps
        case .crosses: .crosses
        case .within: featureFirst ? .within : .contains
        case .contains: featureFirst ? .contains : .within
        }
    }

    /// The geometry a spatial function's literal argument stands for.
    private func geometry(_ argument: CQL2Expression, _ node: CQL2Expression) throws(CQL2Error) -> Geometry {
        switch argument {
        case .geometry(let geometry):
            return geometry
        case .bbox(let numbers):
            return try Self.box(numbers) { message throws(CQL2Error) in throw fail(message, argument) }
        case .property(let name):
            let known = geometryNames.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            throw fail(
                "\"\(name)\" is not the geometry property (the features' geometry is called \(known.isEmpty ? "nothing: the table has none" : known))",
                node)
        default:
            throw fail("a spatial function compares geometries: a geometry property, a geometry literal or BBOX", node)
        }
    }

    /// `BBOX(w, s, e, n)` (or with elevations, which a 2D engine ignores) as a polygon; two
    /// rectangles when `w > e`, the box crossing the antimeridian.
    static func box(_ numbers: [Double], fail: (String) throws(CQL2Error) -> Never) throws(CQL2Error) -> Geometry {
        let (w, s, e, n): (Double, Double, Double, Double)
        switch numbers.count {
        case 4: (w, s, e, n) = (numbers[0], numbers[1], numbers[2], numbers[3])
        case 6: (w, s, e, n) = (numbers[0], numbers[1], numbers[3], numbers[4])
        default: try fail("BBOX takes 4 or 6 numbers, not \(numbers.count)")
        }
        guard [w, s, e, n].allSatisfy(\.isFinite) else { try fail("BBOX coordinates must be finite numbers") }
        guard s <= n else { try fail("BBOX south (\(s)) is greater than north (\(n))") }
        func rectangle(_ x0: Double, _ x1: Double) -> [[Point]] {
            [[Point(x: x0, y: s), Point(x: x0, y: n), Point(x: x1, y: n), Point(x: x1, y: s), Point(x: x0, y: s)]]
        }
        let parts = w <= e ? [rectangle(w, e)] : [rectangle(w, 180), rectangle(-180, e)]
        do {
            return .polygon(try Polygon(parts: parts))
        } catch {
            try fail("BBOX does not make a polygon: \(error)")
        }
    }

    // MARK: Temporal functions

    /// One end of a temporal operand.
    private enum End {
        /// `'..'` at the start: before every instant.
        case before
        /// `'..'` at the end: after every instant.
        case after
        /// An instant.
        case instant(SQLExpression)
        /// The start of a date-only property's day: an instant known to be a midnight.
        case dayStart(SQLExpression)
        /// The last instant of the day that starts at an instant: the end of a date-only
        /// property's day.
        case lastOfDay(SQLExpression)
    }

    /// A temporal operand as its two ends; an instant's ends are equal.
    private mutating func temporalOperand(_ operand: CQL2Expression, _ node: CQL2Expression) throws(CQL2Error) -> (End, End) {
        let at = range(operand)
        func instant(_ ms: Int64) -> End { .instant(SQLExpression(.literal(.timestamp(ms)), range: at)) }
        switch operand {
        case .date(let text):
            let start = try date(text, operand)
            return (instant(start), instant(start + Self.restOfDay))
        case .timestamp(let text):
            let ms = try timestamp(text, operand)
            return (instant(ms), instant(ms))
        case .interval(let start, let end):
            let first = try bound(start, isEnd: false, operand, at)
            let last = try bound(end, isEnd: true, operand, at)
            if case .instant(let a) = first, case .literal(.timestamp(let x)) = a.kind,
                case .instant(let b) = last, case .literal(.timestamp(let y)) = b.kind, x > y
            {
                throw fail("the interval ends before it starts", operand)
            }
            return (first, last)
        case .property where isDateOnlyProperty(operand):
            let value = try lower(operand)
            return (.dayStart(value), .lastOfDay(value))
        case .property, .function:
            let value = try lower(operand)
            return (.instant(value), .instant(value))
        default:
            throw fail("a temporal function compares dates, timestamps, intervals, properties or function calls", node)
        }
    }

    private mutating func bound(
        _ bound: CQL2IntervalBound, isEnd: Bool, _ interval: CQL2Expression, _ at: SourceRange
    ) throws(CQL2Error) -> End {
        switch bound {
        case .unbounded:
            return isEnd ? .after : .before
        case .date(let text):
            let start = try date(text, interval)
            return .instant(SQLExpression(.literal(.timestamp(isEnd ? start + Self.restOfDay : start)), range: at))
        case .timestamp(let text):
            return .instant(SQLExpression(.literal(.timestamp(try timestamp(text, interval))), range: at))
        case .expression(let expression):
            let value = try lower(expression)
            // A date-only property bounds an interval with its whole day.
            if isDateOnlyProperty(expression) {
                return isEnd ? .lastOfDay(value) : .dayStart(value)
            }
            return .instant(value)
        }
    }

    /// The end `end` as an instant: a day's last instant is `day + 86,399,999 ms` (NULL past
    /// the range, as date arithmetic is).
    private func instant(_ end: End, _ at: SourceRange) -> End {
        switch end {
        case .dayStart(let day): return .instant(day)
        case .lastOfDay(let day):
            let rest = SQLExpression(.literal(.interval(milliseconds: Self.restOfDay)), range: at)
            return .instant(SQLExpression(.arithmetic(.add, day, rest), range: at))
        default: return end
        }
    }

    /// `x + 86,399,999 op y` for two midnights `x` and `y` (a day's end against another day's
    /// start), without arithmetic: the end is before `y` exactly when `x < y`, after it when
    /// `x >= y`, and never equal (FALSE or NULL; `<>` TRUE or NULL).
    private func dayEndAgainstStart(_ op: ComparisonOperator, _ x: SQLExpression, _ y: SQLExpression, _ at: SourceRange) -> SQLExpression {
        let before = SQLExpression(.comparison(.less, x, y), range: at)
        let after = SQLExpression(.comparison(.greaterOrEqual, x, y), range: at)
        switch op {
        case .less, .lessOrEqual: return before
        case .greater, .greaterOrEqual: return after
        case .equal: return junction([before, after], isAnd: true, at)
        case .notEqual: return junction([before, after], isAnd: false, at)
        }
    }

    /// `a op b` with a day's last instant compared by its day where that is exact: against a
    /// timestamp literal `t`, `day + 86,399,999 op t` is `day op t − 86,399,999`; two days'
    /// last instants compare as the days. So the comparison stays one a database can index
    /// and render; elsewhere the end is computed.
    private func compareDays(_ op: ComparisonOperator, _ a: End, _ b: End, _ at: SourceRange) -> SQLExpression {
        /// A timestamp literal moved back by the rest of a day; `nil` for anything else.
        func shiftedLiteral(_ e: SQLExpression) -> SQLExpression? {
            guard case .literal(.timestamp(let t)) = e.kind else { return nil }
            let (value, overflow) = t.subtractingReportingOverflow(Self.restOfDay)
            return overflow ? nil : SQLExpression(.literal(.timestamp(value)), range: e.range)
        }
        switch (a, b) {
        case (.lastOfDay(let x), .lastOfDay(let y)):
            return compare(op, .instant(x), .instant(y), at)
        case (.lastOfDay(let x), .dayStart(let y)):
            return dayEndAgainstStart(op, x, y, at)
        case (.dayStart(let x), .lastOfDay(let y)):
            // `x op y + R` is `y + R op' x`, the operator turned round.
            return dayEndAgainstStart(op.swapped, y, x, at)
        case (.lastOfDay(let x), .instant(let y)):
            if let shifted = shiftedLiteral(y) { return compare(op, .instant(x), .instant(shifted), at) }
        case (.instant(let x), .lastOfDay(let y)):
            if let shifted = shiftedLiteral(x) { return compare(op, .instant(shifted), .instant(y), at) }
        case (.lastOfDay(let x), _):
            // Against an open end only whether the day is NULL matters.
            return compare(op, .instant(x), b, at)
        case (_, .lastOfDay(let y)):
            return compare(op, a, .instant(y), at)
        default:
            break
        }
        return compare(op, instant(a, at), instant(b, at), at)
    }

    /// `a op b` for two ends. Open ends compare as below or above every instant; compared with
    /// an instant, the answer is that constant where the instant is known and NULL where it is
    /// NULL (`x = x` is TRUE or NULL, `x <> x` FALSE or NULL).
    private func compare(_ op: ComparisonOperator, _ a: End, _ b: End, _ at: SourceRange) -> SQLExpression {
        let a = instant(a, at), b = instant(b, at)
        func rank(_ end: End) -> Int? {
            switch end {
            case .before: -1
            case .after: 1
            case .instant, .dayStart, .lastOfDay: nil
            }
        }
        func holds(_ order: Int) -> Bool { op.holds(order) }
        switch (a, b) {
        case (.instant(let x), .instant(let y)):
            return SQLExpression(.comparison(op, x, y), range: at)
        case (.instant(let x), _):
            // x against an open end: below `.after`, above `.before`.
            let value = holds(rank(b) == 1 ? -1 : 1)
            return SQLExpression(.comparison(value ? .equal : .notEqual, x, x), range: at)
        case (_, .instant(let y)):
            let value = holds(rank(a) == 1 ? 1 : -1)
            return SQLExpression(.comparison(value ? .equal : .notEqual, y, y), range: at)
        default:
            let order = (rank(a) ?? 0) - (rank(b) ?? 0)
            return SQLExpression(.literal(.boolean(holds(order))), range: at)
        }
    }

    private mutating func temporal(
        _ function: CQL2TemporalFunction, _ left: CQL2Expression, _ right: CQL2Expression, _ node: CQL2Expression,
        _ at: SourceRange
    ) throws(CQL2Error) -> SQLExpression {
        if !function.acceptsInstants {
            for operand in [left, right] where !operand.isIntervalArgument {
                throw fail(
                    "\(function.rawValue) is defined on intervals only: each argument is an INTERVAL, a property or a "
                        + "function call, not \(CQL2Text.write(operand))", node)
            }
        }
        let (aStart, aEnd) = try temporalOperand(left, node)
        let (bStart, bEnd) = try temporalOperand(right, node)
        let terms: [(ComparisonOperator, End, End)]
        var isOr = false
        switch function {
        case .after: terms = [(.greater, aStart, bEnd)]
        case .before: terms = [(.less, aEnd, bStart)]
        case .contains: terms = [(.less, aStart, bStart), (.greater, aEnd, bEnd)]
        case .during: terms = [(.greater, aStart, bStart), (.less, aEnd, bEnd)]
        case .disjoint:
            terms = [(.less, aEnd, bStart), (.greater, aStart, bEnd)]
            isOr = true
        case .equals: terms = [(.equal, aStart, bStart), (.equal, aEnd, bEnd)]
        case .finishedBy: terms = [(.less, aStart, bStart), (.equal, aEnd, bEnd)]
        case .finishes: terms = [(.greater, aStart, bStart), (.equal, aEnd, bEnd)]
        case .intersects: terms = [(.lessOrEqual, aStart, bEnd), (.greaterOrEqual, aEnd, bStart)]
        case .meets: terms = [(.equal, aEnd, bStart)]
        case .metBy: terms = [(.equal, aStart, bEnd)]
        case .overlappedBy: terms = [(.greater, aStart, bStart), (.less, aStart, bEnd), (.greater, aEnd, bEnd)]
        case .overlaps: terms = [(.less, aStart, bStart), (.greater, aEnd, bStart), (.less, aEnd, bEnd)]
        case .startedBy: terms = [(.equal, aStart, bStart), (.greater, aEnd, bEnd)]
        case .starts: terms = [(.equal, aStart, bStart), (.less, aEnd, bEnd)]
        }
        return junction(terms.map { compareDays($0.0, $0.1, $0.2, at) }, isAnd: !isOr, at)
    }

    // MARK: Array functions

    private mutating func arrayItems(_ operand: CQL2Expression, _ node: CQL2Expression) throws(CQL2Error) -> [SQLExpression] {
        guard case .array(let items) = operand else {
            if case .property(let name) = operand {
                throw fail("\(WhereClauseError.quoted(name)) is not an array: feature tables have no array-valued fields, so array functions compare array literals", node)
            }
            throw fail("an array function compares arrays", node)
        }
        var lowered: [SQLExpression] = []
        for item in items {
            if case .array = item { throw fail("arrays of arrays are not supported", item) }
            lowered.append(try lower(item))
        }
        return lowered
    }

    /// Every item of `items` is one of `of` (TRUE when `items` is empty).
    private func allIn(_ items: [SQLExpression], _ of: [SQLExpression], _ at: SourceRange) -> SQLExpression {
        guard !of.isEmpty else { return SQLExpression(.literal(.boolean(items.isEmpty)), range: at) }
        return junction(items.map { SQLExpression(.inList($0, of, negated: false), range: at) }, isAnd: true, at)
    }

    private mutating func array(
        _ function: CQL2ArrayFunction, _ left: CQL2Expression, _ right: CQL2Expression, _ node: CQL2Expression,
        _ at: SourceRange
    ) throws(CQL2Error) -> SQLExpression {
        let a = try arrayItems(left, node), b = try arrayItems(right, node)
        switch function {
        case .contains: return allIn(b, a, at)
        case .containedBy: return allIn(a, b, at)
        case .equals: return junction([allIn(b, a, at), allIn(a, b, at)], isAnd: true, at)
        case .overlaps:
            guard !b.isEmpty else { return SQLExpression(.literal(.boolean(false)), range: at) }
            return junction(a.map { SQLExpression(.inList($0, b, negated: false), range: at) }, isAnd: false, at)
        }
    }
}
