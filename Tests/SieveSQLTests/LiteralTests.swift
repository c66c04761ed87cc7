import Testing

@testable import SieveSQL

/// Literal SQL → the literal value in the tree. Epoch milliseconds computed by hand:
/// 2024-02-29 is day 19,782 (1,709,164,800,000 ms); 2023-04-10 is day 19,457; 2000-03-01 is
/// day 11,017.
@Suite("Where-clause literals")
struct LiteralTests {
    static let literalCases: [(String, Literal)] = [
        // Strings
        ("'abc'", .string("abc")),
        ("''", .string("")),
        ("'it''s'", .string("it's")),
        ("'a''''b'", .string("a''b")),
        ("''''", .string("'")),
        ("'BRANDON''S WAREHOUSE'", .string("BRANDON'S WAREHOUSE")),
        ("'Zürich 東京 👍🏽 e\u{301}'", .string("Zürich 東京 👍🏽 e\u{301}")),
        ("'line\nbreak'", .string("line\nbreak")),
        ("'say \"hi\"'", .string("say \"hi\"")),
        ("N'abc'", .string("abc")),
        ("n'x''y'", .string("x'y")),
        // Numbers
        ("0", .integer(0)),
        ("42", .integer(42)),
        ("-42", .integer(-42)),
        ("007", .integer(7)),
        ("9223372036854775807", .integer(Int64.max)),
        ("9223372036854775808", .double(9_223_372_036_854_775_808.0)),
        ("-9223372036854775807", .integer(-Int64.max)),
        ("-9223372036854775808", .integer(Int64.min)),
        ("-9223372036854775809", .double(-9_223_372_036_854_775_809.0)),
        ("18446744073709551616", .double(18_446_744_073_709_551_616.0)),
        ("1.5", .double(1.5)),
        ("1.0", .double(1.0)),
        (".5", .double(0.5)),
        ("5.", .double(5.0)),
        ("-0.25", .double(-0.25)),
        ("1e3", .double(1000.0)),
        ("1E+3", .double(1000.0)),
        ("2.5e-3", .double(0.0025)),
        ("+7", .integer(7)),
        // Booleans and NULL
        ("TRUE", .boolean(true)),
        ("false", .boolean(false)),
        ("Null", .null),
        // Dates: midnight UTC
        ("DATE '1970-01-01'", .date(0)),
        ("DATE '1969-12-31'", .date(-86_400_000)),
        ("DATE '2000-03-01'", .date(951_868_800_000)),
        ("date '2024-02-29'", .date(1_709_164_800_000)),
        // Timestamps: without an offset read as UTC; an offset is subtracted
        ("TIMESTAMP '2024-02-29 12:30:00'", .timestamp(1_709_209_800_000)),
        ("TIMESTAMP '2024-02-29 12:30:00+02:00'", .timestamp(1_709_202_600_000)),
        ("TIMESTAMP '2024-02-29 12:30:00.250-05:30'", .timestamp(1_709_229_600_250)),
        ("TIMESTAMP '2024-02-29T12:30:00Z'", .timestamp(1_709_209_800_000)),
        ("timestamp '2023-04-10 12:15'", .timestamp(1_681_128_900_000)),
        ("TIMESTAMP '2024-02-29'", .timestamp(1_709_164_800_000)),
        ("TIMESTAMP '1969-12-31 23:59:59.999'", .timestamp(-1)),
        // Intervals
        ("INTERVAL '3 05:32:28' DAY TO SECOND", .interval(milliseconds: 279_148_000)),
        ("INTERVAL '2' DAY", .interval(milliseconds: 172_800_000)),
        ("INTERVAL '5' HOUR", .interval(milliseconds: 18_000_000)),
        ("INTERVAL '90' MINUTE", .interval(milliseconds: 5_400_000)),
        ("INTERVAL '1.5' SECOND", .interval(milliseconds: 1_500)),
        ("INTERVAL '0.0015' SECOND", .interval(milliseconds: 1)),
        ("INTERVAL '1 12' DAY TO HOUR", .interval(milliseconds: 129_600_000)),
        ("INTERVAL '1 01:30' DAY TO MINUTE", .interval(milliseconds: 91_800_000)),
        ("INTERVAL '10:30' HOUR TO MINUTE", .interval(milliseconds: 37_800_000)),
        ("INTERVAL '1:00:01.25' HOUR TO SECOND", .interval(milliseconds: 3_601_250)),
        ("INTERVAL '2:03' MINUTE TO SECOND", .interval(milliseconds: 123_000)),
        ("INTERVAL '36' HOUR", .interval(milliseconds: 129_600_000)),
        ("INTERVAL -'1' DAY", .interval(milliseconds: -86_400_000)),
        ("INTERVAL + '1' DAY", .interval(milliseconds: 86_400_000)),
        ("INTERVAL '-1 00:00:01' DAY TO SECOND", .interval(milliseconds: -86_401_000)),
        ("INTERVAL -'-1' DAY", .interval(milliseconds: 86_400_000)),
        ("interval '1' day(3)", .interval(milliseconds: 86_400_000)),
        ("INTERVAL '1.5' SECOND(2, 3)", .interval(milliseconds: 1_500)),
        ("INTERVAL '0 00:00:01' DAY(2) TO SECOND(3)", .interval(milliseconds: 1_000)),
    ]

    @Test("Literal values", arguments: literalCases)
    func literal(sql: String, expected: Literal) throws {
        let expression = try WhereClause.parse(sql)
        #expect(expression.kind == .literal(expected))
        #expect(expression.range == SourceRange(lower: 0, upper: sql.utf8.count))
    }

    @Test func integerAndDoubleStayDistinct() throws {
        #expect(try WhereClause.parse("1").kind == .literal(.integer(1)))
        #expect(try WhereClause.parse("1.0").kind == .literal(.double(1)))
        #expect(try WhereClause.parse("1").sexpr == "1")
        #expect(try WhereClause.parse("1.0").sexpr == "1.0")
        #expect(try WhereClause.parse("9223372036854775808").sexpr == "9.223372036854776e+18")
    }

    @Test("Interval texts that do not fit their qualifier", arguments: [
        ("1 24", DateTimeField.day, DateTimeField.hour),
        ("1 23:60", .day, .minute),
        ("1:2:3", .hour, .minute),
        ("1", .day, .second),
        ("1.5", .day, .day),
        ("1.", .second, .second),
        ("", .day, .day),
        ("99999999999999999999", .day, .day),
        ("999999999999999", .day, .day),
        ("1 2", .hour, .minute),
    ])
    func malformedInterval(text: String, from: DateTimeField, to: DateTimeField) {
        #expect(Parser.intervalMilliseconds(text, from: from, to: to) == nil)
    }
}
