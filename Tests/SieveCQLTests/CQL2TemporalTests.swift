import SieveCQL
import SieveColumns
import Testing

@Suite("CQL2 temporal functions")
struct CQL2TemporalTests {
    static let day: Int64 = 86_400_000
    static let origin = instant("2020-01-01T00:00:00Z")

    /// The quoted timestamp of day `k` after 2020-01-01, as an interval end.
    static func timestamp(_ k: Int) -> String {
        let (year, month, dayOfMonth, _, _, _, _) = CivilTime.components(milliseconds: origin + Int64(k) * day)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "'\(year)-\(two(month))-\(two(dayOfMonth))T00:00:00Z'"
    }

    /// What each function says of closed intervals of points, from set relations rather than
    /// end comparisons: intervals as the sets of integer points they cover.
    static func oracle(_ function: String, _ a: ClosedRange<Int>, _ b: ClosedRange<Int>) -> Bool {
        let setA = Set(a), setB = Set(b)
        let common = setA.intersection(setB)
        switch function {
        case "T_INTERSECTS": return !common.isEmpty
        case "T_DISJOINT": return common.isEmpty
        case "T_EQUALS": return setA == setB
        case "T_DURING": return setA.isStrictSubset(of: setB) && !setA.contains(b.lowerBound) && !setA.contains(b.upperBound)
        case "T_CONTAINS": return setB.isStrictSubset(of: setA) && !setB.contains(a.lowerBound) && !setB.contains(a.upperBound)
        case "T_STARTS": return setA.isStrictSubset(of: setB) && a.lowerBound == b.lowerBound
        case "T_STARTEDBY": return setB.isStrictSubset(of: setA) && a.lowerBound == b.lowerBound
        case "T_FINISHES": return setA.isStrictSubset(of: setB) && a.upperBound == b.upperBound
        case "T_FINISHEDBY": return setB.isStrictSubset(of: setA) && a.upperBound == b.upperBound
        case "T_BEFORE": return common.isEmpty && setA.allSatisfy { x in setB.allSatisfy { x < $0 } }
        case "T_AFTER": return common.isEmpty && setA.allSatisfy { x in setB.allSatisfy { x > $0 } }
        case "T_MEETS": return common == [a.upperBound] && a.upperBound == b.lowerBound
        case "T_METBY": return common == [a.lowerBound] && a.lowerBound == b.upperBound
        case "T_OVERLAPS": return common.count >= 2 && a.lowerBound < b.lowerBound && a.upperBound < b.upperBound
        case "T_OVERLAPPEDBY": return common.count >= 2 && a.lowerBound > b.lowerBound && a.upperBound > b.upperBound
        default: return false
        }
    }

    static let functions = [
        "T_AFTER", "T_BEFORE", "T_CONTAINS", "T_DISJOINT", "T_DURING", "T_EQUALS", "T_FINISHEDBY", "T_FINISHES",
        "T_INTERSECTS", "T_MEETS", "T_METBY", "T_OVERLAPPEDBY", "T_OVERLAPS", "T_STARTEDBY", "T_STARTS",
    ]

    /// Every interval of days 0…5, instants included.
    static let intervals: [ClosedRange<Int>] = (0...5).flatMap { start in (start...5).map { start...$0 } }

    @Test(arguments: functions)
    func allenRelationsMatchTheirSetDefinitions(_ function: String) throws {
        // Interval A from the fields s and e, one row per interval; B a literal.
        let table = BindingTable(
            Self.intervals.map { ["s": .date(Self.origin + Int64($0.lowerBound) * Self.day), "e": .date(Self.origin + Int64($0.upperBound) * Self.day)] })
        for b in Self.intervals {
            let literal = "INTERVAL(\(Self.timestamp(b.lowerBound)), \(Self.timestamp(b.upperBound)))"
            let values = try table.values("\(function)(INTERVAL(s, e), \(literal))")
            let expected = Self.intervals.map { Self.oracle(function, $0, b) }
            #expect(values == expected.map { Optional($0) }, "\(function)(…, \(b))")
        }
    }

    @Test func datesAreWholeDays() throws {
        let table = BindingTable([
            ["d": .date(instant("2020-01-01T00:00:00Z"))], ["d": .date(instant("2020-01-01T23:59:59.999Z"))],
            ["d": .date(instant("2020-01-02T00:00:00Z"))], [:],
        ])
        // The interval-only functions take the day as an interval of one day (a DATE is an
        // instant, refused there: see instantsWhereIntervalsAreRequired).
        #expect(try table.values("T_DURING(d, INTERVAL('2020-01-01', '2020-01-01'))") == [false, false, false, nil])
        #expect(try table.values("T_INTERSECTS(d, DATE('2020-01-01'))") == [true, true, false, nil])
        #expect(try table.values("T_STARTS(d, INTERVAL('2020-01-01', '2020-01-01'))") == [true, false, false, nil])
        #expect(try table.values("T_FINISHES(d, INTERVAL('2020-01-01', '2020-01-01'))") == [false, true, false, nil])
        #expect(try table.values("T_AFTER(d, DATE('2020-01-01'))") == [false, false, true, nil])
        #expect(try table.values("T_BEFORE(d, DATE('2020-01-02'))") == [true, true, false, nil])
        // An interval bound by dates runs from the start of the first day to the end of the last.
        #expect(try table.values("T_INTERSECTS(d, INTERVAL('2019-12-31', '2020-01-01'))") == [true, true, false, nil])
        #expect(try table.values("T_DURING(d, INTERVAL('2019-12-31', '2020-01-02'))") == [true, true, true, nil])
        #expect(try table.values("T_EQUALS(DATE('2020-01-01'), INTERVAL('2020-01-01', '2020-01-01'))") == [true, true, true, true])
        #expect(
            try table.values("T_MEETS(INTERVAL('2020-01-01', '2020-01-02'), INTERVAL('2020-01-02', '2020-01-03'))")
                == [false, false, false, false])
        #expect(
            try table.values("T_OVERLAPS(INTERVAL('2020-01-01', '2020-01-02'), INTERVAL('2020-01-02', '2020-01-03'))")
                == [true, true, true, true])
    }

    /// CQL2 1.0 defines T_AFTER, T_BEFORE, T_DISJOINT, T_EQUALS and T_INTERSECTS on instants and
    /// intervals, the ten others on intervals only; and an interval's ends are dates,
    /// timestamps, '..', properties or function calls, never numbers.
    @Test func instantsWhereIntervalsAreRequired() throws {
        let table = BindingTable([["d": .date(instant("2020-01-01T12:00:00Z"))], [:]])
        for function in Self.functions {
            let filter = "\(function)(DATE('2020-01-01'), INTERVAL('..', '..'))"
            let accepts = ["T_AFTER", "T_BEFORE", "T_DISJOINT", "T_EQUALS", "T_INTERSECTS"].contains(function)
            if accepts {
                _ = try table.values(filter)
            } else {
                let error = #expect(throws: CQL2Error.self) { try table.values(filter) }
                #expect(error?.message.contains("\(function) is defined on intervals only") == true, "\(function)")
                // Swapped, and with a timestamp, too.
                #expect(throws: CQL2Error.self) { try table.values("\(function)(INTERVAL('..', '..'), TIMESTAMP('2020-01-01T00:00:00Z'))") }
                // A property stands for an interval (its value is an instant of the row).
                _ = try table.values("\(function)(d, INTERVAL('..', '..'))")
            }
        }
        for filter in [
            "T_INTERSECTS(INTERVAL(5, 3), INTERVAL('..', '..'))", "T_INTERSECTS(INTERVAL('..', 1e308), d)",
            "T_DURING(INTERVAL(d, n + 1), INTERVAL('..', '..'))", "T_INTERSECTS(INTERVAL(TRUE, d), d)",
        ] {
            let error = #expect(throws: CQL2Error.self, "\(filter)") { try table.values(filter) }
            #expect(error?.message.contains("an end of INTERVAL is a date, a timestamp, '..', a property or a function call") == true, "\(filter)")
        }
        for json in [
            #"{"op":"t_intersects","args":[{"interval":[1e308,-1e308]},{"interval":["..",".."]}]}"#,
            #"{"op":"t_intersects","args":[{"interval":[5,{"property":"d"}]},{"property":"d"}]}"#,
            #"{"op":"t_intersects","args":[{"interval":[true,".."]},{"property":"d"}]}"#,
        ] {
            let error = #expect(throws: CQL2Error.self, "\(json)") { try CQL2Filter(json) }
            #expect(error?.message.contains("an end of an interval is a date, a timestamp, \"..\", a property or a function call") == true)
        }
    }

    @Test func openEndsAreBeforeOrAfterEveryInstant() throws {
        let table = BindingTable([["d": .date(instant("2020-01-01T12:00:00Z"))], [:]])
        #expect(try table.values("T_INTERSECTS(d, INTERVAL('..', '..'))") == [true, nil])
        #expect(try table.values("T_DURING(d, INTERVAL('..', '..'))") == [true, nil])
        #expect(try table.values("T_BEFORE(d, INTERVAL('2020-01-02', '..'))") == [true, nil])
        #expect(try table.values("T_AFTER(d, INTERVAL('..', '2019-12-31'))") == [true, nil])
        #expect(try table.values("T_AFTER(d, INTERVAL('..', '2020-01-01'))") == [false, nil])
        #expect(try table.values("T_AFTER(INTERVAL('..', '2020-01-01'), d)") == [false, nil])
        #expect(try table.values("T_EQUALS(INTERVAL('..', '..'), INTERVAL('..', '..'))") == [true, true])
        #expect(try table.values("T_STARTEDBY(INTERVAL('..', '..'), INTERVAL('..', '2020-01-01'))") == [true, true])
        #expect(try table.values("T_CONTAINS(INTERVAL('..', '..'), INTERVAL('..', '2020-01-01'))") == [false, false])
        #expect(try table.values("T_DISJOINT(INTERVAL('..', '2019-01-01'), d)") == [true, nil])
    }

    @Test func nullEndsMakeNull() throws {
        let table = BindingTable([
            ["s": .date(instant("2020-01-01T00:00:00Z"))],
            ["s": .date(instant("2020-01-01T00:00:00Z")), "e": .date(instant("2020-01-03T00:00:00Z"))],
        ])
        #expect(try table.values("T_INTERSECTS(INTERVAL(s, e), DATE('2020-01-02'))") == [nil, true])
        // An end that alone decides the answer decides it even when the other is NULL.
        #expect(try table.values("T_BEFORE(INTERVAL(s, e), DATE('2019-12-31'))") == [nil, false])
        #expect(try table.values("T_AFTER(INTERVAL(s, e), DATE('2019-12-31'))") == [true, true])
    }
}
