import SieveColumns
import SieveFeatures
import SieveEditing
import SieveFormats
import Testing

@testable import SieveMap

/// Symbols for tests, told apart by colour.
enum TestSymbols {
    static func fill(_ red: UInt8) -> Symbol { .fill(SimpleFillSymbol(color: RGBAColor(red: red, green: 0, blue: 0))) }
    static let a = fill(1), b = fill(2), c = fill(3), d = fill(4), fallback = fill(99)
}

/// Unique-value and class-breaks classification of a small table, each expected class worked
/// out by hand.
@Suite("Renderer classification")
struct RendererClassificationTests {
    /// Rows (OBJECTID 1…8):
    ///
    /// | row | TYPE   | CODE | RATIO | POP  | AREA | WHEN     |
    /// |-----|--------|------|-------|------|------|----------|
    /// | 0   | Park   | 3    | 2.5   | 0    | 1    | 86400000 |
    /// | 1   | park   | 7    | 3.0   | 10   | 2    | NULL     |
    /// | 2   | NULL   | 3    | NULL  | 11   | 0    | 0        |
    /// | 3   | School | NULL | 2.5   | 150  | NULL | 1        |
    /// | 4   | ""     | 12   | -0.0  | 200  | 20   | 2        |
    /// | 5   | Park   | NULL | 2.5   | -1   | 4    | 3        |
    /// | 6   | Park   | 3    | NULL  | NULL | 5    | 4        |
    /// | 7   | School | 12   | 1e21  | 300  | 100  | 5        |
    static func table() throws -> FeatureTable {
        let schema = try Schema(
            fields: [
                Field(name: "OBJECTID", type: .oid), Field(name: "TYPE", type: .string), Field(name: "CODE", type: .integer),
                Field(name: "RATIO", type: .double), Field(name: "POP", type: .integer), Field(name: "AREA", type: .double),
                Field(name: "WHEN", type: .date),
            ], objectIdFieldName: "OBJECTID")
        func validity(_ nulls: [Int]) -> ValidityBitmap {
            var bitmap = ValidityBitmap(count: 8, allValid: true)
            for row in nulls { bitmap.set(row, valid: false) }
            return bitmap
        }
        let columns: [Column] = [
            .integer(Int64Column(values: [1, 2, 3, 4, 5, 6, 7, 8])),
            .string(StringColumn(["Park", "park", nil, "School", "", "Park", "Park", "School"])),
            .integer(Int64Column(values: [3, 7, 3, 0, 12, 0, 3, 12], validity: validity([3, 5]))),
            .double(DoubleColumn(values: [2.5, 3.0, 0, 2.5, -0.0, 2.5, 0, 1e21], validity: validity([2, 6]))),
            .integer(Int64Column(values: [0, 10, 11, 150, 200, -1, 0, 300], validity: validity([6]))),
            .double(DoubleColumn(values: [1, 2, 0, 0, 20, 4, 5, 100], validity: validity([3]))),
            .date(Int64Column(values: [86_400_000, 0, 0, 1, 2, 3, 4, 5], validity: validity([1]))),
        ]
        return try FeatureTable(schema: schema, columns: columns)
    }

    /// The class of each row, by the per-row path, as `info` indices, `-1` default, `nil` not
    /// drawn; checked against the vectorized path too.
    func classes(_ renderer: Renderer, _ table: FeatureTable, total: Double? = nil) throws -> [Int?] {
        let bound = try renderer.bind(to: table, normalizationTotal: total)
        let rows = Array(0..<table.count)
        let perRow: [Int?] = rows.map { row in
            guard let symbolClass = bound.symbolClass(forRow: row) else { return nil }
            switch symbolClass.match {
            case .info(let index): return index
            case .default: return -1
            }
        }
        let vectorized: [Int?] = bound.classify(rows: rows).map { $0 == Renderer.notDrawnClassIndex ? nil : Int($0) }
        #expect(perRow == vectorized)
        return perRow
    }

    func unique(_ fields: [String], _ values: [String], delimiter: String = ",", default fallback: Symbol? = nil) -> Renderer {
        .uniqueValue(
            UniqueValueRenderer(
                fields: fields, fieldDelimiter: delimiter,
                uniqueValueInfos: values.enumerated().map { UniqueValueInfo(value: $1, symbol: TestSymbols.fill(UInt8($0 + 1))) },
                defaultSymbol: fallback, defaultLabel: fallback == nil ? nil : "Other"))
    }

    // MARK: - Unique value

    @Test func uniqueValueOnAStringFieldIsExactAndCaseSensitive() throws {
        let table = try Self.table()
        // "null" matches the NULL row (String(null)); "park" is not "Park"; "" has no class.
        let renderer = unique(["type"], ["Park", "School", "null"])
        #expect(try classes(renderer, table) == [0, nil, 2, 1, nil, 0, 0, 1])
        let withDefault = unique(["TYPE"], ["Park", "School", "null"], default: TestSymbols.fallback)
        #expect(try classes(withDefault, table) == [0, -1, 2, 1, -1, 0, 0, 1])
        let bound = try withDefault.bind(to: table)
        let other = try #require(bound.symbolClass(forRow: 1))
        #expect(other.label == "Other")
        #expect(other.symbol == TestSymbols.fallback)
        // The first class with a value wins.
        #expect(try classes(unique(["TYPE"], ["School", "School", "Park"]), table) == [2, nil, nil, 0, nil, 2, 2, 0])
    }

    @Test func uniqueValueOnNumbersUsesJavaScriptText() throws {
        let table = try Self.table()
        // Integers: "3" matches 3; "007" is not the text of 7; NULL is "null".
        #expect(try classes(unique(["CODE"], ["3", "007", "null"]), table) == [0, nil, 0, 2, nil, 2, 0, nil])
        // Doubles: 3.0 is "3", 2.5 "2.5", -0.0 "0", 1e21 "1e+21".
        #expect(try classes(unique(["RATIO"], ["3", "2.5", "0", "1e+21"]), table) == [1, 0, nil, 1, 2, 1, nil, 3])
        // Dates: epoch milliseconds.
        #expect(try classes(unique(["WHEN"], ["86400000", "0"]), table) == [0, nil, 1, nil, nil, nil, nil, nil])
    }

    /// A date-only field is keyed by its day, `yyyy-mm-dd`, as ArcGIS writes its values.
    @Test func uniqueValueOnADateOnlyFieldUsesTheDay() throws {
        let text = """
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{"DAY":"2022-04-16"},"geometry":{"type":"Point","coordinates":[0,0]}},
            {"type":"Feature","properties":{"DAY":"2022-04-17"},"geometry":{"type":"Point","coordinates":[1,1]}},
            {"type":"Feature","properties":{"DAY":null},"geometry":{"type":"Point","coordinates":[2,2]}}]}
            """
        let table = try FeatureTable.load(geoJSON: text, schema: [Field(name: "DAY", type: .dateOnly)])
        #expect(try classes(unique(["DAY"], ["2022-04-17", "null", "2022-04-16"]), table) == [2, 0, 1])
    }

    @Test func uniqueValueOnThreeFieldsJoinsWithTheDelimiter() throws {
        let table = try Self.table()
        // Keys: row 0 "Park,3,2.5"; row 2 ",3," (NULL → ""); row 6 "Park,3,"; row 3 "School,,2.5".
        let renderer = unique(["TYPE", "CODE", "RATIO"], ["Park,3,2.5", ",3,", "Park,3,", "School,,2.5"], default: TestSymbols.fallback)
        #expect(try classes(renderer, table) == [0, -1, 1, 3, -1, -1, 2, -1])
        // Another delimiter: row 7 is "School|12|1e+21".
        let piped = unique(["TYPE", "CODE", "RATIO"], ["School|12|1e+21", "Park|3|2.5", "Park,3,2.5"], delimiter: "|")
        #expect(try classes(piped, table) == [1, nil, nil, nil, nil, nil, nil, 0])
    }

    @Test func infoWithoutSymbolIsNotDrawn() throws {
        let table = try Self.table()
        let renderer = Renderer.uniqueValue(
            UniqueValueRenderer(
                fields: ["TYPE"], uniqueValueInfos: [UniqueValueInfo(value: "Park", symbol: nil)], defaultSymbol: TestSymbols.fallback))
        #expect(try classes(renderer, table) == [nil, -1, -1, -1, -1, nil, nil, -1])
    }

    // MARK: - Class breaks

    func breaks(
        _ infos: [ClassBreakInfo], field: String = "POP", min: Double? = 0, normalization: ClassBreaksNormalization? = nil,
        inclusive: Bool = true, default fallback: Symbol? = TestSymbols.fallback
    ) -> Renderer {
        .classBreaks(
            ClassBreaksRenderer(
                field: field, minValue: min, classBreakInfos: infos, normalization: normalization, isMaxInclusive: inclusive,
                defaultSymbol: fallback))
    }

    /// [0, 10], [10, 100], [200, 300].
    static let popBreaks = [
        ClassBreakInfo(classMaxValue: 10, symbol: TestSymbols.a), ClassBreakInfo(classMaxValue: 100, symbol: TestSymbols.b),
        ClassBreakInfo(classMinValue: 200, classMaxValue: 300, symbol: TestSymbols.c),
    ]

    @Test func classBreaksWithImplicitMinimumsAndInclusiveMaximums() throws {
        let table = try Self.table()
        // POP 0 → [0,10]; 10 → [0,10] (max inclusive); 11 → [10,100]; 150 → in no class;
        // 200 → [200,300]; -1 → below minValue; NULL → default; 300 → [200,300].
        #expect(try classes(breaks(Self.popBreaks), table) == [0, 0, 1, -1, 2, -1, -1, 2])
        // Maximums exclusive: 10 falls in [10,100); 300 in no class.
        #expect(try classes(breaks(Self.popBreaks, inclusive: false), table) == [0, 1, 1, -1, 2, -1, -1, -1])
        // No default symbol: unmatched rows are not drawn.
        #expect(try classes(breaks(Self.popBreaks, default: nil), table) == [0, 0, 1, nil, 2, nil, nil, 2])
        // No minValue: the first class reaches down to −∞, so -1 is in it.
        #expect(try classes(breaks(Self.popBreaks, min: nil), table) == [0, 0, 1, -1, 2, 0, -1, 2])
    }

    @Test func classBreaksNormalizedByField() throws {
        let table = try Self.table()
        // POP / AREA: 0/1 = 0; 10/2 = 5; 11/0 → none; 150/NULL → none; 200/20 = 10; -1/4 = -0.25;
        // NULL/5 → none; 300/100 = 3.
        let renderer = breaks([ClassBreakInfo(classMaxValue: 4, symbol: TestSymbols.a), ClassBreakInfo(classMaxValue: 10, symbol: TestSymbols.b)], min: 0,
            normalization: .byField("area"))
        #expect(try classes(renderer, table) == [0, 1, -1, -1, 1, -1, -1, 0])
    }

    @Test func classBreaksNormalizedByLog() throws {
        let table = try Self.table()
        // log10(POP): 0 → none; 10 → 1; 11 → 1.04; 150 → 2.18; 200 → 2.30; -1 → none; NULL → none;
        // 300 → 2.48.
        let renderer = breaks([
                ClassBreakInfo(classMaxValue: 1, symbol: TestSymbols.a), ClassBreakInfo(classMaxValue: 2.2, symbol: TestSymbols.b),
                ClassBreakInfo(classMaxValue: 3, symbol: TestSymbols.c),
            ], min: 0, normalization: .byLog)
        #expect(try classes(renderer, table) == [-1, 0, 1, 1, 2, -1, -1, 2])
    }

    @Test func classBreaksAsPercentOfTotal() throws {
        let table = try Self.table()
        let infos = [
            ClassBreakInfo(classMaxValue: 5, symbol: TestSymbols.a), ClassBreakInfo(classMaxValue: 20, symbol: TestSymbols.b),
            ClassBreakInfo(classMaxValue: 100, symbol: TestSymbols.c),
        ]
        // Total computed: 0 + 10 + 11 + 150 + 200 - 1 + 300 = 670. Percentages: 0, 1.49, 1.64,
        // 22.4, 29.9, -0.15 (below 0), NULL, 44.8.
        let computed = breaks(infos, min: 0, normalization: .percentOfTotal(total: nil))
        #expect(try computed.bind(to: table).normalizationTotal == 670)
        #expect(try classes(computed, table) == [0, 0, 0, 2, 2, -1, -1, 2])
        // Total from the JSON, 1000: 0, 1, 1.1, 15, 20, -0.1, NULL, 30.
        let given = breaks(infos, min: 0, normalization: .percentOfTotal(total: 1000))
        #expect(try classes(given, table) == [0, 0, 0, 1, 1, -1, -1, 2])
        // A total passed in overrides both, 200: 0, 5, 5.5, 75, 100, -0.5, NULL, 150.
        #expect(try classes(given, table, total: 200) == [0, 0, 1, 2, 2, -1, -1, -1])
        // A total of 0 divides nothing.
        #expect(try classes(given, table, total: 0) == [-1, -1, -1, -1, -1, -1, -1, -1])
    }

    @Test func percentOfTotalLeavesDeletedRowsOut() throws {
        let editable = try EditableFeatureTable(try Self.table())
        _ = editable.deleteFeatures(objectIDs: [8])  // POP 300
        let table = editable.snapshot
        let renderer = breaks([ClassBreakInfo(classMaxValue: 100, symbol: TestSymbols.a)], min: 0, normalization: .percentOfTotal(total: nil))
        let bound = try renderer.bind(to: table)
        #expect(bound.normalizationTotal == 370)
        #expect(bound.symbolClass(forRow: 7) == nil)
        #expect(bound.classify(rows: [7, 4]) == [Renderer.notDrawnClassIndex, 0])
    }

    // MARK: - Binding errors

    func bindError(_ renderer: Renderer) throws -> RendererError? {
        let table = try Self.table()
        do {
            _ = try renderer.bind(to: table)
            return nil
        } catch {
            return error
        }
    }

    @Test func unknownFieldSuggestsACloseOne() throws {
        let error = try #require(try bindError(unique(["TYEP"], ["Park"])))
        #expect(error.kind == .unknownField)
        #expect(error.fieldName == "TYEP")
        #expect(error.path == "field1")
        #expect(error.message.contains(#"did you mean "TYPE"?"#))
        let second = try #require(try bindError(unique(["TYPE", "nothing"], ["Park"])))
        #expect(second.path == "field2")
        let divisor = try #require(try bindError(breaks(Self.popBreaks, normalization: .byField("AERA"))))
        #expect(divisor.path == "normalizationField")
        #expect(divisor.message.contains(#""AREA""#))
    }

    @Test func classBreaksNeedNumericFields() throws {
        let string = try #require(try bindError(breaks(Self.popBreaks, field: "TYPE")))
        #expect(string.kind == .invalidFieldType)
        #expect(string.message.contains("String"))
        let date = try #require(try bindError(breaks(Self.popBreaks, field: "WHEN")))
        #expect(date.kind == .invalidFieldType)
        let divisor = try #require(try bindError(breaks(Self.popBreaks, normalization: .byField("TYPE"))))
        #expect(divisor.kind == .invalidFieldType)
        #expect(divisor.path == "normalizationField")
        // A unique-value renderer reads one to three fields.
        let four = try #require(try bindError(unique(["TYPE", "CODE", "RATIO", "POP"], ["x"])))
        #expect(four.kind == .invalidRenderer)
        #expect(try bindError(unique([], ["x"]))?.kind == .invalidRenderer)
        // Unique values take any field type.
        #expect(try bindError(unique(["WHEN"], ["0"])) == nil)
    }

    // MARK: - Attributes without a table

    @Test func classifiesAttributes() throws {
        let renderer = unique(["TYPE", "CODE"], ["Park,3", "School,"], default: TestSymbols.fallback)
        #expect(try renderer.symbolClass(for: ["type": .string("Park"), "Code": .integer(3)])?.match == .info(0))
        #expect(try renderer.symbolClass(for: ["TYPE": .string("School")])?.match == .info(1))
        #expect(try renderer.symbolClass(for: ["TYPE": .string("school")])?.match == .default)
        let single = unique(["CODE"], ["2.5", "null"])
        #expect(try single.symbolClass(for: ["CODE": .double(2.5)])?.match == .info(0))
        #expect(try single.symbolClass(for: [:])?.match == .info(1))
        #expect(try single.symbolClass(for: ["CODE": .double(2.25)]) == nil)

        let byField = breaks([ClassBreakInfo(classMaxValue: 4, symbol: TestSymbols.a)], min: 0, normalization: .byField("AREA"))
        #expect(try byField.symbolClass(for: ["pop": .integer(8), "area": .double(2)])?.match == .info(0))
        #expect(try byField.symbolClass(for: ["pop": .integer(8), "area": .double(0)])?.match == .default)
        #expect(try byField.symbolClass(for: ["pop": .string("8"), "area": .double(2)])?.match == .default)
        let percent = breaks([ClassBreakInfo(classMaxValue: 50, symbol: TestSymbols.a)], min: 0, normalization: .percentOfTotal(total: nil))
        #expect(throws: RendererError.self) { try percent.symbolClass(for: ["POP": .integer(1)]) }
        #expect(try percent.symbolClass(for: ["POP": .integer(1)], normalizationTotal: 4)?.match == .info(0))
        #expect(try percent.symbolClass(for: ["POP": .integer(3)], normalizationTotal: 4)?.match == .default)
        let simple = Renderer.simple(SimpleRenderer(symbol: TestSymbols.a, label: "all"))
        #expect(try simple.symbolClass(for: [:]) == SymbolClass(match: .info(0), label: "all", symbol: TestSymbols.a))
    }
}
