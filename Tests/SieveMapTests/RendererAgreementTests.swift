import Foundation
import SieveColumns
import SieveFeatures
import SieveEditing
import SieveFormats
import SieveTestSupport
import Testing

@testable import SieveMap

/// The vectorized path (``BoundRenderer/classify(rows:)``) and the per-row path
/// (``BoundRenderer/symbolClass(forRow:)``) agree on seeded random tables, and both classify
/// the Natural Earth countries as worked out by hand.
@Suite("Renderer agreement and real data")
struct RendererAgreementTests {
    static let strings = ["A", "a", "B", "null", "", "A,B", "ü"]
    static let integers: [Int64] = [-3, 0, 3, 7, 12]
    static let doubles: [Double] = [2.5, 3, -0.0, 0, 1e21, 0.1, 7, -2.5, .nan, 1e-7]
    static let divisors: [Double] = [0, 1, 2, 0.5, -4]
    static let dates: [Int64] = [0, 1, 86_400_000]
    /// Texts of the values above, as keys.
    static let keys = [
        "A", "a", "B", "null", "", "A,B", "ü", "-3", "0", "3", "7", "12", "2.5", "1e+21", "0.1", "-2.5", "NaN", "1e-7", "1",
        "86400000", "-0",
    ]

    /// A table of `count` rows: CAT (dictionary-encoded strings), CATP (plain strings), N
    /// (integers), D (doubles, NaN among them), DIV (doubles, zeros among them), T (dates),
    /// each with about 10 % NULLs; with about 10 % of its features deleted when `deleting`.
    static func table(count: Int, generator: inout SeededGenerator, deleting: Bool) throws -> FeatureTable {
        func pick<T>(_ pool: [T]) -> T? { generator.chance(10) ? nil : pool[generator.int(pool.count)] }
        let schema = try Schema(
            fields: [
                Field(name: "OBJECTID", type: .oid), Field(name: "CAT", type: .string), Field(name: "CATP", type: .string),
                Field(name: "N", type: .integer), Field(name: "D", type: .double), Field(name: "DIV", type: .double),
                Field(name: "T", type: .date),
            ], objectIdFieldName: "OBJECTID")
        func integerColumn(_ values: [Int64?]) -> Int64Column {
            var validity = ValidityBitmap(count: values.count, allValid: true)
            for (row, value) in values.enumerated() where value == nil { validity.set(row, valid: false) }
            return Int64Column(values: values.map { $0 ?? 0 }, validity: validity)
        }
        func doubleColumn(_ values: [Double?]) -> DoubleColumn {
            var validity = ValidityBitmap(count: values.count, allValid: true)
            for (row, value) in values.enumerated() where value == nil { validity.set(row, valid: false) }
            return DoubleColumn(values: values.map { $0 ?? 0 }, validity: validity)
        }
        let dictionary = StringColumn((0..<count).map { _ in pick(strings) })
        let plain = StringColumn((0..<count).map { _ in pick(strings) }, dictionaryLimit: 0)
        guard case .dictionary = dictionary.encoding, case .plain = plain.encoding else {
            throw RendererError(.invalidRenderer, "the test needs one dictionary-encoded and one plain string column")
        }
        let columns: [Column] = [
            .integer(Int64Column(values: (1...Int64(count)).map { $0 })), .string(dictionary), .string(plain),
            .integer(integerColumn((0..<count).map { _ in pick(Self.integers) })),
            .double(doubleColumn((0..<count).map { _ in generator.chance(30) ? generator.uniform(-5, 15) : pick(Self.doubles) })),
            .double(doubleColumn((0..<count).map { _ in pick(divisors) })), .date(integerColumn((0..<count).map { _ in pick(dates) })),
        ]
        let table = try FeatureTable(schema: schema, columns: columns)
        guard deleting else { return table }
        let editable = try EditableFeatureTable(table)
        _ = editable.deleteFeatures(objectIDs: (1...Int64(count)).filter { _ in generator.chance(10) })
        return editable.snapshot
    }

    static func symbol(_ generator: inout SeededGenerator) -> Symbol? {
        generator.chance(15) ? nil : TestSymbols.fill(UInt8(generator.int(200)))
    }

    static func uniqueRenderer(fields: [String], generator: inout SeededGenerator) -> Renderer {
        let delimiter = [",", "|", ", "][generator.int(3)]
        let infos = (0..<generator.int(4...14)).map { _ in
            let parts = fields.map { _ in keys[generator.int(keys.count)] }
            return UniqueValueInfo(value: parts.joined(separator: delimiter), symbol: symbol(&generator))
        }
        return .uniqueValue(
            UniqueValueRenderer(
                fields: fields, fieldDelimiter: delimiter, uniqueValueInfos: infos,
                defaultSymbol: generator.chance(50) ? TestSymbols.fallback : nil))
    }

    static func breaksRenderer(field: String, generator: inout SeededGenerator) -> Renderer {
        var edges = (0..<generator.int(2...6)).map { _ in generator.uniform(-4, 14).rounded() / 2 }.sorted()
        if generator.chance(30) { edges = edges.map { $0 / 10 } }
        let infos = edges.map { edge in
            ClassBreakInfo(
                classMinValue: generator.chance(25) ? edge - generator.uniform(0, 2) : nil, classMaxValue: edge,
                symbol: symbol(&generator))
        }
        let normalization: ClassBreaksNormalization? = [
            nil, .byField("div"), .byLog, .percentOfTotal(total: nil), .percentOfTotal(total: generator.uniform(50, 500)),
        ][generator.int(5)]
        return .classBreaks(
            ClassBreaksRenderer(
                field: field, minValue: generator.chance(70) ? generator.uniform(-6, 0).rounded() : nil, classBreakInfos: infos,
                normalization: normalization, isMaxInclusive: generator.chance(60),
                defaultSymbol: generator.chance(50) ? TestSymbols.fallback : nil))
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func vectorizedAndPerRowPathsAgree(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let table = try Self.table(count: 400, generator: &generator, deleting: seed.isMultiple(of: 2))
        var renderers: [Renderer] = [.simple(SimpleRenderer(symbol: TestSymbols.a))]
        for _ in 0..<4 {
            for fields in [["CAT"], ["catp"], ["N"], ["D"], ["T"], ["CAT", "N"], ["CATP", "D", "T"], ["N", "D", "CAT"]] {
                renderers.append(Self.uniqueRenderer(fields: fields, generator: &generator))
            }
            for field in ["N", "D", "DIV"] { renderers.append(Self.breaksRenderer(field: field, generator: &generator)) }
        }
        var rows = Array(0..<table.count)
        rows.shuffle(using: &generator)
        rows += [-1, table.count, table.count + 7]
        var matched = 0, defaulted = 0, hidden = 0
        for renderer in renderers {
            let bound = try renderer.bind(to: table)
            let vectorized = bound.classify(rows: rows)
            let perRow = rows.map { bound.classIndex(forRow: $0) }
            #expect(vectorized == perRow, "\(renderer.esriJSON)")
            for (row, index) in zip(rows, vectorized) {
                #expect(bound.symbolClass(forRow: row) == bound.symbolClass(forClassIndex: index))
                switch index {
                case Renderer.defaultClassIndex: defaulted += 1
                case Renderer.notDrawnClassIndex: hidden += 1
                default: matched += 1
                }
            }
        }
        // The random renderers exercise every outcome.
        #expect(matched > 1000)
        #expect(defaulted > 1000)
        #expect(hidden > 1000)
    }

    /// Value expressions over the random table: arithmetic (integer and double fields, NaN,
    /// zero divisors, NULLs), constants and single field references of every type.
    static let uniqueExpressions = [
        "$feature.N / 2", "$feature.D * $feature.N", "-$feature.D", "($feature.D - $feature.DIV) / $feature.DIV", "$feature.N + 0.5",
        "$feature['CAT']", "$feature.catp", "$feature.n", "$feature.T", "$feature.D", "1 / 4",
    ]
    static let breaksExpressions = [
        "$feature.N / 2", "$feature.D * $feature.N", "-$feature.D", "($feature.D - $feature.DIV) / $feature.DIV", "$feature.N + 0.5",
        "$feature.D", "$feature.n", "return 10 / 4;",
    ]
    /// Texts of the expressions' values, as keys.
    static let expressionKeys = [
        "-1.5", "0", "1.5", "3.5", "6", "null", "2.5", "-2.5", "7", "3", "A", "a", "12", "0.5", "NaN", "1e+21", "86400000", "-7",
        "0.25", "-3", "3.5", "-0.5", "12.5", "",
    ]

    @Test(arguments: [11, 12, 13, 14] as [UInt64])
    func expressionRenderersAgree(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let table = try Self.table(count: 300, generator: &generator, deleting: seed.isMultiple(of: 2))
        var renderers: [Renderer] = []
        for _ in 0..<2 {
            for expression in Self.uniqueExpressions {
                let infos = (0..<generator.int(4...12)).map { _ in
                    UniqueValueInfo(value: Self.expressionKeys[generator.int(Self.expressionKeys.count)], symbol: Self.symbol(&generator))
                }
                renderers.append(
                    .uniqueValue(
                        UniqueValueRenderer(
                            fields: generator.chance(30) ? ["CAT"] : [], uniqueValueInfos: infos,
                            defaultSymbol: generator.chance(50) ? TestSymbols.fallback : nil, valueExpression: expression)))
            }
            for expression in Self.breaksExpressions {
                guard case .classBreaks(var breaks) = Self.breaksRenderer(field: "N", generator: &generator) else { continue }
                breaks.field = generator.chance(30) ? "N" : ""
                breaks.valueExpression = expression
                renderers.append(.classBreaks(breaks))
            }
        }
        var rows = Array(0..<table.count)
        rows.shuffle(using: &generator)
        rows += [-1, table.count, table.count + 3]
        var outcomes: [Int32: Int] = [:]
        for renderer in renderers {
            let bound = try renderer.bind(to: table)
            let vectorized = bound.classify(rows: rows)
            let perRow = rows.map { bound.classIndex(forRow: $0) }
            #expect(vectorized == perRow, "\(renderer.esriJSON)")
            for (row, index) in zip(rows, vectorized) {
                outcomes[index >= 0 ? 0 : index, default: 0] += 1
                guard row >= 0, row < table.count, !table.isDeleted(row: row) else { continue }
                // The table-less path, on the row's attributes, agrees too.
                var attributes: [String: ScalarValue] = [:]
                for (field, column) in zip(table.schema.fields, table.columns) { attributes[field.name] = column[row] }
                let loose = try renderer.symbolClass(for: attributes, normalizationTotal: bound.normalizationTotal)
                #expect(loose == bound.symbolClass(forRow: row), "\(renderer.esriJSON) at row \(row)")
            }
        }
        #expect(outcomes[0, default: 0] > 500)
        #expect(outcomes[Renderer.defaultClassIndex, default: 0] > 500)
        #expect(outcomes[Renderer.notDrawnClassIndex, default: 0] > 500)
    }

    // MARK: - Natural Earth

    static func countries() throws -> FeatureTable {
        try FeatureTable.load(contentsOf: fixtureURL("naturalearth_lowres.geojson"))
    }

    static func row(_ name: String, in table: FeatureTable) throws -> Int {
        let names = try #require(table.column(named: "name"))
        return try #require((0..<table.count).first { names[$0] == .string(name) }, "no country named \(name)")
    }

    @Test func continentsByUniqueValue() throws {
        let table = try Self.countries()
        let renderer = try Renderer(
            esriJSON: """
                {"type":"uniqueValue","field1":"CONTINENT","fieldDelimiter":",",
                 "defaultSymbol":{"type":"esriSFS","style":"esriSFSSolid","color":[200,200,200,255]},"defaultLabel":"Elsewhere",
                 "uniqueValueInfos":[
                   {"value":"Africa","label":"Africa","symbol":{"type":"esriSFS","style":"esriSFSSolid","color":[230,152,0,255]}},
                   {"value":"Europe","label":"Europe","symbol":{"type":"esriSFS","style":"esriSFSSolid","color":[0,92,230,255]}},
                   {"value":"Asia","label":"Asia","symbol":{"type":"esriSFS","style":"esriSFSSolid","color":[255,0,0,255]}}]}
                """)
        let bound = try renderer.bind(to: table)
        let expected: [(String, SymbolClass.Match)] = [
            ("Nigeria", .info(0)), ("France", .info(1)), ("Germany", .info(1)), ("Japan", .info(2)), ("China", .info(2)),
            ("India", .info(2)), ("United States of America", .default), ("Brazil", .default), ("Antarctica", .default),
        ]
        for (name, match) in expected {
            let row = try Self.row(name, in: table)
            #expect(bound.symbolClass(forRow: row)?.match == match, "\(name)")
        }
        #expect(bound.symbolClass(forRow: try Self.row("Brazil", in: table))?.label == "Elsewhere")
        // The fixture has 51 African countries.
        #expect(bound.classify(rows: table.liveRows).filter { $0 == 0 }.count == 51)
    }

    @Test func populationPerGDPByClassBreaks() throws {
        let table = try Self.countries()
        // pop_est / gdp_md_est: Antarctica 4490 / 898 = 5 exactly; USA 15.3; Germany 21.5; France
        // 24.7; Japan 24.8; China 97.4; Brazil 114.7; Nigeria 448.5; India 476.3.
        let renderer = try Renderer(
            esriJSON: """
                {"type":"classBreaks","field":"pop_est","normalizationType":"esriNormalizeByField",
                 "normalizationField":"gdp_md_est","minValue":0,"defaultSymbol":null,
                 "classBreakInfos":[
                   {"classMaxValue":5,"label":"≤ 5","symbol":{"type":"esriSFS","color":[255,255,204,255]}},
                   {"classMaxValue":25,"label":"5 – 25","symbol":{"type":"esriSFS","color":[161,218,180,255]}},
                   {"classMaxValue":100,"label":"25 – 100","symbol":{"type":"esriSFS","color":[65,182,196,255]}},
                   {"classMaxValue":1000,"label":"100 – 1000","symbol":{"type":"esriSFS","color":[34,94,168,255]}}]}
                """)
        let bound = try renderer.bind(to: table)
        let expected: [(String, Int)] = [
            ("Antarctica", 0), ("United States of America", 1), ("Germany", 1), ("France", 1), ("Japan", 1), ("China", 2),
            ("Brazil", 3), ("Nigeria", 3), ("India", 3),
        ]
        let rows = try expected.map { try Self.row($0.0, in: table) }
        #expect(bound.classify(rows: rows) == expected.map { Int32($0.1) })
        for (row, (name, index)) in zip(rows, expected) {
            #expect(bound.symbolClass(forRow: row)?.match == .info(index), "\(name)")
        }
        // Case-insensitive field names resolve to the table's.
        #expect(bound.fieldIndices == [table.schema.index(ofField: "pop_est"), table.schema.index(ofField: "gdp_md_est")])
    }
}
