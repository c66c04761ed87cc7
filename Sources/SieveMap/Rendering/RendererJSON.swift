import SieveGeometry
import SieveJSON

extension Renderer {
    /// Reads a renderer from ArcGIS REST JSON (the value of `drawingInfo.renderer`).
    ///
    /// ```swift
    /// let renderer = try Renderer(esriJSON: #"{"type":"simple","symbol":{"type":"esriSFS","color":[0,0,255,128]}}"#)
    /// ```
    ///
    /// - `uniqueValue`: `field1` (and `field2`, `field3`; an empty name counts as absent),
    ///   `fieldDelimiter` (`","` when absent), `uniqueValueInfos`, `defaultSymbol`,
    ///   `defaultLabel`. A numeric `value` is read as its JavaScript text. When
    ///   `uniqueValueInfos` is absent or empty, the classes of `uniqueValueGroups` are read
    ///   instead, one ``UniqueValueInfo`` per entry of each class's `values` (an array of the
    ///   fields' values, joined with the delimiter).
    /// - `classBreaks`: `field`, `minValue`, `classBreakInfos`, `normalizationType`
    ///   (`esriNormalizeByNone`, `esriNormalizeByField` with `normalizationField`,
    ///   `esriNormalizeByLog`, `esriNormalizeByPercentOfTotal` with an optional
    ///   `normalizationTotal`), `isMaxInclusive`, `defaultSymbol`, `defaultLabel`,
    ///   `backgroundFillSymbol`, `classificationMethod`.
    /// - Both: `valueExpression` and `valueExpressionTitle`. With a `valueExpression`, `field`
    ///   and `field1` may be absent or `null`; when present they are kept (and written back)
    ///   but the expression is what is classified, as in ArcGIS. The expression must be in the
    ///   subset ``ArcadeValueExpression`` describes; it is checked as it is read.
    /// - Other members (`visualVariables`, `rotationExpression`, `authoringInfo`, …) are not
    ///   kept.
    ///
    /// - Throws: ``RendererError`` with the path of the member at fault: invalid JSON, a
    ///   missing or mistyped member, an unknown renderer or symbol type, an Arcade
    ///   `valueExpression` outside the supported subset (``RendererError/Kind/unsupportedRenderer``).
    public init(esriJSON: String) throws(RendererError) {
        self = try Renderer.read(JSONCursor.parse(esriJSON))
    }

    /// Reads a renderer from a parsed JSON value (errors as ``init(esriJSON:)``).
    package init(json: JSONValue) throws(RendererError) {
        self = try Renderer.read(JSONCursor(json))
    }

    /// The renderer as compact ArcGIS REST JSON, e.g. `{"type":"uniqueValue","field1":…}`.
    public var esriJSON: String { JSONWriter.string(jsonValue) }

    /// The renderer as a JSON value.
    package var jsonValue: JSONValue {
        switch self {
        case .simple(let renderer): renderer.jsonValue
        case .uniqueValue(let renderer): renderer.jsonValue
        case .classBreaks(let renderer): renderer.jsonValue
        }
    }

    static func read(_ cursor: JSONCursor) throws(RendererError) -> Renderer {
        _ = try cursor.object("a renderer")
        let typeCursor = try cursor.required("type")
        let type = try typeCursor.string()
        switch type {
        case "simple":
            let symbol = try cursor.required("symbol")
            return .simple(
                SimpleRenderer(
                    symbol: try Symbol.read(symbol), label: try cursor.optionalString("label"),
                    description: try cursor.optionalString("description")))
        case "uniqueValue": return .uniqueValue(try UniqueValueRenderer.read(cursor))
        case "classBreaks": return .classBreaks(try ClassBreaksRenderer.read(cursor))
        default:
            throw typeCursor.error(
                "renderer type \(JSONKey.quoted(type)) is not supported (supported: simple, uniqueValue, classBreaks)",
                kind: .unsupportedRenderer)
        }
    }
}

extension JSONCursor {
    /// The renderer's `valueExpression`, `nil` when absent or `null`.
    /// - Throws: an error at the member when it is not a string or not in the subset
    ///   ``ArcadeValueExpression`` translates.
    func valueExpression() throws(RendererError) -> String? {
        guard let member = member("valueExpression") else { return nil }
        let text = try member.string()
        do {
            _ = try ArcadeValueExpression(text)
        } catch {
            throw member.error(error.message, kind: error.kind)
        }
        return text
    }

    /// This value as a unique value: a string as it is, a number as its JavaScript text.
    func uniqueValueText() throws(RendererError) -> String {
        switch value {
        case .string(let string, _): return string
        case .number(let number, _):
            if number.isIntegerLiteral, let integer = number.int64 { return String(integer) }
            return JavaScriptNumberText.string(number.double)
        case .bool(let bool, _): return bool ? "true" : "false"
        default: throw error("a unique value must be a string or a number, not \(value.kindDescription)")
        }
    }
}

extension SimpleRenderer {
    var jsonValue: JSONValue {
        var object = JSONObjectBuilder()
        object.add("type", .string("simple"))
        object.add("symbol", symbol.jsonValue)
        object.add("label", string: label)
        object.add("description", string: description)
        return object.value
    }
}

extension UniqueValueRenderer {
    static func read(_ cursor: JSONCursor) throws(RendererError) -> UniqueValueRenderer {
        let expression = try cursor.valueExpression()
        var fields: [String] = []
        if expression == nil {
            let field1 = try cursor.required("field1").string()
            guard !field1.isEmpty else { throw try cursor.required("field1").error("field1 must not be empty") }
            fields.append(field1)
        } else if let field1 = try cursor.optionalString("field1"), !field1.isEmpty {
            fields.append(field1)
        }
        let field2 = try cursor.optionalString("field2").flatMap { $0.isEmpty ? nil : $0 }
        let field3 = try cursor.optionalString("field3").flatMap { $0.isEmpty ? nil : $0 }
        if let field2 {
            guard !fields.isEmpty else { throw cursor.error("field2 is given without field1") }
            fields.append(field2)
        }
        if let field3 {
            guard field2 != nil else { throw cursor.error("field3 is given without field2") }
            fields.append(field3)
        }
        let delimiter = try cursor.optionalString("fieldDelimiter") ?? ","
        var infos: [UniqueValueInfo] = []
        if let infosCursor = cursor.member("uniqueValueInfos") {
            for element in try infosCursor.elements() {
                _ = try element.object("a unique value info")
                infos.append(
                    UniqueValueInfo(
                        value: try element.required("value").uniqueValueText(), symbol: try element.symbol("symbol"),
                        label: try element.optionalString("label"), description: try element.optionalString("description")))
            }
        }
        if infos.isEmpty, let groups = cursor.member("uniqueValueGroups") {
            infos = try readGroups(groups, delimiter: delimiter)
        }
        return UniqueValueRenderer(
            fields: fields, fieldDelimiter: delimiter, uniqueValueInfos: infos, defaultSymbol: try cursor.symbol("defaultSymbol"),
            defaultLabel: try cursor.optionalString("defaultLabel"), valueExpression: expression,
            valueExpressionTitle: try cursor.optionalString("valueExpressionTitle"))
    }

    /// The classes of `uniqueValueGroups`, one info per value combination of each class.
    private static func readGroups(_ groups: JSONCursor, delimiter: String) throws(RendererError) -> [UniqueValueInfo] {
        var infos: [UniqueValueInfo] = []
        for group in try groups.elements() {
            _ = try group.object("a unique value group")
            guard let classes = group.member("classes") else { continue }
            for valueClass in try classes.elements() {
                _ = try valueClass.object("a unique value class")
                let symbol = try valueClass.symbol("symbol")
                let label = try valueClass.optionalString("label")
                let description = try valueClass.optionalString("description")
                for entry in try valueClass.required("values").elements() {
                    let value: String
                    if entry.value.arrayValue != nil {
                        var parts: [String] = []
                        for part in try entry.elements() { parts.append(try part.uniqueValueText()) }
                        value = parts.joined(separator: delimiter)
                    } else {
                        value = try entry.uniqueValueText()
                    }
                    infos.append(UniqueValueInfo(value: value, symbol: symbol, label: label, description: description))
                }
            }
        }
        return infos
    }

    var jsonValue: JSONValue {
        var object = JSONObjectBuilder()
        object.add("type", .string("uniqueValue"))
        object.add("field1", fields.first.map { .string($0) } ?? .null())
        object.add("field2", fields.count > 1 ? .string(fields[1]) : .null())
        object.add("field3", fields.count > 2 ? .string(fields[2]) : .null())
        object.add("fieldDelimiter", .string(fieldDelimiter))
        object.add("valueExpression", string: valueExpression)
        object.add("valueExpressionTitle", string: valueExpressionTitle)
        object.add("defaultSymbol", defaultSymbol?.jsonValue ?? .null())
        object.add("defaultLabel", string: defaultLabel)
        object.add(
            "uniqueValueInfos",
            .array(
                uniqueValueInfos.map { info in
                    var element = JSONObjectBuilder()
                    element.add("value", .string(info.value))
                    element.add("symbol", info.symbol?.jsonValue ?? .null())
                    element.add("label", string: info.label)
                    element.add("description", string: info.description)
                    return element.value
                }))
        return object.value
    }
}

extension ClassBreaksRenderer {
    static func read(_ cursor: JSONCursor) throws(RendererError) -> ClassBreaksRenderer {
        let expression = try cursor.valueExpression()
        var field = ""
        if expression == nil {
            let fieldCursor = try cursor.required("field")
            field = try fieldCursor.string()
            guard !field.isEmpty else { throw fieldCursor.error("field must not be empty") }
        } else {
            field = try cursor.optionalString("field") ?? ""
        }
        var infos: [ClassBreakInfo] = []
        for element in try cursor.required("classBreakInfos").elements() {
            _ = try element.object("a class break info")
            infos.append(
                ClassBreakInfo(
                    classMinValue: try element.optionalNumber("classMinValue"),
                    classMaxValue: try element.required("classMaxValue").number(), symbol: try element.symbol("symbol"),
                    label: try element.optionalString("label"), description: try element.optionalString("description")))
        }
        return ClassBreaksRenderer(
            field: field, minValue: try cursor.optionalNumber("minValue"), classBreakInfos: infos,
            normalization: try readNormalization(cursor), isMaxInclusive: try cursor.member("isMaxInclusive")?.bool() ?? true,
            defaultSymbol: try cursor.symbol("defaultSymbol"), defaultLabel: try cursor.optionalString("defaultLabel"),
            backgroundFillSymbol: try cursor.symbol("backgroundFillSymbol"),
            classificationMethod: try cursor.optionalString("classificationMethod"), valueExpression: expression,
            valueExpressionTitle: try cursor.optionalString("valueExpressionTitle"))
    }

    private static func readNormalization(_ cursor: JSONCursor) throws(RendererError) -> ClassBreaksNormalization? {
        guard let typeCursor = cursor.member("normalizationType") else { return nil }
        switch try typeCursor.string() {
        case "esriNormalizeByNone": return nil
        case "esriNormalizeByLog": return .byLog
        case "esriNormalizeByField":
            let fieldCursor = try cursor.required("normalizationField")
            let name = try fieldCursor.string()
            guard !name.isEmpty else { throw fieldCursor.error("normalizationField must not be empty") }
            return .byField(name)
        case "esriNormalizeByPercentOfTotal":
            return .percentOfTotal(total: try cursor.optionalNumber("normalizationTotal"))
        case let other:
            throw typeCursor.error(
                "unknown normalizationType \(JSONKey.quoted(other)); expected esriNormalizeByNone, esriNormalizeByField, "
                    + "esriNormalizeByLog or esriNormalizeByPercentOfTotal")
        }
    }

    var jsonValue: JSONValue {
        var object = JSONObjectBuilder()
        object.add("type", .string("classBreaks"))
        object.add("field", field.isEmpty && valueExpression != nil ? .null() : .string(field))
        object.add("valueExpression", string: valueExpression)
        object.add("valueExpressionTitle", string: valueExpressionTitle)
        object.add("classificationMethod", string: classificationMethod)
        switch normalization {
        case nil: object.add("normalizationType", .string("esriNormalizeByNone"))
        case .byLog: object.add("normalizationType", .string("esriNormalizeByLog"))
        case .byField(let name):
            object.add("normalizationType", .string("esriNormalizeByField"))
            object.add("normalizationField", .string(name))
        case .percentOfTotal(let total):
            object.add("normalizationType", .string("esriNormalizeByPercentOfTotal"))
            object.add("normalizationTotal", number: total)
        }
        object.add("minValue", number: minValue)
        object.add("isMaxInclusive", .bool(isMaxInclusive))
        object.add("defaultSymbol", defaultSymbol?.jsonValue ?? .null())
        object.add("defaultLabel", string: defaultLabel)
        if let backgroundFillSymbol { object.add("backgroundFillSymbol", backgroundFillSymbol.jsonValue) }
        object.add(
            "classBreakInfos",
            .array(
                classBreakInfos.map { info in
                    var element = JSONObjectBuilder()
                    element.add("classMinValue", number: info.classMinValue)
                    element.add("classMaxValue", .double(info.classMaxValue))
                    element.add("symbol", info.symbol?.jsonValue ?? .null())
                    element.add("label", string: info.label)
                    element.add("description", string: info.description)
                    return element.value
                }))
        return object.value
    }
}
