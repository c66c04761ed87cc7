import Testing

@testable import SieveMap

/// Reading and writing renderers, symbols and drawing info as ArcGIS REST JSON.
@Suite("Renderer JSON")
struct RendererJSONTests {
    /// A unique-value renderer as an ArcGIS server writes it, with members this engine does not
    /// keep (`visualVariables`, `authoringInfo`).
    static let uniqueValueREST = """
        {
          "type": "uniqueValue",
          "field1": "LANDUSE", "field2": null, "field3": null,
          "fieldDelimiter": ", ",
          "defaultSymbol": {"type": "esriSFS", "style": "esriSFSSolid", "color": [130, 130, 130, 255],
            "outline": {"type": "esriSLS", "style": "esriSLSSolid", "color": [110, 110, 110, 255], "width": 0.7}},
          "defaultLabel": "Other",
          "uniqueValueInfos": [
            {"value": "Park", "label": "Parks", "description": "",
             "symbol": {"type": "esriSFS", "style": "esriSFSSolid", "color": [56, 168, 0, 128],
               "outline": {"type": "esriSLS", "style": "esriSLSDash", "color": [0, 0, 0, 255], "width": 0.4}}},
            {"value": 12, "label": "Zone 12",
             "symbol": {"type": "esriSFS", "style": "esriSFSForwardDiagonal", "color": [255, 0, 0],
               "outline": null}}
          ],
          "visualVariables": [],
          "authoringInfo": {"colorRamp": {"type": "algorithmic"}}
        }
        """

    @Test func readsRESTUniqueValueRenderer() throws {
        let renderer = try Renderer(esriJSON: Self.uniqueValueREST)
        guard case .uniqueValue(let unique) = renderer else {
            Issue.record("expected a unique-value renderer, got \(renderer)")
            return
        }
        #expect(unique.fields == ["LANDUSE"])
        #expect(unique.fieldDelimiter == ", ")
        #expect(unique.defaultLabel == "Other")
        #expect(unique.uniqueValueInfos.map(\.value) == ["Park", "12"])
        #expect(unique.uniqueValueInfos.map(\.label) == ["Parks", "Zone 12"])
        let park = SimpleFillSymbol(
            style: .solid, color: RGBAColor(red: 56, green: 168, blue: 0, alpha: 128),
            outline: SimpleLineSymbol(style: .dash, color: RGBAColor(red: 0, green: 0, blue: 0), width: 0.4))
        #expect(unique.uniqueValueInfos[0].symbol == .fill(park))
        // Three colour components: opaque; `outline: null`: none.
        let zone = SimpleFillSymbol(style: .forwardDiagonal, color: RGBAColor(red: 255, green: 0, blue: 0, alpha: 255), outline: nil)
        #expect(unique.uniqueValueInfos[1].symbol == .fill(zone))
        #expect(unique.defaultSymbol != nil)
    }

    @Test func roundTripsEveryRendererType() throws {
        let marker = Symbol.marker(
            SimpleMarkerSymbol(
                style: .diamond, color: RGBAColor(red: 1, green: 2, blue: 3, alpha: 4), size: 10.5, angle: 45, xoffset: -2,
                yoffset: 3.25, outline: SimpleLineSymbol(style: .dot, color: nil, width: 2)))
        let line = Symbol.line(SimpleLineSymbol(style: .dashDotDot, color: RGBAColor(red: 200, green: 100, blue: 0), width: 3))
        let fill = Symbol.fill(SimpleFillSymbol(style: .null, color: nil, outline: nil))
        let renderers: [Renderer] = [
            .simple(SimpleRenderer(symbol: marker, label: "All", description: "every feature")),
            .simple(SimpleRenderer(symbol: line)),
            .uniqueValue(
                UniqueValueRenderer(
                    fields: ["A", "b", "C"], fieldDelimiter: "|",
                    uniqueValueInfos: [
                        UniqueValueInfo(value: "x|1|", symbol: fill, label: "X"),
                        UniqueValueInfo(value: "hidden", symbol: nil),
                    ], defaultSymbol: nil, defaultLabel: nil)),
            .uniqueValue(UniqueValueRenderer(fields: ["A"], uniqueValueInfos: [], defaultSymbol: line, defaultLabel: "rest")),
            .classBreaks(
                ClassBreaksRenderer(
                    field: "POP", minValue: 0,
                    classBreakInfos: [
                        ClassBreakInfo(classMaxValue: 10, symbol: marker, label: "low"),
                        ClassBreakInfo(classMinValue: 20, classMaxValue: 1e9, symbol: nil, description: "high"),
                    ], normalization: .byField("AREA"), isMaxInclusive: false, defaultSymbol: fill, defaultLabel: "none",
                    backgroundFillSymbol: fill, classificationMethod: "esriClassifyManual")),
            .classBreaks(
                ClassBreaksRenderer(
                    field: "POP", classBreakInfos: [ClassBreakInfo(classMaxValue: 1, symbol: line)], normalization: .byLog)),
            .classBreaks(
                ClassBreaksRenderer(
                    field: "POP", classBreakInfos: [ClassBreakInfo(classMaxValue: 1, symbol: line)],
                    normalization: .percentOfTotal(total: 1234.5))),
            .classBreaks(
                ClassBreaksRenderer(
                    field: "POP", classBreakInfos: [ClassBreakInfo(classMaxValue: 1, symbol: line)],
                    normalization: .percentOfTotal(total: nil))),
        ]
        for renderer in renderers {
            let text = renderer.esriJSON
            #expect(try Renderer(esriJSON: text) == renderer, "\(text)")
        }
        for symbol in [marker, line, fill] {
            #expect(try Symbol(esriJSON: symbol.esriJSON) == symbol)
        }
        // Reading a server's JSON and writing it gives JSON that reads back to the same value.
        let rest = try Renderer(esriJSON: Self.uniqueValueREST)
        #expect(try Renderer(esriJSON: rest.esriJSON) == rest)
    }

    @Test func writesRESTKeyNamesAndTypes() throws {
        let renderer = Renderer.uniqueValue(
            UniqueValueRenderer(
                fields: ["TYPE"],
                uniqueValueInfos: [UniqueValueInfo(value: "a", symbol: .line(SimpleLineSymbol(color: RGBAColor(red: 1, green: 2, blue: 3))))]))
        #expect(
            renderer.esriJSON
                == #"{"type":"uniqueValue","field1":"TYPE","field2":null,"field3":null,"fieldDelimiter":",","defaultSymbol":null,"#
                + #""uniqueValueInfos":[{"value":"a","symbol":{"type":"esriSLS","style":"esriSLSSolid","color":[1,2,3,255],"width":1}}]}"#)
        let breaks = Renderer.classBreaks(
            ClassBreaksRenderer(field: "P", minValue: 1.5, classBreakInfos: [ClassBreakInfo(classMaxValue: 2, symbol: nil)]))
        #expect(
            breaks.esriJSON
                == #"{"type":"classBreaks","field":"P","normalizationType":"esriNormalizeByNone","minValue":1.5,"isMaxInclusive":true,"#
                + #""defaultSymbol":null,"classBreakInfos":[{"classMaxValue":2,"symbol":null}]}"#)
    }

    @Test func readsClassBreaksWithNormalizations() throws {
        let text = """
            {"type":"classBreaks","field":"POP","minValue":0,"normalizationType":"esriNormalizeByField",
             "normalizationField":"AREA","classBreakInfos":[{"classMaxValue":5,"symbol":null},
             {"classMinValue":7,"classMaxValue":9,"symbol":null},{"classMaxValue":12,"symbol":null}],
             "backgroundFillSymbol":{"type":"esriSFS","style":"esriSFSHollow","color":null}}
            """
        guard case .classBreaks(let breaks) = try Renderer(esriJSON: text) else {
            Issue.record("expected class breaks")
            return
        }
        #expect(breaks.normalization == .byField("AREA"))
        #expect(breaks.isMaxInclusive)
        #expect(breaks.backgroundFillSymbol == .fill(SimpleFillSymbol(style: .hollow, color: nil)))
        // Implicit minimums: the renderer's minValue, then the previous class's maximum.
        #expect(breaks.classBounds.map(\.min) == [0, 7, 9])
        #expect(breaks.classBounds.map(\.max) == [5, 9, 12])
        let log = try Renderer(esriJSON: #"{"type":"classBreaks","field":"P","normalizationType":"esriNormalizeByLog","classBreakInfos":[]}"#)
        guard case .classBreaks(let logBreaks) = log else {
            Issue.record("expected a classBreaks")
            return
        }
        #expect(logBreaks.normalization == .byLog)
        #expect(logBreaks.minValue == nil)
        let percent = try Renderer(
            esriJSON:
                #"{"type":"classBreaks","field":"P","normalizationType":"esriNormalizeByPercentOfTotal","normalizationTotal":50,"classBreakInfos":[]}"#)
        guard case .classBreaks(let percentBreaks) = percent else {
            Issue.record("expected a classBreaks")
            return
        }
        #expect(percentBreaks.normalization == .percentOfTotal(total: 50))
    }

    @Test func readsUniqueValueGroups() throws {
        let text = """
            {"type":"uniqueValue","field1":"A","field2":"B","fieldDelimiter":",",
             "uniqueValueGroups":[{"heading":"Kinds","classes":[
               {"label":"Red things","symbol":{"type":"esriSLS","color":[255,0,0,255],"width":2},
                "values":[["apple","1"],["cherry","2"]]},
               {"label":"Yellow","symbol":{"type":"esriSLS","color":[255,255,0,255],"width":2},"values":[["banana",3]]}]}]}
            """
        guard case .uniqueValue(let unique) = try Renderer(esriJSON: text) else {
            Issue.record("expected a unique-value renderer")
            return
        }
        #expect(unique.fields == ["A", "B"])
        #expect(unique.uniqueValueInfos.map(\.value) == ["apple,1", "cherry,2", "banana,3"])
        #expect(unique.uniqueValueInfos.map(\.label) == ["Red things", "Red things", "Yellow"])
    }

    @Test func drawingInfoRoundTripAndDefaults() throws {
        let text = #"{"renderer":{"type":"simple","symbol":{"type":"esriSLS","style":"esriSLSDot","color":[0,0,0,255],"width":2}},"#
            + #""transparency":25,"labelingInfo":[{"labelExpression":"[NAME]","symbol":{"type":"esriTS"}}]}"#
        let info = try DrawingInfo(esriJSON: text)
        #expect(info.transparency == 25)
        #expect(info.labelingInfoJSON == #"[{"labelExpression":"[NAME]","symbol":{"type":"esriTS"}}]"#)
        #expect(info.esriJSON == text)
        #expect(try DrawingInfo(esriJSON: info.esriJSON) == info)

        let polygon = DrawingInfo.default(for: .polygon)
        #expect(
            polygon.esriJSON
                == #"{"renderer":{"type":"simple","symbol":{"type":"esriSFS","style":"esriSFSSolid","color":[0,112,255,64],"#
                + #""outline":{"type":"esriSLS","style":"esriSLSSolid","color":[0,112,255,255],"width":1}}},"transparency":0,"labelingInfo":null}"#)
        #expect(try DrawingInfo(esriJSON: polygon.esriJSON) == polygon)
        guard case .simple(let point) = Renderer.default(for: .point), case .marker(let marker) = point.symbol else {
            Issue.record("the point default is a simple renderer with a marker")
            return
        }
        #expect(marker.style == .circle)
        #expect(marker.size == 8)
        guard case .simple(let line) = Renderer.default(for: .polyline), case .line(let lineSymbol) = line.symbol else {
            Issue.record("the polyline default is a simple renderer with a line")
            return
        }
        #expect(lineSymbol.width == 1.5)
        #expect(throws: RendererError.self) { try DrawingInfo(esriJSON: #"{"renderer":{"type":"simple","symbol":null}}"#) }
        #expect(throws: RendererError.self) { try DrawingInfo(esriJSON: #"{"renderer":null,"transparency":0}"#) }
    }

    // MARK: - Errors

    /// The error reading `text`, or `nil` when it reads.
    func error(_ text: String) -> RendererError? {
        do {
            _ = try Renderer(esriJSON: text)
            return nil
        } catch {
            return error
        }
    }

    @Test func unknownSymbolTypeNamesTheTypeAndPath() throws {
        let text = #"{"type":"uniqueValue","field1":"A","uniqueValueInfos":[{"value":"x","symbol":{"type":"esriPMS","url":"p.png"}}]}"#
        let error = try #require(self.error(text))
        #expect(error.kind == .unsupportedSymbolType)
        #expect(error.path == "uniqueValueInfos[0].symbol.type")
        #expect(error.message.contains("\"esriPMS\""))
        #expect(error.description.contains("uniqueValueInfos[0].symbol.type"))
        // `{"type":"simple","symbol":{"type":` is 34 characters: the type's value starts at 35.
        let simple = try #require(self.error(#"{"type":"simple","symbol":{"type":"esriTS"}}"#))
        #expect(simple.position == 35)
        #expect(simple.path == "symbol.type")
    }

    @Test func malformedJSONNamesThePath() throws {
        let color = try #require(error(#"{"type":"simple","symbol":{"type":"esriSMS","color":[0,300,0,255]}}"#))
        #expect(color.kind == .invalidRenderer)
        #expect(color.path == "symbol.color[1]")
        let components = try #require(error(#"{"type":"simple","symbol":{"type":"esriSMS","color":[0,0]}}"#))
        #expect(components.path == "symbol.color")
        let max = try #require(error(#"{"type":"classBreaks","field":"P","classBreakInfos":[{"classMaxValue":1},{"label":"b"}]}"#))
        #expect(max.path == "classBreakInfos[1].classMaxValue")
        #expect(max.message.contains("missing"))
        let size = try #require(error(#"{"type":"simple","symbol":{"type":"esriSMS","size":"big"}}"#))
        #expect(size.path == "symbol.size")
        #expect(size.message.contains("a string"))
        let style = try #require(error(#"{"type":"simple","symbol":{"type":"esriSLS","style":"esriSLSWavy"}}"#))
        #expect(style.path == "symbol.style")
        #expect(style.message.contains("esriSLSWavy"))
        let normalization = try #require(
            error(#"{"type":"classBreaks","field":"P","normalizationType":"esriNormalizeBySomething","classBreakInfos":[]}"#))
        #expect(normalization.path == "normalizationType")
        let notJSON = try #require(error(#"{"type":"simple",}"#))
        #expect(notJSON.kind == .invalidJSON)
        #expect(notJSON.position != nil)
        let notObject = try #require(error("[1,2]"))
        #expect(notObject.kind == .invalidRenderer)
        let heatmap = try #require(error(#"{"type":"heatmap","colorStops":[]}"#))
        #expect(heatmap.kind == .unsupportedRenderer)
        #expect(heatmap.path == "type")
        let arcade = try #require(error(#"{"type":"uniqueValue","valueExpression":"Round($feature.A)","uniqueValueInfos":[]}"#))
        #expect(arcade.kind == .unsupportedRenderer)
        #expect(arcade.path == "valueExpression")
        #expect(arcade.message.contains("Round"))
        let field3 = try #require(error(#"{"type":"uniqueValue","field1":"A","field3":"C","uniqueValueInfos":[]}"#))
        #expect(field3.message.contains("field3"))
    }

    // MARK: - Numbers as JavaScript writes them

    @Test func javaScriptNumberText() {
        let cases: [(Double, String)] = [
            (3, "3"), (2.5, "2.5"), (-0.0, "0"), (0.1 + 0.2, "0.30000000000000004"), (1234.5678, "1234.5678"),
            (0.000001, "0.000001"), (1e-7, "1e-7"), (1.5e-10, "1.5e-10"), (1e20, "100000000000000000000"),
            (1.2345678901234568e20, "123456789012345680000"), (1e21, "1e+21"), (-2.5e25, "-2.5e+25"),
            (100, "100"), (-42, "-42"), (.nan, "NaN"), (.infinity, "Infinity"), (-.infinity, "-Infinity"),
        ]
        for (value, text) in cases {
            #expect(JavaScriptNumberText.string(value) == text, "\(value)")
        }
    }
}
