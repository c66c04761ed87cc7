import SieveColumns
import Testing

/// `TextColumnBuilder` (strings appended as bytes, the way table scans hand them over) against
/// `StringColumn.init(_:dictionaryLimit:)`, which it must match value for value and in its choice
/// of encoding: below the dictionary limit, across it (where it turns its codes into plain
/// storage), with NULL rows before, at and after that point.
@Suite("Text column builder")
struct TextColumnBuilderTests {
    /// The strings of row `i` drawn from `distinct` values (some empty, some not ASCII), NULL
    /// every `nullEvery` rows.
    func rows(count: Int, distinct: Int, nullEvery: Int, seed: UInt64) -> [String?] {
        var state = seed
        return (0..<count).map { i in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            if nullEvery > 0, i % nullEvery == nullEvery - 1 { return nil }
            let k = Int((state >> 33) % UInt64(distinct))
            switch k % 7 {
            case 0: return k == 0 ? "" : "é\(k)"
            case 1: return "a longer name than sixteen bytes \(k)"
            default: return "s\(k)"
            }
        }
    }

    /// A builder holding `values`, appended as bytes (NULL rows as NULL).
    func builder(_ values: [String?]) -> TextColumnBuilder {
        var builder = TextColumnBuilder()
        for value in values {
            if var value {
                value.withUTF8 { builder.append(UnsafeRawBufferPointer($0)) }
            } else {
                builder.appendNull()
            }
        }
        return builder
    }

    func build(_ values: [String?]) -> StringColumn {
        var builder = builder(values)
        var validity = ValidityBitmap(count: 0, allValid: true)
        for value in values { validity.append(valid: value != nil) }
        return builder.column(validity: values.contains(nil) ? validity : nil)
    }

    func isDictionary(_ column: StringColumn) -> Bool {
        if case .dictionary = column.encoding { return true }
        return false
    }

    @Test(
        arguments: [
            (100, 5, 0), (100, 5, 3), (1000, 300, 7), (10_000, 2_000, 0), (10_000, 2_600, 11),
            (200_000, 40_000, 0), (200_000, 70_000, 0), (200_000, 70_000, 5), (300_000, 66_000, 1_000),
        ] as [(Int, Int, Int)])
    func matchesStringColumn(count: Int, distinct: Int, nullEvery: Int) {
        let values = rows(count: count, distinct: distinct, nullEvery: nullEvery, seed: UInt64(count + distinct))
        let built = build(values)
        let expected = StringColumn(values)
        #expect(built.count == expected.count)
        #expect(isDictionary(built) == isDictionary(expected))
        var mismatches = 0
        for i in 0..<values.count where built[i] != values[i] { mismatches += 1 }
        #expect(mismatches == 0)
    }

    @Test func onlyNulls() {
        let built = build([nil, nil, nil])
        #expect(built.count == 3)
        #expect((0..<3).allSatisfy { built[$0] == nil })
    }

    /// Converted rows are the rows converted one by one; while the column is a dictionary each
    /// distinct string is converted once, after the switch to plain storage every row is.
    @Test(arguments: [(40, 5), (200_000, 200_000)])
    func convertedRowsAreTheRowsConverted(count: Int, distinct: Int) {
        let values = rows(count: count, distinct: distinct, nullEvery: 9, seed: 3)
        let builder = builder(values)
        var plain: [String] = []
        builder.forEachRow { _, bytes in plain.append(String(decoding: bytes, as: UTF8.self)) }
        var converted: [String] = []
        var calls = 0
        builder.forEachRow(converting: { bytes -> String in
            calls += 1
            return String(decoding: bytes, as: UTF8.self).uppercased()
        }) { row, value in
            #expect(row == converted.count)
            converted.append(value)
        }
        #expect(converted == plain.map { $0.uppercased() })
        let distinctCount = Set(values.compactMap { $0 }).count
        // The small case stays a dictionary, the large one switches to plain storage.
        #expect((distinctCount > TextColumnBuilder.dictionaryLimit) == (distinct > 1_000))
        if distinctCount <= TextColumnBuilder.dictionaryLimit {
            #expect(calls == distinctCount + 1)  // and once for rows without any string
        } else {
            #expect(calls == count)
        }
    }

    /// Joining builders gives the column appending their rows one by one gives: dictionaries
    /// joined by renumbering codes, and across the dictionary limit (where the join goes row
    /// by row and turns plain) with NULL rows on both sides.
    @Test(arguments: [(300, 40, 500, 60), (50_000, 40_000, 50_000, 40_000), (10, 3, 90_000, 80_000)])
    func joinedBuildersMatchRowByRow(firstCount: Int, firstDistinct: Int, secondCount: Int, secondDistinct: Int) {
        let first = rows(count: firstCount, distinct: firstDistinct, nullEvery: 7, seed: 11)
        let second = rows(count: secondCount, distinct: secondDistinct, nullEvery: 5, seed: 12)
        var joined = builder(first)
        joined.append(contentsOf: builder(second))
        let all = first + second
        var validity = ValidityBitmap(count: 0, allValid: true)
        for value in all { validity.append(valid: value != nil) }
        let column = joined.column(validity: validity)
        let expected = build(all)
        #expect(column.count == expected.count)
        #expect((0..<all.count).allSatisfy { column[$0] == expected[$0] })
        #expect(isDictionary(column) == isDictionary(expected))
    }
}
