import SieveColumns
import SieveEditing
import SieveFeatures
import SieveFormats
import SieveGeometry
import SieveJSON

/// Reading and writing an ``ApplyEditsRequest`` as the ArcGIS REST API does, from and to its JSON:
/// `{"adds":[…],"updates":[…],"deletes":[…]}`.
///
///
/// - `adds` and `updates` hold Esri JSON features, `{"attributes":{…},"geometry":{…}}` (the
///   geometry may carry its `spatialReference`), or GeoJSON features,
///   `{"type":"Feature","properties":{…},"geometry":{…}}` (WGS 84; an update's object ID may
///   be the feature's `id`).
/// - `deletes` holds object IDs: a JSON array of integers, or the REST form, one string of
///   integers separated by commas (`"1,2,3"`).
/// - `rollbackOnFailure`, when present, is a boolean.
///
/// Attribute values are taken as JSON gives them — numbers as integers when they are whole and
/// fit 64 bits, strings as text (for a Date field, an ISO 8601 string as that instant), booleans
/// — and checked against the fields when the edits are applied, each failure reported for its
/// edit. What makes the request unusable (not JSON, a member of the wrong shape, an unreadable
/// geometry, an attribute that is an array or object) throws, with where it is.
extension ApplyEditsRequest {
    /// Reads a request for a table of `schema` (whose fields decide how date strings read).
    /// - Throws: ``SieveFeatures/FeatureTableError/Kind/invalidEdits`` with the character position
    ///   and JSON path of the problem; ``/SieveFeatures/FeatureTableError/Kind/invalidJSON`` for
    ///   text that is not JSON.
    public init(json text: String, schema: Schema) throws(FeatureTableError) {
        let root: JSONValue
        do throws(GeometryError) {
            root = try JSONReader.parse(text)
        } catch {
            throw FeatureTableError(.invalidJSON, error.message, position: error.position)
        }
        guard let object = root.objectValue else {
            throw Self.fail("the edits must be a JSON object with adds, updates and deletes, not \(root.kindDescription)", root, "")
        }
        var request = ApplyEditsRequest()
        for (key, value) in object.members {
            switch key {
            case "adds": request.adds = try Self.features(value, path: "adds", schema: schema, update: false)
            case "updates": request.updates = try Self.features(value, path: "updates", schema: schema, update: true)
            case "deletes": request.deletes = try Self.objectIDs(value, path: "deletes")
            case "rollbackOnFailure":
                guard let flag = value.boolValue else {
                    throw Self.fail("rollbackOnFailure must be true or false, not \(value.kindDescription)", value, key)
                }
                request.rollbackOnFailure = flag
            default:
                // Other REST parameters (f, gdbVersion, useGlobalIds, …) are ignored.
                continue
            }
        }
        self = request
    }

    private static func fail(_ message: String, _ value: JSONValue, _ path: String) -> FeatureTableError {
        FeatureTableError(.invalidEdits, path.isEmpty ? message : "\(path): \(message)", position: value.position)
    }

    private static func features(_ value: JSONValue, path: String, schema: Schema, update: Bool) throws(FeatureTableError) -> [FeatureEdit] {
        if value.isNull { return [] }
        guard let elements = value.arrayValue else {
            throw fail("must be an array of features, not \(value.kindDescription)", value, path)
        }
        var edits: [FeatureEdit] = []
        edits.reserveCapacity(elements.count)
        for (i, element) in elements.enumerated() {
            edits.append(try feature(element, path: "\(path)[\(i)]", schema: schema, update: update))
        }
        return edits
    }

    private static func feature(_ value: JSONValue, path: String, schema: Schema, update: Bool) throws(FeatureTableError) -> FeatureEdit {
        guard value.objectValue != nil else {
            throw fail("a feature must be an object, not \(value.kindDescription)", value, path)
        }
        let isGeoJSON = value["type"]?.stringValue == "Feature"
        let attributesKey = isGeoJSON ? "properties" : "attributes"
        var edit = FeatureEdit()
        if let attributes = value[attributesKey], !attributes.isNull {
            guard let members = attributes.objectValue?.members else {
                throw fail("\(attributesKey) must be an object, not \(attributes.kindDescription)", attributes, path)
            }
            for (name, member) in members {
                edit.attributes[name] = try scalar(member, field: schema.field(named: name), path: "\(path).\(attributesKey).\(name)")
            }
        }
        if isGeoJSON, update, let id = value["id"], !id.isNull,
            !edit.attributes.keys.contains(where: { schema.index(ofField: $0) == schema.objectIdFieldIndex })
        {
            guard let number = id.numberValue, let objectID = number.int64 else {
                throw fail("the feature's id must be an integer object ID, not \(id.kindDescription)", id, path + ".id")
            }
            edit.objectID = objectID
        }
        if let geometry = value["geometry"], !geometry.isNull {
            do throws(GeometryError) {
                if isGeoJSON {
                    edit.geometry = try Geometry(geoJSON: geometry, path: path + ".geometry")
                    edit.spatialReference = .wgs84
                } else {
                    let decoded = try Geometry.decodeEsriJSON(geometry, path: path + ".geometry")
                    edit.geometry = decoded.geometry
                    edit.spatialReference = decoded.spatialReference
                }
            } catch {
                throw FeatureTableError(.invalidEdits, error.message, position: error.position)
            }
        }
        return edit
    }

    /// A JSON attribute value as a ``ScalarValue`` (see the type's description).
    private static func scalar(_ value: JSONValue, field: Field?, path: String) throws(FeatureTableError) -> ScalarValue {
        switch value {
        case .null: return .null
        case .bool(let bool, _): return .boolean(bool)
        case .number(let number, _):
            if let integer = number.int64 { return .integer(integer) }
            return .double(number.double)
        case .string(let string, _):
            if field?.type == .date || field?.type == .dateOnly, let milliseconds = CivilTime.parse(string, syntax: .iso8601) {
                return .date(milliseconds)
            }
            return .string(string)
        default:
            throw fail("an attribute value must be a string, number, boolean or null, not \(value.kindDescription)", value, path)
        }
    }

    private static func objectIDs(_ value: JSONValue, path: String) throws(FeatureTableError) -> [Int64] {
        if value.isNull { return [] }
        if let text = value.stringValue {
            var ids: [Int64] = []
            for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                let trimmed = part.trimmingWhitespace()
                guard let id = Int64(trimmed) else {
                    throw fail("\(JSONKey.quoted(String(trimmed))) is not an object ID", value, path)
                }
                ids.append(id)
            }
            return text.isEmpty ? [] : ids
        }
        guard let elements = value.arrayValue else {
            throw fail("must be an array of object IDs or a string of them separated by commas, not \(value.kindDescription)", value, path)
        }
        var ids: [Int64] = []
        ids.reserveCapacity(elements.count)
        for (i, element) in elements.enumerated() {
            guard let id = element.numberValue?.int64 ?? element.stringValue.flatMap({ Int64($0) }) else {
                throw fail("\(ValueConversion.describe(element)) is not an object ID", element, "\(path)[\(i)]")
            }
            ids.append(id)
        }
        return ids
    }
}

extension ApplyEditsRequest {
    /// The request as REST applyEdits JSON, readable by ``init(json:schema:)``:
    /// `{"adds":[…],"updates":[…],"deletes":[…]}`, features in Esri JSON (attributes by name in
    /// name order, dates as epoch milliseconds, the geometry with its spatial reference when the
    /// edit names one), and `"rollbackOnFailure"` when the request sets it. A geometry
    /// collection, which Esri JSON has no type for, is written as the Esri multi-part geometry
    /// of its dimension (as ``/SieveFormats/SieveFeatures/FeatureQueryResult/esriJSON`` writes
    /// one).
    public var json: String {
        var root = JSONObject([
            ("adds", .array(features(adds))), ("updates", .array(features(updates))),
            ("deletes", .array(deletes.map { .number(JSONNumber($0)) })),
        ])
        if let rollbackOnFailure { root.append("rollbackOnFailure", .bool(rollbackOnFailure)) }
        return JSONWriter.string(.object(root))
    }

    /// The request as the form parameters of a layer's REST `applyEdits`: `adds` and `updates`
    /// as JSON arrays of Esri JSON features, `deletes` as comma-separated object IDs (each only
    /// when not empty), and `rollbackOnFailure` when the request sets it.
    package var formParameters: [(name: String, value: String)] {
        var parameters: [(name: String, value: String)] = []
        if !adds.isEmpty { parameters.append(("adds", JSONWriter.string(.array(features(adds))))) }
        if !updates.isEmpty { parameters.append(("updates", JSONWriter.string(.array(features(updates))))) }
        if !deletes.isEmpty { parameters.append(("deletes", deletes.map(String.init).joined(separator: ","))) }
        if let rollbackOnFailure { parameters.append(("rollbackOnFailure", String(rollbackOnFailure))) }
        return parameters
    }

    /// Edits as Esri JSON features (see ``feature(_:days:)``).
    private func features(_ edits: [FeatureEdit]) -> [JSONValue] {
        let days = Set(dateOnlyFieldNames.map { $0.lowercased() })
        return edits.map { Self.feature($0, days: days) }
    }

    /// An edit as an Esri JSON feature: attributes by name in name order, dates as epoch
    /// milliseconds (the fields named in `days`, lower case, as `yyyy-mm-dd`), the geometry
    /// with its spatial reference when the edit names one. Esri JSON has no geometry
    /// collection: a collection is written as its Esri form (``Geometry/esriJSONForm``, the
    /// multi-part geometry of its dimension), an empty one as no geometry.
    private static func feature(_ edit: FeatureEdit, days: Set<String>) -> JSONValue {
        var attributes = JSONObject()
        for (name, value) in edit.attributes.sorted(by: { $0.key < $1.key }) {
            if case .date(let milliseconds) = value, days.contains(name.lowercased()) {
                attributes.append(name, .string(CivilTime.format(milliseconds: milliseconds, dateOnlyAtMidnight: true)))
            } else {
                attributes.append(name, ValueConversion.json(value))
            }
        }
        var object = JSONObject([("attributes", .object(attributes))])
        if let value = edit.geometry?.esriJSONFormValue(spatialReference: edit.spatialReference) {
            object.append("geometry", value)
        }
        return .object(object)
    }
}

extension FeatureTableError.Kind {
    /// An applyEdits request that cannot be read: a member of the wrong shape, an unreadable
    /// geometry, an attribute value that is an array or object.
    public static let invalidEdits = FeatureTableError.Kind(rawValue: "invalid edits")
}
