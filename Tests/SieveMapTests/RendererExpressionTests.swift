import Foundation
import SieveColumns
import SieveFeatures
import SieveEditing
import SieveFormats
import Testing

@testable import SieveMap

/// Renderers classifying an Arcade `valueExpression`: the translation of the supported subset
/// and the rejection of everything else, classification on a small table and on the Natural
/// Earth countries (expected classes worked out by hand from the fixture's values), JSON, and
/// binding errors.
@Suite("Renderer value expressions")
struct RendererExpressionTests {
    // MARK: - Translation

    @Test(arguments: [
        ("$feature.POP_EST / $feature.GDP_MD_EST", #"CAST("POP_EST" AS FLOAT) / CAST("GDP_MD_EST" AS FLOAT)"#),
        ("return ($feature.A - -1.5e3) * .5;", #"(CAST("A" AS FLOAT) - -1.5e3) * 0.5"#),
        ("$feature.A - ($feature.B - $feature.C)", #"CAST("A" AS FLOAT) - (CAST("B" AS FLOAT) - CAST("C" AS FLOAT))"#),
        ("$feature.A - $feature.B - $feature.C", #"CAST("A" AS FLOAT) - CAST("B" AS FLOAT) - CAST("C" AS FLOAT)"#),
        ("(($feature.A)) + 2 * 3", #"CAST("A" AS FLOAT) + 2.0 * 3.0"#),
        ("($feature.A + 2) * 3", #"(CAST("A" AS FLOAT) + 2.0) * 3.0"#),
        ("-(-$feature.A)", #"-(-CAST("A" AS FLOAT))"#),
        ("-($feature.A + 1)", #"-(CAST("A" AS FLOAT) + 1.0)"#),
        ("- 5.", "-5.0"),
        ("1 / 2", "1.0 / 2.0"),
        ("2E+3 - 7e-1", "2.0e+3 - 7.0e-1"),
        (#"$feature["POP EST"] * 100"#, #"CAST("POP EST" AS FLOAT) * 100.0"#),
        (#"$feature['say "hi"'] / 2"#, #"CAST("say ""hi""" AS FLOAT) / 2.0"#),
        ("\t$feature . A\n*\r\n$feature [ 'B' ]  ", #"CAST("A" AS FLOAT) * CAST("B" AS FLOAT)"#),
        ("RETURN $Feature.x", #""x""#),
        (#"  ($feature["TYPE"]) ; "#, #""TYPE""#),
        ("$feature.Größe / 3", #"CAST("Größe" AS FLOAT) / 3.0"#),
    ])
    func translatesTheSubset(arcade: String, sql: String) throws {
        #expect(try ArcadeValueExpression(arcade).whereClause == sql)
    }

    @Test func namesTheFieldsOnceEach() throws {
        let ratio = try ArcadeValueExpression("($feature.pop_est + $feature.POP_EST) / $feature.gdp_md_est")
        #expect(ratio.fieldNames == ["pop_est", "gdp_md_est"])
        #expect(ratio.fieldReference == nil)
        let lone = try ArcadeValueExpression(#"return $feature["Land Use"];"#)
        #expect(lone.fieldNames == ["Land Use"])
        #expect(lone.fieldReference == "Land Use")
        #expect(try ArcadeValueExpression("3 * 4").fieldNames.isEmpty)
    }

    @Test(arguments: [
        ("$feature.A + Round(1)", "function calls (Round(…))", 14),
        ("Round ($feature.A, 2)", "function calls (Round(…))", 1),
        ("$feature.A == 1", #"the operator "==""#, 12),
        ("$feature.A = 1", #"the operator "=""#, 12),
        ("$feature.A > 1 ? 1 : 0", #"the operator ">""#, 12),
        ("$feature.A % 2", #"the operator "%""#, 12),
        ("$feature.A ** 2", #"the operator "**""#, 12),
        ("$feature.A++", #"the operator "++""#, 11),
        ("$feature.A -= 1", #"the operator "-=""#, 12),
        ("'text'", "string literals", 1),
        (#"$feature.A + "1""#, "string literals", 14),
        ("var x = $feature.A; return x", "variable declarations (var)", 1),
        ("$feature.A; $feature.B", #"";" may only end the expression"#, 11),
        ("return $feature.A;;", #"";" may only end the expression"#, 18),
        ("$feature.A // a note", "comments", 12),
        ("$feature.A /* a note */", "comments", 12),
        ("", "the expression is empty", 1),
        ("  return ; ", "the expression is empty", 10),
        ("$feature.A +", "expected a field, a number", 13),
        ("($feature.A", #"expected ")" to close the "(" at character 1"#, 12),
        ("$feature.A $feature.B", "expected an operator", 12),
        ("2 (3)", "expected an operator", 3),
        ("+$feature.A", #"unary "+""#, 1),
        ("$view.scale", "the global $view", 1),
        ("$feature", "$feature must be followed by", 1),
        ("$feature.", #"expected a field name after "$feature.""#, 10),
        (#"$feature[""]"#, "the field name is empty", 10),
        (#"$feature["A\"B"]"#, "escape sequences", 12),
        (#"$feature["A"#, "the field name is not closed", 10),
        ("$feature[A]", "expected a quoted field name", 10),
        ("$feature.A.length", #"the character ".""#, 11),
        ("$feature.NAME.toUpperCase()", #"the character ".""#, 14),
        ("$feature.A(1)", "method calls", 10),
        ("0x10", "only decimal numbers", 1),
        ("010", "leading zero", 1),
        ("3in", "a number must not be followed by", 2),
        ("1e", "exponent has no digits", 1),
        ("1e400", "out of range", 1),
        ("true", "the constant true", 1),
        ("null * 2", "the constant null", 1),
        ("POP / 2", "the name POP is not supported", 1),
        ("$feature.A + 1 return", #""return" may only start the expression"#, 16),
        ("if ($feature.A) 1", "function calls (if(…))", 1),
        ("when", "statements and control flow (when)", 1),
        ("$feature.A {", #"the character "{""#, 12),
        ("$feature.A & 1", #"the operator "&""#, 12),
    ] as [(String, String, Int)])
    func rejectsEverythingElse(arcade: String, problem: String, character: Int) {
        #expect {
            _ = try ArcadeValueExpression(arcade)
        } throws: { error in
            guard let error = error as? RendererError else { return false }
            return error.kind == .unsupportedRenderer && error.path == "valueExpression" && error.message.contains(problem)
                && error.message.contains("at character \(character);")
        }
    }

    @Test func limitsTheNesting() throws {
        let depth = ArcadeValueExpression.maximumDepth
        let nested = String(repeating: "(-", count: depth) + "1" + String(repeating: ")", count: depth)
        #expect(try ArcadeValueExpression(nested).whereClause.hasSuffix("1.0" + String(repeating: ")", count: depth - 1)))
        let tooNested = String(repeating: "(-", count: depth + 1) + "1" + String(repeating: ")", count: depth + 1)
        #expect(throws: RendererError.self) { try ArcadeValueExpression(tooNested) }
        let chain = Array(repeating: "$feature.A", count: depth + 1).joined(separator: " + ")
        #expect(try ArcadeValueExpression(chain).fieldNames == ["A"])
        let tooLong = Array(repeating: "$feature.A", count: depth + 2).joined(separator: " + ")
        #expect {
            _ = try ArcadeValueExpression(tooLong)
        } throws: { error in
            (error as? RendererError)?.message.contains("nested too deeply") == true
        }
        // Thousands of parentheses fail cleanly too.
        let deep = String(repeating: "(", count: 5000) + "1" + String(repeating: ")", count: 5000)
        #expect(throws: RendererError.self) { try ArcadeValueExpression(deep) }
    }

    // MARK: - A small table

    /// | row | A    | B    | NAME  |
    /// |-----|------|------|-------|
    /// | 0   | 7    | 2.0  | Park  |
    /// | 1   | 6    | 0.0  | park  |
    /// | 2   | NULL | 4.0  | NULL  |
    /// | 3   | 1    | NULL | Park  |
    /// | 4   | -3   | 0.5  | Shop  |
    static func table() throws -> FeatureTable {
        let schema = try Schema(
            fields: [
                Field(name: "OBJECTID", type: .oid), Field(name: "A", type: .integer), Field(name: "B", type: .double),
                Field(name: "NAME", type: .string),
            ], objectIdFieldName: "OBJECTID")
        var nullA = ValidityBitmap(count: 5, allValid: true)
        nullA.set(2, valid: false)
        var nullB = ValidityBitmap(count: 5, allValid: true)
        nullB.set(3, valid: false)
        let columns: [Column] = [
            .integer(Int64Column(values: [1, 2, 3, 4, 5])), .integer(Int64Column(values: [7, 6, 0, 1, -3], validity: nullA)),
            .double(DoubleColumn(values: [2, 0, 4, 0, 0.5], validity: nullB)),
            .string(StringColumn(["Park", "park", nil, "Park", "Shop"])),
        ]
        return try FeatureTable(schema: schema, columns: columns)
    }

    /// Each row's class by the per-row path (info index, -1 default, `nil` not drawn), checked
    /// against the vectorized path and the table-less path.
    func classes(_ renderer: Renderer, _ table: FeatureTable) throws -> [Int?] {
        let bound = try renderer.bind(to: table)
        let rows = Array(0..<table.count)
        func number(_ symbolClass: SymbolClass?) -> Int? {
            switch symbolClass?.match {
            case nil: nil
            case .info(let index): index
            case .default: -1
            }
        }
        let perRow = rows.map { number(bound.symbolClass(forRow: $0)) }
        let vectorized = bound.classify(rows: rows).map { number(bound.symbolClass(forClassIndex: $0)) }
        #expect(perRow == vectorized)
        for row in rows {
            var attributes: [String: ScalarValue] = [:]
            for (index, field) in table.schema.fields.enumerated() { attributes[field.name] = table.value(row: row, fieldIndex: index) }
            let loose = try renderer.symbolClass(for: attributes, normalizationTotal: bound.normalizationTotal)
            #expect(number(loose) == perRow[row], "row \(row)")
        }
        return perRow
    }

    func breaks(_ expression: String, _ maxima: [Double], normalization: ClassBreaksNormalization? = nil) -> Renderer {
        .classBreaks(
            ClassBreaksRenderer(
                field: "", minValue: -100,
                classBreakInfos: maxima.enumerated().map { ClassBreakInfo(classMaxValue: $1, symbol: TestSymbols.fill(UInt8($0 + 1))) },
                normalization: normalization, defaultSymbol: TestSymbols.fallback, valueExpression: expression))
    }

    func unique(_ expression: String, _ values: [String]) -> Renderer {
        .uniqueValue(
            UniqueValueRenderer(
                fields: [], uniqueValueInfos: values.enumerated().map { UniqueValueInfo(value: $1, symbol: TestSymbols.fill(UInt8($0 + 1))) },
                defaultSymbol: TestSymbols.fallback, valueExpression: expression))
    }

    @Test func divisionIsFloatingPointAndZeroOrNullGivesTheDefault() throws {
        let table = try Self.table()
        // A / 2: 3.5, 3, NULL, 0.5, -1.5 — floating point (the where clause alone would give 3).
        #expect(try classes(breaks("$feature.A / 2", [0, 3, 4]), table) == [2, 1, -1, 1, 0])
        #expect(try classes(unique("$feature.A / 2", ["3.5", "3", "null", "-1.5", "0.5"]), table) == [0, 1, 2, 4, 3])
        // A / B: 3.5, 6 / 0 → NULL, NULL, 1 / NULL → NULL, -6.
        #expect(try classes(breaks("$feature.A / $feature.B", [-6, 3.5]), table) == [1, -1, -1, -1, 0])
        #expect(try classes(unique("return $feature.a / $feature.b;", ["null", "-6"]), table) == [-1, 0, 0, 0, 1])
    }

    @Test func normalizationAppliesToTheExpressionsValue() throws {
        let table = try Self.table()
        // (A + 1) / B: 4, NULL, NULL, NULL, -4; A + 1 = 8, 7, NULL, 2, -2.
        #expect(try classes(breaks("$feature.A + 1", [-5, 3, 5], normalization: .byField("B")), table) == [2, -1, -1, -1, 1])
        // log10(A * 100): log10(700) = 2.85, log10(600) = 2.78, NULL, 2, no number.
        #expect(try classes(breaks("$feature.A * 100", [2, 2.8, 3], normalization: .byLog), table) == [2, 1, -1, 0, -1])
        // A * 2 as a percentage of its sum (14 + 12 + 2 − 6 = 22): 63.6, 54.5, NULL, 9.1, −27.3.
        let percent = breaks("$feature.A * 2", [0, 50, 60, 100], normalization: .percentOfTotal(total: nil))
        #expect(try classes(percent, table) == [3, 2, -1, 1, 0])
        #expect(try percent.bind(to: table).normalizationTotal == 22)
    }

    @Test func aSingleFieldReferenceIsTheFieldItself() throws {
        let table = try Self.table()
        #expect(try classes(unique(#"$feature["name"]"#, ["Park", "null", "Shop"]), table) == [0, -1, 1, 0, 2])
        #expect(try classes(unique("$feature.A", ["7", "-3", "null"]), table) == [0, -1, 2, -1, 1])
        let bound = try unique("$feature.name", ["Park"]).bind(to: table)
        #expect(bound.valueExpression == nil)
        #expect(bound.fieldIndices == [3])
        #expect(try classes(breaks("($feature.B)", [0, 2]), table) == [1, 0, -1, -1, 1])
    }

    @Test func theExpressionTakesPrecedenceOverTheField() throws {
        let table = try Self.table()
        var renderer = ClassBreaksRenderer(
            field: "B", minValue: 0, classBreakInfos: [ClassBreakInfo(classMaxValue: 5, symbol: TestSymbols.a)],
            defaultSymbol: TestSymbols.fallback)
        // B alone: 2, 0, 4 in the class; A * 10: 70, 60, NULL, 10, -30 none in it.
        #expect(try classes(.classBreaks(renderer), table) == [0, 0, 0, -1, 0])
        renderer.valueExpression = "$feature.A * 10"
        #expect(try classes(.classBreaks(renderer), table) == [-1, -1, -1, -1, -1])
        #expect(Renderer.classBreaks(renderer).fieldNames == ["A"])
        let bound = try Renderer.classBreaks(renderer).bind(to: table)
        #expect(bound.fieldIndices == [1])
        #expect(bound.valueExpression?.sql == #"CAST("A" AS FLOAT) * 10.0"#)
    }

    @Test func withoutATableNonNumbersAreNull() throws {
        let renderer = unique("$feature.A * 2", ["null", "5"])
        #expect(try renderer.symbolClass(for: ["a": .string("3")])?.match == .info(0))
        #expect(try renderer.symbolClass(for: ["A": .double(2.5)])?.match == .info(1))
        #expect(try renderer.symbolClass(for: [:])?.match == .info(0))
        let lone = unique("$feature.KIND", ["true"])
        #expect(try lone.symbolClass(for: ["kind": .boolean(true)])?.match == .info(0))
    }

    // MARK: - Natural Earth

    static let ratioBreaks = """
        {"type":"classBreaks","valueExpression":"$feature.pop_est / $feature.gdp_md_est",
         "valueExpressionTitle":"People per million dollars of GDP","minValue":0,
         "defaultSymbol":{"type":"esriSFS","style":"esriSFSSolid","color":[200,200,200,255]},"defaultLabel":"more",
         "classBreakInfos":[
           {"classMaxValue":10,"label":"≤ 10","symbol":{"type":"esriSFS","color":[255,255,204,255]}},
           {"classMaxValue":20,"label":"10 – 20","symbol":{"type":"esriSFS","color":[161,218,180,255]}},
           {"classMaxValue":100,"label":"20 – 100","symbol":{"type":"esriSFS","color":[65,182,196,255]}},
           {"classMaxValue":1000,"label":"100 – 1000","symbol":{"type":"esriSFS","color":[34,94,168,255]}}]}
        """

    @Test func populationPerGDPByExpression() throws {
        let table = try RendererAgreementTests.countries()
        let renderer = try Renderer(esriJSON: Self.ratioBreaks)
        let bound = try renderer.bind(to: table)
        // pop_est / gdp_md_est from the fixture: Antarctica 4490 / 898 = 5; Fr. S. Antarctic Lands
        // 140 / 16 = 8.75; Norway 13.26; United States of America 15.31; Qatar 16.11; Germany
        // 21.53; France 24.70; China 97.45; Brazil 114.72; Nigeria 448.46; India 476.28; Chad
        // 15946876 / 11314 = 1409.5, above every class.
        let expected: [(String, Int32)] = [
            ("Antarctica", 0), ("Fr. S. Antarctic Lands", 0), ("Norway", 1), ("United States of America", 1), ("Qatar", 1),
            ("Germany", 2), ("France", 2), ("China", 2), ("Brazil", 3), ("Nigeria", 3), ("India", 3),
            ("Chad", Renderer.defaultClassIndex),
        ]
        let rows = try expected.map { try RendererAgreementTests.row($0.0, in: table) }
        #expect(bound.classify(rows: rows) == expected.map(\.1))
        for (row, (name, index)) in zip(rows, expected) {
            #expect(bound.classIndex(forRow: row) == index, "\(name)")
        }
        #expect(bound.symbolClass(forRow: try RendererAgreementTests.row("Chad", in: table))?.label == "more")
        // Over all 177 countries: 3, 13, 44 and 92 in the classes, 25 above 1000.
        let all = bound.classify(rows: table.liveRows)
        #expect((0..<4).map { k in all.filter { $0 == k }.count } == [3, 13, 44, 92])
        #expect(all.filter { $0 == Renderer.defaultClassIndex }.count == 25)
    }

    @Test func populationPerGDPNormalizedAfterTheExpression() throws {
        let table = try RendererAgreementTests.countries()
        var json = Self.ratioBreaks.replacingOccurrences(of: #""minValue":0,"#, with: #""normalizationType":"esriNormalizeByLog","#)
        json = json.replacingOccurrences(of: #""classMaxValue":10,"#, with: #""classMaxValue":1,"#)
        json = json.replacingOccurrences(of: #""classMaxValue":20,"#, with: #""classMaxValue":2,"#)
        json = json.replacingOccurrences(of: #""classMaxValue":100,"#, with: #""classMaxValue":3,"#)
        let bound = try Renderer(esriJSON: json).bind(to: table)
        // log10 of the ratio: Antarctica 0.699, United States of America 1.185, China 1.989,
        // Brazil 2.060, India 2.678; Chad 3.149 is in the last class (up to 1000).
        let expected: [(String, Int32)] = [
            ("Antarctica", 0), ("United States of America", 1), ("China", 1), ("Brazil", 2), ("India", 2), ("Chad", 3),
        ]
        let rows = try expected.map { try RendererAgreementTests.row($0.0, in: table) }
        #expect(bound.classify(rows: rows) == expected.map(\.1))
        // Percent of total: the ratios sum to 76809.31; Antarctica 0.0065 %, India 0.620 %,
        // Chad 1.835 %.
        let percent = Renderer.classBreaks(
            ClassBreaksRenderer(
                field: "", minValue: 0,
                classBreakInfos: [0.01, 1, 5].map { ClassBreakInfo(classMaxValue: $0, symbol: TestSymbols.a) },
                normalization: .percentOfTotal(total: nil), valueExpression: "$feature.pop_est / $feature.gdp_md_est"))
        let boundPercent = try percent.bind(to: table)
        #expect(abs((boundPercent.normalizationTotal ?? 0) - 76809.31252576923) < 1e-6)
        let names = ["Antarctica", "India", "Chad"]
        let percentRows = try names.map { try RendererAgreementTests.row($0, in: table) }
        #expect(boundPercent.classify(rows: percentRows) == [0, 1, 2])
    }

    @Test func uniqueValueOnAnExpression() throws {
        let table = try RendererAgreementTests.countries()
        // Antarctica's ratio is exactly 5 ("5"), Fr. S. Antarctic Lands' 8.75; no other
        // country's is either.
        let renderer = try Renderer(
            esriJSON: """
                {"type":"uniqueValue","field1":null,"valueExpression":"$feature[\\"pop_est\\"] / $feature['gdp_md_est']",
                 "defaultSymbol":null,"uniqueValueInfos":[
                   {"value":"5","symbol":{"type":"esriSFS","color":[1,0,0,255]}},
                   {"value":8.75,"symbol":{"type":"esriSFS","color":[2,0,0,255]}}]}
                """)
        let bound = try renderer.bind(to: table)
        let all = bound.classify(rows: table.liveRows)
        #expect(all.filter { $0 == 0 }.count == 1)
        #expect(all.filter { $0 == 1 }.count == 1)
        #expect(all.filter { $0 == Renderer.notDrawnClassIndex }.count == 175)
        #expect(bound.classIndex(forRow: try RendererAgreementTests.row("Antarctica", in: table)) == 0)
        #expect(bound.classIndex(forRow: try RendererAgreementTests.row("Fr. S. Antarctic Lands", in: table)) == 1)
        // A single field reference keys by the field's text: 51 African countries.
        let continents = try unique("$feature.CONTINENT", ["Africa", "Europe"]).bind(to: table)
        #expect(continents.classify(rows: table.liveRows).filter { $0 == 0 }.count == 51)
    }

    // MARK: - JSON

    @Test func jsonRoundTrip() throws {
        let renderer = try Renderer(esriJSON: Self.ratioBreaks)
        guard case .classBreaks(let breaks) = renderer else {
            Issue.record("not a class breaks renderer")
            return
        }
        #expect(breaks.valueExpression == "$feature.pop_est / $feature.gdp_md_est")
        #expect(breaks.valueExpressionTitle == "People per million dollars of GDP")
        #expect(breaks.field.isEmpty)
        #expect(renderer.valueExpression == breaks.valueExpression)
        #expect(renderer.fieldNames == ["pop_est", "gdp_md_est"])
        let written = renderer.esriJSON
        #expect(written.contains(#""field":null"#))
        #expect(written.contains(#""valueExpression":"$feature.pop_est / $feature.gdp_md_est""#))
        #expect(written.contains(#""valueExpressionTitle":"People per million dollars of GDP""#))
        #expect(try Renderer(esriJSON: written) == renderer)

        let both = try Renderer(
            esriJSON: """
                {"type":"uniqueValue","field1":"TYPE","valueExpression":"return $feature.A * 2;","valueExpressionTitle":"Twice A",
                 "uniqueValueInfos":[{"value":"14","symbol":{"type":"esriSFS","color":[1,0,0,255]}}]}
                """)
        guard case .uniqueValue(let unique) = both else {
            Issue.record("not a unique-value renderer")
            return
        }
        #expect(unique.fields == ["TYPE"])
        #expect(unique.valueExpression == "return $feature.A * 2;")
        #expect(unique.valueExpressionTitle == "Twice A")
        #expect(both.fieldNames == ["A"])
        #expect(try Renderer(esriJSON: both.esriJSON) == both)
        // The expression is what is classified: A * 2 = 14 on row 0 only.
        #expect(try classes(both, try Self.table()) == [0, nil, nil, nil, nil])

        let onlyExpression = Renderer.uniqueValue(
            UniqueValueRenderer(fields: [], uniqueValueInfos: [], valueExpression: "$feature.A"))
        #expect(onlyExpression.esriJSON.contains(#""field1":null"#))
        #expect(try Renderer(esriJSON: onlyExpression.esriJSON) == onlyExpression)
    }

    @Test func jsonErrors() {
        func error(_ json: String) -> RendererError? {
            do {
                _ = try Renderer(esriJSON: json)
                return nil
            } catch {
                return error
            }
        }
        let function = error(#"{"type":"classBreaks","valueExpression":"Round($feature.A, 1)","classBreakInfos":[]}"#)
        #expect(function?.kind == .unsupportedRenderer)
        #expect(function?.path == "valueExpression")
        #expect(function?.position == 41)
        #expect(function?.message.contains("function calls (Round(…)) are not supported at character 1") == true)
        let comparison = error(#"{"type":"uniqueValue","valueExpression":"$feature.A == 1","uniqueValueInfos":[]}"#)
        #expect(comparison?.message.contains(#"the operator "==""#) == true)
        let notText = error(#"{"type":"classBreaks","valueExpression":3,"classBreakInfos":[]}"#)
        #expect(notText?.kind == .invalidRenderer)
        #expect(notText?.path == "valueExpression")
        // Without an expression the field is still required.
        #expect(error(#"{"type":"classBreaks","valueExpression":null,"classBreakInfos":[]}"#)?.path == "field")
        #expect(error(#"{"type":"uniqueValue","valueExpression":"$feature.A","field2":"B","uniqueValueInfos":[]}"#) != nil)
    }

    // MARK: - Binding errors

    @Test func bindingErrors() throws {
        let table = try Self.table()
        func error(_ renderer: Renderer) -> RendererError? {
            do {
                _ = try renderer.bind(to: table)
                return nil
            } catch {
                return error
            }
        }
        let unknown = error(breaks("$feature.A / $feature.AREA", [1]))
        #expect(unknown?.kind == .unknownField)
        #expect(unknown?.fieldName == "AREA")
        #expect(unknown?.path == "valueExpression")
        #expect(unknown?.message.contains(#""AREA""#) == true)
        let text = error(unique("$feature.NAME * 2", []))
        #expect(text?.kind == .invalidFieldType)
        #expect(text?.fieldName == "NAME")
        let textBreaks = error(breaks("$feature.NAME", [1]))
        #expect(textBreaks?.kind == .invalidFieldType)
        let unsupported = error(unique("IIf($feature.A > 1, 1, 0)", []))
        #expect(unsupported?.kind == .unsupportedRenderer)
        #expect(unsupported?.message.contains("IIf") == true)
        #expect(throws: RendererError.self) { try unique("$feature.A +", []).symbolClass(for: ["A": .integer(1)]) }
        #expect(unique("$feature.A +", []).fieldNames.isEmpty)
        // A unique-value renderer with an expression needs no field.
        #expect(error(unique("$feature.A", [])) == nil)
    }
}
