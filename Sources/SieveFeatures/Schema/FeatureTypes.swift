import SieveColumns
import SieveGeometry
import SieveJSON

/// A feature template: how a client creates a new feature of a kind, as Esri layer JSON's
/// `templates` describe it (`{"name","description","drawingTool","prototype":{"attributes":{…}}}`).
public struct FeatureTemplate: Hashable, Sendable {
    /// The name shown to the user, e.g. `"Fire hydrant"`.
    public var name: String
    /// A description.
    public var description: String
    /// The drawing tool a client offers, e.g. `esriFeatureEditToolPoint`.
    public var drawingTool: String?
    /// The attributes a new feature starts with, by field name (matched ignoring case).
    public var prototypeAttributes: [String: ScalarValue]

    /// Creates a template.
    public init(name: String, description: String = "", drawingTool: String? = nil, prototypeAttributes: [String: ScalarValue] = [:]) {
        self.name = name
        self.description = description
        self.drawingTool = drawingTool
        self.prototypeAttributes = prototypeAttributes
    }
}

/// A feature type (Esri layer JSON `types`): the features whose type-ID field holds ``id``,
/// with domains of their own for some fields and templates to create them.
public struct FeatureType: Hashable, Sendable {
    /// The value of the type-ID field that selects this type.
    public var id: ScalarValue
    /// The name shown to the user.
    public var name: String
    /// Field name → the domain that applies to features of this type instead of the field's
    /// own (Esri's `"inherited"` domains are simply not listed).
    public var domains: [String: Domain]
    /// The templates of the type.
    public var templates: [FeatureTemplate]

    /// Creates a type.
    public init(id: ScalarValue, name: String, domains: [String: Domain] = [:], templates: [FeatureTemplate] = []) {
        self.id = id
        self.name = name
        self.domains = domains
        self.templates = templates
    }
}

extension Schema {
    /// The type of a feature whose type-ID field holds `value`, when the schema has types and
    /// one has that ID.
    public func featureType(forTypeID value: ScalarValue) -> FeatureType? {
        guard typeIdFieldName != nil, !value.isNull else { return nil }
        return types.first { Self.sameTypeID($0.id, value) }
    }

    /// Whether two type IDs are the same value (an integer ID matches the equal double).
    static func sameTypeID(_ a: ScalarValue, _ b: ScalarValue) -> Bool {
        if a == b { return true }
        switch (a, b) {
        case (.integer(let x), .double(let y)), (.double(let y), .integer(let x)): return Double(x) == y
        default: return false
        }
    }

    /// The domain that applies to field `index` of a feature of type `type` (the type's own
    /// when it lists one, else the field's).
    package func domain(ofField index: Int, type: FeatureType?) -> Domain? {
        let field = fields[index]
        if let type, let own = type.domains.first(where: { $0.key.lowercased() == field.name.lowercased() })?.value {
            return own
        }
        return field.domain
    }

    /// Reads the `typeIdField`, `types` and `templates` of Esri layer JSON and returns this
    /// schema with them: `{"typeIdField":"KIND","types":[{"id":1,"name":"…","domains":{"FIELD":
    /// {"type":"codedValue",…}|{"type":"inherited"}},"templates":[…]}],"templates":[…]}`.
    /// A missing member means none. Type IDs, domain codes and prototype values are converted
    /// to the fields' types.
    /// - Throws: ``FeatureTableError/Kind/invalidSchema`` naming the member that is wrong.
    public func withTypes(esriLayerJSON text: String) throws(FeatureTableError) -> Schema {
        let value: JSONValue
        do throws(GeometryError) {
            value = try JSONReader.parse(text)
        } catch {
            throw FeatureTableError(.invalidJSON, error.message, position: error.position)
        }
        func fail(_ message: String, _ at: JSONValue) -> FeatureTableError {
            FeatureTableError(.invalidSchema, message, position: at.position)
        }
        guard value.objectValue != nil else { throw fail("the layer must be a JSON object, not \(value.kindDescription)", value) }
        var typeIdField: String?
        if let member = value["typeIdField"], !member.isNull {
            guard let name = member.stringValue else { throw fail("typeIdField must be a string", member) }
            if !name.isEmpty { typeIdField = name }
        }
        let typeField = typeIdField.flatMap { field(named: $0) }
        func scalar(_ member: JSONValue, _ field: Field, _ what: String) throws(FeatureTableError) -> ScalarValue {
            do throws(ConversionFailure) {
                return try ValueConversion.scalar(member, type: field.type)
            } catch {
                throw fail("\(what): \(error.message)", member)
            }
        }
        func templates(_ member: JSONValue?, path: String) throws(FeatureTableError) -> [FeatureTemplate] {
            guard let member, !member.isNull else { return [] }
            guard let elements = member.arrayValue else { throw fail("\(path) must be an array", member) }
            var result: [FeatureTemplate] = []
            for (i, element) in elements.enumerated() {
                guard let name = element["name"]?.stringValue else { throw fail("\(path)[\(i)] needs a string \"name\"", element) }
                var prototype: [String: ScalarValue] = [:]
                if let attributes = element["prototype"]?["attributes"]?.objectValue {
                    for (key, raw) in attributes.members {
                        guard let field = self.field(named: key) else {
                            throw fail("\(path)[\(i)].prototype.attributes: the table has no field \(JSONKey.quoted(key))", raw)
                        }
                        prototype[field.name] = try scalar(raw, field, "\(path)[\(i)].prototype.attributes.\(key)")
                    }
                }
                result.append(
                    FeatureTemplate(
                        name: name, description: element["description"]?.stringValue ?? "",
                        drawingTool: element["drawingTool"]?.stringValue, prototypeAttributes: prototype))
            }
            return result
        }
        var types: [FeatureType] = []
        if let member = value["types"], !member.isNull {
            guard let elements = member.arrayValue else { throw fail("types must be an array", member) }
            for (i, element) in elements.enumerated() {
                guard let typeField else {
                    throw fail("types[\(i)]: types need a typeIdField naming a field of the table", element)
                }
                guard let idValue = element["id"], let name = element["name"]?.stringValue else {
                    throw fail("types[\(i)] needs an \"id\" and a string \"name\"", element)
                }
                var domains: [String: Domain] = [:]
                if let domainMembers = element["domains"]?.objectValue {
                    for (key, domainValue) in domainMembers.members where domainValue["type"]?.stringValue != "inherited" {
                        guard let field = self.field(named: key) else {
                            throw fail("types[\(i)].domains: the table has no field \(JSONKey.quoted(key))", domainValue)
                        }
                        let object = JSONValue.object(
                            JSONObject([("name", .string(field.name)), ("type", .string(field.type.rawValue)), ("domain", domainValue)]))
                        let parsed = try Field.field(esriJSON: object, index: 0)
                        if let domain = parsed.domain { domains[field.name] = domain }
                    }
                }
                types.append(
                    FeatureType(
                        id: try scalar(idValue, typeField, "types[\(i)].id"), name: name, domains: domains,
                        templates: try templates(element["templates"], path: "types[\(i)].templates")))
            }
        }
        return try Schema(
            fields: fields, objectIdFieldName: objectIdFieldName, globalIdFieldName: globalIdFieldName,
            displayFieldName: displayFieldName, geometryType: geometryType, spatialReference: spatialReference,
            typeIdFieldName: typeIdField, types: types, templates: try templates(value["templates"], path: "templates"))
    }

    /// The schema's `typeIdField`, `types` and `templates` as Esri layer JSON members (an object
    /// holding just them), readable by ``withTypes(esriLayerJSON:)``.
    public var esriTypesJSON: String {
        func template(_ template: FeatureTemplate) -> JSONValue {
            var object = JSONObject([("name", .string(template.name)), ("description", .string(template.description))])
            if let tool = template.drawingTool { object.append("drawingTool", .string(tool)) }
            var attributes = JSONObject()
            for (name, value) in template.prototypeAttributes.sorted(by: { $0.key < $1.key }) {
                attributes.append(name, ValueConversion.json(value))
            }
            object.append("prototype", .object(JSONObject([("attributes", .object(attributes))])))
            return .object(object)
        }
        var root = JSONObject()
        root.append("typeIdField", typeIdFieldName.map { .string($0) } ?? .null())
        root.append(
            "types",
            .array(
                types.map { type in
                    var domains = JSONObject()
                    for (name, domain) in type.domains.sorted(by: { $0.key < $1.key }) {
                        let field = Field(name: name, type: field(named: name)?.type ?? .string, domain: domain)
                        if let value = field.esriJSONValue["domain"] { domains.append(name, value) }
                    }
                    return .object(
                        JSONObject([
                            ("id", ValueConversion.json(type.id)), ("name", .string(type.name)), ("domains", .object(domains)),
                            ("templates", .array(type.templates.map(template))),
                        ]))
                }))
        root.append("templates", .array(templates.map(template)))
        return JSONWriter.string(.object(root))
    }
}
