import SieveColumns
import SieveGeometry
import SieveJSON

extension Field {
    /// Reads an Esri layer-JSON `fields` array:
    /// `[{"name","type","alias","length","nullable","editable","defaultValue","domain"}]`, where a
    /// domain is `{"type":"codedValue","name","codedValues":[{"name","code"}]}` or
    /// `{"type":"range","name","range":[min,max]}`.
    ///
    /// The text may also be a whole layer or FeatureSet JSON object; its `fields` member is
    /// read. `alias` defaults to the name, `nullable` and `editable` to `true`; other members
    /// (`sqlType`, `modelName`, …) are ignored. Default values, codes and range bounds are
    /// converted to the field's type (dates as epoch milliseconds).
    ///
    /// - Throws: ``FeatureTableError/Kind/invalidJSON`` when the text is not JSON;
    ///   ``FeatureTableError/Kind/invalidSchema`` for a missing or non-string `name`, a missing
    ///   or unknown `type`, a member of the wrong JSON type, or a bad domain.
    public static func fields(esriJSON text: String) throws(FeatureTableError) -> [Field] {
        let value: JSONValue
        do throws(GeometryError) {
            value = try JSONReader.parse(text)
        } catch {
            throw FeatureTableError(.invalidJSON, error.message, position: error.position)
        }
        if value.objectValue != nil {
            guard let fields = value["fields"] else {
                throw FeatureTableError(
                    .invalidSchema, "expected a fields array or an object with a \"fields\" member", position: 1)
            }
            return try Self.fields(esriJSON: fields)
        }
        return try Self.fields(esriJSON: value)
    }

    /// Reads a parsed `fields` array (see ``fields(esriJSON:)-(String)``).
    package static func fields(esriJSON value: JSONValue) throws(FeatureTableError) -> [Field] {
        guard let elements = value.arrayValue else {
            throw FeatureTableError(
                .invalidSchema, "\"fields\" must be an array, not \(value.kindDescription)", position: value.position)
        }
        var fields: [Field] = []
        fields.reserveCapacity(elements.count)
        for (i, element) in elements.enumerated() {
            fields.append(try field(esriJSON: element, index: i))
        }
        return fields
    }

    /// Reads one element of a `fields` array.
    static func field(esriJSON value: JSONValue, index: Int) throws(FeatureTableError) -> Field {
        func fail(_ message: String, _ at: JSONValue, field: String? = nil) -> FeatureTableError {
            FeatureTableError(.invalidSchema, "fields[\(index)]: " + message, position: at.position, fieldName: field)
        }
        guard value.objectValue != nil else {
            throw fail("a field must be an object, not \(value.kindDescription)", value)
        }
        guard let nameValue = value["name"] else { throw fail("the field has no \"name\"", value) }
        guard let name = nameValue.stringValue, !name.isEmpty else {
            throw fail("\"name\" must be a non-empty string, not \(nameValue.kindDescription)", nameValue)
        }
        guard let typeValue = value["type"] else { throw fail("the field has no \"type\"", value, field: name) }
        guard let typeName = typeValue.stringValue else {
            throw fail("\"type\" must be a string, not \(typeValue.kindDescription)", typeValue, field: name)
        }
        guard let type = FieldType(esriName: typeName) else {
            let known = FieldType.allCases.map(\.rawValue).joined(separator: ", ")
            throw fail("unknown field type \(JSONKey.quoted(typeName)) (expected one of \(known))", typeValue, field: name)
        }
        func string(_ key: String) throws(FeatureTableError) -> String? {
            guard let member = value[key], !member.isNull else { return nil }
            guard let string = member.stringValue else {
                throw fail("\"\(key)\" must be a string, not \(member.kindDescription)", member, field: name)
            }
            return string
        }
        func bool(_ key: String) throws(FeatureTableError) -> Bool? {
            guard let member = value[key], !member.isNull else { return nil }
            guard let bool = member.boolValue else {
                throw fail("\"\(key)\" must be a boolean, not \(member.kindDescription)", member, field: name)
            }
            return bool
        }
        func scalar(_ member: JSONValue, _ what: String) throws(FeatureTableError) -> ScalarValue {
            do throws(ConversionFailure) {
                return try ValueConversion.scalar(member, type: type)
            } catch {
                throw fail("\(what): \(error.message)", member, field: name)
            }
        }
        var length: Int?
        if let member = value["length"], !member.isNull {
            guard let number = member.numberValue?.exactInt, number >= 0 else {
                throw fail("\"length\" must be a non-negative integer", member, field: name)
            }
            length = number
        }
        var defaultValue: ScalarValue?
        if let member = value["defaultValue"], !member.isNull {
            defaultValue = try scalar(member, "defaultValue")
        }
        var domain: Domain?
        if let member = value["domain"], !member.isNull {
            guard member.objectValue != nil else {
                throw fail("\"domain\" must be an object, not \(member.kindDescription)", member, field: name)
            }
            let domainName = member["name"]?.stringValue ?? ""
            switch member["type"]?.stringValue {
            case "codedValue":
                guard let codes = member["codedValues"]?.arrayValue else {
                    throw fail("a codedValue domain needs a \"codedValues\" array", member, field: name)
                }
                var coded: [CodedValue] = []
                for (j, code) in codes.enumerated() {
                    guard let codeName = code["name"]?.stringValue, let codeValue = code["code"] else {
                        throw fail("codedValues[\(j)] needs a string \"name\" and a \"code\"", code, field: name)
                    }
                    coded.append(CodedValue(name: codeName, code: try scalar(codeValue, "codedValues[\(j)].code")))
                }
                domain = .codedValue(name: domainName, codes: coded)
            case "range":
                guard let range = member["range"]?.arrayValue, range.count == 2 else {
                    throw fail("a range domain needs a \"range\" array [min, max]", member, field: name)
                }
                domain = .range(
                    name: domainName, min: try scalar(range[0], "range minimum"),
                    max: try scalar(range[1], "range maximum"))
            default:
                throw fail("unknown domain type (expected \"codedValue\" or \"range\")", member, field: name)
            }
        }
        return Field(
            name: name, type: type, alias: try string("alias"), length: length, nullable: try bool("nullable") ?? true,
            editable: try bool("editable") ?? true, defaultValue: defaultValue, domain: domain)
    }

    /// The field as an Esri layer-JSON object: `name`, `type`, `alias`, then `length` (when
    /// set), `nullable`, `editable`, `defaultValue` (when set) and `domain` (when set).
    package var esriJSONValue: JSONValue { esriJSONValue(types: .all) }

    /// The field as ``esriJSONValue``, its type declared as `types` says.
    package func esriJSONValue(types: EsriFieldTypes) -> JSONValue {
        var object = JSONObject()
        object.append("name", .string(name))
        object.append("type", .string(types.declared(type).rawValue))
        object.append("alias", .string(alias))
        if let length { object.append("length", .integer(length)) }
        object.append("nullable", .bool(nullable))
        object.append("editable", .bool(editable))
        if let defaultValue { object.append("defaultValue", ValueConversion.json(defaultValue)) }
        if let domain {
            var domainObject = JSONObject()
            switch domain {
            case .codedValue(let domainName, let codes):
                domainObject.append("type", .string("codedValue"))
                domainObject.append("name", .string(domainName))
                domainObject.append(
                    "codedValues",
                    .array(
                        codes.map { code in
                            .object(JSONObject([("name", .string(code.name)), ("code", ValueConversion.json(code.code))]))
                        }))
            case .range(let domainName, let min, let max):
                domainObject.append("type", .string("range"))
                domainObject.append("name", .string(domainName))
                domainObject.append("range", .array([ValueConversion.json(min), ValueConversion.json(max)]))
            }
            object.append("domain", .object(domainObject))
        }
        return .object(object)
    }

    /// The field as compact Esri layer-JSON text (see ``fields(esriJSON:)-(String)``).
    public var esriJSON: String { JSONWriter.string(esriJSONValue) }

    /// A `fields` array as compact Esri layer-JSON text, readable by
    /// ``fields(esriJSON:)-(String)``.
    public static func esriJSON(_ fields: [Field]) -> String {
        JSONWriter.string(.array(fields.map(\.esriJSONValue)))
    }
}
