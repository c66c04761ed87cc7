import SieveCQL
import SieveGeometry
import SieveTestSupport

/// Random trees of the shapes the text encoding can say (and the JSON encoding too, in its
/// form of negated predicates: ``CQL2JSON/jsonForm(of:)``), for round trips through either.
struct RandomTrees {
    var random: SeededGenerator
    private let names = ["a", "Größe", "date", "has space", "q\"uote", "ns:x.y", "IN", "z_1"]
    private let strings = ["", "x", "it's", "''", "100%", "a_b", "ü", "\u{1F600}"]

    mutating func boolean(_ depth: Int) -> CQL2Expression {
        if depth <= 0 { return .comparison(.equal, property(), .integer(Int64(random.int(0...9)))) }
        switch random.int(0...11) {
        case 0: return .and((0..<random.int(2...3)).map { _ in boolean(depth - 1) })
        case 1: return .or((0..<random.int(2...3)).map { _ in boolean(depth - 1) })
        case 2: return .not(boolean(depth - 1))
        case 3: return .comparison(CQL2ComparisonOperator.allCases[random.int(6)], scalar(depth - 1), scalar(depth - 1))
        case 4: return .like(scalar(depth - 1), pattern: .caseInsensitive(.string(string())), negated: random.chance(50))
        case 5: return .between(scalar(depth - 1), lower: scalar(depth - 1), upper: scalar(depth - 1), negated: random.chance(50))
        case 6: return .inList(scalar(depth - 1), (0..<random.int(1...3)).map { _ in scalar(depth - 1) }, negated: random.chance(50))
        case 7: return .isNull(random.chance(50) ? scalar(depth - 1) : boolean(depth - 1), negated: random.chance(50))
        case 8:
            let point = Geometry.point(Point(x: random.uniform(-180, 180), y: random.uniform(-90, 90)))
            return .spatial(CQL2SpatialFunction.allCases[random.int(8)], property(), random.chance(50) ? .geometry(point) : .bbox([-1, -2.5, 3, 4]))
        case 9:
            let bound: CQL2IntervalBound = random.chance(50) ? .unbounded : .expression(property())
            return .temporal(CQL2TemporalFunction.allCases[random.int(15)], property(), .interval(.timestamp("2020-01-01T00:00:00Z"), bound))
        case 10: return .arrayComparison(CQL2ArrayFunction.allCases[random.int(4)], property(), array(depth - 1))
        default: return .boolean(random.chance(50))
        }
    }

    mutating func scalar(_ depth: Int) -> CQL2Expression {
        if depth <= 0 || random.chance(30) {
            switch random.int(0...5) {
            case 0: return property()
            case 1: return .string(string())
            case 2: return .integer(Int64(random.int(0...2000)) - 1000)
            case 3: return .real(random.uniform(-1e6, 1e6))
            case 4: return .date("1999-12-31")
            default: return .function(name: "f", arguments: [])
            }
        }
        switch random.int(0...3) {
        case 0: return .arithmetic(CQL2ArithmeticOperator.allCases[random.int(7)], scalar(depth - 1), scalar(depth - 1))
        case 1: return .negate(scalar(depth - 1))
        case 2: return .function(name: "fn", arguments: (0..<random.int(0...3)).map { _ in random.chance(30) ? array(depth - 1) : scalar(depth - 1) })
        default: return .caseInsensitive(scalar(depth - 1))
        }
    }

    mutating func array(_ depth: Int) -> CQL2Expression {
        .array((0..<random.int(0...3)).map { _ in depth > 0 && random.chance(30) ? array(depth - 1) : scalar(depth - 1) })
    }

    mutating func property() -> CQL2Expression { .property(names[random.int(names.count)]) }
    mutating func string() -> String { strings[random.int(strings.count)] }
}
